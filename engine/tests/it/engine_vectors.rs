//! Every timing vector of the conformance file through the engine: every field of every
//! expected snapshot must match (spec §1 harness rule). The file is the repository's copy
//! (`tests/data/timecontrol-vectors.json`); where the shared folder is present, the copy must
//! equal the reference `shared/conformance/timecontrol-vectors.json`.

use chessclock_engine::vectors::{VectorFile, failures};
use serde_json::Value;

/// The repository's copy of the conformance vectors.
pub(crate) const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/timecontrol-vectors.json"
);

#[test]
fn the_copy_equals_the_shared_reference_file() {
    let Some(reference) = chessclock_testdata::shared(
        "conformance/timecontrol-vectors.json",
        "the repository's conformance vectors equal the shared reference file",
    ) else {
        return;
    };
    let copy = std::fs::read(VECTORS).expect("read the repository's vectors");
    let shared = std::fs::read(&reference).expect("read the shared vectors");
    assert!(
        copy == shared,
        "{VECTORS} differs from {}: copy the reference file over the repository's copy",
        reference.display()
    );
}

#[test]
fn every_timing_vector_passes() {
    let text = std::fs::read_to_string(VECTORS).expect("read the vectors");
    let doc: Value = serde_json::from_str(&text).expect("parse the vectors");
    let file = VectorFile::from_value(&doc).expect("a vectors object");
    assert!(
        file.vectors.len() >= 50,
        "the conformance file has 55 timing vectors"
    );
    let failures = failures(&file);
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
