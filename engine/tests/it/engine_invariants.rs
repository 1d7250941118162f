//! Property tests of the engine: invariants that hold for any sequence of inputs.

use crate::support::{engine, snap};
use chessclock_engine::notation;
use chessclock_engine::{AdjustField, AdjustOp, Engine, GameResult, Input, Side, Status, Time};
use proptest::prelude::*;
use serde_json::Value;

fn ms(v: &Value, side: &str) -> u64 {
    v[format!("{side}_ms")].as_u64().expect("ms")
}

/// A random game: (delay before the step, action code, argument). Codes 0-5 are play
/// (presses, pause, resume); 6-10 are arbiter and result actions.
fn steps() -> impl Strategy<Value = Vec<(u64, u8, u64)>> {
    prop::collection::vec((0u64..20_000, 0u8..6, any::<u64>()), 1..40)
}

/// Random games that also use set_moves, adjust, claims, board results and reconfigure
/// (arbiter actions are refused while running, so pauses are frequent).
fn arbiter_steps() -> impl Strategy<Value = Vec<(u64, u8, u64)>> {
    prop::collection::vec(
        (
            0u64..20_000,
            prop_oneof![4 => 0u8..6, 1 => Just(4u8), 3 => 6u8..11],
            any::<u64>(),
        ),
        1..40,
    )
}

const FIELDS: [AdjustField; 9] = AdjustField::ALL;

fn input(e: &Engine, t: u64, code: u8, arg: u64) -> Input {
    let mover = snap(e, t)["running"].as_str().map(str::to_owned);
    let side = match mover.as_deref() {
        Some("black") => Side::Black,
        _ => Side::White,
    };
    let any_side = if arg.is_multiple_of(2) {
        Side::White
    } else {
        Side::Black
    };
    match code {
        0..=2 => Input::Press { side },
        3 => Input::Press { side: side.other() },
        4 => Input::Pause,
        5 => Input::Resume,
        6 => Input::SetMoves {
            side: any_side,
            moves: u32::try_from(arg % 100).unwrap_or(0),
        },
        7 => Input::Adjust {
            side: any_side,
            field: FIELDS[usize::try_from(arg / 2 % FIELDS.len() as u64).unwrap_or(0)],
            op: if (arg / 32).is_multiple_of(2) {
                AdjustOp::Add
            } else {
                AdjustOp::Set
            },
            ms: i64::try_from(arg / 64 % 40_001).unwrap_or(0) - 20_000,
        },
        8 => Input::ClaimDraw { side: any_side },
        9 => Input::BoardResult {
            result: [
                GameResult::WhiteWins,
                GameResult::BlackWins,
                GameResult::Draw,
            ][usize::try_from(arg % 3).unwrap_or(0)],
        },
        _ => Input::Reconfigure {
            control: Box::new(
                notation::parse(
                    CONTROLS[usize::try_from(arg % CONTROLS.len() as u64).unwrap_or(0)],
                )
                .expect("valid")
                .control,
            ),
        },
    }
}

fn apply(e: &mut Engine, t: u64, code: u8, arg: u64) {
    let i = input(e, t, code, arg);
    let _ = e.handle_input(Time::from_ms(t), i);
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
    "byo/2x5",
    "G/1 can/2/10s flag/continue",
    "G/1 byo/2x5 cap/70s",
    "2/1 SD/1 df/20:5:linear tr/flag",
    "40/1 d/5; SD/1 br/2",
    "G/1 inc/5 max/2 cr/after",
];

fn moving_waiting_side(e: &Engine) -> bool {
    use chessclock_engine::params::Method;
    matches!(
        e.control().method,
        Method::Hourglass | Method::PhasedSwing | Method::PhasedSwingOpen
    )
}

