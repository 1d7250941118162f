//! The board's game across a restart, in virtual time against the emulated board: every
//! change of the game is said as a step (moves read, corrections, the times of presses),
//! a new session folds the steps into the same game (the same PGN), then reconciles it with
//! the pieces at the first dump: the same position goes on, moves made while the daemon was
//! down are read as moves (and said), from the board's own memory when the pieces alone do
//! not explain them, anything else is a board problem, never a start position. And every change of the game is judged, a position set by the operator too.

use chessclock_game::{Correction, Step};
use chessclock_protocol::emulator::EmuConfig;

use super::{Rig, config, notices};
use crate::link::driver::{DriverConfig, Instant};
use crate::session::interface::Request;
use crate::session::note::Note;
use crate::session::{Session, SessionOutput};
use chessclock_engine::{GameResult, ResultReason, Status};

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Move the pieces of `uci` on the board (the host hears it if the cable is in).
fn pieces(rig: &mut Rig, uci: &str) {
    rig.move_piece(uci);
    rig.run_until(rig.now + 500);
}

/// A move on the board, then its press.
fn play(rig: &mut Rig, uci: &str) {
    pieces(rig, uci);
    rig.press();
    rig.run_until(rig.now + 500);
}

/// The board's steps the session said so far, with their engine times.
fn steps(rig: &Rig) -> Vec<(u64, Step)> {
    rig.events
        .iter()
        .filter_map(|(_, ev)| match ev {
            SessionOutput::Board { t_ms, step } => Some((*t_ms, step.clone())),
            _ => None,
        })
        .collect()
}

/// e4 e5 Nf3 with presses; Nf3 taken back by the operator while the knight stands on f3,
/// forced again (the pieces agree again); Nc6.
fn opening(rig: &mut Rig) {
    rig.start();
    play(rig, "e2e4");
    play(rig, "e7e5");
    play(rig, "g1f3");
    rig.request(Request::Correct(Correction::Undo(1)))
        .expect("undo");
    rig.request(Request::Correct(Correction::Force("g1f3".into())))
        .expect("force");
    play(rig, "b8c6");
    assert_eq!(rig.published().moves_san, ["e4", "e5", "Nf3", "Nc6"]);
}

/// The daemon stops (the cable's end goes quiet); `while_down` happens on the board; a new
/// session on the same engine folds the journaled steps; the port opens again.
fn restart(rig: &mut Rig, while_down: impl FnOnce(&mut Rig)) -> String {
    let journal = steps(rig);
    let engine = rig.session.engine().clone();
    let offset = rig.session.time_at(rig.at()).as_ms() - rig.now;
    rig.plugged = false;
    while_down(rig);
    // The game as the dead daemon left it, clocks at the restart's instant.
    let before = rig.session.pgn(rig.at());
    let mut session = Session::new(config(), DriverConfig::default(), engine, offset, None);
    session.resume_board(journal);
    assert!(
        session.published(rig.at()).notices.is_empty(),
        "every step fits"
    );
    let rebuilt = session.pgn(rig.at());
    rig.session = session;
    rig.events.clear();
    rig.plugged = true;
    rig.emu.reset_board(rig.now);
    rig.session.connect_first(Instant::from_ms(rig.now));
    rig.run_until(rig.now + 3_000);
    assert_eq!(rebuilt, before, "the same game before the pieces are read");
    before
}

#[test]
fn the_rebuilt_game_is_the_same_game_and_goes_on_with_the_next_move() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    opening(&mut rig);
    assert!(
        steps(&rig)
            .iter()
            .any(|(_, s)| matches!(s, Step::Held { board } if !board.is_empty())),
        "the undo held the board: {:?}",
        steps(&rig)
    );
    let before = restart(&mut rig, |_| {});
    let live = rig.published();
    assert_eq!(live.moves_san, ["e4", "e5", "Nf3", "Nc6"]);
    assert!(live.board_problem.is_empty(), "{}", live.board_problem);
    assert!(notices(&rig).is_empty(), "{:?}", notices(&rig));
    // The [%clk] of every move came back with it.
    assert_eq!(
        before.matches("[%clk").count(),
        4,
        "every move has its clock: {before}"
    );
    play(&mut rig, "f1c4");
    assert_eq!(
        rig.published().moves_san,
        ["e4", "e5", "Nf3", "Nc6", "Bc4"],
        "one game"
    );
    let pgn = rig.session.pgn(rig.at());
    assert!(
        pgn.contains("3. Bc4") && pgn.matches("[%clk").count() == 5,
        "{pgn}"
    );
}

#[test]
fn moves_made_while_the_daemon_was_down_are_read_as_moves_and_said() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    opening(&mut rig);
    restart(&mut rig, |rig| pieces(rig, "f1c4"));
    assert_eq!(rig.published().moves_san, ["e4", "e5", "Nf3", "Nc6", "Bc4"]);
    let said = notices(&rig);
    assert!(
        said.iter()
            .any(|n| n.contains("while chessclockd was not running") && n.contains("Bc4")),
        "{said:?}"
    );
}

#[test]
fn other_pieces_after_a_restart_are_a_board_problem_never_a_start_position() {
    // A board whose memory holds nothing (a ring of only its end marker).
    let mut emu = EmuConfig::default();
    emu.board.ee_log_bytes = 1;
    let mut rig = Rig::ready("G/5", emu);
    opening(&mut rig);
    // Three plies while down: no one or two legal moves explain the board, nor does its
    // memory.
    restart(&mut rig, |rig| {
        for uci in ["f1c4", "g8f6", "d2d3"] {
            pieces(rig, uci);
        }
    });
    let live = rig.published();
    assert_eq!(live.moves_san, ["e4", "e5", "Nf3", "Nc6"], "the game kept");
    assert_ne!(live.fen, START_FEN);
    assert!(
        live.board_problem
            .contains("does not show the game's position"),
        "{}",
        live.board_problem
    );
    let said = notices(&rig);
    assert!(
        said.iter()
            .any(|n| n.contains("the board's memory was not used")
                && n.contains("no power-up inventory")),
        "{said:?}"
    );
}

