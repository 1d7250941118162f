//! The flag icons (a double-flag player on extra time): sent when they change, kept across
//! set-and-runs, sent again to a board plugged back in; a clock that ignores them costs one
//! ack timeout once, keeps its state, and is sent no more.

use chessclock_protocol::ClockCommand;
use chessclock_protocol::emulator::{EmuConfig, Running};

use super::{Pair, ready, running_left};
use crate::link::display::BoardSide;
use crate::link::display::Face;
use crate::link::driver::{DriverConfig, DriverEvent, Kind};
use crate::link::state::DeviceState;

fn icons(p: &Pair) -> Vec<u64> {
    p.sent_clock(|c| matches!(c, ClockCommand::Icons { .. }))
}

fn shown(p: &Pair) -> (bool, bool) {
    let v = p.emu.view();
    (v.left_flag_icon, v.right_flag_icon)
}

#[test]
fn flag_icons_are_sent_on_change_and_kept_across_pushes_and_replugs() {
    let mut p = ready(EmuConfig::default());
    p.show(running_left());
    p.driver.flag_icons(true, false);
    p.run_for(200);
    assert_eq!(shown(&p), (true, false));
    // The same icons again: nothing sent; a new push keeps them on the clock.
    let sent = icons(&p).len();
    p.driver.flag_icons(true, false);
    p.show(Face {
        left_s: 59,
        right_s: 180,
        run: Some(BoardSide::Right),
    });
    p.run_for(200);
    assert_eq!(icons(&p).len(), sent);
    assert_eq!(shown(&p), (true, false));
    assert_eq!(p.emu.view().running, Running::Right);
    p.driver.flag_icons(false, false);
    p.run_for(200);
    assert_eq!(shown(&p), (false, false));
    // A replug: the link forgot what it sent; the caller's next push sends them again.
    p.driver.flag_icons(false, true);
    p.run_for(200);
    p.unplug();
    p.run_for(1_000);
    p.replug();
    p.run_for(1_000);
    assert_eq!(p.driver.device_state(), DeviceState::Ready);
    let before = icons(&p).len();
    p.driver.flag_icons(false, true);
    p.run_for(200);
    assert_eq!(icons(&p).len(), before + 1);
    assert_eq!(shown(&p), (false, true));
}

#[test]
fn a_clock_that_ignores_icons_costs_one_timeout_once_and_stays_ready() {
    let mut p = ready(EmuConfig {
        clock_takes_icons: false,
        ..EmuConfig::default()
    });
    let timeout = u64::try_from(DriverConfig::default().command_timeout.as_millis()).unwrap_or(0);
    let start = p.now;
    p.driver.flag_icons(true, false);
    p.run_for(10);
    // A press while the icons wait for their ack: its times go out at the ack timeout.
    p.show(running_left());
    p.run_for(10_000);
    assert_eq!(icons(&p), [start], "tried once, never resent");
    assert_eq!(
        p.sent_clock(|c| matches!(c, ClockCommand::SetAndRun(_))),
        [start + timeout]
    );
    assert!(p.driver.icons_refused());
    assert_eq!(p.became(start, DeviceState::NotResponding), None);
    assert_eq!(p.driver.device_state(), DeviceState::Ready);
    assert_eq!(
        p.events_since(start, |e| matches!(e, DriverEvent::GaveUp(_))),
        [(start + timeout, DriverEvent::GaveUp(Kind::Icons))]
    );
    // No more icons on this link.
    p.driver.flag_icons(false, true);
    p.run_for(1_000);
    assert_eq!(icons(&p), [start]);
}
