//! A press without a move on an e-board (docs/board-game.md §10): the clock follows the
//! lever (the player's press ends their time; the lever is down on their side and only the
//! arbiter may rule, FIDE 7.5.3), and once the press has waited 3 s for its move the board's
//! problem says so, with the fix for a move the board missed; it goes when the move is on the
//! board, which gets the press's time. A move read just after its press, and a board used as a
//! clock only (no move read in the game), are no problem.

use chessclock_protocol::emulator::{EmuConfig, Running};

use super::{Rig, until};
use chessclock_engine::Side;

fn play(rig: &mut Rig, uci: &str) {
    rig.move_piece(uci);
    rig.run_until(rig.now + 400);
    rig.press();
    rig.run_until(rig.now + 600);
}

/// Run `ms` more, sampling the published board problem every 100 ms.
fn problems_during(rig: &mut Rig, ms: u64) -> Vec<String> {
    let mut seen = Vec::new();
    let end = rig.now + ms;
    while rig.now < end {
        let t = rig.now + 100;
        rig.run_until(t);
        let p = rig.published().board_problem.clone();
        if !p.is_empty() && seen.last() != Some(&p) {
            seen.push(p);
        }
    }
    seen
}

#[test]
fn a_press_without_a_move_runs_the_other_clock_and_is_said_until_the_move_is_on_the_board() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    play(&mut rig, "e2e4");
    play(&mut rig, "e7e5");
    // White presses without moving: Black's time runs, as the lever says.
    rig.press();
    let pressed_at = rig.now;
    assert_eq!(rig.session.engine().to_move(), Some(Side::Black));
    // Within a command's round trip (one may be in flight).
    until(&mut rig, 200, "Black's half runs", |r| {
        r.emu.view().running == Running::Right
    });
    assert_eq!(
        problems_during(&mut rig, 2_500),
        Vec::<String>::new(),
        "not within the grace"
    );
    rig.run_until(pressed_at + 3_100);
    let problem = rig.published().board_problem.clone();
    assert!(
        problem.starts_with("white pressed the clock, but no move of white's is on the board")
            && problem.contains("FIDE 7.5.3")
            && problem
                .contains("; fix: enter the move the board missed, chessclockctl move 7 force UCI"),
        "{problem}"
    );
    // The move comes (late): the problem goes, and the move has the press's clock.
    rig.move_piece("g1f3");
    rig.run_until(rig.now + 500);
    let st = rig.published();
    assert_eq!(st.moves_san, ["e4", "e5", "Nf3"]);
    assert_eq!(st.board_problem, "", "{st:?}");
    let nf3 = rig.session.pgn(rig.at());
    assert!(nf3.contains("Nf3 {[%clk"), "{nf3}");
}

#[test]
fn a_move_read_just_after_its_press_and_a_clock_used_without_its_pieces_are_no_problem() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    play(&mut rig, "e2e4");
    play(&mut rig, "e7e5");
    // White presses first and sets the knight down a second later.
    rig.press();
    rig.run_until(rig.now + 1_000);
    rig.move_piece("g1f3");
    assert_eq!(problems_during(&mut rig, 5_000), Vec::<String>::new());
    assert_eq!(rig.published().moves_san, ["e4", "e5", "Nf3"]);

    // A board used as a clock only: presses, no move read in the game.
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    for _ in 0..4 {
        rig.run_until(rig.now + 1_000);
        rig.press();
    }
    assert_eq!(problems_during(&mut rig, 5_000), Vec::<String>::new());
    assert_eq!(
        rig.session
            .engine()
            .snapshot(rig.session.time_at(rig.at()))
            .moves
            .white,
        2
    );
}
