//! Who can still mate, in the session, in virtual time against the emulated board: a move
//! into a dead position ends the game at once (a locked wall, a forced capture into a bare
//! king), a flag is judged by the search (FIDE 6.9, USCF 14E), waits for a search not
//! answered yet, and a search that never answers counts as not decided.

use chessclock_protocol::board::{Piece, Square};
use chessclock_protocol::emulator::{EmuConfig, PieceAction};

use super::{Rig, config, engine};
use crate::session::DrawRules;
use crate::session::interface::Request;
use crate::session::verdicts::VERDICT_WAIT;
use chessclock_engine::{BoardEnd, GameResult, Input, Mating, ResultReason, Side, Status};
use chessclock_game::Correction;

/// A rig on `control` under `rules`, ready.
fn rig(control: &str, rules: Option<DrawRules>) -> Rig {
    let mut cfg = config();
    cfg.draw_rules = rules;
    let mut rig = Rig::with(cfg, engine(control), 0, None, EmuConfig::default());
    rig.run_until(1_000);
    rig
}

/// The operator sets `fen` as the game's position, then the arbiter sets the pieces so.
fn set_up(rig: &mut Rig, fen: &str) {
    rig.request(Request::Correct(Correction::Position(fen.into())))
        .unwrap_or_else(|e| panic!("{fen}: {e}"));
    rig.emu
        .piece_action(rig.now, PieceAction::Clear)
        .expect("cleared");
    let placement = fen.split(' ').next().expect("a placement");
    for (r, rank) in placement.split('/').enumerate() {
        let mut file = 0u8;
        for c in rank.chars() {
            if let Some(d) = c.to_digit(10) {
                file += u8::try_from(d).expect("a digit");
                continue;
            }
            let square: Square = format!("{}{}", char::from(b'a' + file), 8 - r)
                .parse()
                .expect("a square");
            let piece = Piece::from_char(c).expect("a piece");
            rig.emu
                .piece_action(rig.now, PieceAction::Place(square, piece))
                .expect("placed");
            file += 1;
        }
    }
    rig.run_until(rig.now + 2_000);
    assert_eq!(rig.published().board_problem, "", "the pieces show {fen}");
}

fn result(rig: &mut Rig) -> (Status, Option<GameResult>, Option<ResultReason>) {
    let s = rig.published().snapshot;
    (s.status, s.result, s.reason)
}

fn can_mate(rig: &mut Rig) -> Option<(Mating, Mating)> {
    rig.published().can_mate.map(|w| (w.white, w.black))
}

#[test]
fn a_move_that_locks_the_pawn_wall_ends_the_game_at_once() {
    let mut rig = rig("G/5", None);
    rig.start();
    // White's g-pawn may still take on f5; g4-g5 locks every pawn and both kings out.
    set_up(&mut rig, "8/3k4/6p1/p2p1p2/P2P1PP1/2K5/8/8 w - - 0 1");
    assert_eq!(result(&mut rig).0, Status::Running);
    assert_eq!(can_mate(&mut rig), Some((Mating::CanMate, Mating::CanMate)));
    rig.run_until(rig.now + 1_000);
    rig.move_piece("g4g5");
    rig.run_until(rig.now + 300);
    assert_eq!(
        result(&mut rig),
        (
            Status::Ended,
            Some(GameResult::Draw),
            Some(ResultReason::DeadPosition)
        )
    );
    assert_eq!(
        can_mate(&mut rig),
        Some((Mating::CannotMate, Mating::CannotMate))
    );
    let white = rig.published().snapshot.white_ms;
    rig.run_until(rig.now + 10_000);
    assert_eq!(
        rig.published().snapshot.white_ms,
        white,
        "the clock stopped"
    );
    assert!(rig.journaled().contains(&Input::BoardEnd {
        end: BoardEnd::DeadPosition
    }));
    assert!(
        rig.session.pgn(rig.at()).contains("[Result \"1/2-1/2\"]"),
        "the PGN has the draw"
    );
}

#[test]
fn a_check_whose_only_answer_takes_the_queen_ends_the_game_when_the_search_answers() {
    let mut rig = rig("G/5", None);
    rig.start();
    set_up(&mut rig, "8/8/8/8/4K3/6Q1/8/7k w - - 0 1");
    rig.answer_searches = false;
    rig.move_piece("g3g2");
    rig.run_until(rig.now + 300);
    // The material alone does not see it: the game runs while the search does.
    assert_eq!(result(&mut rig).0, Status::Running);
    assert_eq!(rig.held.len(), 1, "one search asked");
    assert_eq!(
        can_mate(&mut rig),
        Some((Mating::Undetermined, Mating::CannotMate)),
        "the quick check: a lone king cannot mate"
    );
    rig.answer_searches();
    assert_eq!(
        result(&mut rig),
        (
            Status::Ended,
            Some(GameResult::Draw),
            Some(ResultReason::DeadPosition)
        )
    );
}

