//! Every timing vector of the shared conformance file through the engine: every field of
//! every expected snapshot must match (spec §1 harness rule).

use chessclockd::engine::vectors::{VectorFile, differences, run_vector};
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
    let mut failures = Vec::new();
    for v in &file.vectors {
        let got = match run_vector(v) {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("{}: {e}", v.id));
                continue;
            }
        };
        if !got.warnings.is_empty() {
            failures.push(format!("{}: runner warnings {:?}", v.id, got.warnings));
        }
        for (exp, snap) in v.expect.iter().zip(&got.snapshots) {
            let t = exp.get("t_ms").and_then(Value::as_u64).unwrap_or(0);
            for d in differences(exp, snap) {
                failures.push(format!("{} @ {t}: {d}", v.id));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
