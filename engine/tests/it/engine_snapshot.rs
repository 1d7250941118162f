//! The typed snapshot: its JSON is the spec §1.1 shape with keys in alphabetical order at
//! every level (byte-compatible with a `serde_json::Value` round trip), and
//! `same_except_time` ignores only what ticks.

use crate::support::started;
use chessclock_engine::notation;
use chessclock_engine::{Engine, Input, Phase, Side, Status, Time};
use serde_json::Value;

#[test]
fn json_keys_are_sorted_at_every_level_for_every_method() {
    for control in [
        "G/5 d/0",
        "40/90 SD/30 inc/30",
        "G/5 d/5",
        "G/5 br/5",
        "HG/1",
        "G/1s byo/3x30",
        "G/1 can/5/1",
        "G/1s df/30:5:hybrid",
        "G/1 rsv/10:5",
        "G/10 swing/30:40 cap/90",
        "G/5 cap/3",
    ] {
        let mut e = started(control);
        for t in [0, 1_500, 65_000, 200_000] {
            let now = Time::from_ms(t);
            e.handle_timeout(now);
            let snap = e.snapshot(now);
            let direct = serde_json::to_string(&snap).expect("serialise");
            let value: Value = serde_json::from_str(&direct).expect("JSON");
            // serde_json's Map is a BTreeMap here: a round trip sorts every object.
            assert_eq!(
                direct,
                serde_json::to_string(&value).expect("serialise"),
                "{control} at {t}"
            );
            assert_eq!(value["status"], snap.status.as_str(), "{control}");
            assert_eq!(value["phase"]["white"], snap.phase.white.to_string());
        }
    }
}

#[test]
fn typed_fields_match_the_json() {
    let mut e = started("G/1s df/30:5:hybrid");
    e.handle_timeout(Time::from_ms(2_000));
    let snap = e.snapshot(Time::from_ms(2_000));
    assert_eq!(snap.phase.white.phase, Phase::Extra);
    assert!(!snap.phase.white.capped);
    let v = serde_json::to_value(&snap).expect("serialise");
    assert_eq!(v["phase"]["white"], "extra");
    assert_eq!(v["detail"]["black"]["extra_ms"], Value::Null, "{v}");
    assert_eq!(v["detail"]["white"]["can_win"], false, "{v}");
    assert_eq!(v["running"], "white");
    assert!(v.get("reason").is_none() && v.get("flags").is_none(), "{v}");
}

#[test]
fn same_except_time_ignores_only_what_ticks() {
    let mut e = started("G/5 d/0");
    let a = e.snapshot(Time::from_ms(1_000));
    let b = e.snapshot(Time::from_ms(2_000));
    assert_ne!(a, b);
    assert!(a.same_except_time(&b), "only the times moved");
    e.handle_input(Time::from_ms(2_000), Input::Pause)
        .expect("pause");
    let c = e.snapshot(Time::from_ms(2_000));
    assert_eq!(c.status, Status::Paused);
    assert!(!b.same_except_time(&c), "the status changed");
    e.handle_input(Time::from_ms(2_000), Input::Resume)
        .expect("resume");
    e.handle_input(Time::from_ms(2_500), Input::Press { side: Side::White })
        .expect("press");
    let d = e.snapshot(Time::from_ms(2_500));
    assert!(
        !b.same_except_time(&d),
        "moves and the running side changed"
    );
}

#[test]
fn value_after_predicts_the_later_snapshot_in_a_steady_run() {
    // (control, elapsed): within the turn, before any change of phase or flag.
    for (control, elapsed) in [
        ("G/5", 1_500),
        ("G/5 d/5", 3_000),
        ("G/5 d/5", 7_250),
        ("HG/1", 2_000),
        ("G/10 swing/30:40 cap/90", 4_000),
        ("UP", 2_500),
        ("UP cap/1", 2_500),
    ] {
        let e = started(control);
        let snap = e.snapshot(Time::from_ms(1_000));
        let later = e.snapshot(Time::from_ms(1_000 + elapsed));
        for side in [Side::White, Side::Black] {
            assert_eq!(
                snap.value_after(side, elapsed),
                later.value(side),
                "{control}, {side:?} after {elapsed} ms"
            );
        }
    }
}

#[test]
fn flows_ms_says_what_the_waiting_side_gains_and_only_while_running() {
    let snap = started("HG/1").snapshot(Time::from_ms(1_000));
    assert_eq!(
        snap.flows_ms,
        Some(snap.white_ms),
        "hourglass: the runner's value"
    );
    let v = serde_json::to_value(&snap).expect("serialise");
    assert_eq!(v["flows_ms"], snap.white_ms);
    let snap = started("G/10 swing/30:40 cap/90").snapshot(Time::from_ms(1_000));
    let swing = match snap.detail.white.method {
        chessclock_engine::MethodDetail::Swing { swing_ms, .. } => swing_ms,
        other => panic!("not swing: {other:?}"),
    };
    assert_eq!(snap.flows_ms, Some(swing));
    let snap = started("G/5").snapshot(Time::from_ms(1_000));
    assert_eq!(snap.flows_ms, None);
    let v = serde_json::to_value(&snap).expect("serialise");
    assert!(
        v.get("flows_ms").is_none(),
        "absent when nothing flows: {v}"
    );
    let parsed = notation::parse("HG/1").expect("valid");
    let ready = Engine::new(parsed.control)
        .expect("engine")
        .snapshot(Time::ZERO);
    assert_eq!(ready.flows_ms, None, "nothing runs before the start");
    assert_eq!(ready.value_after(Side::White, 5_000), ready.white_ms);
}

#[test]
fn count_up_is_pushed_every_second_and_never_counted_down_by_the_device() {
    let e = started("UP cap/90");
    let snap = e.snapshot(Time::from_ms(1_400));
    assert!(snap.counts_up);
    assert_eq!(snap.white_ms, 1_400, "the time used, not the cap left");
    let d = e.display(Time::from_ms(1_400));
    assert_eq!(
        d.counting, None,
        "a count-down clock cannot count up by itself"
    );
    assert_eq!((d.white_s, d.black_s), (2, 0));
    assert_eq!(
        d.next_refresh,
        Some(Time::from_ms(2_001)),
        "pushed again when 0:02 turns 0:03"
    );
    let v = serde_json::to_value(started("G/5").snapshot(Time::from_ms(1))).expect("json");
    assert!(
        v.get("counts_up").is_none(),
        "absent unless counting up: {v}"
    );
}

#[test]
fn a_read_out_of_an_engine_already_at_that_instant_is_the_read_out_of_an_advanced_copy() {
    // The session advances its engine at every wake-up and then reads it at the same instant:
    // that read-out must be the one a copy advanced from the game's start gives, across
    // phase changes, a flag and the end of a delay.
    for control in [
        "G/5",
        "G/5 d/5",
        "G/1 byo/10x3",
        "HG/1",
        "G/10 swing/30:40 cap/90",
        "40/90, G/30 inc/30",
        "UP cap/1",
    ] {
        for t in [
            0, 999, 1_000, 4_999, 5_001, 61_000, 95_000, 301_000, 7_200_000,
        ] {
            let from_start = started(control);
            let mut there = started(control);
            there.handle_timeout(Time::from_ms(t));
            let now = Time::from_ms(t);
            assert_eq!(
                there.snapshot(now),
                from_start.snapshot(now),
                "{control}: snapshot at {t} ms"
            );
            assert_eq!(
                there.display(now),
                from_start.display(now),
                "{control}: display at {t} ms"
            );
        }
    }
}
