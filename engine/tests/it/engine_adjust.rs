//! Arbiter adjustments of every correctable detail field (spec §1.1 `adjust`, §2.6):
//! the overall cap (`cap_left_ms`), byo-yomi `periods_left`, Canadian `stones_left`, and a
//! resume after correcting the flag each of them caused (C5).

use crate::support::{at, engine, snap};
use chessclock_engine::{AdjustOp, Input, Side, Time};
use serde_json::Value;

fn adjust(field: &str, op: AdjustOp, ms: i64) -> Input {
    Input::Adjust {
        side: Side::White,
        field: field.parse().expect("an adjustable field"),
        op,
        ms,
    }
}

#[test]
fn overall_cap_flag_corrected_and_resumed() {
    let mut e = engine("G/10 d/0 cap/1");
    at(&mut e, 0, Input::Start { side: Side::White });
    let s = snap(&e, 60_000);
    assert_eq!(s["status"], "flagged", "{s}");
    assert_eq!(s["reason"], "overall_cap", "{s}");
    at(&mut e, 60_000, adjust("cap_left_ms", AdjustOp::Set, 30_000));
    assert_eq!(snap(&e, 60_000)["detail"]["white"]["cap_left_ms"], 30_000);
    at(&mut e, 60_000, Input::Resume);
    let s = snap(&e, 70_000);
    assert_eq!(s["status"], "running", "{s}");
    assert_eq!(s["result"], Value::Null, "{s}");
    assert_eq!(s["detail"]["white"]["cap_left_ms"], 20_000, "{s}");
    assert_eq!(s["white_ms"], 20_000, "{s}");
    assert_eq!(
        s["flags"].as_array().map(Vec::len),
        Some(1),
        "history kept: {s}"
    );
    // The cap flags again when the corrected allowance is used.
    assert_eq!(snap(&e, 90_000)["flags"][1]["t_ms"], 90_000);
    // add works too, and the cap cannot be exceeded or go negative.
    let mut e = engine("G/10 d/0 cap/1");
    at(&mut e, 0, Input::Start { side: Side::White });
    at(&mut e, 10_000, Input::Pause);
    at(&mut e, 10_000, adjust("cap_left_ms", AdjustOp::Add, 5_000));
    assert_eq!(snap(&e, 10_000)["detail"]["white"]["cap_left_ms"], 55_000);
    for (op, ms) in [(AdjustOp::Set, 60_001), (AdjustOp::Add, -55_001)] {
        assert!(
            e.handle_input(Time::from_ms(10_000), adjust("cap_left_ms", op, ms))
                .is_err()
        );
    }
    let mut e = engine("G/10 d/0");
    let err = e
        .handle_input(Time::ZERO, adjust("cap_left_ms", AdjustOp::Set, 1))
        .expect_err("no cap");
    assert!(err.to_string().contains("no overall cap"), "{err}");
}

#[test]
fn byoyomi_flag_corrected_with_periods_left() {
    let mut e = engine("byo/2x10");
    at(&mut e, 0, Input::Start { side: Side::White });
    let s = snap(&e, 20_000);
    assert_eq!(s["status"], "flagged", "{s}");
    at(&mut e, 20_000, adjust("periods_left", AdjustOp::Set, 1));
    let s = snap(&e, 20_000);
    assert_eq!(s["detail"]["white"]["periods_left"], 1, "{s}");
    assert_eq!(s["detail"]["white"]["period_ms"], 10_000, "{s}");
    at(&mut e, 20_000, Input::Resume);
    let s = snap(&e, 25_000);
    assert_eq!(s["status"], "running", "{s}");
    assert_eq!(s["white_ms"], 5_000, "{s}");
    assert!(
        e.handle_input(Time::from_ms(25_000), Input::Pause).is_ok()
            && e.handle_input(
                Time::from_ms(25_000),
                adjust("periods_left", AdjustOp::Set, 0)
            )
            .is_err()
    );
}