/// Whether the engine's current control is double flag with periods reached on the flag.
fn df_period_on_flag(e: &Engine) -> bool {
    use chessclock_engine::params::{Method, Transition};
    e.control().method == Method::DoubleFlag
        && e.control().params.transition == Some(Transition::Flag)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// While paused nothing moves: not the clocks, not phases, not the cap.
    #[test]
    fn pause_freezes_everything(idx in 0..CONTROLS.len(), game in arbiter_steps(), wait in 1u64..600_000) {
        let mut e = engine(CONTROLS[idx]);
        let _ = e.handle_input(Time::ZERO, Input::Start { side: Side::White });
        let mut t = 0;
        for (d, code, arg) in game {
            t += d;
            apply(&mut e, t, code, arg);
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

    /// The running side never gains time between events, for every method: the only jumps
    /// up (main into byo-yomi, Canadian overtime or double-flag extra time, a period reached
    /// under `tr/flag`) are phase changes, except a double-flag period under `tr/flag`. The waiting side never changes except under hourglass and swing. Holds in
    /// games with arbiter actions and reconfigurations too.
    #[test]
    fn running_side_never_gains_between_events(idx in 0..CONTROLS.len(), game in arbiter_steps(), probe in 1u64..5_000) {
        let control = CONTROLS[idx];
        let mut e = engine(control);
        let _ = e.handle_input(Time::ZERO, Input::Start { side: Side::White });
        let mut t = 0;
        for (d, code, arg) in game {
            t += d;
            apply(&mut e, t, code, arg);
            let a = snap(&e, t);
            let b = snap(&e, t + probe);
            if let Some(mover) = a["running"].as_str() {
                // Double flag under tr/flag adds the next main-time period when the time runs
                // out with the quota made; its phase stays `main` (double-flag phases do not
                // number periods), so that jump up is not a phase change.
                // The game may have been reconfigured, so ask the engine, not `control`.
                let df_period_on_flag = df_period_on_flag(&e);
                if a["phase"] == b["phase"] && !df_period_on_flag {
                    prop_assert!(ms(&b, mover) <= ms(&a, mover), "{control}: {a} -> {b}");
                }
                let waiting = if mover == "white" { "black" } else { "white" };
                if !moving_waiting_side(&e) && b["status"] == "running" {
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
        for (d, code, arg) in game {
            t += d;
            apply(&mut hg, t, code, arg);
            apply(&mut sw, t, code, arg);
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
        for (d, code, arg) in game {
            let was_running = e.status() == Status::Running;
            t += d;
            if was_running {
                running_ms += d;
            }
            apply(&mut e, t, code, arg);
            let s = snap(&e, t);
            prop_assert_eq!(7_200_000 - ms(&s, "white") - ms(&s, "black"), running_ms);
        }
    }

    /// Same inputs, same outputs; and no input sequence panics.
    #[test]
    fn deterministic_and_panic_free(idx in 0..CONTROLS.len(), game in arbiter_steps()) {
        let run = || {
            let mut e = engine(CONTROLS[idx]);
            let _ = e.handle_input(Time::ZERO, Input::Start { side: Side::White });
            let mut t = 0;
            let mut out = Vec::new();
            for (d, code, arg) in &game {
                t += d;
                apply(&mut e, t, *code, *arg);
                out.push(snap(&e, t));
                let _ = e.display(Time::from_ms(t));
                while e.poll_event().is_some() {}
            }
            out
        };
        prop_assert_eq!(run(), run());
    }

    /// Arbiter actions (set_moves, adjust, reconfigure) are refused while a clock runs and
    /// change nothing then.
    #[test]
    fn arbiter_actions_need_a_stopped_game(idx in 0..CONTROLS.len(), game in steps(), code in 6u8..11, arg in any::<u64>()) {
        let mut e = engine(CONTROLS[idx]);
        let _ = e.handle_input(Time::ZERO, Input::Start { side: Side::White });
        let mut t = 0;
        for (d, c, a) in game {
            t += d;
            apply(&mut e, t, c, a);
        }
        if e.status() == Status::Running && code != 8 && code != 9 {
            let before = snap(&e, t);
            let i = input(&e, t, code, arg);
            let refused = e.handle_input(Time::from_ms(t), i).is_err();
            prop_assert!(refused);
            prop_assert_eq!(before, snap(&e, t));
        }
    }

    /// Reconfiguring a stopped game to the control it already has changes nothing: the real
    /// remaining time, phases, periods, delay window and cap are all kept.
    #[test]
    fn reconfigure_to_the_same_control_changes_nothing(idx in 0..CONTROLS.len(), game in steps()) {
        let control = CONTROLS[idx];
        let mut e = engine(control);
        let _ = e.handle_input(Time::ZERO, Input::Start { side: Side::White });
        let mut t = 0;
        for (d, c, a) in game {
            t += d;
            apply(&mut e, t, c, a);
        }
        let _ = e.handle_input(Time::from_ms(t), Input::Pause);
        if matches!(e.status(), Status::Paused | Status::Flagged) {
            let before = snap(&e, t);
            let tc = Box::new(notation::parse(control).expect("valid").control);
            let done = e.handle_input(Time::from_ms(t), Input::Reconfigure { control: tc });
            prop_assert!(done.is_ok(), "{:?}", done);
            prop_assert_eq!(&before, &snap(&e, t), "{}", control);
            if e.status() == Status::Paused {
                let _ = e.handle_input(Time::from_ms(t), Input::Resume);
                let _ = snap(&e, t + 10_000);
            }
        }
    }
}
