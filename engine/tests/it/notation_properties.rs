//! Property tests of the notation: printing any valid control of every method and parsing it
//! back gives the same control (after C1 normalization) and the same text; no input makes the
//! parser panic; every error has a code, a message and a position inside the input.

use chessclock_engine::notation::{canonical, parse};
use chessclock_engine::params::{
    Credit, DelayKind, Method, OnFlag, Params, Scheme, Segment, TimeControl, Transition,
};
use proptest::prelude::*;

/// Durations with every printing shape: whole minutes, whole seconds, odd milliseconds.
fn duration() -> impl Strategy<Value = u64> {
    prop_oneof![
        (1u64..=600).prop_map(|m| m * 60_000),
        (1u64..=36_000).prop_map(|s| s * 1_000),
        1u64..=100_000_000,
    ]
}

fn modifier() -> impl Strategy<Value = (Option<u64>, Option<(u64, DelayKind)>)> {
    prop_oneof![
        Just((None, None)),
        duration().prop_map(|v| (Some(v), None)),
        duration().prop_map(|v| (None, Some((v, DelayKind::Us)))),
        duration().prop_map(|v| (None, Some((v, DelayKind::Bronstein)))),
    ]
}

fn segment(moves: Option<u32>) -> impl Strategy<Value = Segment> {
    (duration(), modifier()).prop_map(move |(base_ms, (inc, delay))| Segment {
        moves,
        base_ms,
        inc_ms: inc,
        delay_ms: delay.map(|d| d.0),
        delay_kind: delay.map(|d| d.1),
    })
}

/// 1..4 segments; all but the last count moves, the last may be sudden death.
fn segment_list() -> BoxedStrategy<Vec<Segment>> {
    (
        prop::collection::vec((1u32..=200).prop_flat_map(|n| segment(Some(n))), 0..3),
        prop::option::of(1u32..=200),
    )
        .prop_flat_map(|(head, last_moves)| {
            segment(last_moves).prop_map(move |last| {
                let mut all = head.clone();
                all.push(last);
                all
            })
        })
        .boxed()
}

fn classify(segs: &[Segment]) -> Method {
    match segs {
        [s] if s.moves.is_none() => match (s.inc_ms, s.delay_kind) {
            (None, None) => Method::SuddenDeath,
            (Some(_), _) => Method::Fischer,
            (None, Some(DelayKind::Us)) => Method::UsDelay,
            (None, Some(DelayKind::Bronstein)) => Method::Bronstein,
        },
        _ => Method::Segments,
    }
}

fn common() -> impl Strategy<Value = (Option<OnFlag>, Option<u64>)> {
    (
        prop::option::of(prop_oneof![Just(OnFlag::Freeze), Just(OnFlag::Continue)]),
        prop::option::of(duration()),
    )
}

fn segment_control() -> BoxedStrategy<TimeControl> {
    (
        segment_list(),
        prop::option::of(prop_oneof![
            Just(Credit::Fide),
            Just(Credit::After),
            Just(Credit::Before)
        ]),
        prop::option::of(prop_oneof![
            Just(Transition::Moves),
            Just(Transition::Flag),
            Just(Transition::FlagBoth)
        ]),
        common(),
        prop::option::of(0u64..=1_000_000),
    )
        .prop_map(|(segs, credit, transition, (on_flag, overall), headroom)| {
            let first = &segs[0];
            let start = first.base_ms
                + if credit.unwrap_or_default() == Credit::Fide {
                    first.inc_ms.unwrap_or(0)
                } else {
                    0
                };
            TimeControl {
                method: classify(&segs),
                params: Params {
                    segments: Some(segs),
                    credit,
                    transition,
                    on_flag,
                    cap_ms: headroom.map(|h| start + h),
                    overall_cap_ms: overall,
                    ..Params::default()
                },
            }
        })
        .boxed()
}

fn time_odds() -> BoxedStrategy<TimeControl> {
    (
        duration(),
        duration(),
        prop::option::of(duration()),
        common(),
    )
        .prop_map(|(w, b, inc, (on_flag, overall))| {
            let side = |base| Segment {
                inc_ms: inc,
                ..Segment::sudden_death(base)
            };
            TimeControl {
                method: if inc.is_some() {
                    Method::Fischer
                } else {
                    Method::SuddenDeath
                },
                params: Params {
                    segments_white: Some(vec![side(w)]),
                    segments_black: Some(vec![side(b)]),
                    on_flag,
                    overall_cap_ms: overall,
                    ..Params::default()
                },
            }
        })
        .boxed()
}

