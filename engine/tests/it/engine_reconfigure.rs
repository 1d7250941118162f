//! Arbiter reconfiguration (spec §2.6): only while the game is stopped; the real remaining
//! time is kept (never the displayed value), delay windows and `cr/before` credits are not
//! given twice, and the period follows the completed moves.

use crate::support::{at, engine, snap};
use chessclock_engine::notation;
use chessclock_engine::{Engine, Input, Side, Time};

fn reconfigure(e: &mut Engine, t: u64, control: &str) {
    let control = Box::new(notation::parse(control).expect("valid").control);
    at(e, t, Input::Reconfigure { control });
}

fn start(e: &mut Engine) {
    at(e, 0, Input::Start { side: Side::White });
}

#[test]
fn refused_while_running() {
    let mut e = engine("G/5 d/0");
    start(&mut e);
    let control = Box::new(notation::parse("G/5 inc/5").expect("valid").control);
    let err = e
        .handle_input(Time::from_ms(1000), Input::Reconfigure { control })
        .expect_err("running");
    assert!(err.to_string().contains("pause first"), "{err}");
    assert_eq!(e.control().method.as_str(), "sudden_death");
    // Paused, flagged and ended games take a new control.
    at(&mut e, 1000, Input::Pause);
    reconfigure(&mut e, 1000, "G/5 inc/5");
    at(
        &mut e,
        1000,
        Input::BoardResult {
            result: chessclock_engine::GameResult::Draw,
        },
    );
    reconfigure(&mut e, 1000, "G/3 d/0");
    assert_eq!(e.control().method.as_str(), "sudden_death");
}

#[test]
fn bronstein_waiting_side_does_not_gain_its_delay() {
    let mut e = engine("G/5 br/5");
    start(&mut e);
    at(&mut e, 1000, Input::Pause);
    // Black waits: displayed main + d = 305 000, real main 300 000.
    assert_eq!(snap(&e, 1000)["black_ms"], 305_000);
    reconfigure(&mut e, 1000, "G/5 inc/5");
    let s = snap(&e, 1000);
    assert_eq!(s["detail"]["black"]["main_ms"], 300_000, "{s}");
    assert_eq!(s["black_ms"], 300_000, "{s}");
}

#[test]
fn binding_cap_keeps_the_method_time() {
    let mut e = engine("G/10 d/0 cap/1");
    start(&mut e);
    at(&mut e, 30_000, Input::Pause);
    let s = snap(&e, 30_000);
    assert_eq!(s["white_ms"], 30_000, "{s}");
    assert_eq!(s["detail"]["white"]["main_ms"], 570_000, "{s}");
    reconfigure(&mut e, 30_000, "G/10 inc/5 cap/1");
    let s = snap(&e, 30_000);
    assert_eq!(s["detail"]["white"]["main_ms"], 570_000, "{s}");
    assert_eq!(s["detail"]["white"]["cap_left_ms"], 30_000, "{s}");
    assert_eq!(s["white_ms"], 30_000, "{s}");
}

#[test]
fn byoyomi_keeps_its_periods() {
    let mut e = engine("byo/3x10");
    start(&mut e);
    at(&mut e, 15_000, Input::Pause);
    let before = snap(&e, 15_000);
    assert_eq!(before["detail"]["white"]["periods_left"], 2, "{before}");
    assert_eq!(before["white_ms"], 15_000, "{before}");
    reconfigure(&mut e, 15_000, "byo/3x10");
    let s = snap(&e, 15_000);
    assert_eq!(s["phase"]["white"], "byoyomi", "{s}");
    assert_eq!(s["detail"]["white"], before["detail"]["white"], "{s}");
    assert_eq!(s["white_ms"], 15_000, "{s}");
    // Into sudden death: the current period's remainder, not the byo-yomi total.
    reconfigure(&mut e, 15_000, "G/0 inc/5");
    assert_eq!(snap(&e, 15_000)["detail"]["white"]["main_ms"], 5_000);
}

#[test]
fn double_flag_extra_phase_survives() {
    let mut e = engine("G/1s df/20:5");
    start(&mut e);
    at(&mut e, 3000, Input::Pause);
    let before = snap(&e, 3000);
    assert_eq!(before["phase"]["white"], "extra", "{before}");
    reconfigure(&mut e, 3000, "G/1s df/30:5");
    let s = snap(&e, 3000);
    assert_eq!(s["phase"]["white"], "extra", "{s}");
    assert_eq!(s["detail"]["white"]["can_win"], false, "{s}");
    assert_eq!(s["detail"]["white"]["extra_ms"], 18_000, "{s}");
}