#[test]
fn periods_left_set_before_the_overtime_is_kept() {
    let mut e = engine("G/1s byo/3x10");
    at(&mut e, 0, adjust("periods_left", AdjustOp::Add, 2));
    at(&mut e, 0, Input::Start { side: Side::White });
    let s = snap(&e, 1000);
    assert_eq!(s["phase"]["white"], "byoyomi", "{s}");
    assert_eq!(s["detail"]["white"]["periods_left"], 5, "{s}");
    assert_eq!(s["white_ms"], 50_000, "{s}");
    // Black was not adjusted.
    assert_eq!(s["detail"]["black"]["periods_left"], 3, "{s}");
}

#[test]
fn canadian_stones_left() {
    let mut e = engine("G/1s can/5/20s");
    at(&mut e, 0, Input::Start { side: Side::White });
    at(&mut e, 2000, Input::Pause);
    assert_eq!(snap(&e, 2000)["detail"]["white"]["stones_left"], 5);
    at(&mut e, 2000, adjust("stones_left", AdjustOp::Set, 1));
    at(&mut e, 2000, Input::Resume);
    at(&mut e, 3000, Input::Press { side: Side::White });
    // The one stone owed is played: the period renews.
    let s = snap(&e, 3000);
    assert_eq!(s["detail"]["white"]["stones_left"], 5, "{s}");
    assert_eq!(s["detail"]["white"]["period_ms"], 20_000, "{s}");
    assert!(
        e.handle_input(Time::from_ms(3000), adjust("stones_left", AdjustOp::Set, 2))
            .is_err(),
        "running: pause first"
    );
}

/// Double flag: main time given back to a side on extra time takes effect (issue 10 item 6):
/// the side is on main time again (it can win again) and the extra time starts afresh at its
/// next first flag; main time set to 0 leaves it on extra time.
#[test]
fn double_flag_main_time_given_back_to_a_side_on_extra_time() {
    let mut e = engine("G/1 df/30:10:hybrid");
    at(&mut e, 0, Input::Start { side: Side::White });
    at(&mut e, 65_000, Input::Pause);
    let s = snap(&e, 65_000);
    assert_eq!(s["phase"]["white"], "extra", "{s}");
    assert_eq!(s["white_ms"], 25_000, "{s}");
    // Main time 0 while on extra: nothing to go back to.
    at(&mut e, 65_000, adjust("main_ms", AdjustOp::Set, 0));
    assert_eq!(snap(&e, 65_000)["phase"]["white"], "extra");
    at(&mut e, 65_000, adjust("main_ms", AdjustOp::Set, 20_000));
    let s = snap(&e, 65_000);
    assert_eq!(s["phase"]["white"], "main", "{s}");
    assert_eq!(s["white_ms"], 20_000, "{s}");
    assert_eq!(s["detail"]["white"]["main_ms"], 20_000, "{s}");
    assert_eq!(s["detail"]["white"]["extra_ms"], Value::Null, "{s}");
    assert_eq!(s["detail"]["white"]["can_win"], true, "{s}");
    at(&mut e, 65_000, Input::Resume);
    assert_eq!(snap(&e, 80_000)["white_ms"], 5_000);
    // The main time runs out again: a fresh first flag, full extra time.
    let s = snap(&e, 90_000);
    assert_eq!(s["phase"]["white"], "extra", "{s}");
    assert_eq!(s["white_ms"], 25_000, "{s}");
    // The extra time runs out (second flag), then the arbiter gives main time back: the flag
    // is corrected and play resumes on main time.
    let s = snap(&e, 115_000);
    assert_eq!(s["status"], "flagged", "{s}");
    assert_eq!(s["reason"], "extra_time_expired", "{s}");
    at(&mut e, 115_000, adjust("main_ms", AdjustOp::Add, 10_000));
    at(&mut e, 115_000, Input::Resume);
    let s = snap(&e, 118_000);
    assert_eq!(s["status"], "running", "{s}");
    assert_eq!(s["phase"]["white"], "main", "{s}");
    assert_eq!(s["white_ms"], 7_000, "{s}");
    assert_eq!(s["result"], Value::Null, "{s}");
}
