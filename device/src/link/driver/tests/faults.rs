//! A noisy line for minutes of virtual time: bytes dropped, corrupted, duplicated, split and
//! stalled by the emulator's seeded fault layer. The driver must not panic or livelock, must
//! keep the clock usable, and must never invent a press: every lever event alternates halves
//! and follows a real press.

use chessclock_protocol::emulator::{EmuConfig, FaultConfig, Lcg};

use super::{Pair, running_left};
use crate::link::driver::DriverEvent;
use crate::link::state::DeviceState;

#[test]
fn a_noisy_line_never_invents_a_press_and_the_clock_stays_usable() {
    for seed in 1..=8 {
        let faults = FaultConfig {
            drop: 0.03,
            corrupt: 0.03,
            duplicate: 0.1,
            split: 0.2,
            stall: 0.02,
            stall_ms: 800,
            seed,
            ..FaultConfig::default()
        };
        let mut p = Pair::new(EmuConfig {
            faults,
            ..EmuConfig::default()
        });
        p.run_until(5_000);
        p.show(running_left());
        let mut presses = Vec::new();
        for i in 0..60u64 {
            let at = 10_000 + i * 2_700;
            p.run_until(at);
            p.emu.press_lever(at);
            presses.push(at);
        }
        p.run_until(200_000);
        let stats = p.emu.fault_stats();
        assert!(
            stats.dropped + stats.corrupted > 0,
            "seed {seed}: no faults?"
        );
        let levers: Vec<_> = p
            .events
            .iter()
            .filter_map(|(t, e)| match e {
                DriverEvent::Lever { half, at } => Some((*t, *half, at.as_ms())),
                _ => None,
            })
            .collect();
        assert!(
            levers.len() <= presses.len(),
            "seed {seed}: more presses seen than made"
        );
        assert!(
            levers.len() * 2 >= presses.len(),
            "seed {seed}: most presses get through: {} of {}",
            levers.len(),
            presses.len()
        );
        for w in levers.windows(2) {
            assert_ne!(w[0].1, w[1].1, "seed {seed}: halves alternate: {levers:?}");
        }
        for (_, _, at) in &levers {
            let made = presses.iter().rev().find(|p| *p <= at);
            assert!(
                made.is_some_and(|m| at - m < 2_700),
                "seed {seed}: a press at {at} follows a real one"
            );
        }
        assert!(
            matches!(
                p.driver.device_state(),
                DeviceState::Ready | DeviceState::NotResponding
            ),
            "seed {seed}: {:?}",
            p.driver.device_state()
        );
    }
}

/// A board whose output turned into garbage (a wrong baud rate, broken firmware): bytes keep
/// arriving but no message, so the link is given up as dead, as a silent one is, and found
/// again once the board talks sense.
#[test]
fn a_board_that_sends_only_garbage_is_given_up_and_found_again() {
    use crate::link::driver::{KEEPALIVE_DEAD, KEEPALIVE_IDLE};
    let mut p = super::ready(EmuConfig::default());
    p.show(running_left());
    // The board's own messages are lost in the flood; ASCII noise arrives every 50 ms.
    p.muted = true;
    let from = p.now;
    let mut rng = Lcg::new(7);
    let limit = from + (KEEPALIVE_IDLE + KEEPALIVE_DEAD).as_millis() as u64 + 1_000;
    while p.now < limit {
        p.inject(&rng.noise(200));
        p.run_for(50);
    }
    let dead = p.events_since(from, |e| *e == DriverEvent::LinkDead);
    assert_eq!(
        dead.len(),
        1,
        "the flood is no sign of life: {:?}",
        p.events
    );
    assert!(
        p.events_since(from, |e| matches!(e, DriverEvent::Lever { .. }))
            .is_empty(),
        "noise is no press"
    );
    // The actor closes and reopens the port; the board talks sense again.
    p.unplug();
    p.muted = false;
    p.replug();
    let back = p.now;
    p.run_for(1_000);
    assert!(
        p.became(back, DeviceState::Ready).is_some(),
        "{:?}",
        p.events
    );
}
