//! Every timing vector of the shared conformance file through the engine: every field of
//! every expected snapshot must match (spec §1 harness rule).

use chessclock_engine::vectors::{VectorFile, failures};
use serde_json::Value;

/// The shared vectors: `$CHESSCLOCK_SHARED/conformance/...` when set (a worktree that is not
/// next to `shared/`), else `shared/` beside the checkout.
fn vectors_path() -> std::path::PathBuf {
    std::env::var_os("CHESSCLOCK_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared").into())
        .join("conformance/timecontrol-vectors.json")
}

#[test]
fn every_timing_vector_passes() {
    let text = std::fs::read_to_string(vectors_path()).expect("read the shared vectors");
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