/// FIDE 6.9: a flag against a player whose opponent has a lone king is a draw, judged on
/// the position the operator set, before any move is made from it.
#[test]
fn a_flag_right_after_a_position_with_a_lone_king_is_a_draw() {
    let mut rig = Rig::ready("G/10s", EmuConfig::default());
    rig.start();
    rig.request(Request::Correct(Correction::Position(
        "4k3/8/8/8/8/8/8/3QK3 w - - 0 60".into(),
    )))
    .expect("position");
    rig.run_until(rig.now + 12_000);
    let snap = rig.published().snapshot;
    assert_eq!(snap.status, Status::Flagged, "{snap:?}");
    assert_eq!(snap.result, Some(GameResult::Draw), "{snap:?}");
    assert_eq!(
        snap.reason,
        Some(ResultReason::InsufficientMaterial),
        "{snap:?}"
    );
}

#[test]
fn a_journaled_step_that_does_not_fit_stops_the_rebuild_there_and_says_so() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    opening(&mut rig);
    let mut journal = steps(&rig);
    // The journal's first move, made at the end again: no longer legal there.
    let (first_t, first_move) = journal
        .iter()
        .find(|(_, s)| matches!(s, Step::Move { .. }))
        .cloned()
        .expect("a move");
    journal.push((first_t, first_move));
    // A move after it is not taken either: the rebuild stopped.
    journal.push((
        first_t,
        Step::Move {
            uci: "f1c4".into(),
            corrects: false,
            clock_ms: None,
            elapsed_ms: None,
            from_press: false,
        },
    ));
    let engine = rig.session.engine().clone();
    let offset = rig.session.time_at(rig.at()).as_ms() - rig.now;
    let mut session = Session::new(config(), DriverConfig::default(), engine, offset, None);
    session.resume_board(journal);
    let live = session.published(rig.at());
    assert_eq!(live.moves_san, ["e4", "e5", "Nf3", "Nc6"]);
    assert_eq!(live.notices.len(), 1, "{:?}", live.notices);
    assert!(
        live.notices[0].contains("could not be rebuilt past ply 4")
            && live.notices[0].contains(&format!("chessclockctl move {} ", session.clock())),
        "{}",
        live.notices[0]
    );
}

#[test]
fn moves_the_pieces_cannot_explain_are_read_from_the_board_s_memory() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    opening(&mut rig);
    // Three plies while down: no one or two legal moves explain the board, the board's own
    // log does.
    restart(&mut rig, |rig| {
        for uci in ["f1c4", "g8f6", "d2d3"] {
            pieces(rig, uci);
        }
    });
    rig.run_until(rig.now + 10_000);
    let live = rig.published();
    let said = notices(&rig);
    assert_eq!(
        live.moves_san,
        ["e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6", "d3"],
        "{said:?}"
    );
    assert!(live.board_problem.is_empty(), "{}", live.board_problem);
    assert!(
        said.iter()
            .any(|n| n.contains("board's memory shows Bc4 Nf6 d3")),
        "{said:?}"
    );
    // Journaled: the moves as the board game's steps, and a note that they came from the
    // board's memory. The PGN has them, without a clock (the memory has none).
    assert!(
        steps(&rig)
            .iter()
            .any(|(_, s)| matches!(s, Step::Move { uci, .. } if uci == "d2d3")),
        "{:?}",
        steps(&rig)
    );
    assert!(
        rig.events.iter().any(|(_, e)| matches!(
            e,
            SessionOutput::Note { note: Note::BoardMemory { moves, .. }, .. } if moves == "Bc4 Nf6 d3"
        )),
        "the board memory note"
    );
    let pgn = rig.session.pgn(rig.at());
    assert!(
        pgn.contains("3. Bc4 Nf6") && pgn.contains("4. d3 *"),
        "{pgn}"
    );
    assert_eq!(pgn.matches("[%clk").count(), 4, "{pgn}");
}

#[test]
fn moves_made_while_the_cable_was_out_are_read_from_the_board_s_memory() {
    // A battery board unplugged from the host (or a Bluetooth gap): it keeps logging.
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    opening(&mut rig);
    rig.unplug();
    for uci in ["f1c4", "g8f6", "d2d3"] {
        pieces(&mut rig, uci);
    }
    rig.replug();
    rig.run_until(rig.now + 5_000);
    let live = rig.published();
    let said = notices(&rig);
    assert_eq!(
        live.moves_san,
        ["e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6", "d3"],
        "{said:?}"
    );
    assert!(live.board_problem.is_empty(), "{}", live.board_problem);
    // The next replug with the pieces as the game has them asks nothing.
    let asked = rig
        .emu
        .host_log()
        .iter()
        .filter(|h| h.command == chessclock_protocol::Command::SendEeMoves)
        .count();
    assert_eq!(asked, 1);
    rig.unplug();
    rig.replug();
    rig.run_until(rig.now + 5_000);
    let again = rig
        .emu
        .host_log()
        .iter()
        .filter(|h| h.command == chessclock_protocol::Command::SendEeMoves)
        .count();
    assert_eq!(
        again, 1,
        "a board that shows the game's position is not asked"
    );
}
