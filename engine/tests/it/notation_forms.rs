//! The §6.4 forms that are not in the vector file, with params worked out by hand from the
//! spec, and every §6 error code with the byte position it must point at.

use chessclock_engine::notation::parse;
use chessclock_engine::params::{DelayKind, Method, Segment};

const MIN: u64 = 60_000;
const SEC: u64 = 1_000;

fn segs(input: &str) -> (Method, Vec<Segment>, String, Vec<String>) {
    let p = parse(input).unwrap_or_else(|e| panic!("{input:?} rejected: {e}"));
    let s = p.control.params.segments.clone().unwrap_or_default();
    (p.control.method, s, p.canonical, p.warnings)
}

fn sd(base_ms: u64) -> Segment {
    Segment::sudden_death(base_ms)
}

fn with_inc(mut s: Segment, inc: u64) -> Segment {
    s.inc_ms = Some(inc);
    s
}

fn with_delay(mut s: Segment, d: u64) -> Segment {
    s.delay_ms = Some(d);
    s.delay_kind = Some(DelayKind::Us);
    s
}

fn period(moves: u32, base_ms: u64) -> Segment {
    Segment {
        moves: Some(moves),
        ..sd(base_ms)
    }
}

#[test]
fn us_chess_spellings() {
    for input in ["G/3;inc2", "G/3 inc 2", "G/3 +2", "3|2", "3+2", "inc/2 G/3"] {
        let (m, s, c, w) = segs(input);
        assert_eq!(m, Method::Fischer, "{input}");
        assert_eq!(s, vec![with_inc(sd(3 * MIN), 2 * SEC)], "{input}");
        assert_eq!(c, "G/3 inc/2", "{input}");
        assert!(w.is_empty(), "{input}: {w:?}");
    }
    for input in ["Game/60 t/d5", "G/60 delay 5", "game/60 D/5", "SD/60 d5"] {
        let (m, s, _, _) = segs(input);
        assert_eq!(m, Method::UsDelay, "{input}");
        assert_eq!(s, vec![with_delay(sd(60 * MIN), 5 * SEC)], "{input}");
    }
}

#[test]
fn modifier_scoping_follows_5a7d() {
    let both = vec![
        with_inc(period(40, 90 * MIN), 30 * SEC),
        with_inc(sd(30 * MIN), 30 * SEC),
    ];
    for input in [
        "40/90 SD/30;inc30",
        "40/90, SD/30, inc/30",
        "40/90; SD/30 inc/30",
    ] {
        assert_eq!(segs(input).1, both, "{input}");
    }
    // A modifier in an earlier chunk stays in its chunk.
    let (_, s, c, _) = segs("40/120 d/5; SD/60");
    assert_eq!(
        s,
        vec![with_delay(period(40, 120 * MIN), 5 * SEC), sd(60 * MIN)]
    );
    assert_eq!(c, "40/120 d/5; SD/60 d/0");
}

#[test]
fn legacy_hours_and_units() {
    let (_, s, c, w) = segs("40/2, Game/30");
    assert_eq!(s, vec![period(40, 120 * MIN), sd(30 * MIN)]);
    assert_eq!(c, "40/120 SD/30 d/0");
    assert!(w[0].starts_with("legacy_hours:40/2"), "{w:?}");
    assert!(w[1].starts_with("no_increment_or_delay_specified"), "{w:?}");
    // 30/30 and 2/1 stay minutes (D8).
    assert_eq!(segs("30/30 d/0").1, vec![period(30, 30 * MIN)]);
    assert_eq!(segs("2/1 d/0").1, vec![period(2, MIN)]);
    assert_eq!(segs("40/2h d/0").1, vec![period(40, 120 * MIN)]);
    assert_eq!(
        segs("G/1:30:00 inc/30").1,
        vec![with_inc(sd(90 * MIN), 30 * SEC)]
    );
    // A minute count that D8 would read as hours prints with an explicit unit.
    let (_, s, c, _) = segs("40/1m d/0");
    assert_eq!(s, vec![period(40, MIN)]);
    assert_eq!(c, "40/1m d/0");
}