#[test]
fn delay_window_is_not_restarted_mid_turn() {
    let mut e = engine("G/5 d/5");
    start(&mut e);
    at(&mut e, 2000, Input::Pause);
    assert_eq!(snap(&e, 2000)["detail"]["white"]["delay_left_ms"], 3000);
    reconfigure(&mut e, 2000, "G/5 d/5");
    let s = snap(&e, 2000);
    assert_eq!(s["detail"]["white"]["delay_left_ms"], 3000, "{s}");
    assert_eq!(s["detail"]["white"]["main_ms"], 300_000, "{s}");
    // A shorter new delay cuts the window; resuming charges main after it.
    reconfigure(&mut e, 2000, "G/5 d/2");
    assert_eq!(snap(&e, 2000)["detail"]["white"]["delay_left_ms"], 2000);
    at(&mut e, 2000, Input::Resume);
    assert_eq!(snap(&e, 5000)["detail"]["white"]["main_ms"], 299_000);
}

#[test]
fn cr_before_is_not_credited_twice() {
    let mut e = engine("G/5 inc/2 cr/before");
    start(&mut e);
    at(&mut e, 1000, Input::Pause);
    assert_eq!(snap(&e, 1000)["detail"]["white"]["main_ms"], 301_000);
    reconfigure(&mut e, 1000, "G/5 inc/2 cr/before");
    assert_eq!(snap(&e, 1000)["detail"]["white"]["main_ms"], 301_000);
}

#[test]
fn period_follows_the_moves() {
    let mut e = engine("2/1 SD/1 d/0");
    start(&mut e);
    for (k, t) in [1000u64, 2000, 3000, 4000].into_iter().enumerate() {
        let side = if k % 2 == 0 { Side::White } else { Side::Black };
        at(&mut e, t, Input::Press { side });
    }
    at(&mut e, 4500, Input::Pause);
    let before = snap(&e, 4500);
    assert_eq!(before["phase"]["white"], "period2_sd", "{before}");
    reconfigure(&mut e, 4500, "2/1 SD/1 d/0");
    let s = snap(&e, 4500);
    assert_eq!(s["phase"]["white"], "period2_sd", "{s}");
    assert_eq!(s["detail"], before["detail"], "{s}");
    // Into a control with a longer first period: still period 1, time unchanged.
    reconfigure(&mut e, 4500, "40/1 SD/1 d/0");
    let s = snap(&e, 4500);
    assert_eq!(s["phase"]["white"], "period1", "{s}");
    assert_eq!(s["white_ms"], before["white_ms"], "{s}");
    // Double flag too.
    reconfigure(&mut e, 4500, "2/1 SD/1 df/20:5");
    let s = snap(&e, 4500);
    assert_eq!(s["white_ms"], before["white_ms"], "{s}");
    at(&mut e, 4500, Input::Resume);
    at(&mut e, 5000, Input::Press { side: Side::White });
    // White's 3rd move is in the sudden-death period: no base time is added.
    assert_eq!(
        snap(&e, 5000)["white_ms"],
        before["white_ms"].as_u64().unwrap_or(0) - 500
    );
}

#[test]
fn before_the_start_the_new_control_starts_fresh() {
    let mut e = engine("G/5 d/0");
    reconfigure(&mut e, 0, "G/3 inc/2");
    assert_eq!(snap(&e, 0)["white_ms"], 182_000);
}

#[test]
fn to_and_from_count_up_the_new_method_starts_afresh() {
    let mut e = engine("UP");
    start(&mut e);
    at(&mut e, 10_000, Input::Press { side: Side::White });
    at(&mut e, 12_000, Input::Pause);
    reconfigure(&mut e, 12_000, "G/5 d/0");
    let s = snap(&e, 12_000);
    assert_eq!(
        (&s["white_ms"], &s["black_ms"]),
        (&300_000.into(), &300_000.into()),
        "{s}"
    );
    assert_eq!(s["moves"]["white"], 1, "{s}");
    reconfigure(&mut e, 12_000, "UP");
    let s = snap(&e, 12_000);
    assert_eq!(
        (&s["white_ms"], &s["black_ms"]),
        (&0.into(), &0.into()),
        "{s}"
    );
}
