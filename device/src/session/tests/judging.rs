//! The board judges the timed game (docs/rules.md), in virtual time against the emulated
//! board: a mate read on the pieces ends the game at once, journaled; one read after the flag
//! is a notice and the flag stands; fivefold is off under double flag.

use chessclock_protocol::board::Piece;
use chessclock_protocol::emulator::{EmuConfig, PieceAction};

use super::Rig;
use chessclock_engine::{BoardEnd, GameResult, Input, ResultReason, Side, Status};

/// Fool's mate (f3 e5 g4 Qh4#), each move followed by its press, `gap_ms` apart; the
/// mating move comes `last_gap_ms` after the one before.
fn fools_mate(rig: &mut Rig, gap_ms: u64, last_gap_ms: u64, press_last: bool) {
    let moves = ["f2f3", "e7e5", "g2g4", "d8h4"];
    for (i, uci) in moves.iter().enumerate() {
        rig.run_until(
            rig.now
                + if i + 1 < moves.len() {
                    gap_ms
                } else {
                    last_gap_ms
                },
        );
        rig.move_piece(uci);
        rig.run_until(rig.now + 300);
        if i + 1 < moves.len() || press_last {
            rig.press();
        }
    }
}

#[test]
fn a_mate_on_the_board_ends_the_timed_game_unpressed() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    fools_mate(&mut rig, 1_000, 1_000, false);
    rig.run_until(rig.now + 5_000);
    let live = rig.published();
    assert_eq!(live.snapshot.status, Status::Ended, "{:?}", live.snapshot);
    assert_eq!(live.snapshot.result, Some(GameResult::BlackWins));
    assert_eq!(live.snapshot.reason, Some(ResultReason::Checkmate));
    assert_eq!(live.snapshot.running, None, "White's clock stopped");
    let white = live.snapshot.white_ms;
    rig.run_until(rig.now + 10_000);
    assert_eq!(
        rig.published().snapshot.white_ms,
        white,
        "and stays stopped"
    );
    assert!(
        rig.journaled().contains(&Input::BoardEnd {
            end: BoardEnd::Checkmate {
                winner: Side::Black
            }
        }),
        "journaled: {:?}",
        rig.journaled()
    );
}

#[test]
fn a_mate_after_the_flag_is_a_notice_and_the_flag_stands() {
    // 5 s each: Black thinks 6 s over the mate, so Black's flag falls before it is read.
    let mut rig = Rig::ready("G/5s", EmuConfig::default());
    rig.start();
    fools_mate(&mut rig, 500, 6_000, true);
    rig.run_until(rig.now + 3_000);
    let live = rig.published();
    assert_eq!(live.snapshot.status, Status::Flagged, "{:?}", live.snapshot);
    assert_eq!(
        live.snapshot.result,
        Some(GameResult::WhiteWins),
        "the flag stands"
    );
    assert!(
        live.notices.iter().any(|n| n.contains("flag fell first")),
        "{:?}",
        live.notices
    );
    assert!(
        !rig.journaled()
            .iter()
            .any(|i| matches!(i, Input::BoardEnd { .. })),
        "no board end taken after the flag"
    );
}

/// The kings walked to d3 and d6, each move pressed: White's king can step to e4 legally.
fn kings_walked_up(rig: &mut Rig) {
    for uci in ["e2e3", "e7e6", "e1e2", "e8e7", "e2d3", "e7d6"] {
        rig.run_until(rig.now + 1_000);
        rig.move_piece(uci);
        rig.run_until(rig.now + 300);
        rig.press();
    }
}