fn pinc_segments() -> BoxedStrategy<Vec<Segment>> {
    (duration(), duration(), 1u32..=100, 0u64..=600)
        .prop_map(|(b, i, n, f)| {
            vec![
                Segment {
                    moves: Some(n),
                    inc_ms: Some(i),
                    ..Segment::sudden_death(b)
                },
                Segment::sudden_death(f * 60_000),
            ]
        })
        .boxed()
}

fn total(segs: &[Segment]) -> u64 {
    segs.iter()
        .map(|s| s.base_ms + s.inc_ms.unwrap_or(0) * u64::from(s.moves.unwrap_or(0)))
        .sum()
}

fn other_method() -> BoxedStrategy<TimeControl> {
    let p = Params::default;
    prop_oneof![
        duration().prop_map(move |h| (
            Method::Hourglass,
            Params {
                per_side_ms: Some(h),
                ..p()
            }
        )),
        (prop::option::of(duration()), 1u32..=30, duration()).prop_map(move |(m, n, t)| (
            Method::Byoyomi,
            Params {
                main_ms: Some(m.unwrap_or(0)),
                periods: Some(n),
                period_ms: Some(t),
                ..p()
            }
        )),
        (prop::option::of(duration()), 1u32..=30, duration()).prop_map(move |(m, n, t)| (
            Method::Canadian,
            Params {
                main_ms: Some(m.unwrap_or(0)),
                stones: Some(n),
                period_ms: Some(t),
                ..p()
            }
        )),
        (
            segment_list(),
            duration(),
            0u64..=1000,
            prop_oneof![
                Just(Scheme::Truncated),
                Just(Scheme::Linear),
                Just(Scheme::Hybrid)
            ]
        )
            .prop_map(move |(segs, extra, permille, scheme)| {
                let mut main: Vec<Segment> = segs
                    .iter()
                    .map(|s| Segment {
                        moves: s.moves,
                        ..Segment::sudden_death(s.base_ms)
                    })
                    .collect();
                if let Some(last) = main.last_mut() {
                    last.moves = None;
                }
                (
                    Method::DoubleFlag,
                    Params {
                        main_segments: Some(main),
                        extra_ms: Some(extra),
                        bonus_ms: Some(extra / 1000 * permille),
                        scheme: Some(scheme),
                        ..p()
                    },
                )
            }),
        (duration(), prop::collection::vec(duration(), 1..=2)).prop_map(move |(m, r)| (
            if r.len() == 2 {
                Method::PhasedCountdownTriple
            } else {
                Method::PhasedCountdown
            },
            Params {
                main_ms: Some(m),
                reserve_incs_ms: Some(r),
                ..p()
            }
        )),
        pinc_segments().prop_map(move |s| (
            Method::PhasedIncrement,
            Params {
                segments: Some(s),
                credit: Some(Credit::After),
                ..p()
            }
        )),
        (pinc_segments(), pinc_segments(), 0u64..=600)
            // The declared maximum is a duration: at most 1000 h like any other.
            .prop_filter("max within the duration limit", |(w, b, slack)| {
                (total(w).max(total(b)) / 60_000 + 1 + slack) * 60_000
                    <= chessclock_engine::params::MAX_DURATION_MS
            })
            .prop_map(move |(w, b, slack)| {
                let max = (total(&w).max(total(&b)) / 60_000 + 1 + slack) * 60_000;
                (
                    Method::PhasedIncrementVariable,
                    Params {
                        segments_white: Some(w),
                        segments_black: Some(b),
                        credit: Some(Credit::After),
                        max_total_ms: Some(max),
                        ..p()
                    },
                )
            }),
        (duration(), duration(), prop::option::of(1u32..=100)).prop_map(move |(r, s, n)| (
            if n.is_some() {
                Method::PhasedSwing
            } else {
                Method::PhasedSwingOpen
            },
            Params {
                reserve_ms: Some(r),
                swing_ms: Some(s),
                cutoff_moves: n,
                ..p()
            }
        )),
    ]
    .prop_flat_map(|(method, params)| {
        common().prop_map(move |(on_flag, overall)| TimeControl {
            method,
            params: Params {
                // D16: flag/continue is for countdown methods only.
                on_flag: on_flag.filter(|f| {
                    *f == OnFlag::Freeze
                        || !matches!(
                            method,
                            Method::Hourglass
                                | Method::DoubleFlag
                                | Method::PhasedSwing
                                | Method::PhasedSwingOpen
                        )
                }),
                overall_cap_ms: overall,
                ..params.clone()
            },
        })
    })
    .boxed()
}

