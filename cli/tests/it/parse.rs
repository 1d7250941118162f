//! Runs the real `chessclockctl timecontrol parse` binary: JSON and readable output, error
//! exit code 2 with the spec's code, caret under the error position.

use std::process::Output;

use crate::support::ctl;
use serde_json::Value;

fn run(args: &[&str]) -> Output {
    ctl(&[&["timecontrol", "parse"], args].concat())
}

fn json(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("not JSON: {text}: {e}"))
}

#[test]
fn json_output_of_a_valid_notation() {
    let out = run(&["G/3;inc2", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let v = json(&out);
    assert_eq!(v["method"], "fischer");
    assert_eq!(v["canonical"], "G/3 inc/2");
    assert_eq!(v["params"]["segments"][0]["base_ms"], 180_000);
    assert_eq!(v["params"]["segments"][0]["inc_ms"], 2_000);
    assert_eq!(v["warnings"].as_array().map(Vec::len), Some(0));
}

#[test]
fn json_output_carries_warnings() {
    let out = run(&["--json", "G/30"]);
    assert!(out.status.success(), "{out:?}");
    let v = json(&out);
    let w = v["warnings"][0].as_str().unwrap_or_default();
    assert!(w.starts_with("no_increment_or_delay_specified"), "{v}");
    assert_eq!(v["canonical"], "G/30 d/0");
}

#[test]
fn unquoted_words_are_joined() {
    let out = run(&["--json", "40/120", "SD/60", "d/5"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(json(&out)["canonical"], "40/120 SD/60 d/5");
}

#[test]
fn json_error_exits_2_with_the_code() {
    let out = run(&["--json", "G/3 inc/2 d/5"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let v = json(&out);
    assert_eq!(v["error"], "increment_and_delay_on_same_segment");
    assert!(
        v["message"]
            .as_str()
            .is_some_and(|m| m.contains("remove one")),
        "{v}"
    );
    assert_eq!(v["position"], 10);
}

#[test]
fn human_output_explains_and_names_the_method() {
    let out = run(&["G/3 inc/2"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("method:    fischer"), "{text}");
    assert!(text.contains("canonical: G/3 inc/2"), "{text}");
    assert!(text.contains("3:02"), "{text}");
}

#[test]
fn human_output_says_the_meaning_in_a_line_and_hints_at_a_likely_slip() {
    let out = run(&["90/30"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("meaning:   90 moves in 30 min, repeating\n"),
        "{text}"
    );
    assert!(
        text.contains("hint: 90/30 means 90 moves in 30 min, repeating; for 90 min + 30 s a move write 90+30 (or G/90 inc/30)"),
        "{text}"
    );
    let text = String::from_utf8_lossy(&run(&["90+30"]).stdout).into_owned();
    assert!(
        text.contains("meaning:   1 h 30 min + 30 s a move\n"),
        "{text}"
    );
    assert!(!text.contains("hint:"), "{text}");
}

#[test]
fn human_error_has_a_caret_under_the_position() {
    let out = run(&["G/30 foo"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines[0].contains("unknown_item:foo"), "{err}");
    assert_eq!(lines[1], "  G/30 foo", "{err}");
    assert_eq!(lines[2], "       ^", "{err}");
}

#[test]
fn pgn_sandclock_reading_can_be_chosen() {
    let split = json(&run(&["--json", "pgn:*180"]));
    assert_eq!(split["params"]["per_side_ms"], 90_000);
    let per_side = json(&run(&["--json", "--pgn-sandclock-per-side", "pgn:*180"]));
    assert_eq!(per_side["params"]["per_side_ms"], 180_000);
}

#[test]
fn pgn_unknown_and_none_have_a_null_canonical_form() {
    for (input, method) in [("pgn:?", "unknown"), ("pgn:-", "none")] {
        let out = run(&["--json", input]);
        assert!(out.status.success(), "{out:?}");
        let v = json(&out);
        assert_eq!(v["method"], method);
        assert!(v["canonical"].is_null(), "{v}");
        assert_eq!(v["params"], serde_json::json!({}));
    }
}

/// Every rating vector (`engine/tests/data/rating-vectors.json`: the examples US Chess gives
/// for rule 5B and FIDE's 60-move formula) through the real binary: `uscf_rating` and
/// `fide_category` as the vector says.
#[test]
fn json_output_says_the_uscf_rating_system_and_the_fide_category() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../engine/tests/data/rating-vectors.json"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("read"))
        .expect("the rating vectors are JSON");
    let vectors = doc["vectors"].as_array().expect("a list");
    assert!(vectors.len() >= 15, "{} vectors", vectors.len());
    for v in vectors {
        let input = v["input"].as_str().expect("an input");
        let out = run(&["--json", input]);
        assert!(out.status.success(), "{input}: {out:?}");
        let got = json(&out);
        assert_eq!(got["uscf_rating"], v["uscf_rating"], "{input}: {got}");
        assert_eq!(got["fide_category"], v["fide_category"], "{input}: {got}");
    }
}

#[test]
fn human_output_gives_the_rating_sums() {
    let out = run(&["G/60 d/5"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("US Chess (rule 5B): rated regular and quick (dual rated); total playing time mm + ss = 65 min (primary 60 min)."),
        "{text}"
    );
    assert!(
        text.contains("FIDE: standard; time for 60 moves = 65 min."),
        "{text}"
    );
    let out = run(&["W{G/90 d/5} B{G/45 d/5}"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("not ratable; total playing time mm + ss = White 95 min (primary 90 min), Black 50 min (primary 45 min)."),
        "{text}"
    );
}

#[test]
fn armageddon_is_an_option_and_refused_with_double_flag() {
    let v = json(&run(&["--json", "W{G/5 d/0} B{G/4 d/0} Armageddon"]));
    assert_eq!(v["canonical"], "W{G/5 d/0} B{G/4 d/0} armageddon", "{v}");
    assert_eq!(v["params"]["armageddon"], true, "{v}");
    let out = run(&["--json", "G/15 df/60:10:hybrid armageddon"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(
        json(&out)["error"],
        "option_not_supported_with_df:armageddon"
    );
    let text = String::from_utf8_lossy(&run(&["G/5 d/0 armageddon"]).stdout).into_owned();
    assert!(text.contains("Black has draw odds"), "{text}");
}

#[test]
fn count_up_is_a_method_with_an_optional_cap() {
    let v = json(&run(&["--json", "up cap/90"]));
    assert_eq!(v["method"], "count_up", "{v}");
    assert_eq!(v["canonical"], "UP cap/90", "{v}");
    assert_eq!(v["params"]["overall_cap_ms"], 5_400_000, "{v}");
    assert!(
        v["uscf_rating"].is_null() && v["fide_category"].is_null(),
        "{v}"
    );
    let out = run(&["--json", "G/5 UP"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(json(&out)["error"], "up_takes_no_segments");
}

#[test]
fn a_method_per_side_parses_as_periods_per_side() {
    let v = json(&run(&["--json", "W{G/5 inc/3} B{G/5 d/5}"]));
    assert_eq!(v["method"], "segments", "{v}");
    assert_eq!(v["canonical"], "W{G/5 inc/3} B{G/5 d/5}", "{v}");
    assert_eq!(v["params"]["segments_white"][0]["inc_ms"], 3_000, "{v}");
    assert_eq!(v["params"]["segments_black"][0]["delay_ms"], 5_000, "{v}");
    let out = run(&["--json", "W{G/5 d/0} B{HG/3}"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(
        json(&out)["error"],
        "per_side_methods_differ:sudden_death/hourglass"
    );
}

#[test]
fn a_different_kind_of_method_per_side_is_method_per_side() {
    let v = json(&run(&["--json", "W{G/5 inc/3} B{G/5 byo/5x30}"]));
    assert_eq!(v["method"], "per_side", "{v}");
    assert_eq!(v["canonical"], "W{G/5 inc/3} B{G/5 byo/5x30}", "{v}");
    assert_eq!(v["params"]["white"]["method"], "fischer", "{v}");
    assert_eq!(v["params"]["black"]["method"], "byoyomi", "{v}");
    let text = String::from_utf8_lossy(&run(&["W{G/5 inc/3} B{G/5 byo/5x30}"]).stdout).into_owned();
    assert!(
        text.contains("Black plays G/5 byo/5x30 (byoyomi):"),
        "{text}"
    );
}
