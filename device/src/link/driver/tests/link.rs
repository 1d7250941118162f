//! The link: probe and model detection, probe retries, a clock switched on late, keep-alive,
//! a muted board, unplug and replug, line noise.

use chessclock_protocol::emulator::EmuConfig;
use chessclock_protocol::{ClockCommand, ClockModel, Command};

use super::{Pair, ready, running_left};
use crate::link::driver::{DriverEvent, KEEPALIVE_DEAD, KEEPALIVE_IDLE, PROBE_INTERVAL};
use crate::link::state::DeviceState;

fn ms(d: std::time::Duration) -> u64 {
    d.as_millis() as u64
}

#[test]
fn probe_finds_a_dgt_3000() {
    let cfg = EmuConfig::default();
    let (reply, ack) = (cfg.reply_delay_ms, cfg.ack_delay_ms);
    let mut p = Pair::new(cfg);
    p.run_until(1_000);
    // Handshake at once; the board's version answer asks for the serial number, a clock
    // report and the clock's version; the version ack makes the clock ready.
    assert_eq!(p.sent(&Command::SendUpdateNice), [0]);
    assert_eq!(p.sent(&Command::SendVersion), [0]);
    assert_eq!(p.sent(&Command::ReturnSerialNumber), [reply]);
    assert_eq!(p.sent_clock(|c| *c == ClockCommand::Version), [reply]);
    // ... and for one clock report (0x41): the board reports only changes, and the lever
    // must be known before the clock is ready for its first set-and-run.
    assert_eq!(p.sent(&Command::SendClock), [reply]);
    let reports = p.events_since(0, |e| matches!(e, DriverEvent::ClockReport { .. }));
    assert_eq!(reports.first().map(|(t, _)| *t), Some(2 * reply));
    assert!(
        2 * reply < reply + ack,
        "the report before the clock is ready"
    );
    assert_eq!(p.became(0, DeviceState::Ready), Some(reply + ack));
    assert_eq!(p.driver.model(), Some(ClockModel::Dgt3000));
    let identified = p.events_since(0, |e| matches!(e, DriverEvent::ClockIdentified { .. }));
    assert_eq!(
        identified,
        [(
            reply + ack,
            DriverEvent::ClockIdentified {
                model: ClockModel::Dgt3000,
                firmware: "2.0".into(),
                changed: true
            }
        )]
    );
    let serial = p.events_since(0, |e| matches!(e, DriverEvent::BoardSerial(_)));
    assert_eq!(
        serial,
        [(2 * reply, DriverEvent::BoardSerial("24680".into()))]
    );
    assert!(p.driver.clock_usable());
}

#[test]
fn probe_finds_a_dgt_xl_and_text_uses_its_segments() {
    let mut p = ready(EmuConfig {
        model: ClockModel::DgtXl,
        ..EmuConfig::default()
    });
    assert_eq!(p.driver.model(), Some(ClockModel::DgtXl));
    assert!(p.events.iter().any(|(_, e)| matches!(
        e,
        DriverEvent::ClockIdentified { model: ClockModel::DgtXl, firmware, .. } if firmware == "1.4"
    )));
    let at = p.now;
    p.driver.show_text(
        super::Instant::from_ms(at),
        "bflag",
        std::time::Duration::from_secs(2),
    );
    p.run_for(100);
    assert!(
        !p.sent_clock(|c| matches!(c, ClockCommand::Display { .. }))
            .is_empty()
    );
    assert!(
        p.sent_clock(|c| matches!(c, ClockCommand::Ascii { .. }))
            .is_empty()
    );
    assert_eq!(p.emu.view().text.as_deref(), Some("bflag"));
    // The text ends by itself: END goes out and the times are asked for again.
    p.run_for(3_000);
    assert_eq!(p.sent_clock(|c| *c == ClockCommand::End), [at + 2_000]);
    assert_eq!(p.emu.view().text, None);
    assert!(!p.driver.text_showing());
    assert!(
        p.events_since(at + 2_000, |e| *e == DriverEvent::RefreshDisplay)
            .first()
            .is_some_and(|(t, _)| *t == at + 2_000)
    );
}

#[test]
fn a_silent_board_is_probed_again_every_interval() {
    let mut p = Pair::new(EmuConfig::default());
    p.muted = true;
    p.run_until(5_000);
    let every = ms(PROBE_INTERVAL);
    assert_eq!(p.sent(&Command::SendUpdateNice), [0, every, 2 * every]);
    assert_eq!(p.driver.device_state(), DeviceState::Probing);
    assert!(!p.driver.clock_usable());
    p.muted = false;
    p.run_until(7_000);
    assert_eq!(
        p.sent(&Command::SendUpdateNice),
        [0, every, 2 * every, 3 * every]
    );
    assert_eq!(p.became(0, DeviceState::Ready), Some(3 * every + 35));
}

