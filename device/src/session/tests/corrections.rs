//! The operator's corrections of the board's game through the session, in virtual time
//! against the emulated board: applied at once (the published moves, the live PGN, a `Move`
//! event for a forced move), journaled as a note, told in the notices; refused with a reason
//! and nothing changed.

use chessclock_game::Correction;
use chessclock_protocol::emulator::EmuConfig;

use super::{Rig, notices};
use crate::session::SessionOutput;
use crate::session::interface::{ClockEvent, DeviceError, Request};
use crate::session::note::Note;

fn play(rig: &mut Rig, uci: &str) {
    rig.move_piece(uci);
    rig.run_until(rig.now + 500);
    rig.press();
    rig.run_until(rig.now + 500);
}

fn corrections(rig: &Rig) -> Vec<String> {
    rig.events
        .iter()
        .filter_map(|(_, ev)| match ev {
            SessionOutput::Note {
                note: note @ Note::Correction { .. },
                record: true,
                ..
            } => Some(note.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn undo_and_a_forced_move_change_the_published_game_the_pgn_and_the_journal_at_once() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    play(&mut rig, "e2e4");
    play(&mut rig, "e7e5");
    assert_eq!(rig.published().moves_san, ["e4", "e5"]);
    rig.request(Request::Correct(Correction::Undo(1)))
        .expect("undo");
    let live = rig.published();
    assert_eq!(live.moves_san, ["e4"]);
    assert!(!rig.session.pgn(rig.at()).contains("e5"));
    assert_eq!(
        corrections(&rig),
        ["correction: undo 1 -> rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]
    );
    assert!(
        notices(&rig)
            .iter()
            .any(|n| n.contains("corrected (undo 1)") && n.contains("do not show it yet")),
        "{:?}",
        notices(&rig)
    );
    // The pawn still stands on e5: the same move is not read again.
    rig.run_until(rig.now + 3_000);
    assert_eq!(rig.published().moves_san, ["e4"]);
    assert!(!rig.published().board_problem.is_empty(), "reported");
    // Black really played c5: the operator forces it; the board catches up.
    rig.request(Request::Correct(Correction::Force("c7c5".into())))
        .expect("force");
    assert_eq!(rig.published().moves_san, ["e4", "c5"]);
    assert!(rig.session.pgn(rig.at()).contains("1. e4 {[%clk"));
    assert!(rig.session.pgn(rig.at()).contains("c5"));
    let forced = rig
        .clock_events()
        .into_iter()
        .any(|(_, e)| matches!(e, ClockEvent::Move { ply: 2, ref uci, .. } if uci == "c7c5"));
    assert!(forced, "a Move event for the forced move");
    assert_eq!(corrections(&rig).len(), 2);
}

/// The notice that the pieces do not show a correction yet goes once they do; the notice of
/// the correction itself stays.
#[test]
fn the_pieces_not_shown_yet_notice_goes_once_the_pieces_show_the_game() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    play(&mut rig, "e2e4");
    play(&mut rig, "e7e5");
    rig.request(Request::Correct(Correction::Undo(1)))
        .expect("undo");
    let pending = |rig: &Rig| {
        notices(rig)
            .iter()
            .any(|n| n.contains("do not show it yet"))
    };
    assert!(pending(&rig), "{:?}", notices(&rig));
    assert!(
        rig.published()
            .notices
            .iter()
            .any(|n| n.contains("do not show it yet"))
    );
    // The pawn goes back to e7: the pieces show the corrected game.
    rig.move_piece("e5e7");
    rig.run_until(rig.now + 1_000);
    let live = rig.published();
    assert!(
        !live
            .notices
            .iter()
            .any(|n| n.contains("do not show it yet")),
        "{:?}",
        live.notices
    );
    assert!(live.board_problem.is_empty(), "{}", live.board_problem);
}

#[test]
fn a_bad_correction_is_refused_with_its_reason_and_changes_nothing() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    play(&mut rig, "e2e4");
    let before = rig.published();
    let cases = [
        (
            Correction::Undo(2),
            "clock 7: cannot take back 2 plies: the game has 1",
        ),
        (
            Correction::Force("e4e5x".into()),
            "not a move in UCI notation",
        ),
        (Correction::Force("e2e4".into()), "not a legal move"),
        (
            Correction::Position("not a fen".into()),
            "not a position to play from",
        ),
    ];
    for (c, want) in cases {
        let err = rig
            .request(Request::Correct(c.clone()))
            .expect_err("refused");
        assert!(
            matches!(&err, DeviceError::Invalid(m) if m.contains(want)),
            "{c}: {err}"
        );
    }
    assert_eq!(rig.published().clock, before.clock);
    assert!(corrections(&rig).is_empty());
}

#[test]
fn a_position_from_the_board_counts_the_players_moves_on_from_its_move_number() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    play(&mut rig, "e2e4");
    play(&mut rig, "e7e5");
    rig.request(Request::Correct(Correction::Board(None)))
        .expect("from the board");
    assert!(rig.published().moves_san.is_empty());
    assert!(rig.session.pgn(rig.at()).contains("[SetUp \"1\"]"));
    play(&mut rig, "g1f3");
    assert_eq!(rig.published().moves_san, ["Nf3"]);
    // White's second move of the game, the first since the position.
    assert_eq!(
        rig.session.board_moves_of(chessclock_engine::Side::White),
        2
    );
    assert_eq!(
        rig.session.board_moves_of(chessclock_engine::Side::Black),
        0
    );
}

#[test]
fn an_observed_clock_s_board_game_is_corrected_as_a_driven_one() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.request(Request::SetMode(crate::session::observe::Mode::Observe))
        .expect("observe");
    for uci in ["d2d4", "d7d5"] {
        rig.move_piece(uci);
        rig.run_until(rig.now + 1_000);
    }
    assert_eq!(rig.published().moves_san, ["d4", "d5"]);
    rig.request(Request::Correct(Correction::Undo(2)))
        .expect("undo in observe mode");
    assert!(rig.published().moves_san.is_empty());
    assert_eq!(corrections(&rig).len(), 1);
}

/// The published `last_move`: set by the session from the move read (number, side, SAN,
/// UCI), taken back with an undo, and numbered from a set-up position's move number.
#[test]
fn the_published_last_move_follows_the_moves_an_undo_and_a_set_up_position() {
    use chessclock_engine::Side;
    let last = |rig: &mut Rig| {
        rig.published()
            .clock
            .last_move
            .map(|m| (m.number, m.side, m.san, m.uci))
    };
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    assert_eq!(last(&mut rig), None, "none before the first move");
    play(&mut rig, "e2e4");
    play(&mut rig, "e7e5");
    play(&mut rig, "g1f3");
    assert_eq!(
        last(&mut rig),
        Some((2, Side::White, "Nf3".into(), "g1f3".into()))
    );
    play(&mut rig, "b8c6");
    assert_eq!(
        last(&mut rig),
        Some((2, Side::Black, "Nc6".into(), "b8c6".into()))
    );
    rig.request(Request::Correct(Correction::Undo(1)))
        .expect("undo");
    assert_eq!(
        last(&mut rig),
        Some((2, Side::White, "Nf3".into(), "g1f3".into()))
    );
    rig.request(Request::Correct(Correction::Position(
        "4k3/8/8/8/8/8/4P3/4K3 b - - 0 41".into(),
    )))
    .expect("position");
    assert_eq!(last(&mut rig), None, "a new position has no move yet");
}
