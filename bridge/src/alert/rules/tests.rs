//! The watcher in virtual time: each condition once when it begins (after its delay),
//! again only after it ended, the rate limit counting what it left out.

use super::*;
use crate::hub::tests::status;

fn settings() -> AlertSettings {
    serde_json::from_value(serde_json::json!({"url": "http://127.0.0.1:9/x"})).expect("defaults")
}

fn kinds(alerts: &[Alert]) -> Vec<Kind> {
    alerts.iter().map(|a| a.kind).collect()
}

#[test]
fn a_flag_and_a_result_alert_at_once_and_once() {
    let mut w = Watcher::new(settings());
    let mut c = status(2, 0);
    assert!(w.check(0, &[&c]).is_empty(), "a ready clock needs nobody");
    c.status = "flagged".into();
    c.flags = vec![chessclock_api::status::FlagEvent {
        side: chessclock_api::Side::White,
        t_ms: 5,
        reason: "time".into(),
    }];
    c.result = Some("0-1".into());
    c.reason = Some("time".into());
    let due = w.check(1_000, &[&c]);
    assert_eq!(kinds(&due), [Kind::Flag, Kind::Result]);
    assert_eq!(
        due[0].text,
        format!("board {} (b): white's flag fell (time)", c.board)
    );
    assert!(w.check(2_000, &[&c]).is_empty(), "once per condition");
}

#[test]
fn a_paused_game_alerts_after_its_delay_and_again_only_after_it_resumed() {
    let mut w = Watcher::new(settings());
    let mut c = status(0, 1);
    c.status = "paused".into();
    c.moves.white = 3;
    assert!(w.check(0, &[&c]).is_empty());
    assert!(w.check(119_000, &[&c]).is_empty(), "not before two minutes");
    assert_eq!(kinds(&w.check(120_000, &[&c])), [Kind::Paused]);
    assert!(w.check(200_000, &[&c]).is_empty());
    c.status = "running".into();
    assert!(w.check(201_000, &[&c]).is_empty());
    c.status = "paused".into();
    assert!(w.check(202_000, &[&c]).is_empty());
    assert_eq!(kinds(&w.check(322_000, &[&c])), [Kind::Paused]);
}

#[test]
fn the_rate_limit_counts_what_it_left_out() {
    let mut w = Watcher::new(settings());
    let mut c = status(0, 1);
    for (t, gone) in [(0, true), (10_000, true), (11_000, false), (12_000, true)] {
        c.device_state = if gone {
            chessclock_api::DeviceState::Disconnected
        } else {
            chessclock_api::DeviceState::Ready
        };
        let due = w.check(t, &[&c]);
        if t == 10_000 {
            assert_eq!(kinds(&due), [Kind::BoardGone]);
        } else {
            assert!(due.is_empty(), "{t}: {due:?}");
        }
    }
    // Gone again for ten seconds, within the minute: left out, then counted.
    assert!(w.check(22_000, &[&c]).is_empty(), "rate-limited");
    c.device_state = chessclock_api::DeviceState::Ready;
    w.check(23_000, &[&c]);
    c.device_state = chessclock_api::DeviceState::Disconnected;
    w.check(24_000, &[&c]);
    let due = w.check(80_000, &[&c]);
    assert_eq!(kinds(&due), [Kind::BoardGone]);
    assert_eq!(due[0].suppressed, 1, "{due:?}");
}

#[test]
fn kinds_not_asked_for_are_not_sent() {
    let mut s = settings();
    s.on = vec![Kind::Result];
    let mut w = Watcher::new(s);
    let mut c = status(0, 1);
    c.board_problem = "e4: expected empty, found P".into();
    c.result = Some("1-0".into());
    assert_eq!(kinds(&w.check(100_000, &[&c])), [Kind::Result]);
    assert!(w.check(200_000, &[&c]).is_empty());
}

#[test]
fn a_low_battery_alerts_once() {
    let mut w = Watcher::new(settings());
    let mut c = status(1, 1);
    c.battery_low = true;
    let due = w.check(0, &[&c]);
    assert_eq!(kinds(&due), [Kind::BatteryLow]);
    assert!(
        due[0]
            .text
            .contains("clock battery low: change the clock's batteries"),
        "{due:?}"
    );
    assert!(w.check(5_000, &[&c]).is_empty());
}

#[test]
fn an_observed_clock_against_its_control_alerts_as_a_board_problem_once_it_lasts() {
    let s = settings();
    let after_ms = s.problem_after_s * 1000;
    let mut w = Watcher::new(s);
    let mut c = status(0, 1);
    c.clock_problem = "the clock started at 4:00 - 4:00; fix: chessclockctl set 0 CONTROL".into();
    assert!(w.check(0, &[&c]).is_empty(), "not yet lasted");
    let due = w.check(after_ms + 1, &[&c]);
    assert_eq!(kinds(&due), [Kind::BoardProblem]);
    assert!(
        due[0]
            .text
            .contains("clock: the clock started at 4:00 - 4:00: chessclockctl set 0 CONTROL"),
        "{due:?}"
    );
}