#[test]
fn pgn_forms() {
    let (m, s, c, _) = segs("pgn:40/7200:20/3600:900+30");
    assert_eq!(m, Method::Segments);
    assert_eq!(
        s,
        vec![
            period(40, 120 * MIN),
            period(20, 60 * MIN),
            with_inc(sd(15 * MIN), 30 * SEC)
        ]
    );
    assert_eq!(c, "40/120 20/60 d/0; SD/15 inc/30");
    let p = parse("pgn:300=600").expect("time odds parse");
    assert_eq!(p.control.method, Method::SuddenDeath);
    assert_eq!(p.control.params.segments_white, Some(vec![sd(5 * MIN)]));
    assert_eq!(p.control.params.segments_black, Some(vec![sd(10 * MIN)]));
    let b = segs("pgn:300B5").1;
    assert_eq!(b[0].delay(), Some((5 * SEC, DelayKind::Bronstein)));
}

#[test]
fn other_methods() {
    let p = parse("byo/5x1m").expect("byo parses").control.params;
    assert_eq!(
        (p.main_ms, p.periods, p.period_ms),
        (Some(0), Some(5), Some(MIN))
    );
    let p = parse("G/120 rsv/60:30 cap/200")
        .expect("rsv parses")
        .control;
    assert_eq!(p.method, Method::PhasedCountdownTriple);
    assert_eq!(p.params.reserve_incs_ms, Some(vec![60 * SEC, 30 * SEC]));
    assert_eq!(p.params.overall_cap_ms, Some(200 * MIN));
    let p = parse("G/30 swing/30 cap/60").expect("swing parses").control;
    assert_eq!(p.method, Method::PhasedSwingOpen);
    assert_eq!(p.params.cutoff_moves, None);
}

/// (input, code before `:`, byte position)
const ERRORS: &[(&str, &str, usize)] = &[
    ("G/3 inc/2 d/5", "increment_and_delay_on_same_segment", 10),
    ("G/3 inc/2; d/5", "increment_and_delay_on_same_segment", 11),
    ("SD/30 40/90", "sudden_death_not_last", 0),
    ("pgn:300:40/9000", "sudden_death_not_last", 4),
    ("G/30 foo", "unknown_item", 5),
    ("G/30 cr/sometimes", "unknown_item", 8),
    ("G/3x", "bad_duration", 2),
    ("G/0.0001s", "sub_ms_duration", 2),
    ("G/99999999999999999999", "bad_duration", 2),
    ("G/5 byo/5x30 HG/3", "conflicting_methods", 13),
    (
        "G/60 byo/5x30 inc/10",
        "increment_or_delay_not_supported_with_byo",
        14,
    ),
    (
        "G/15 inc/2 df/60:10",
        "increment_or_delay_not_supported_with_df",
        5,
    ),
    ("40/90 rsv/60", "rsv_needs_single_sudden_death_base", 0),
    ("40/90 df/60:10", "df_needs_final_sudden_death", 0),
    ("G/15 df/10:20", "df_bonus_exceeds_cap", 5),
    ("HG/3 G/5", "hourglass_takes_no_segments", 5),
    ("inc/30", "no_base_time", 6),
    (
        "W{G/5 d/0} B{G/60 pinc/60:40:60}",
        "per_side_methods_differ",
        13,
    ),
    ("W{HG/5} B{HG/3}", "per_side_not_supported_for_hg", 0),
    (
        "W{G/60 pinc/60:40:60} B{G/60 pinc/60:40:60}",
        "variable_parameters_need_max",
        43,
    ),
    (
        "W{G/60 pinc/60:40:60} B{G/80 pinc/60:40:60} max/160",
        "exceeds_max",
        24,
    ),
    ("pgn:abc", "bad_pgn_field", 4),
    ("pgn:40/9000:x", "bad_pgn_field", 12),
    ("0/30", "unknown_item", 0),
    ("10001/30", "unknown_item", 0),
    ("byo/5", "unknown_item", 0),
];

/// Spec §6 error codes, plus the option errors the spec has no code for (documented in
/// docs/timecontrols.md §5).
const SPEC_CODES: &[&str] = &[
    "increment_and_delay_on_same_segment",
    "sudden_death_not_last",
    "unknown_item",
    "bad_duration",
    "sub_ms_duration",
    "conflicting_methods",
    "df_needs_final_sudden_death",
    "df_bonus_exceeds_cap",
    "hourglass_takes_no_segments",
    "no_base_time",
    "per_side_methods_differ",
    "variable_parameters_need_max",
    "exceeds_max",
    "bad_pgn_field",
    "duplicate_option",
    "option_inside_braces",
];

