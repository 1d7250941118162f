//! Finding a board (issue 44 item 3), through the session in virtual time: `Identify` shows
//! the board number with a beep for its seconds, then the times again; it is refused while
//! the game runs, in observe mode, without a clock and for longer than the text limit, and a
//! refusal leaves the display alone.

use chessclock_protocol::emulator::{EmuConfig, Running};
use chessclock_protocol::{ClockCommand, ClockModel, Command};

use super::{Rig, shows_wanted, until};
use crate::link::state::DeviceState;
use crate::session::interface::{DeviceError, Request};
use crate::session::observe::Mode;

/// The beeps the board was sent from `since` (virtual ms) on.
fn beeps_since(rig: &Rig, since: u64) -> usize {
    rig.emu
        .host_log()
        .iter()
        .filter(|e| {
            e.at_ms >= since && matches!(e.command, Command::Clock(ClockCommand::Beep { .. }))
        })
        .count()
}

/// Identify on `rig` for `seconds`: the text it showed, how long it stayed (ms), and the
/// beeps sent with it; the times are back at the end.
fn identify(rig: &mut Rig, seconds: u32) -> (String, u64, usize) {
    let asked = rig.now;
    rig.request(Request::Identify { seconds })
        .unwrap_or_else(|e| panic!("identify refused: {e}"));
    let shown = until(rig, 1_000, "the board number", |r| {
        r.emu.view().text.is_some()
    });
    let text = rig.view().text.unwrap_or_default();
    let back = until(rig, 11_000, "the times again", shows_wanted);
    (text, back - shown, beeps_since(rig, asked))
}

/// The error of a refused identify, which must have changed nothing on the display.
fn refused(rig: &mut Rig, seconds: u32) -> DeviceError {
    let asked = rig.now;
    let before = rig.view();
    let err = rig
        .request(Request::Identify { seconds })
        .expect_err("refused");
    rig.run_until(rig.now + 500);
    let after = rig.view();
    assert_eq!(after.text, before.text, "the display's text is untouched");
    assert_eq!(
        after.running, before.running,
        "the running half is untouched"
    );
    assert_eq!(beeps_since(rig, asked), 0, "no beep");
    err
}

#[test]
fn identify_shows_the_board_number_with_a_beep_then_the_times() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.request(Request::Place {
        round: 1,
        board: 137,
    })
    .expect("place");
    let (text, stayed, beeps) = identify(&mut rig, 0);
    assert_eq!(text, "bd 137");
    assert_eq!(beeps, 1, "one beep");
    assert!(
        stayed.abs_diff(5_000) <= 100,
        "five seconds by default: {stayed} ms"
    );
    assert_eq!(rig.view().left_seconds, 300, "the times again");
    // As long as asked.
    let (_, stayed, _) = identify(&mut rig, 2);
    assert!(stayed.abs_diff(2_000) <= 100, "two seconds: {stayed} ms");
}

#[test]
fn the_dgt_xl_shows_it_on_its_seven_segments_and_a_clock_without_a_number_its_index() {
    let xl = EmuConfig {
        model: ClockModel::DgtXl,
        ..EmuConfig::default()
    };
    let mut rig = Rig::ready("G/5 d/0", xl);
    let (text, _, _) = identify(&mut rig, 1);
    assert_eq!(text, "cl 7", "no board number yet: the clock's index");
    rig.request(Request::Place {
        round: 2,
        board: 1024,
    })
    .expect("place");
    let (text, _, beeps) = identify(&mut rig, 1);
    assert_eq!(text, "bd1024", "six digits: no room for the space");
    assert_eq!(beeps, 1);
}

#[test]
fn identify_is_refused_while_the_game_runs_and_taken_once_it_is_paused() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.request(Request::Place { round: 1, board: 4 })
        .expect("place");
    rig.start();
    until(&mut rig, 1_000, "white running", |r| {
        r.emu.view().running == Running::Left
    });
    let err = refused(&mut rig, 0);
    let DeviceError::NotAllowed(msg) = &err else {
        panic!("not allowed: {err:?}")
    };
    assert!(
        msg.contains("running") && msg.contains("chessclockctl pause 7"),
        "says why and what to do: {msg}"
    );
    rig.request(Request::Pause).expect("pause");
    let (text, _, _) = identify(&mut rig, 1);
    assert_eq!(text, "bd 4");
    assert_eq!(rig.view().running, Running::None, "still paused");
}

#[test]
fn identify_is_refused_without_a_clock_in_observe_mode_and_for_too_long() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    let err = refused(&mut rig, 11);
    assert!(
        matches!(&err, DeviceError::Invalid(m) if m.contains("at most 10 s")),
        "{err:?}"
    );
    rig.request(Request::SetMode(Mode::Observe))
        .expect("observe");
    let err = refused(&mut rig, 0);
    assert!(
        matches!(&err, DeviceError::NotAllowed(m) if m.contains("observe mode")),
        "{err:?}"
    );

    let no_clock = EmuConfig {
        clock_present: false,
        ..EmuConfig::default()
    };
    let mut rig = Rig::new("G/5 d/0", no_clock);
    rig.run_until(1_000);
    assert_eq!(rig.session.device_state(), DeviceState::NoClock);
    let err = refused(&mut rig, 0);
    assert!(
        matches!(&err, DeviceError::NotAllowed(m) if m.contains("reports no clock")),
        "{err:?}"
    );
}
