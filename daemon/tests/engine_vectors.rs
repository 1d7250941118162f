//! Every timing vector of the shared conformance file through the engine: every field of
//! every expected snapshot must match (spec §1 harness rule).

use chessclockd::engine::vectors::{VectorFile, failures};
use serde_json::Value;

const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/conformance/timecontrol-vectors.json"
);

#[test]
fn every_timing_vector_passes() {
    let text = std::fs::read_to_string(VECTORS).expect("read the shared vectors");
    let doc: Value = serde_json::from_str(&text).expect("parse the vectors");
    let file = VectorFile::from_value(&doc).expect("a vectors object");
    assert!(
        file.vectors.len() >= 50,
        "the shared file has 55 timing vectors"
    );
    let failures = failures(&file);
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
