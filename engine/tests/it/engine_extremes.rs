//! Valid but extreme numbers never panic or hang the engine: every control the parser accepts
//! (durations up to the 1000 h limit, counts up to 10 000) runs through start, presses,
//! arbiter corrections, long waits, snapshot, display, canonical printing and explanation.
//! Debug builds check overflow, so an unchecked product or sum fails here.

use crate::support::engine;
use chessclock_engine::notation;
use chessclock_engine::params::{MAX_COUNT, MAX_DURATION_MS, TimeControl};
use chessclock_engine::{AdjustOp, Engine, Input, Side, Time};
use proptest::prelude::*;

/// Durations in notation positions (bare numbers are minutes or seconds by position).
fn dur() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("0".to_owned()),
        Just("1ms".to_owned()),
        Just("1".to_owned()),
        Just("1000h".to_owned()),
        Just("999h59m59s999ms".to_owned()),
        Just("60000".to_owned()),
        Just("3600000s".to_owned()),
        (1u64..100_000).prop_map(|n| format!("{n}s")),
    ]
}

fn count() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("1".to_owned()),
        Just("2".to_owned()),
        Just(MAX_COUNT.to_string()),
        (1u32..=MAX_COUNT).prop_map(|n| n.to_string()),
    ]
}

fn scheme() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("hybrid"), Just("linear"), Just("trunc")]
}

fn option() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(" cr/after".to_owned()),
        Just(" cr/before".to_owned()),
        Just(" tr/flag".to_owned()),
        Just(" tr/flagboth".to_owned()),
        Just(" flag/continue".to_owned()),
        dur().prop_map(|d| format!(" cap/{d}")),
        dur().prop_map(|d| format!(" max/{d}")),
    ]
}

/// Notations of every method with extreme numbers (some are rejected: that is fine).
fn notation() -> impl Strategy<Value = String> {
    let controls = prop_oneof![
        (dur(), dur()).prop_map(|(b, i)| format!("G/{b} inc/{i}")),
        (dur(), dur()).prop_map(|(b, d)| format!("G/{b} d/{d}")),
        (dur(), dur()).prop_map(|(b, d)| format!("G/{b} br/{d}")),
        (count(), dur(), dur(), dur()).prop_map(|(n, a, b, i)| format!("{n}/{a} SD/{b} inc/{i}")),
        (count(), dur(), count(), dur()).prop_map(|(n, a, k, b)| format!("{n}/{a} {k}/{b} d/0")),
        dur().prop_map(|h| format!("HG/{h}")),
        (dur(), count(), dur()).prop_map(|(m, p, t)| format!("G/{m} byo/{p}x{t}")),
        (dur(), count(), dur()).prop_map(|(m, s, t)| format!("G/{m} can/{s}/{t}")),
        (dur(), dur(), dur(), scheme()).prop_map(|(m, e, b, s)| format!("G/{m} df/{e}:{b}:{s}")),
        (count(), dur(), dur(), dur(), dur(), scheme())
            .prop_map(|(n, a, m, e, b, s)| format!("{n}/{a} SD/{m} df/{e}:{b}:{s}")),
        (dur(), dur(), dur()).prop_map(|(m, a, b)| format!("G/{m} rsv/{a}:{b}")),
        (dur(), dur(), count(), dur()).prop_map(|(b, i, n, f)| format!("G/{b} pinc/{i}:{n}:{f}")),
        (dur(), dur(), count()).prop_map(|(r, s, n)| format!("G/{r} swing/{s}:{n}")),
        (dur(), dur()).prop_map(|(r, s)| format!("G/{r} swing/{s}")),
        (dur(), dur(), dur(), dur())
            .prop_map(|(a, b, c, d)| format!("W{{G/{a} inc/{b}}} B{{G/{c} inc/{d}}}")),
        (dur(), dur(), count(), dur(), dur()).prop_map(|(a, i, n, f, m)| format!(
            "W{{G/{a} pinc/{i}:{n}:{f}}} B{{G/{a} pinc/{i}:{n}:{f}}} max/{m}"
        )),
        Just("pgn:3600000+3600000".to_owned()),
        Just("pgn:10000/3600000:3600000+3600000".to_owned()),
        Just("G/60 pinc/10000000:4000000000:60".to_owned()),
    ];
    (controls, option()).prop_map(|(c, o)| format!("{c}{o}"))
}

