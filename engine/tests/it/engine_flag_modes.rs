//! Options the parser accepts are honoured by the engine: `flag/continue` for every countdown
//! method (D16: segments, byo-yomi, Canadian, phased countdown), refused for the methods with
//! their own flag rules (hourglass, swing, double flag); `tr/flag` and `tr/flagboth` in
//! double-flag main time (§4.10 "as 4.5").

use crate::support::{at, engine, snap};
use chessclock_engine::notation;
use chessclock_engine::params::OnFlag;
use chessclock_engine::{Engine, Input, Side};
use serde_json::Value;

fn press(e: &mut Engine, t: u64, side: Side) {
    at(e, t, Input::Press { side });
}

/// White flags at `w_flag`, plays on (a press at 0 credits nothing), Black flags later.
fn continue_mode(control: &str, w_flag: u64) {
    let mut e = engine(control);
    at(&mut e, 0, Input::Start { side: Side::White });
    let s = snap(&e, w_flag + 100);
    assert_eq!(s["status"], "running", "{control}: {s}");
    assert_eq!(s["running"], "white", "{control}: {s}");
    assert_eq!(s["white_ms"], 0, "{control}: {s}");
    assert_eq!(s["phase"]["white"], "flagged", "{control}: {s}");
    assert_eq!(s["result"], Value::Null, "{control}: {s}");
    assert_eq!(s["flags"][0]["side"], "white", "{control}: {s}");
    assert_eq!(s["flags"][0]["t_ms"], w_flag, "{control}: {s}");
    press(&mut e, w_flag + 100, Side::White);
    let s = snap(&e, w_flag + 100);
    assert_eq!(s["moves"]["white"], 1, "{control}: {s}");
    assert_eq!(
        s["white_ms"], 0,
        "{control}: nothing credited after a flag: {s}"
    );
    assert_eq!(s["running"], "black", "{control}: {s}");
    // Black's clock runs normally until it flags too; then both clocks stop, no result.
    let s = snap(&e, w_flag + 100 + 3_600_000);
    assert_eq!(s["status"], "flagged", "{control}: {s}");
    assert_eq!(s["result"], Value::Null, "{control}: {s}");
    assert_eq!(
        s["flags"].as_array().map(Vec::len),
        Some(2),
        "{control}: {s}"
    );
    assert_eq!(s["flags"][1]["side"], "black", "{control}: {s}");
}

#[test]
fn flag_continue_for_every_countdown_method() {
    continue_mode("G/1s d/0 flag/continue", 1000);
    continue_mode("byo/2x1s flag/continue", 2000);
    continue_mode("G/1s byo/1x1s flag/continue", 2000);
    continue_mode("can/2/1s flag/continue", 1000);
    continue_mode("G/1s rsv/1 flag/continue", 1000);
    continue_mode("G/1s rsv/1:1 flag/continue", 1000);
    continue_mode("G/10 d/0 cap/1s flag/continue", 1000);
}

#[test]
fn flag_continue_is_refused_where_the_method_has_its_own_flag_rules() {
    for input in [
        "HG/1 flag/continue",
        "G/1 swing/10 flag/continue",
        "G/1 df/20:5 flag/continue",
    ] {
        let e = notation::parse(input).expect_err(input);
        assert!(
            e.kind().starts_with("option_not_supported_with_"),
            "{input}: {e}"
        );
        assert!(e.message.contains("D16"), "{input}: {e}");
        // The same control in JSON form is refused by the engine.
        let mut tc = notation::parse(input.trim_end_matches(" flag/continue"))
            .expect("valid")
            .control;
        tc.params.on_flag = Some(OnFlag::Continue);
        assert!(Engine::new(tc).is_err(), "{input}");
    }
    // flag/freeze stays accepted everywhere.
    assert!(notation::parse("HG/1 flag/freeze").is_ok());
}

/// `2/1 SD/1 df/30:10 tr/flag`: the second main period is added when period 1 runs out with
/// the quota made, not at the 2nd press.
#[test]
fn double_flag_tr_flag_adds_the_next_period_at_the_flag() {
    let mut e = engine("2/1 SD/1 df/30:10 tr/flag");
    at(&mut e, 0, Input::Start { side: Side::White });
    press(&mut e, 1000, Side::White);
    press(&mut e, 2000, Side::Black);
    press(&mut e, 3000, Side::White);
    let s = snap(&e, 3000);
    assert_eq!(
        s["detail"]["white"]["main_ms"], 58_000,
        "no addition at the press: {s}"
    );
    press(&mut e, 4000, Side::Black);
    // White's period-1 time runs out at 4 s + 58 s = 62 s: SD/1 is added, play goes on.
    let s = snap(&e, 63_000);
    assert_eq!(s["status"], "running", "{s}");
    assert_eq!(s["phase"]["white"], "main", "{s}");
    assert_eq!(s["detail"]["white"]["main_ms"], 59_000, "{s}");
    assert_eq!(s["detail"]["black"]["main_ms"], 58_000, "{s}");
    // Quota not made: control not reached, as before.
    let mut e = engine("2/1 SD/1 df/30:10 tr/flag");
    at(&mut e, 0, Input::Start { side: Side::White });
    press(&mut e, 1000, Side::White);
    press(&mut e, 2000, Side::Black);
    let s = snap(&e, 62_000);
    assert_eq!(s["reason"], "control_not_reached", "{s}");
}

#[test]
fn double_flag_tr_flagboth_adds_to_both() {
    let mut e = engine("2/1 SD/1 df/30:10 tr/flagboth");
    at(&mut e, 0, Input::Start { side: Side::White });
    press(&mut e, 1000, Side::White);
    press(&mut e, 2000, Side::Black);
    press(&mut e, 3000, Side::White);
    press(&mut e, 4000, Side::Black);
    let s = snap(&e, 63_000);
    assert_eq!(s["detail"]["white"]["main_ms"], 59_000, "{s}");
    assert_eq!(s["detail"]["black"]["main_ms"], 118_000, "{s}");
}