fn any_control() -> BoxedStrategy<TimeControl> {
    prop_oneof![segment_control(), time_odds(), other_method()].boxed()
}

/// Valid notations to mutate.
const SEEDS: &[&str] = &[
    "G/5 d/0",
    "40/90, SD/30, inc/30",
    "40/120 d/0; SD/60 d/5",
    "G/1:30:00 inc/30",
    "G/19m50s inc/20 max/20 cr/after",
    "G/60 byo/5x30",
    "G/30 can/25/5",
    "40/90 SD/30 df/300:30:linear",
    "G/120 rsv/60:30 cap/200",
    "W{G/60 pinc/60:40:60} B{G/80 pinc/30:40:60} max/160",
    "G/30 swing/30:40",
    "pgn:40/7200:20/3600:900+30",
    "pgn:300S5=600B5",
    "pgn:*180",
];

fn check_any(input: &str) -> Result<(), TestCaseError> {
    match parse(input) {
        Ok(p) => {
            let again = parse(&p.canonical).map_err(|e| {
                TestCaseError::fail(format!(
                    "{input:?} -> {:?} does not parse: {e}",
                    p.canonical
                ))
            })?;
            prop_assert!(
                again.control.equivalent(&p.control),
                "{input:?} -> {:?}",
                p.canonical
            );
            prop_assert_eq!(&again.canonical, &p.canonical);
        }
        Err(e) => {
            prop_assert!(!e.code.is_empty(), "{input:?}: empty code");
            prop_assert!(!e.message.trim().is_empty(), "{input:?}: empty message");
            prop_assert!(
                e.position <= input.len(),
                "{input:?}: position {} outside",
                e.position
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn printing_then_parsing_gives_the_same_control(tc in any_control()) {
        let text = canonical(&tc);
        let parsed = parse(&text)
            .map_err(|e| TestCaseError::fail(format!("{text:?} does not parse: {e}")))?;
        prop_assert!(
            parsed.control.equivalent(&tc),
            "{text:?}: got {:?}, printed from {:?}", parsed.control, tc
        );
        prop_assert_eq!(&parsed.canonical, &text, "printing is not idempotent");
    }

    #[test]
    fn arbitrary_text_never_panics(input in "\\PC{0,40}") {
        check_any(&input)?;
    }

    #[test]
    fn notation_like_text_never_panics(input in "[GgSsDdWwBb0-9/:;,+|{} .xhmsincaprvwflgtoe'\"*=?-]{0,30}") {
        check_any(&input)?;
    }

    #[test]
    fn mutated_valid_notations_never_panic(
        seed in prop::sample::select(SEEDS),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<char>()), 1..4),
    ) {
        let mut chars: Vec<char> = seed.chars().collect();
        for (at, op, c) in edits {
            let i = at.index(chars.len() + 1);
            match op {
                0 => chars.insert(i, c),
                1 if i < chars.len() => { chars.remove(i); }
                _ if i < chars.len() => chars[i] = c,
                _ => chars.push(c),
            }
        }
        let input: String = chars.into_iter().collect();
        check_any(&input)?;
    }
}

/// Controls read from JSON may lack fields the parser would require; printing and
/// explaining them must still work.
#[test]
fn printer_and_explanation_accept_incomplete_params() {
    use chessclock_engine::notation::explain;
    let methods = [
        "sudden_death",
        "fischer",
        "us_delay",
        "bronstein",
        "segments",
        "phased_increment",
        "phased_increment_variable",
        "hourglass",
        "byoyomi",
        "canadian",
        "double_flag",
        "phased_countdown",
        "phased_countdown_triple",
        "phased_swing",
        "phased_swing_open",
        "unknown",
        "none",
    ];
    for name in methods {
        let tc: TimeControl =
            serde_json::from_str(&format!(r#"{{"method":"{name}","params":{{}}}}"#))
                .expect("every method name deserializes");
        assert!(!canonical(&tc).is_empty(), "{name}");
        assert!(!explain(&tc).is_empty(), "{name}");
    }
}
