//! Conformance of the notation parser and printer with `conformance/timecontrol-vectors.json`:
//! every notation vector (method, params after C1 normalization, canonical and its round trip,
//! warnings by code prefix, error codes) and every timing vector's notation/canonical/params.
//! Failures are collected and reported together, each naming the input and the field.

use chessclock_engine::notation::{self, Parsed};
use chessclock_engine::params::{Method, Params, TimeControl};
use serde_json::Value;

fn vectors() -> Value {
    // The repository's copy (checked against the shared reference file by engine_vectors).
    let text = std::fs::read_to_string(crate::engine_vectors::VECTORS)
        .expect("the conformance vectors are readable");
    serde_json::from_str(&text).expect("the conformance vectors are JSON")
}

fn expected_control(v: &Value) -> TimeControl {
    let method: Method =
        serde_json::from_value(v["method"].clone()).expect("vector method is a known method");
    let params: Params =
        serde_json::from_value(v["params"].clone()).expect("vector params have the params schema");
    TimeControl { method, params }
}

/// Compare a parse result with an expected control and canonical text.
fn check_control(
    input: &str,
    parsed: &Parsed,
    want: &TimeControl,
    canonical: Option<&str>,
    fails: &mut Vec<String>,
) {
    if parsed.canonical_json() != canonical {
        fails.push(format!(
            "{input:?}: canonical (JSON) {:?} != expected {canonical:?}",
            parsed.canonical_json()
        ));
    }
    if parsed.control.method != want.method {
        fails.push(format!(
            "{input:?}: method {} != expected {}",
            parsed.control.method, want.method
        ));
    }
    if !parsed.control.equivalent(want) {
        fails.push(format!(
            "{input:?}: params {} != expected {}",
            serde_json::to_string(&parsed.control.params).unwrap_or_default(),
            serde_json::to_string(&want.params).unwrap_or_default()
        ));
    }
    match notation::parse(&parsed.canonical) {
        Ok(again) => {
            if !again.control.equivalent(want) {
                fails.push(format!(
                    "{input:?}: canonical {:?} re-parses to other params {}",
                    parsed.canonical,
                    serde_json::to_string(&again.control.params).unwrap_or_default()
                ));
            }
            if again.canonical != parsed.canonical {
                fails.push(format!(
                    "{input:?}: canonical {:?} re-prints as {:?}",
                    parsed.canonical, again.canonical
                ));
            }
        }
        Err(e) => fails.push(format!(
            "{input:?}: canonical {:?} does not parse: {e}",
            parsed.canonical
        )),
    }
}

#[test]
fn notation_vectors() {
    let all = vectors();
    let list = all["notation_vectors"]
        .as_array()
        .expect("notation_vectors is a list");
    assert_eq!(list.len(), 47, "the vector file changed size");
    let mut fails = Vec::new();
    for v in list {
        let input = v["input"].as_str().expect("input is a string");
        let result = notation::parse(input);
        if let Some(code) = v.get("error").and_then(Value::as_str) {
            match result {
                Ok(p) => fails.push(format!(
                    "{input:?}: expected error {code}, parsed as {} {:?}",
                    p.control.method, p.canonical
                )),
                Err(e) => {
                    if e.kind() != code.split(':').next().unwrap_or(code) {
                        fails.push(format!(
                            "{input:?}: error code {} != expected {code}",
                            e.code
                        ));
                    }
                    if e.message.trim().is_empty() || e.position > input.len() {
                        fails.push(format!(
                            "{input:?}: error without message or position: {e:?}"
                        ));
                    }
                }
            }
            continue;
        }
        let parsed = match result {
            Ok(p) => p,
            Err(e) => {
                fails.push(format!("{input:?}: rejected: {e}"));
                continue;
            }
        };
        let want = expected_control(v);
        check_control(input, &parsed, &want, v["canonical"].as_str(), &mut fails);
        let want_warnings: Vec<&str> = v["warnings"]
            .as_array()
            .expect("warnings is a list")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let prefix = |w: &str| w.split([' ', ':']).next().unwrap_or(w).to_string();
        let got: Vec<String> = parsed.warnings.iter().map(|w| prefix(w)).collect();
        let exp: Vec<String> = want_warnings.iter().map(|w| prefix(w)).collect();
        if got != exp {
            fails.push(format!(
                "{input:?}: warnings {:?} != expected {want_warnings:?}",
                parsed.warnings
            ));
        }
    }
    assert!(
        fails.is_empty(),
        "{} failures:\n{}",
        fails.len(),
        fails.join("\n")
    );
}

#[test]
fn timing_vector_notations() {
    let all = vectors();
    let list = all["vectors"].as_array().expect("vectors is a list");
    assert_eq!(list.len(), 55, "the vector file changed size");
    let mut fails = Vec::new();
    for v in list {
        let want = expected_control(v);
        let canonical = v["canonical"].as_str().expect("canonical is a string");
        for input in [
            v["notation"].as_str().expect("notation is a string"),
            canonical,
        ] {
            match notation::parse(input) {
                Ok(p) => check_control(input, &p, &want, Some(canonical), &mut fails),
                Err(e) => fails.push(format!("{} {input:?}: rejected: {e}", v["id"])),
            }
        }
        if notation::canonical(&want) != canonical {
            fails.push(format!(
                "{}: printing the vector params gives {:?}, expected {canonical:?}",
                v["id"],
                notation::canonical(&want)
            ));
        }
    }
    assert!(
        fails.is_empty(),
        "{} failures:\n{}",
        fails.len(),
        fails.join("\n")
    );
}
