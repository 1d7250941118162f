//! The PGN side of the notation: the §6.3 sanity warnings on hand-written tags and the PGN
//! `TimeControl` tag written for a control, from the project vectors in
//! `tests/data/pgn-vectors.json`; and the §6.2 rule that a canonical `n/DUR` keeps its `m`
//! exactly where D8 would read bare minutes as hours.

use chessclock_engine::notation::{self, pgn_time_control};
use serde_json::Value;

fn vectors() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/pgn-vectors.json");
    let text = std::fs::read_to_string(path).expect("the PGN vectors are readable");
    serde_json::from_str(&text).expect("the PGN vectors are JSON")
}

/// A warning's code and subject (`pgn_seconds_per_move:40/90+30`), without the explanation.
fn code(w: &str) -> &str {
    w.split(' ').next().unwrap_or(w)
}

#[test]
fn hand_written_pgn_tags_draw_the_sanity_warnings() {
    let doc = vectors();
    let mut failures = Vec::new();
    for v in doc["warnings"].as_array().expect("warnings list") {
        let input = v["input"].as_str().expect("input");
        let want: Vec<&str> = v["warnings"]
            .as_array()
            .expect("warnings")
            .iter()
            .map(|w| w.as_str().expect("a warning code"))
            .collect();
        let parsed = notation::parse(input).unwrap_or_else(|e| panic!("{input}: {e:?}"));
        let got: Vec<&str> = parsed
            .warnings
            .iter()
            .map(|w| code(w))
            .filter(|c| c.starts_with("pgn_"))
            .collect();
        if got != want {
            failures.push(format!("{input}: got {got:?}, want {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_warnings_say_what_was_probably_meant() {
    let w = notation::parse("pgn:40/90+30").expect("parses").warnings;
    assert!(w[0].contains("40/5400"), "{w:?}");
    let w = notation::parse("pgn:5400/40").expect("parses").warnings;
    assert!(w[0].contains("40/5400"), "{w:?}");
    let w = notation::parse("pgn:15+10").expect("parses").warnings;
    assert!(w[0].contains("900+10"), "{w:?}");
    // The value is still read as PGN says: 90 s, not 90 minutes.
    let p = notation::parse("pgn:40/90+30").expect("parses");
    assert_eq!(p.canonical, "40/90s inc/30");
}

#[test]
fn controls_render_as_pgn_tags_where_pgn_has_a_form() {
    let doc = vectors();
    let mut failures = Vec::new();
    for v in doc["tags"].as_array().expect("tags list") {
        let input = v["notation"].as_str().expect("notation");
        let want = v["pgn"].as_str();
        let parsed = notation::parse(input).unwrap_or_else(|e| panic!("{input}: {e:?}"));
        let got = pgn_time_control(&parsed.control);
        if got.as_deref() != want {
            failures.push(format!("{input}: got {got:?}, want {want:?}"));
            continue;
        }
        // A written tag reads back (with `pgn:`) as the same control, up to the clock
        // conventions PGN does not carry (`cr/`, `flag/`) and Armageddon's scoring.
        if let Some(tag) = got {
            let back = notation::parse(&format!("pgn:{tag}"))
                .unwrap_or_else(|e| panic!("{input} -> pgn:{tag}: {e:?}"));
            let mut original = parsed.control.clone();
            original.params.credit = None;
            original.params.on_flag = None;
            original.params.armageddon = None;
            if !back.control.equivalent(&original) {
                failures.push(format!(
                    "{input}: pgn:{tag} reads back as {}",
                    back.canonical
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn canonical_periods_keep_the_minute_unit_exactly_where_d8_reads_hours() {
    for moves in 1..=120u32 {
        for minutes in 1..=30u64 {
            let input = format!("{moves}/{minutes}m d/0");
            let parsed = notation::parse(&input).expect("parses");
            let canonical = &parsed.canonical;
            let hours_if_bare = minutes * 6 < u64::from(moves);
            assert_eq!(
                canonical.starts_with(&format!("{moves}/{minutes}m ")),
                hours_if_bare,
                "{input} -> {canonical}"
            );
            let back = notation::parse(canonical).expect("canonical parses");
            assert_eq!(back.control, parsed.control, "{input} -> {canonical}");
            assert!(
                back.warnings.iter().all(|w| !w.starts_with("legacy_hours")),
                "{canonical}: {:?}",
                back.warnings
            );
        }
    }
}