#[test]
fn a_clock_switched_on_after_the_probe_is_detected_by_its_reports() {
    let mut p = Pair::new(EmuConfig {
        clock_on: false,
        ..EmuConfig::default()
    });
    p.run_until(10_000);
    assert_eq!(p.driver.device_state(), DeviceState::NoClock);
    assert_eq!(p.driver.model(), None);
    // The version request went unanswered; no clock is not "not responding".
    assert!(
        p.events
            .iter()
            .any(|(_, e)| matches!(e, DriverEvent::GaveUp(_)))
    );
    assert_eq!(p.became(0, DeviceState::NotResponding), None);
    p.emu.set_clock_power(10_000, true);
    p.run_for(1_000);
    assert_eq!(
        p.sent_clock(|c| *c == ClockCommand::Version).last(),
        Some(&10_000)
    );
    assert_eq!(p.became(10_000, DeviceState::Probing), Some(10_000));
    assert_eq!(p.became(10_000, DeviceState::Ready), Some(10_030));
    assert_eq!(p.driver.model(), Some(ClockModel::Dgt3000));
}

#[test]
fn keep_alive_asks_a_quiet_board_and_it_answers() {
    let mut p = ready(EmuConfig::default());
    p.run_until(10_000);
    // Last word from the board at 35 (the version ack); then one request per silence, each
    // answered 5 ms later.
    let idle = ms(KEEPALIVE_IDLE);
    let first = 35 + idle;
    assert_eq!(
        p.sent(&Command::ReturnSerialNumber),
        [5, first, first + 5 + idle, first + 2 * (5 + idle)]
    );
    assert!(
        p.events_since(0, |e| *e == DriverEvent::LinkDead)
            .is_empty()
    );
    assert_eq!(p.driver.device_state(), DeviceState::Ready);
}

#[test]
fn a_muted_board_is_given_up_once_and_comes_back_after_reopening() {
    let mut p = ready(EmuConfig::default());
    p.muted = true;
    p.run_until(20_000);
    let asked = 35 + ms(KEEPALIVE_IDLE);
    assert_eq!(p.sent(&Command::ReturnSerialNumber), [5, asked]);
    assert_eq!(
        p.events_since(0, |e| *e == DriverEvent::LinkDead),
        [(asked + ms(KEEPALIVE_DEAD), DriverEvent::LinkDead)]
    );
    // The actor closes the port; the link comes back and the port is reopened.
    p.unplug();
    p.muted = false;
    p.run_until(22_000);
    p.replug();
    p.run_for(1_000);
    assert_eq!(p.became(22_000, DeviceState::Ready), Some(22_035));
}

#[test]
fn unplug_writes_nothing_and_replug_probes_and_refreshes_the_display() {
    let mut p = ready(EmuConfig::default());
    p.show(running_left());
    p.run_until(5_000);
    p.unplug();
    assert_eq!(p.driver.device_state(), DeviceState::Disconnected);
    assert!(!p.driver.clock_usable());
    assert_eq!(p.driver.shows(super::Instant::from_ms(5_000)), None);
    p.run_until(10_000);
    assert_eq!(p.writes_while_unplugged, 0);
    assert_eq!(
        p.driver.poll_timeout(),
        None,
        "no timer runs while unplugged"
    );
    p.replug();
    p.run_until(11_000);
    assert_eq!(p.sent(&Command::SendUpdateNice).last(), Some(&10_000));
    assert_eq!(p.became(10_000, DeviceState::Ready), Some(10_035));
    // Ready asks for a refresh: the times are pushed again (the clock kept counting alone).
    let pushes = p.sent_clock(|c| matches!(c, ClockCommand::SetAndRun(_)));
    assert_eq!(pushes.last(), Some(&10_035));
    let view = p.emu.clock_view(11_000);
    assert_eq!((view.left_seconds, view.right_seconds), (300, 180));
    let view = p.emu.clock_view(11_035);
    assert_eq!((view.left_seconds, view.right_seconds), (299, 180));
}

#[test]
fn line_noise_between_messages_changes_nothing() {
    let mut p = ready(EmuConfig::default());
    let before = p.events.len();
    p.inject(&[0x00, 0x13, 0xff, b'g', b'a', b'r', b'b', b'a', b'g', b'e']);
    p.inject(&[0x8e, 0x00]);
    p.run_for(100);
    assert_eq!(p.events.len(), before, "{:?}", &p.events[before..]);
    // The stream resyncs: a lever press afterwards is still seen.
    p.emu.press_lever(p.now);
    p.run_for(100);
    assert_eq!(
        p.events_since(0, |e| matches!(e, DriverEvent::Lever { .. }))
            .len(),
        1
    );
    assert_eq!(p.driver.device_state(), DeviceState::Ready);
}

#[test]
fn a_clock_switched_off_and_on_again_is_identified_and_ready_again() {
    let mut p = ready(EmuConfig::default());
    p.run_until(2_000);
    p.emu.set_clock_power(2_000, false);
    p.run_until(5_000);
    assert_eq!(p.became(2_000, DeviceState::NoClock), Some(2_000));
    assert!(!p.driver.clock_usable());
    p.emu.set_clock_power(5_000, true);
    p.run_until(6_000);
    // Known model or not, a clock that comes back is asked who it is before it is used.
    assert_eq!(
        p.sent_clock(|c| *c == ClockCommand::Version).last(),
        Some(&5_000)
    );
    assert_eq!(p.became(5_000, DeviceState::Ready), Some(5_030));
    assert!(p.driver.clock_usable());
}
