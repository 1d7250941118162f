//! The clock shows the game after any reopen: the first set-and-run on a link that came
//! back (a replug, a port reopened after a failed write, a restart of the daemon) has the
//! engine's times, within the display's second, and the running player's half, wherever in
//! the game the link was lost (a push in flight, a re-sync pending) and whatever was pressed
//! while nobody could hear it.

use chessclock_protocol::emulator::EmuConfig;
use chessclock_protocol::{ClockCommand, Command, RunFlags, RunSide, SetAndRun};

use super::{Rig, until};
use crate::link::display::{BoardSide, half_of};
use crate::link::driver::{DriverConfig, Instant};
use crate::session::Session;
use chessclock_engine::Status;

/// The control the independent emulator saw the first push one increment high under.
const CONTROL: &str = "G/10 inc/2";

/// The first set-and-run the board received at or after `since_ms`, once it has come.
fn first_push(rig: &Rig, since_ms: u64) -> Option<(u64, SetAndRun)> {
    rig.emu
        .host_log()
        .iter()
        .filter(|e| e.at_ms >= since_ms)
        .find_map(|e| match &e.command {
            Command::Clock(ClockCommand::SetAndRun(s)) => Some((e.at_ms, *s)),
            _ => None,
        })
}

/// Run until the first set-and-run since `since_ms` has arrived and check it: both halves
/// within a second of the engine's display at that instant, and running the half of the
/// player to move, as the engine has it once the link's first report was read (a press made
/// while nobody listened is taken then).
fn check_first_push(rig: &mut Rig, since_ms: u64, what: &str) {
    until(rig, 4_000, what, |r| first_push(r, since_ms).is_some());
    let (at, pushed) = first_push(rig, since_ms).expect("a push");
    assert!(rig.now - at <= 1, "{what}: checked at its arrival");
    let engine = rig.session.engine();
    assert_eq!(engine.status(), Status::Running, "{what}");
    let d = engine.display(rig.session.time_at(Instant::from_ms(at)));
    let (left, right) = (d.white_s, d.black_s); // White on the left (the rig's config)
    let shown = |t: chessclock_protocol::ClockTime| u64::from(t.total_seconds());
    let off = |a: u64, b: u64| a.abs_diff(b);
    assert!(
        off(shown(pushed.left), left) <= 1 && off(shown(pushed.right), right) <= 1,
        "{what}: pushed {pushed:?} at {at} ms, the engine shows {left} s - {right} s"
    );
    rig.run_until(rig.now + 1_000);
    let runner = rig.session.engine().to_move().expect("a side runs");
    let half = match half_of(runner, BoardSide::Left) {
        BoardSide::Left => RunSide::Left,
        BoardSide::Right => RunSide::Right,
    };
    assert_eq!(
        pushed.flags,
        RunFlags::from(half),
        "{what}: pushed {pushed:?} at {at} ms, {runner:?} is to move"
    );
}

/// A game under `G/10 inc/2` whose cable is pulled at every phase of a move (the press's
/// push in flight, its re-sync at the engine's next second pending or in flight, the
/// device's seconds in between) and put back 2 s later, sometimes after a press nobody
/// heard: the first push after each replug is the engine's.
#[test]
fn the_first_push_after_a_replug_is_the_engine_s_at_every_phase_of_a_move() {
    for (i, delay_ms) in (0..1_100).step_by(37).enumerate() {
        let unheard_press = i % 3 == 2;
        let mut rig = Rig::ready(CONTROL, EmuConfig::default());
        rig.start();
        rig.run_until(rig.now + 1_300);
        rig.press();
        rig.run_until(rig.now + 2_100);
        rig.press();
        rig.run_until(rig.now + 700);
        rig.press(); // White, again: Black's time runs now
        rig.run_until(rig.now + delay_ms);
        rig.unplug();
        rig.run_until(rig.now + 900);
        if unheard_press {
            rig.press(); // Black, while nobody listens
        }
        rig.run_until(rig.now + 1_100);
        let back = rig.now;
        rig.replug();
        check_first_push(
            &mut rig,
            back,
            &format!("unplugged {delay_ms} ms after a press, unheard press {unheard_press}"),
        );
    }
}

/// The port reopened after a failed write: the push that was being written is in flight,
/// and the board (a pty the emulator keeps) counted on. The first push on the new port is
/// the engine's.
#[test]
fn the_first_push_after_a_failed_write_and_a_reopen_is_the_engine_s() {
    let mut rig = Rig::ready(CONTROL, EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 1_500);
    // The press's push is written, and the write fails: the actor takes the port as lost.
    rig.emu.press_lever(rig.now);
    let at = rig.at();
    let out = rig.emu.poll_output(rig.now);
    rig.session.handle_input(at, &out);
    let written = rig.session.poll_transmit(at).expect("the press's push");
    assert!(!written.is_empty());
    rig.session
        .disconnect(at, "Input/output error (os error 5)");
    rig.plugged = false;
    rig.run_until(rig.now + 2_000);
    rig.plugged = true;
    let back = rig.now;
    rig.session.connect(rig.at());
    check_first_push(&mut rig, back, "reopened after a failed write");
}

/// The daemon restarts with a push in flight: the resumed session's first push is the
/// engine's.
#[test]
fn the_first_push_of_a_resumed_session_is_the_engine_s() {
    let mut rig = Rig::ready(CONTROL, EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 1_500);
    rig.press();
    let engine = rig.session.engine().clone();
    rig.run_until(rig.now + 2_000);
    let offset = rig.session.time_at(rig.at()).as_ms();
    rig.emu.reset_board(rig.now);
    let mut session = Session::new(
        super::config(),
        DriverConfig::default(),
        engine,
        offset - rig.now,
        None,
    );
    session.connect_first(rig.at());
    rig.session = session;
    let back = rig.now;
    check_first_push(&mut rig, back, "a resumed session");
}

/// A clock that answers sooner than its board: the clock's version ack comes before the
/// board's report of the lever (the clock is asked for both at once). The first push still
/// waits for the lever, so a press made while the cable was out is taken before it.
#[test]
fn the_first_push_waits_for_the_lever_when_the_clock_answers_before_the_board() {
    for (i, delay_ms) in (0..1_100).step_by(37).enumerate() {
        let unheard_press = i % 2 == 1;
        let emu = EmuConfig {
            ack_delay_ms: 2,
            reply_delay_ms: 40,
            ..EmuConfig::default()
        };
        let mut rig = Rig::ready(CONTROL, emu);
        rig.start();
        rig.run_until(rig.now + 1_300);
        rig.press();
        rig.run_until(rig.now + 700);
        rig.press(); // Black: White's time runs
        rig.run_until(rig.now + delay_ms);
        rig.unplug();
        rig.run_until(rig.now + 900);
        if unheard_press {
            rig.press(); // White, while nobody listens
        }
        rig.run_until(rig.now + 1_100);
        let back = rig.now;
        rig.replug();
        check_first_push(
            &mut rig,
            back,
            &format!("acks before reports, {delay_ms} ms, unheard press {unheard_press}"),
        );
    }
}