#[derive(Debug, Clone)]
enum Step {
    Press,
    WrongPress,
    Pause,
    Resume,
    Wait,
    SetMoves(Side, u32),
    Adjust(Side, &'static str, AdjustOp, i64),
    Claim(Side),
}

fn side() -> impl Strategy<Value = Side> {
    prop_oneof![Just(Side::White), Just(Side::Black)]
}

fn step() -> impl Strategy<Value = Step> {
    let field = prop_oneof![
        Just("main_ms"),
        Just("extra_ms"),
        Just("reserve_ms"),
        Just("secondary_ms"),
        Just("swing_ms"),
        Just("period_ms"),
    ];
    let ms = prop_oneof![
        Just(i64::MAX),
        Just(i64::MIN),
        Just(MAX_DURATION_MS as i64),
        Just(-1),
        any::<i64>(),
    ];
    let op = prop_oneof![Just(AdjustOp::Set), Just(AdjustOp::Add)];
    prop_oneof![
        4 => Just(Step::Press),
        1 => Just(Step::WrongPress),
        1 => Just(Step::Pause),
        1 => Just(Step::Resume),
        1 => Just(Step::Wait),
        1 => (side(), prop_oneof![Just(u32::MAX), Just(MAX_COUNT), 0..=MAX_COUNT])
            .prop_map(|(s, n)| Step::SetMoves(s, n)),
        1 => (side(), field, op, ms).prop_map(|(s, f, o, m)| Step::Adjust(s, f, o, m)),
        1 => side().prop_map(Step::Claim),
    ]
}

fn delay() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..5_000,
        Just(MAX_DURATION_MS),
        Just(u64::MAX / 4),
        0u64..=3 * MAX_DURATION_MS,
    ]
}

fn read_outs(e: &Engine, t: u64) {
    let now = Time::from_ms(t);
    let _ = e.snapshot(now);
    let _ = e.display(now);
    let _ = e.poll_timeout();
}

