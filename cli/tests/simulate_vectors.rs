//! `chessclockctl simulate --vectors` on the shared conformance file, through the real
//! binary: its output must match every expected snapshot field and every notation result.
//! Held-out vectors are run through exactly this command.

use std::process::Command;

use chessclockd::engine::vectors::differences;
use serde_json::Value;

const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/conformance/timecontrol-vectors.json"
);

#[test]
fn simulate_vectors_reproduces_the_shared_file() {
    let out = Command::new(env!("CARGO_BIN_EXE_chessclockctl"))
        .args(["simulate", "--vectors", VECTORS])
        .output()
        .expect("run chessclockctl");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let want: Value =
        serde_json::from_str(&std::fs::read_to_string(VECTORS).expect("read")).expect("json");
    let mut failures = Vec::new();

    let got_v = got["vectors"].as_array().expect("vectors array");
    let want_v = want["vectors"].as_array().expect("vectors array");
    assert_eq!(got_v.len(), want_v.len());
    for (g, w) in got_v.iter().zip(want_v) {
        assert_eq!(g["id"], w["id"]);
        let snaps = g["snapshots"].as_array().expect("snapshots");
        let exp = w["expect"].as_array().expect("expect");
        assert_eq!(snaps.len(), exp.len(), "{}", w["id"]);
        for (s, e) in snaps.iter().zip(exp) {
            failures.extend(
                differences(e, s)
                    .into_iter()
                    .map(|x| format!("{} @ {}: {x}", w["id"], e["t_ms"])),
            );
        }
    }

    let got_n = got["notation_vectors"].as_array().expect("notation array");
    let want_n = want["notation_vectors"].as_array().expect("notation array");
    assert_eq!(got_n.len(), want_n.len());
    for (g, w) in got_n.iter().zip(want_n) {
        let input = &w["input"];
        if let Some(code) = w.get("error").and_then(Value::as_str) {
            let got_code = g["error"].as_str().unwrap_or("").split(':').next();
            if got_code != code.split(':').next() {
                failures.push(format!("{input}: expected error {code}, got {g}"));
            }
            continue;
        }
        if g["method"] != w["method"] {
            failures.push(format!(
                "{input}: method {} != {}",
                g["method"], w["method"]
            ));
        }
        if w["canonical"].is_string() && g["canonical"] != w["canonical"] {
            failures.push(format!(
                "{input}: canonical {} != {}",
                g["canonical"], w["canonical"]
            ));
        }
        let warnings = |v: &Value| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(|s| s.split([' ', ':']).next().unwrap_or("").to_owned())
                        .collect()
                })
                .unwrap_or_default()
        };
        if warnings(&g["warnings"]) != warnings(&w["warnings"]) {
            failures.push(format!(
                "{input}: warnings {} != {}",
                g["warnings"], w["warnings"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_scripted_game_prints_a_table_and_bad_steps_are_usage_errors() {
    let out = Command::new(env!("CARGO_BIN_EXE_chessclockctl"))
        .args([
            "simulate",
            "--control",
            "G/3 inc/2",
            "--script",
            "start; 5s press; 1s press",
        ])
        .output()
        .expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    // Spec §4.2 fi-01: 182 000 at start; W 5 s -> 179 000; B 1 s -> 183 000.
    assert!(text.contains("2:59") && text.contains("3:03"), "{text}");
    let out = Command::new(env!("CARGO_BIN_EXE_chessclockctl"))
        .args([
            "simulate",
            "--control",
            "G/3",
            "--script",
            "start; 5q press",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("step 2"));
}
