//! The worked examples of `spec/timecontrols.md` §4 that the shared vector file leaves out,
//! worked by hand into vectors (`tests/data/spec-worked-examples.json`), through the engine:
//! once from their `params` and once from their notation alone.

use chessclock_engine::vectors::{VectorFile, failures};
use serde_json::Value;

const EXAMPLES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/spec-worked-examples.json"
);

fn run_all(doc: &Value) -> Vec<String> {
    let file = VectorFile::from_value(doc).expect("a vectors object");
    assert!(file.vectors.len() >= 50, "the file holds 57 examples");
    failures(&file)
}

fn examples() -> Value {
    let text = std::fs::read_to_string(EXAMPLES).expect("read the examples");
    serde_json::from_str(&text).expect("parse the examples")
}

#[test]
fn every_worked_example_passes_from_its_params() {
    let failures = run_all(&examples());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_worked_example_passes_from_its_notation_alone() {
    let mut doc = examples();
    for v in doc["vectors"].as_array_mut().expect("vectors") {
        v.as_object_mut().expect("object").remove("params");
    }
    let failures = run_all(&doc);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
