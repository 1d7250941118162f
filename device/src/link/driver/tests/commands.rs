//! The clock command queue on the wire: lost acks and resends, a clock that stops answering,
//! the "not in PC mode" error ack and its recheck, Bluetooth duplicates and empty reports.

use chessclock_protocol::ClockCommand;
use chessclock_protocol::emulator::{EmuConfig, FaultConfig, Running};

use super::{Instant, ready, running_left};
use crate::link::display::BoardSide;
use crate::link::display::Face;
use crate::link::driver::{DriverEvent, Kind, PC_MODE_RECHECK};
use crate::link::state::DeviceState;

fn set_and_runs(p: &super::Pair) -> Vec<u64> {
    p.sent_clock(|c| matches!(c, ClockCommand::SetAndRun(_)))
}

fn count(p: &super::Pair, ev: &DriverEvent) -> usize {
    p.events.iter().filter(|(_, e)| e == ev).count()
}

#[test]
fn lost_acks_are_resent_after_the_timeout_until_one_arrives() {
    let mut p = ready(EmuConfig::default());
    p.run_until(1_000);
    p.lose_acks = 2;
    p.show(running_left());
    p.run_until(10_000);
    assert_eq!(set_and_runs(&p), [1_000, 3_500, 6_000]);
    assert_eq!(
        p.events_since(1_000, |e| matches!(e, DriverEvent::Acked(_))),
        [(6_030, DriverEvent::Acked(Kind::SetAndRun))]
    );
    assert_eq!(count(&p, &DriverEvent::GaveUp(Kind::SetAndRun)), 0);
    assert_eq!(p.driver.device_state(), DeviceState::Ready);
    assert_eq!(p.emu.view().running, Running::Left);
}

#[test]
fn a_clock_that_stops_acknowledging_is_not_responding_but_keeps_its_times_queued() {
    let mut p = ready(EmuConfig::default());
    p.run_until(1_000);
    p.lose_acks = 3;
    p.show(running_left());
    p.run_until(10_000);
    // Three tries, then "not responding"; the set-and-run is never dropped: it goes out
    // again, and its ack brings the clock back (and asks for a fresh push).
    assert_eq!(set_and_runs(&p), [1_000, 3_500, 6_000, 8_500, 8_530]);
    assert_eq!(
        p.events_since(1_000, |e| matches!(e, DriverEvent::GaveUp(_))),
        [(8_500, DriverEvent::GaveUp(Kind::SetAndRun))]
    );
    assert_eq!(p.became(1_000, DeviceState::NotResponding), Some(8_500));
    assert_eq!(p.became(8_500, DeviceState::Ready), Some(8_530));
}

#[test]
fn a_clock_that_never_answers_stays_not_responding_and_usable() {
    let mut p = ready(EmuConfig::default());
    p.run_until(1_000);
    p.lose_acks = u32::MAX;
    p.show(running_left());
    p.run_until(30_000);
    assert_eq!(p.driver.device_state(), DeviceState::NotResponding);
    assert!(p.driver.clock_usable(), "pushes are still tried");
    let sent = set_and_runs(&p);
    assert!(
        sent.windows(2).all(|w| w[1] - w[0] == 2_500),
        "one try per timeout, never a burst: {sent:?}"
    );
}

#[test]
fn not_in_pc_mode_is_refused_rechecked_and_recovered() {
    let mut p = ready(EmuConfig {
        pc_mode: false,
        ..EmuConfig::default()
    });
    p.run_until(1_000);
    p.show(running_left());
    p.run_until(12_000);
    let recheck = PC_MODE_RECHECK.as_millis() as u64;
    assert_eq!(p.became(1_000, DeviceState::NotInPcMode), Some(1_030));
    assert_eq!(
        p.events_since(1_000, |e| matches!(e, DriverEvent::Refused(_)))
            .len(),
        3
    );
    // No blind resend: one try per recheck, each refused 30 ms later.
    assert_eq!(
        set_and_runs(&p),
        [1_000, 1_030 + recheck, 1_060 + 2 * recheck]
    );
    assert!(!p.driver.clock_usable());
    // The operator selects option 25: the next recheck is accepted.
    p.emu.set_pc_mode(12_000, true);
    p.run_until(20_000);
    let fourth = 1_090 + 3 * recheck;
    assert_eq!(p.became(12_000, DeviceState::Ready), Some(fourth + 30));
    assert_eq!(p.emu.view().running, Running::Left);
    assert!(p.driver.clock_usable());
    // Recovered: the refresh that "ready" asks for, then no more rechecks.
    assert_eq!(&set_and_runs(&p)[3..], [fourth, fourth + 30]);
}

#[test]
fn bluetooth_duplicate_acks_and_empty_reports_are_filtered() {
    let mut emu = EmuConfig::default().bluetooth(true);
    emu.faults = FaultConfig {
        duplicate: 1.0,
        ..FaultConfig::default()
    };
    let mut p = ready(emu);
    assert_eq!(count(&p, &DriverEvent::Acked(Kind::Version)), 1);
    p.run_until(1_000);
    // Two pushes back to back: the second waits for the first's ack, and its own identical
    // ack completes it (the duplicate of the first must not).
    p.show(running_left());
    let second = Face {
        left_s: 299,
        right_s: 180,
        run: Some(BoardSide::Right),
    };
    p.driver.push_times(Instant::from_ms(1_000), second, None);
    p.face = Some(second);
    p.run_until(5_000);
    assert_eq!(set_and_runs(&p), [1_000, 1_030]);
    assert_eq!(
        p.events_since(1_000, |e| matches!(e, DriverEvent::Acked(_))),
        [
            (1_030, DriverEvent::Acked(Kind::SetAndRun)),
            (1_060, DriverEvent::Acked(Kind::SetAndRun))
        ]
    );
    assert!(p.emu.fault_stats().duplicated > 0);
    assert_eq!(p.emu.view().running, Running::Right);
    assert!(
        p.events
            .iter()
            .all(|(_, e)| !matches!(e, DriverEvent::GaveUp(_) | DriverEvent::Lever { .. }))
    );
    assert_eq!(p.became(0, DeviceState::NoClock), None);
}

#[test]
fn a_newer_set_and_run_supersedes_a_queued_one() {
    let mut p = ready(EmuConfig::default());
    p.run_until(1_000);
    let face = |left_s| Face {
        left_s,
        right_s: 60,
        run: None,
    };
    // The first goes out at once; the other two wait for its ack and the newer wins.
    p.show(face(10));
    for left in [20, 30] {
        p.driver
            .push_times(Instant::from_ms(1_000), face(left), None);
    }
    p.face = None;
    p.run_until(2_000);
    assert_eq!(set_and_runs(&p), [1_000, 1_030]);
    assert_eq!(p.emu.view().left_seconds, 30);
}

#[test]
fn a_push_resyncs_at_the_engines_next_second() {
    let mut p = ready(EmuConfig::default());
    p.run_until(1_000);
    p.driver
        .push_times(Instant::from_ms(1_000), running_left(), Some(400));
    p.run_until(2_000);
    assert_eq!(
        p.events_since(1_000, |e| *e == DriverEvent::RefreshDisplay),
        [(1_400, DriverEvent::RefreshDisplay)]
    );
    // What the device shows by itself, second by second from the push.
    let shows = |ms| p.driver.shows(Instant::from_ms(ms)).map(|f| f.left_s);
    assert_eq!(shows(1_999), Some(300));
    assert_eq!(shows(2_000), Some(299));
}
