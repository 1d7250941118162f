//! The first set-and-run after the port comes back (a replug, a reopen after a failed write):
//! it carries what the caller pushes once the clock is ready again, never the times of
//! before the loss; and the clock is ready only once the board has reported its lever.

use chessclock_protocol::emulator::EmuConfig;
use chessclock_protocol::{ClockCommand, ClockTime, Command, RunSide, SetAndRun};

use super::{Pair, ready, running_left};
use crate::link::display::{BoardSide, Face};
use crate::link::driver::{DriverEvent, LEVER_WAIT};
use crate::link::state::DeviceState;

/// The set-and-runs the board received from `since_ms` on, with their arrival times.
fn set_and_runs_since(p: &Pair, since_ms: u64) -> Vec<(u64, SetAndRun)> {
    p.host
        .iter()
        .filter(|(t, _)| *t >= since_ms)
        .filter_map(|(t, c)| match c {
            Command::Clock(ClockCommand::SetAndRun(s)) => Some((*t, *s)),
            _ => None,
        })
        .collect()
}

/// `face` as the board receives it.
fn wire(face: Face) -> SetAndRun {
    let t = |s: u64| ClockTime::saturating_from_total_seconds(s as u32);
    let run = match face.run {
        Some(BoardSide::Left) => RunSide::Left,
        Some(BoardSide::Right) => RunSide::Right,
        None => RunSide::Paused,
    };
    SetAndRun::new(t(face.left_s), t(face.right_s), run)
}

/// A set-and-run is in flight (its ack not back) when the cable is pulled, or when the write
/// after it fails: the port is lost with it. Two seconds later the port is back; the clock
/// kept counting alone meanwhile, and the caller's times have moved on (here: the other
/// player runs, after a press the board could not report). The first set-and-run the board
/// gets on the new link is the caller's push at the clock's ready, not the one of before
/// the loss: that one would show the running side two seconds high, or the wrong half.
#[test]
fn a_set_and_run_in_flight_at_the_loss_is_not_sent_again_on_the_new_link() {
    let mut p = ready(EmuConfig::default());
    p.show(running_left());
    p.unplug();
    assert_eq!(set_and_runs_since(&p, 0).len(), 1, "the push went out");
    p.run_for(2_000);
    let now = Face {
        left_s: 298,
        right_s: 182,
        run: Some(BoardSide::Right),
    };
    p.face = Some(now);
    let back = p.now;
    p.replug();
    p.run_for(1_000);
    let ready_at = p.became(back, DeviceState::Ready).expect("ready again");
    let pushes = set_and_runs_since(&p, back);
    assert!(!pushes.is_empty(), "pushed after the replug");
    assert_eq!(
        pushes[0],
        (ready_at, wire(now)),
        "the first push on the new link is the caller's, once the clock is ready: {pushes:?}"
    );
    assert!(
        pushes.iter().all(|(_, s)| *s == wire(now)),
        "nothing of before the loss: {pushes:?}"
    );
}

/// The clock answers its version request before the board answers the clock request
/// (`0x41`) asked at the same time: the clock is ready only once the report has said where
/// the lever is, and the report comes first (the caller reads a press in it before it
/// pushes).
#[test]
fn a_clock_that_answers_before_its_board_is_ready_after_the_lever_report() {
    let cfg = EmuConfig {
        ack_delay_ms: 2,
        reply_delay_ms: 40,
        ..EmuConfig::default()
    };
    let mut p = Pair::new(cfg);
    p.run_until(1_000);
    // The handshake's answer at 40 asks for both; the clock acks at 42, the board's report
    // arrives at 80.
    let identified = p.events_since(0, |e| matches!(e, DriverEvent::ClockIdentified { .. }));
    assert_eq!(identified.first().map(|(t, _)| *t), Some(42));
    let report = p.events_since(0, |e| matches!(e, DriverEvent::ClockReport { .. }));
    assert_eq!(report.first().map(|(t, _)| *t), Some(80));
    assert_eq!(p.became(0, DeviceState::Ready), Some(80));
    let order: Vec<&DriverEvent> = p
        .events
        .iter()
        .filter(|(t, _)| *t == 80)
        .map(|(_, e)| e)
        .collect();
    let report_i = order
        .iter()
        .position(|e| matches!(e, DriverEvent::ClockReport { .. }));
    let ready_i = order.iter().position(
        |e| matches!(e, DriverEvent::DeviceState { new, .. } if *new == DeviceState::Ready),
    );
    assert!(report_i < ready_i, "the report before the ready: {order:?}");
    assert_eq!(
        p.sent(&Command::SendClock),
        [40],
        "the report was asked for once"
    );
}

/// A board whose answer to the clock request is lost (a Bluetooth board answering it with
/// an old ack): the clock is asked again after [`LEVER_WAIT`]; with that answer lost too
/// (and a stopped clock, which reports nothing by itself), it is ready without the lever
/// after as long again.
#[test]
fn a_lever_never_reported_delays_the_ready_by_two_waits_at_most() {
    let wait = LEVER_WAIT.as_millis() as u64;
    let cfg = EmuConfig::default();
    let (reply, ack) = (cfg.reply_delay_ms, cfg.ack_delay_ms);
    let mut p = Pair::new(cfg.clone());
    p.lose_reports = 1;
    p.run_until(5_000);
    assert_eq!(p.sent(&Command::SendClock), [reply, reply + ack + wait]);
    assert_eq!(
        p.became(0, DeviceState::Ready),
        Some(reply + ack + wait + reply),
        "ready at the second report"
    );
    assert!(p.driver.lever_up().is_some());

    let mut p = Pair::new(cfg);
    p.lose_reports = 2;
    p.run_until(5_000);
    assert_eq!(p.sent(&Command::SendClock), [reply, reply + ack + wait]);
    assert_eq!(
        p.became(0, DeviceState::Ready),
        Some(reply + ack + 2 * wait),
        "ready without the lever"
    );
    assert_eq!(p.driver.lever_up(), None);
    assert!(p.driver.clock_usable());
}
