//! Every timing vector of the shared conformance file through the engine: every field of
//! every expected snapshot must match (spec §1 harness rule).

use chessclockd::engine::vectors::{VectorFile, run_vector};
use serde_json::Value;

const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/conformance/timecontrol-vectors.json"
);

/// Compare every field present in `expected` (recursively) with `got`.
fn diff(path: &str, expected: &Value, got: Option<&Value>, out: &mut Vec<String>) {
    match (expected, got) {
        (Value::Object(e), Some(Value::Object(g))) => {
            for (k, ev) in e {
                diff(&format!("{path}.{k}"), ev, g.get(k), out);
            }
        }
        (Value::Object(_), other) => out.push(format!("{path}: expected an object, got {other:?}")),
        (e, Some(g)) if e == g => {}
        (e, g) => out.push(format!(
            "{path}: expected {e}, got {}",
            g.map_or("nothing".to_owned(), Value::to_string)
        )),
    }
}

#[test]
fn every_timing_vector_passes() {
    let text = std::fs::read_to_string(VECTORS).expect("read the shared vectors");
    let file: VectorFile = serde_json::from_str(&text).expect("parse the vectors");
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
        for (exp, snap) in v.expect.iter().zip(&got) {
            let t = exp.get("t_ms").and_then(Value::as_u64).unwrap_or(0);
            let mut out = Vec::new();
            diff("", exp, Some(snap), &mut out);
            for d in out {
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
