//! Lever and buttons: presses with exact timestamps (report lag, transport latency, split
//! messages), buttons, no press invented across a replug.

use std::time::Duration;

use chessclock_protocol::Button;
use chessclock_protocol::emulator::{EmuConfig, FaultConfig};

use super::{Instant, Pair, ready, running_left};
use crate::link::display::BoardSide;
use crate::link::driver::{DriverConfig, DriverEvent};
use crate::link::state::DeviceState;

fn levers(p: &Pair) -> Vec<(u64, DriverEvent)> {
    p.events_since(0, |e| matches!(e, DriverEvent::Lever { .. }))
}

fn lever(polled: u64, half: BoardSide, at: u64) -> (u64, DriverEvent) {
    (
        polled,
        DriverEvent::Lever {
            half,
            at: Instant::from_ms(at),
        },
    )
}

#[test]
fn a_lever_sequence_gives_alternating_presses_stamped_on_arrival_minus_latency() {
    let cfg = DriverConfig {
        transport_latency: Duration::from_millis(25),
        ..DriverConfig::default()
    };
    let mut p = Pair::with(
        cfg,
        EmuConfig {
            report_lag_ms: 40,
            ..EmuConfig::default()
        },
    );
    p.run_until(1_000);
    assert_eq!(p.driver.device_state(), DeviceState::Ready);
    p.show(running_left());
    for at in [10_000, 12_345, 15_000] {
        p.run_until(at);
        p.emu.press_lever(at);
    }
    p.run_until(20_000);
    // Right end up after the first press: the left player moved.
    assert_eq!(
        levers(&p),
        [
            lever(10_040, BoardSide::Left, 10_015),
            lever(12_385, BoardSide::Right, 12_360),
            lever(15_040, BoardSide::Left, 15_015),
        ]
    );
}

#[test]
fn a_report_split_in_two_chunks_is_stamped_when_it_is_complete() {
    let mut p = ready(EmuConfig {
        faults: FaultConfig {
            split: 1.0,
            split_gap_ms: 20,
            ..FaultConfig::default()
        },
        ..EmuConfig::default()
    });
    p.run_until(5_000);
    p.emu.press_lever(5_000);
    p.run_until(6_000);
    assert!(p.emu.fault_stats().split > 0);
    assert_eq!(levers(&p), [lever(5_020, BoardSide::Left, 5_020)]);
}

#[test]
fn buttons_are_events_and_a_second_press_is_not_a_duplicate() {
    let mut p = ready(EmuConfig::default());
    p.emu.press_button(2_000, Button::Run);
    p.run_until(2_500);
    p.emu.press_button(2_500, Button::Run);
    p.run_until(2_600);
    p.emu.press_button(2_600, Button::Plus);
    p.run_until(3_000);
    assert_eq!(
        p.events_since(0, |e| matches!(e, DriverEvent::Button(_))),
        [
            (2_030, DriverEvent::Button(Button::Run)),
            (2_530, DriverEvent::Button(Button::Run)),
            (2_630, DriverEvent::Button(Button::Plus)),
        ]
    );
}

#[test]
fn a_lever_moved_while_unplugged_is_no_press_after_replug() {
    let mut p = ready(EmuConfig::default());
    p.run_until(2_000);
    p.unplug();
    p.emu.press_lever(3_000);
    p.run_until(4_000);
    p.replug();
    p.run_until(6_000);
    assert_eq!(p.became(4_000, DeviceState::Ready), Some(4_035));
    assert_eq!(levers(&p), []);
    p.run_until(7_000);
    p.emu.press_lever(7_000);
    p.run_until(8_000);
    assert_eq!(levers(&p), [lever(7_000, BoardSide::Right, 7_000)]);
}