fn play(control: TimeControl, steps: &[(u64, Step)]) {
    let _ = notation::explain(&control);
    let _ = notation::canonical(&control);
    let Ok(mut e) = Engine::new(control) else {
        return;
    };
    read_outs(&e, 0);
    let _ = e.handle_input(Time::ZERO, Input::Start { side: Side::White });
    let mut t = 0u64;
    for (d, s) in steps {
        t = t.saturating_add(*d);
        let now = Time::from_ms(t);
        e.handle_timeout(now);
        let mover = serde_json::to_value(e.snapshot(now)).expect("a snapshot")["running"]
            .as_str()
            .map(str::to_owned);
        let mover = if mover.as_deref() == Some("black") {
            Side::Black
        } else {
            Side::White
        };
        let input = match s {
            Step::Press => Input::Press { side: mover },
            Step::WrongPress => Input::Press {
                side: mover.other(),
            },
            Step::Pause => Input::Pause,
            Step::Resume => Input::Resume,
            Step::Wait => {
                read_outs(&e, t);
                continue;
            }
            Step::SetMoves(side, moves) => Input::SetMoves {
                side: *side,
                moves: *moves,
            },
            Step::Adjust(side, field, op, ms) => Input::Adjust {
                side: *side,
                field: field.parse().expect("an adjustable field"),
                op: *op,
                ms: *ms,
            },
            Step::Claim(side) => Input::ClaimDraw { side: *side },
        };
        let _ = e.handle_input(now, input);
        while e.poll_event().is_some() {}
        read_outs(&e, t);
        read_outs(&e, t.saturating_add(MAX_DURATION_MS));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn extreme_controls_never_panic(
        text in notation(),
        steps in prop::collection::vec((delay(), step()), 0..30),
    ) {
        if let Ok(p) = notation::parse(&text) {
            // Whatever parses is within the limits the engine accepts.
            prop_assert!(Engine::new(p.control.clone()).is_ok(), "{text}: {}", p.canonical);
            play(p.control, &steps);
        }
    }
}

#[test]
fn the_audit_examples() {
    // Used to panic in the explanation (n * inc overflow).
    let e = notation::parse("G/60 pinc/10000000:4000000000:60").expect_err("too long");
    assert_eq!(e.kind(), "bad_duration");
    let p = notation::parse("G/60 pinc/1000h:10000:1000h").expect("at the limits");
    let text = notation::explain(&p.control).join(" ");
    assert!(text.contains("h"), "{text}");
    // Counts above the limit are refused by the parser and by the engine.
    assert!(notation::parse("10001/30 SD/30 d/0").is_err());
    assert!(notation::parse("G/1 byo/10001x30").is_err());
    let mut big = notation::parse("G/1 byo/5x30").expect("valid").control;
    big.params.periods = Some(MAX_COUNT + 1);
    assert!(Engine::new(big).is_err());
    let mut long = notation::parse("G/1 df/60:10:linear")
        .expect("valid")
        .control;
    long.params.extra_ms = Some(MAX_DURATION_MS + 1);
    assert!(Engine::new(long).is_err());
    // Double-flag linear with the longest valid extra time: b·t exceeds u64 without u128.
    let mut e = engine("G/1ms df/1000h:1000h:linear");
    e.handle_input(Time::ZERO, Input::Start { side: Side::White })
        .expect("start");
    e.handle_timeout(Time::from_ms(2));
    e.handle_input(Time::from_ms(3), Input::Press { side: Side::White })
        .expect("press in extra time");
    let _ = e.snapshot(Time::from_ms(3));
    // set_moves past the bound is a clear error; at the bound it works.
    let mut e = engine("G/5 d/0");
    let err = e
        .handle_input(
            Time::ZERO,
            Input::SetMoves {
                side: Side::White,
                moves: u32::MAX,
            },
        )
        .expect_err("over the limit");
    assert!(err.to_string().contains("10000"), "{err}");
    e.handle_input(
        Time::ZERO,
        Input::SetMoves {
            side: Side::White,
            moves: MAX_COUNT,
        },
    )
    .expect("at the limit");
    e.handle_input(Time::ZERO, Input::Start { side: Side::White })
        .expect("start");
    e.handle_input(Time::from_ms(5), Input::Press { side: Side::White })
        .expect("press");
    assert_eq!(
        serde_json::to_value(e.snapshot(Time::from_ms(5))).expect("a snapshot")["moves"]["white"],
        MAX_COUNT + 1
    );
}

/// Period lookup is closed-form: a set_moves far into a repeating control applies every
/// pending period at once, and a press costs the same at move 20 000 as at move 1.
#[test]
fn long_games_stay_fast() {
    let started = std::time::Instant::now();
    let mut e = engine("1/1 d/0");
    e.handle_input(
        Time::ZERO,
        Input::SetMoves {
            side: Side::White,
            moves: MAX_COUNT,
        },
    )
    .expect("set_moves at the limit");
    let s = serde_json::to_value(e.snapshot(Time::ZERO)).expect("a snapshot");
    // Period 1 plus one minute for each of the 10 000 completed one-move periods.
    assert_eq!(s["white_ms"], 60_000 * (u64::from(MAX_COUNT) + 1), "{s}");
    assert_eq!(s["detail"]["white"]["period"], MAX_COUNT + 1, "{s}");
    e.handle_input(Time::ZERO, Input::Start { side: Side::White })
        .expect("start");
    let mut t = 0;
    for k in 0..20_000u64 {
        t += 1;
        let side = if k % 2 == 0 { Side::White } else { Side::Black };
        e.handle_input(Time::from_ms(t), Input::Press { side })
            .expect("press");
    }
    let s = serde_json::to_value(e.snapshot(Time::from_ms(t))).expect("a snapshot");
    assert_eq!(s["moves"]["white"], u64::from(MAX_COUNT) + 10_000, "{s}");
    assert_eq!(s["moves"]["black"], 10_000, "{s}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
}
