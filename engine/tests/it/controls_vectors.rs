//! The vectors of the controls arbiters ask for (issue 32): `tests/data/controls-vectors.json`.
//! Every timing vector through the engine (every field of every expected snapshot, spec §1
//! harness rule) and every notation vector through the parser (method, params after C1
//! normalization, canonical and its round trip, or the error code).

use chessclock_engine::notation;
use chessclock_engine::params::{Method, Params, TimeControl};
use chessclock_engine::vectors::{VectorFile, failures};
use serde_json::Value;

fn doc() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/controls-vectors.json"
    );
    let text = std::fs::read_to_string(path).expect("read the controls vectors");
    serde_json::from_str(&text).expect("the controls vectors are JSON")
}

#[test]
fn every_timing_vector_passes() {
    let file = VectorFile::from_value(&doc()).expect("a vectors object");
    assert!(file.vectors.len() >= 7, "{} vectors", file.vectors.len());
    assert_eq!(failures(&file), Vec::<String>::new());
}

#[test]
fn every_notation_vector_parses_as_it_says() {
    let doc = doc();
    let list = doc["notation_vectors"].as_array().expect("a list");
    assert!(list.len() >= 5, "{} notation vectors", list.len());
    let mut fails = Vec::new();
    for v in list {
        let input = v["input"].as_str().expect("an input");
        match (notation::parse(input), v["error"].as_str()) {
            (Ok(p), None) => {
                let method: Method =
                    serde_json::from_value(v["method"].clone()).expect("a known method");
                let params: Params =
                    serde_json::from_value(v["params"].clone()).expect("params of the schema");
                let want = TimeControl { method, params };
                if !p.control.equivalent(&want) {
                    fails.push(format!(
                        "{input:?}: {} != expected {}",
                        serde_json::to_string(&p.control).unwrap_or_default(),
                        serde_json::to_string(&want).unwrap_or_default()
                    ));
                }
                if Some(p.canonical.as_str()) != v["canonical"].as_str() {
                    fails.push(format!("{input:?}: canonical {:?}", p.canonical));
                }
                match notation::parse(&p.canonical) {
                    Ok(again) if again.control.equivalent(&want) => {}
                    other => fails.push(format!("{input:?}: canonical re-parses as {other:?}")),
                }
            }
            (Ok(p), Some(code)) => fails.push(format!(
                "{input:?}: parsed as {:?}, expected error {code}",
                p.canonical
            )),
            (Err(e), Some(code)) if e.kind() == code => {}
            (Err(e), _) => fails.push(format!("{input:?}: error {}", e.code)),
        }
    }
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}