fn spec_code(kind: &str) -> bool {
    SPEC_CODES.contains(&kind)
        || kind.starts_with("increment_or_delay_not_supported_with_")
        || kind.ends_with("_needs_single_sudden_death_base")
        || kind.starts_with("per_side_not_supported_for_")
        || kind.starts_with("option_not_supported_with_")
}

#[test]
fn every_error_uses_a_spec_code() {
    let bad = [
        "0/30",
        "10001/30",
        "x/30",
        "40/",
        "G/",
        "G/0.0001s",
        "G/99999999999",
        "byo/5",
        "byo/0x30",
        "byo/5x",
        "byo/x30",
        "can/0/5",
        "can/5",
        "can/5/5/5",
        "df/60",
        "df/60:10:odd",
        "df/1:2:3:4",
        "rsv/1:2:3",
        "rsv/",
        "pinc/1:2",
        "pinc/1:0:3",
        "swing/1:0",
        "swing/1:2:3",
        "G/5 cr/sometimes",
        "G/5 tr/x",
        "G/5 flag/x",
        "G/5 zz",
        "5",
        "G/5 inc/2 inc/3",
        "HG/0",
        "W{G/5 cr/after} B{G/5}",
        "G/5 cr/after cr/fide",
        "HG/3 cr/after",
        "pgn:",
        "pgn:40/0",
        "pgn:300+2 G/5",
        "W{G/5",
        "W{G/5} X{G/5}",
        "G/1:75:00",
        "G/60 byo/5x0",
    ];
    for input in bad {
        let e = parse(input).expect_err(input);
        assert!(
            spec_code(e.kind()),
            "{input:?}: code {:?} is not a spec code",
            e.code
        );
    }
}

#[test]
fn every_error_code_with_its_position() {
    for &(input, code, pos) in ERRORS {
        let e = match parse(input) {
            Ok(p) => panic!("{input:?} parsed as {:?}", p.canonical),
            Err(e) => e,
        };
        assert_eq!(e.kind(), code, "{input:?}: {e}");
        assert_eq!(e.position, pos, "{input:?}: {e}");
        assert!(e.message.len() > 20, "{input:?}: {e}");
    }
    let e = parse("W{G/60 pinc/60:40:60} B{G/80 pinc/60:40:60} max/160").expect_err("over max");
    assert_eq!(e.code, "exceeds_max:black:10800000>9600000");
}

/// D6: PGN gives the control, not the clock convention; native options may follow the PGN
/// value (`pgn:300+2 cr/after` is the online convention).
#[test]
fn options_after_a_pgn_value() {
    use chessclock_engine::params::{Credit, OnFlag};
    let p = parse("pgn:300+2 cr/after").expect("D6 form parses");
    assert_eq!(p.control.method, Method::Fischer);
    assert_eq!(p.control.params.credit, Some(Credit::After));
    assert_eq!(
        p.control.params.segments,
        Some(vec![with_inc(sd(5 * MIN), 2 * SEC)])
    );
    assert_eq!(p.canonical, "G/5 inc/2 cr/after");
    let again = parse(&p.canonical).expect("canonical parses");
    assert!(again.control.equivalent(&p.control));
    // The default stays fide.
    assert_eq!(
        parse("pgn:300+2").expect("parses").control.params.credit,
        None
    );
    let p = parse("pgn:40/7200:3600 tr/flag flag/continue cap/150").expect("parses");
    assert_eq!(p.control.params.on_flag, Some(OnFlag::Continue));
    assert_eq!(p.control.params.overall_cap_ms, Some(150 * MIN));
    let p = parse("pgn:300=600 cr/before").expect("per-side PGN with an option");
    assert_eq!(p.control.params.credit, Some(Credit::Before));
    for (input, code, pos) in [
        ("pgn:300+2 G/5", "unknown_item", 10),
        ("pgn:300+2 cr/after cr/fide", "duplicate_option", 19),
        ("pgn:300+2 max/5", "exceeds_max", 10),
        ("pgn:*180 cr/after", "option_not_supported_with_hg", 9),
    ] {
        let e = parse(input).expect_err(input);
        assert_eq!(e.kind(), code, "{input}: {e}");
        assert_eq!(e.position, pos, "{input}: {e}");
    }
    assert!(parse("pgn:? cr/after").is_err());
}
