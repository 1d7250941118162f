//! Observe mode on the wire: a clock running its own mode gets no set-and-run, text or beep
//! (not even a resend), a refusal seen before is forgotten, and every report comes out with
//! its read time, ahead of the lever press it carries.

use std::time::Duration;

use chessclock_protocol::ClockCommand;
use chessclock_protocol::emulator::EmuConfig;

use super::{Pair, running_left};
use crate::link::display::BoardSide;
use crate::link::driver::DriverEvent;
use crate::link::state::DeviceState;

fn display_commands(p: &Pair) -> Vec<u64> {
    p.sent_clock(|c| {
        matches!(
            c,
            ClockCommand::SetAndRun(_)
                | ClockCommand::Ascii { .. }
                | ClockCommand::Beep { .. }
                | ClockCommand::End
        )
    })
}

#[test]
fn a_clock_in_its_own_mode_is_followed_and_never_written_to() {
    let mut p = Pair::new(EmuConfig {
        pc_mode: false,
        ..EmuConfig::default()
    });
    p.run_until(1_000);
    // Driven first: the clock refuses set-and-run.
    p.show(running_left());
    p.run_until(2_000);
    assert_eq!(p.driver.device_state(), DeviceState::NotInPcMode);
    let before = display_commands(&p).len();

    p.driver.set_observe(true);
    assert!(p.driver.observing());
    assert_eq!(
        p.driver.device_state(),
        DeviceState::Ready,
        "fine to observe"
    );
    // Whatever the caller asks, nothing reaches the display.
    p.show(running_left());
    p.driver.show_text(
        super::Instant::from_ms(p.now),
        "HELLO",
        Duration::from_secs(2),
    );
    p.driver.beep(100);
    // The arbiter starts the clock: left runs (its lever end is up), 5:00 each.
    p.emu.start_own_game(3_000, 300);
    p.run_until(6_500);
    p.emu.press_lever(6_500);
    p.run_until(20_000);
    assert_eq!(display_commands(&p).len(), before, "{:?}", p.host);
    assert!(p.became(2_000, DeviceState::NotInPcMode).is_none());

    let reports: Vec<(u64, u32, u32, bool)> = p
        .events
        .iter()
        .filter_map(|(t, e)| match e {
            DriverEvent::ClockReport { report, .. } => Some((
                *t,
                report.left.total_seconds(),
                report.right.total_seconds(),
                report.running,
            )),
            _ => None,
        })
        .collect();
    // The left half ran from 3 s to the press at 6.5 s (three ticks), then the right.
    assert!(
        reports.iter().any(|r| r.1 == 297 && r.2 == 300 && r.3),
        "{reports:?}"
    );
    assert!(
        reports.iter().any(|r| r.1 == 297 && r.2 < 300),
        "{reports:?}"
    );
    // The report with the lever change comes out before the press it carries.
    let lever = p
        .events
        .iter()
        .position(|(_, e)| {
            matches!(
                e,
                DriverEvent::Lever {
                    half: BoardSide::Left,
                    ..
                }
            )
        })
        .expect("the press");
    assert!(
        matches!(p.events[lever - 1].1, DriverEvent::ClockReport { report, .. } if report.right_high),
        "{:?}",
        &p.events[lever.saturating_sub(2)..=lever]
    );

    // Back to driving: the display is wanted again.
    p.driver.set_observe(false);
    p.run_for(100);
    assert!(
        p.events_since(20_000, |e| *e == DriverEvent::RefreshDisplay)
            .len()
            == 1
    );
}