#[test]
fn a_flag_behind_a_locked_wall_is_a_draw_where_dead_positions_play_on() {
    // draw_rules = "none": the dead position does not end the game, the flag is judged.
    let mut rig = rig("G/5s", Some(DrawRules::None));
    rig.start();
    set_up(&mut rig, "8/3k4/6p1/p2p1pP1/P2P1P2/2K5/8/8 w - - 0 1");
    assert_eq!(result(&mut rig).0, Status::Running, "played on");
    rig.run_until(rig.now + 6_000);
    assert_eq!(
        result(&mut rig),
        (
            Status::Flagged,
            Some(GameResult::Draw),
            Some(ResultReason::InsufficientMaterial)
        ),
        "White's flag: Black cannot mate behind the wall (FIDE 6.9)"
    );
}

#[test]
fn a_flag_waits_for_the_search_and_then_takes_its_verdict() {
    let mut rig = rig("G/5s", None);
    rig.start();
    // K+R v K+N: White's flag loses under FIDE: Black can be helped to mate.
    set_up(&mut rig, "8/8/5n2/5k2/8/8/2K5/7R w - - 0 1");
    rig.answer_searches = false;
    rig.request(Request::Correct(Correction::Position(
        "8/8/5n2/5k2/8/8/2K5/7R w - - 0 2".into(),
    )))
    .expect("the same position again");
    assert!(!rig.held.is_empty(), "a search asked");
    // White's flag falls before the wait for the search runs out.
    rig.run_until(rig.now + 3_500);
    let live = rig.published();
    assert_eq!(
        (live.snapshot.status, live.snapshot.result),
        (Status::Flagged, None),
        "the flag waits"
    );
    assert!(
        live.notices.iter().any(|n| n.contains("the result waits")),
        "{:?}",
        live.notices
    );
    rig.answer_searches();
    assert_eq!(
        result(&mut rig),
        (
            Status::Flagged,
            Some(GameResult::BlackWins),
            Some(ResultReason::Flag(chessclock_engine::FlagReason::Time))
        )
    );
}

#[test]
fn a_search_that_does_not_answer_in_time_counts_as_not_decided() {
    let mut rig = rig("G/10s", None);
    rig.start();
    rig.answer_searches = false;
    set_up(&mut rig, "8/8/5n2/5k2/8/8/2K5/7R w - - 0 1");
    let asked = rig.at();
    rig.run_until(rig.now + 12_000);
    assert!(rig.at() > asked + VERDICT_WAIT);
    // The wait ran out before the flag: FIDE 6.9 scores it lost, and the arbiter is told.
    let live = rig.published();
    assert_eq!(live.snapshot.result, Some(GameResult::BlackWins));
    assert!(
        live.notices.iter().any(|n| n.contains("did not answer")),
        "{:?}",
        live.notices
    );
    assert!(
        live.notices
            .iter()
            .any(|n| n.contains("arbiter may review")),
        "{:?}",
        live.notices
    );
    // A late answer changes nothing.
    rig.answer_searches();
    assert_eq!(rig.published().snapshot.result, Some(GameResult::BlackWins));
}

#[test]
fn under_us_chess_rules_a_flag_against_a_lone_knight_draws_without_a_forced_win() {
    let mut rig = rig("G/10s", Some(DrawRules::Uscf));
    rig.start();
    set_up(&mut rig, "8/8/5n2/5k2/8/8/2K5/7R w - - 0 1");
    rig.run_until(rig.now + 12_000);
    let live = rig.published();
    assert_eq!(
        (
            live.snapshot.status,
            live.snapshot.result,
            live.snapshot.reason
        ),
        (
            Status::Flagged,
            Some(GameResult::Draw),
            Some(ResultReason::InsufficientMaterial)
        ),
        "USCF 14E2: no forced mate by the knight"
    );
    assert!(
        live.notices
            .iter()
            .any(|n| n.contains("14E2") && n.contains("arbiter may review")),
        "{:?}",
        live.notices
    );
}

#[test]
fn under_us_chess_rules_a_forced_mate_by_a_knight_wins_on_time() {
    let mut rig = rig("G/10s", Some(DrawRules::Uscf));
    rig.start();
    rig.run_until(rig.now + 500);
    rig.press();
    assert_eq!(rig.published().snapshot.running, Some(Side::Black));
    // Black's clock runs; the board shows White to move, Nc7 mating.
    set_up(&mut rig, "k1K5/p7/8/3N4/8/8/8/8 w - - 0 1");
    rig.run_until(rig.now + 12_000);
    assert_eq!(
        result(&mut rig),
        (
            Status::Flagged,
            Some(GameResult::WhiteWins),
            Some(ResultReason::Flag(chessclock_engine::FlagReason::Time))
        ),
        "USCF 14E2: a forced win"
    );
}
