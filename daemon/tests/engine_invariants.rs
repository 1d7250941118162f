//! Property tests of the engine: invariants that hold for any sequence of inputs.

use chessclockd::engine::notation;
use chessclockd::engine::{Engine, Input, Side, Status, Time};
use proptest::prelude::*;
use serde_json::Value;

fn engine(control: &str) -> Engine {
    let parsed = notation::parse(control).expect("valid control");
    Engine::new(parsed.control).expect("valid engine")
}

fn snap(e: &Engine, t: u64) -> Value {
    e.snapshot(Time::from_ms(t)).0
}

fn ms(v: &Value, side: &str) -> u64 {
    v[format!("{side}_ms")].as_u64().expect("ms")
}

/// A random game: (delay before the step, action code).
fn steps() -> impl Strategy<Value = Vec<(u64, u8)>> {
    prop::collection::vec((0u64..20_000, 0u8..6), 1..40)
}

fn apply(e: &mut Engine, t: u64, code: u8) {
    let now = Time::from_ms(t);
    let mover = snap(e, t)["running"].as_str().map(str::to_owned);
    let side = match mover.as_deref() {
        Some("black") => Side::Black,
        _ => Side::White,
    };
    let input = match code {
        0..=2 => Input::Press { side },
        3 => Input::Press { side: side.other() },
        4 => Input::Pause,
        _ => Input::Resume,
    };
    let _ = e.handle_input(now, input);
}

const CONTROLS: &[&str] = &[
    "G/5 d/0",
    "G/3 inc/2",
    "G/3 inc/2 cr/before",
    "G/5 d/5",
    "G/5 br/3",
    "2/1 SD/1 d/0",
    "2/1 SD/1 d/0 tr/flag",
    "HG/1",
    "G/1 byo/3x10",
    "G/1 can/3/20",
    "G/1 df/20:5:hybrid",
    "G/1 rsv/10:5",
    "G/1 swing/10:3",
    "G/1 pinc/5:3:1",
    "G/2 d/0 cap/1",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// While paused nothing moves: not the clocks, not phases, not the cap.
    #[test]
    fn pause_freezes_everything(idx in 0..CONTROLS.len(), game in steps(), wait in 1u64..600_000) {
        let mut e = engine(CONTROLS[idx]);
        let _ = e.handle_input(Time::ZERO, Input::Start { side: Side::White });
        let mut t = 0;
        for (d, code) in game {
            t += d;
            apply(&mut e, t, code);
        }
        if e.status() == Status::Running {
            let _ = e.handle_input(Time::from_ms(t), Input::Pause);
        }
        if e.status() == Status::Paused {
            let before = snap(&e, t);
            let after = snap(&e, t + wait);
            let strip = |mut v: Value| { v.as_object_mut().map(|o| o.remove("t_ms")); v };
            prop_assert_eq!(strip(before), strip(after));
        }
    }

    /// The running side never gains time between events, except at the defined jumps of
    /// byo-yomi, Canadian and double flag (phase changes); the waiting side never changes
    /// except under hourglass and swing.
    #[test]
    fn running_side_never_gains_between_events(idx in 0..CONTROLS.len(), game in steps(), probe in 1u64..5_000) {
        let control = CONTROLS[idx];
        let jumps = ["byo", "can", "df"].iter().any(|k| control.contains(k));
        let mut e = engine(control);
        let _ = e.handle_input(Time::ZERO, Input::Start { side: Side::White });
        let mut t = 0;
        for (d, code) in game {
            t += d;
            apply(&mut e, t, code);
            let a = snap(&e, t);
            let b = snap(&e, t + probe);
            if let Some(mover) = a["running"].as_str() {
                if !jumps && a["phase"] == b["phase"] {
                    prop_assert!(ms(&b, mover) <= ms(&a, mover), "{control}: {a} -> {b}");
                }
                let waiting = if mover == "white" { "black" } else { "white" };
                if !control.starts_with("HG") && !control.contains("swing") && b["status"] == "running" {
                    prop_assert_eq!(ms(&a, waiting), ms(&b, waiting), "{}: {} -> {}", control, a, b);
                }
            }
        }
    }

    /// Hourglass keeps 2H of sand in total, and swing keeps 2S of swing before the cut-off.
    #[test]
    fn hourglass_and_swing_conserve_their_totals(game in steps()) {
        let mut hg = engine("HG/1");
        let mut sw = engine("G/1 swing/10:30");
        for e in [&mut hg, &mut sw] {
            let _ = e.handle_input(Time::ZERO, Input::Start { side: Side::White });
        }
        let mut t = 0;
        for (d, code) in game {
            t += d;
            apply(&mut hg, t, code);
            apply(&mut sw, t, code);
            let h = snap(&hg, t);
            prop_assert_eq!(ms(&h, "white") + ms(&h, "black"), 120_000);
            let s = snap(&sw, t);
            if s["phase"]["white"] != "post_cutoff" {
                let total = s["detail"]["white"]["swing_ms"].as_u64().unwrap_or(0)
                    + s["detail"]["black"]["swing_ms"].as_u64().unwrap_or(0);
                prop_assert_eq!(total, 20_000, "{}", s);
            }
        }
    }

    /// Sudden death: what the two clocks lost is exactly the running time elapsed.
    #[test]
    fn sudden_death_conserves_elapsed_time(game in steps()) {
        let mut e = engine("G/60 d/0");
        let _ = e.handle_input(Time::ZERO, Input::Start { side: Side::White });
        let mut t = 0;
        let mut running_ms = 0;
        for (d, code) in game {
            let was_running = e.status() == Status::Running;
            t += d;
            if was_running {
                running_ms += d;
            }
            apply(&mut e, t, code);
            let s = snap(&e, t);
            prop_assert_eq!(7_200_000 - ms(&s, "white") - ms(&s, "black"), running_ms);
        }
    }

    /// Same inputs, same outputs; and no input sequence panics.
    #[test]
    fn deterministic_and_panic_free(idx in 0..CONTROLS.len(), game in steps()) {
        let run = || {
            let mut e = engine(CONTROLS[idx]);
            let _ = e.handle_input(Time::ZERO, Input::Start { side: Side::White });
            let mut t = 0;
            let mut out = Vec::new();
            for (d, code) in &game {
                t += d;
                apply(&mut e, t, *code);
                out.push(snap(&e, t));
                let _ = e.display(Time::from_ms(t));
                while e.poll_event().is_some() {}
            }
            out
        };
        prop_assert_eq!(run(), run());
    }
}