#[test]
fn the_kings_signal_ends_the_game_without_its_trailing_king_move() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    kings_walked_up(&mut rig);
    rig.run_until(rig.now + 1_000);
    // The arbiter sets White's king on e4 (a legal move, read as one), then Black's on d5.
    rig.move_piece("d3e4");
    rig.run_until(rig.now + 400);
    let d6 = "d6".parse().expect("a square");
    let d5 = "d5".parse().expect("a square");
    rig.emu
        .piece_action(rig.now, PieceAction::Lift(d6))
        .expect("lifted");
    rig.emu
        .piece_action(rig.now + 100, PieceAction::Place(d5, Piece::BlackKing))
        .expect("placed");
    rig.run_until(rig.now + 3_000);
    let live = rig.published();
    assert_eq!(live.snapshot.status, Status::Ended, "{:?}", live.snapshot);
    assert_eq!(live.snapshot.result, Some(GameResult::WhiteWins));
    assert_eq!(live.snapshot.reason, Some(ResultReason::BoardSignal));
    assert_eq!(live.moves_san.len(), 6, "{:?}", live.moves_san);
    let pgn = rig.session.pgn(rig.at());
    assert!(!pgn.contains("Ke4"), "{pgn}");
    assert!(pgn.contains("[Result \"1-0\"]"), "{pgn}");
}

#[test]
fn a_flag_against_a_lone_king_is_a_draw() {
    // Black loses every piece (a game found by search, checked by python-chess: 31 plies,
    // Black left with a lone king), moves its king, and White's flag falls.
    let game = [
        "e2e4", "d7d5", "e4d5", "a7a6", "f1a6", "e7e6", "a6b7", "d8h4", "b7a8", "c7c5", "d5e6",
        "h4h6", "e6f7", "e8e7", "f7g8q", "h6h4", "g8h8", "c8e6", "h8f8", "e7d7", "f8b8", "h4b4",
        "b8b4", "h7h5", "b4c5", "e6c4", "c5c4", "d7d8", "d1h5", "g7g5", "h5g5", "d8d7",
    ];
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    for uci in game {
        rig.run_until(rig.now + 500);
        rig.move_piece(uci);
        rig.run_until(rig.now + 300);
        rig.press();
    }
    let live = rig.published();
    assert_eq!(live.moves_san.len(), game.len(), "{:?}", live.clock);
    assert!(
        rig.journaled().contains(&Input::MatingMaterial {
            white: Some(true),
            black: Some(false)
        }),
        "the lone king told to the engine: {:?}",
        rig.journaled()
    );
    rig.run_until(rig.now + 300_000);
    let live = rig.published();
    assert_eq!(live.snapshot.status, Status::Flagged, "{:?}", live.snapshot);
    assert_eq!(live.snapshot.result, Some(GameResult::Draw));
    assert_eq!(
        live.snapshot.reason,
        Some(ResultReason::InsufficientMaterial)
    );
}

/// Sam Loyd's ten-move stalemate: White's 10th move stalemates Black.
pub(super) const LOYD_STALEMATE: [&str; 19] = [
    "e2e3", "a7a5", "d1h5", "a8a6", "h5a5", "h7h5", "h2h4", "a6h6", "a5c7", "f7f6", "c7d7", "e8f7",
    "d7b7", "d8d3", "b7b8", "d3h7", "b8c8", "f7g6", "c8e6",
];

#[test]
fn a_stalemate_on_the_board_draws_the_timed_game() {
    // Each move pressed but the last.
    let game = LOYD_STALEMATE;
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    for (i, uci) in game.iter().enumerate() {
        rig.run_until(rig.now + 500);
        rig.move_piece(uci);
        rig.run_until(rig.now + 300);
        if i + 1 < game.len() {
            rig.press();
        }
    }
    rig.run_until(rig.now + 2_000);
    let live = rig.published();
    assert_eq!(live.snapshot.status, Status::Ended, "{:?}", live.snapshot);
    assert_eq!(live.snapshot.result, Some(GameResult::Draw));
    assert_eq!(live.snapshot.reason, Some(ResultReason::Stalemate));
    assert!(rig.journaled().contains(&Input::BoardEnd {
        end: BoardEnd::Stalemate
    }));
}
