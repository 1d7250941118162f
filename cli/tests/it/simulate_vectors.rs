//! `chessclockctl simulate --vectors` on the conformance file (the repository's copy,
//! `engine/tests/data/timecontrol-vectors.json`), through the real binary: its output must
//! match every expected snapshot field and every notation result. Held-out vectors are run
//! through exactly this command.

use crate::support::ctl;
use chessclock_engine::params::TimeControl;
use chessclock_engine::vectors::differences;
use serde_json::Value;

const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../engine/tests/data/timecontrol-vectors.json"
);

#[test]
fn simulate_vectors_reproduces_the_shared_file() {
    reproduces(VECTORS);
}

/// The controls arbiters ask for (issue 32: Armageddon, ...), `controls-vectors.json`.
#[test]
fn simulate_vectors_reproduces_the_controls_vectors() {
    reproduces(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../engine/tests/data/controls-vectors.json"
    ));
}

/// `simulate --vectors FILE` gives every expected snapshot field and notation result of FILE.
fn reproduces(path: &str) {
    let out = ctl(&["simulate", "--vectors", path]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let want: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json");
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
        if g["canonical"] != w["canonical"] {
            failures.push(format!(
                "{input}: canonical {} != {}",
                g["canonical"], w["canonical"]
            ));
        }
        // Params compared after filling in the defaults (spec C1).
        let control = |v: &Value| {
            serde_json::from_value::<TimeControl>(
                serde_json::json!({"method": v["method"], "params": v["params"]}),
            )
            .map_err(|e| e.to_string())
        };
        match (control(g), control(w)) {
            (Ok(a), Ok(b)) if a.equivalent(&b) => {}
            (a, b) => failures.push(format!("{input}: params {a:?} != {b:?}")),
        }
        if g.get("error").is_some() {
            failures.push(format!("{input}: unexpected error {}", g["error"]));
        }
        // Warnings are matched by prefix: the code (text before the first `:` or ` (`).
        let list = |v: &Value| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        let (gw, ww) = (list(&g["warnings"]), list(&w["warnings"]));
        let code = |s: &str| s.split([':', '(']).next().unwrap_or("").trim().to_owned();
        if gw.len() != ww.len() || gw.iter().zip(&ww).any(|(a, b)| !a.starts_with(&code(b))) {
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
    let out = ctl(&[
        "simulate",
        "--control",
        "G/3 inc/2",
        "--script",
        "start; 5s press; 1s press",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    // Spec §4.2 fi-01: 182 000 at start; W 5 s -> 179 000; B 1 s -> 183 000.
    assert!(text.contains("2:59") && text.contains("3:03"), "{text}");
    // US Chess rule 5B: 3 + 2 = 5 with 3 minutes' primary time; FIDE 3 min + 60 x 2 s.
    assert!(
        text.contains("rating:  US Chess blitz, FIDE blitz"),
        "{text}"
    );
    let out = ctl(&[
        "simulate",
        "--control",
        "G/3",
        "--script",
        "start; 5q press",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("step 2"));
}

#[test]
fn a_scripted_armageddon_draw_scores_for_black() {
    let out = ctl(&[
        "simulate",
        "--control",
        "W{G/5 d/0} B{G/4 d/0} armageddon",
        "--script",
        "start; 2s press; 1s result 1/2-1/2",
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("ended 0-1 (armageddon)"), "{text}");
    let json = ctl(&[
        "simulate",
        "--json",
        "--control",
        "G/5 d/0 armageddon",
        "--script",
        "start; 2s result 1/2-1/2",
    ]);
    let last: Value = String::from_utf8_lossy(&json.stdout)
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .expect("a JSON snapshot per step");
    assert_eq!(last["result"], "0-1", "{last}");
    assert_eq!(last["drawn_by"], "board", "{last}");
}

#[test]
fn a_scripted_count_up_game_counts_up_until_its_cap() {
    let out = ctl(&[
        "simulate",
        "--control",
        "UP cap/1",
        "--script",
        "start; 10s press; 2.5s press; 45s wait; 10s wait",
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    // t, event, White's value and phase, moves, Black's, status.
    let row = |i: usize| lines[i + 3].split_whitespace().collect::<Vec<_>>();
    assert_eq!(row(1)[2..4], ["0:10", "up"], "{text}");
    assert_eq!(row(2)[5..7], ["0:03", "up"], "{text}");
    assert_eq!(row(3)[2], "0:55", "{text}");
    assert!(lines[7].contains("flagged 0-1 (overall_cap)"), "{text}");
    assert_eq!(row(4)[2], "1:00", "{text}");
}

#[test]
fn a_scripted_game_with_a_method_per_side() {
    let out = ctl(&[
        "simulate",
        "--json",
        "--control",
        "W{G/5 inc/3} B{G/5 d/5}",
        "--script",
        "start; 10s press; 7s press",
    ]);
    assert!(out.status.success(), "{out:?}");
    let snaps: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON snapshot"))
        .collect();
    // White: 5:03, then 303 - 10 + 3 = 296 s; Black: its first 5 s cost nothing, 298 s.
    assert_eq!(snaps[0]["white_ms"], 303_000);
    assert_eq!(snaps[1]["white_ms"], 296_000);
    assert_eq!(snaps[2]["black_ms"], 298_000);
}

/// Run `simulate --vectors` on a document written to a temporary file.
fn simulate_doc(name: &str, doc: &Value) -> (Option<i32>, Value) {
    let path =
        std::env::temp_dir().join(format!("chessclockctl-{name}-{}.json", std::process::id()));
    std::fs::write(&path, doc.to_string()).expect("write vectors");
    let out = ctl(&["simulate", "--vectors", path.to_str().expect("UTF-8 path")]);
    let _ = std::fs::remove_file(&path);
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code(), v)
}

#[test]
fn one_bad_vector_does_not_hide_the_others() {
    let snap = |t: u64| serde_json::json!({"t_ms": t});
    let doc = serde_json::json!({
        "schema": "chessclock-timecontrol-vectors/1",
        "vectors": [
            {   // unknown params key: falls back to the notation
                "id": "unknown-key", "method": "sudden_death", "notation": "G/5 d/0",
                "params": {"segments": [{"moves": null, "base_ms": 300000}], "colour": "red"},
                "events": [{"t_ms": 0, "action": "start", "side": "white"}],
                "expect": [snap(10_000)]
            },
            {   // unknown params key and no notation: runs without the key
                "id": "unknown-segment-key", "method": "fischer",
                "params": {"segments": [{"moves": null, "base_ms": 180000, "inc_ms": 2000, "x": 1}]},
                "events": [{"t_ms": 0, "action": "start"}],
                "expect": [snap(0)]
            },
            {   // unknown method, no notation: this vector only is an error
                "id": "unknown-method", "method": "sundial", "params": {},
                "events": [], "expect": [snap(0)]
            },
            {   // unknown action and a press without side: both skipped
                "id": "bad-events", "method": "sudden_death",
                "params": {"segments": [{"moves": null, "base_ms": 60000}]},
                "events": [
                    {"t_ms": 0, "action": "start", "side": "white"},
                    {"t_ms": 1000, "action": "teleport", "side": "white"},
                    {"t_ms": 2000, "action": "press"},
                    {"action": "press", "side": "white"},
                    {"t_ms": 3000, "action": "press", "side": "white"}
                ],
                "expect": [snap(3000), {"no_time": true}]
            }
        ],
        "notation_vectors": [{"input": "G/5 d/0"}, {"note": "no input"}, {"input": "G/3 zz/2"}]
    });
    let (code, got) = simulate_doc("robust", &doc);
    assert_eq!(code, Some(0), "{got}");
    let v = got["vectors"].as_array().expect("vectors");
    assert_eq!(v.len(), 4);
    assert_eq!(v[0]["id"], "unknown-key");
    assert_eq!(v[0]["snapshots"][0]["white_ms"], 290_000, "{}", v[0]);
    assert!(
        v[0]["warnings"][0]
            .as_str()
            .unwrap_or("")
            .contains("colour")
    );
    assert_eq!(v[1]["snapshots"][0]["white_ms"], 182_000, "{}", v[1]);
    assert!(
        v[1]["warnings"][0]
            .as_str()
            .unwrap_or("")
            .contains("segments[0].x")
    );
    assert!(
        v[2]["error"].as_str().unwrap_or("").contains("sundial"),
        "{}",
        v[2]
    );
    assert!(v[2].get("snapshots").is_none());
    let bad = &v[3];
    assert_eq!(bad["snapshots"][0]["moves"]["white"], 1, "{bad}");
    assert_eq!(bad["snapshots"][0]["white_ms"], 57_000, "{bad}");
    assert!(bad["snapshots"][1]["error"].is_string(), "{bad}");
    assert_eq!(bad["warnings"].as_array().map(Vec::len), Some(3), "{bad}");
    let n = got["notation_vectors"]
        .as_array()
        .expect("notation vectors");
    assert_eq!(n.len(), 3);
    assert_eq!(n[0]["canonical"], "G/5 d/0");
    assert!(n[1]["error"].is_string());
    assert_eq!(n[2]["error"], "unknown_item:zz/2");
}

#[test]
fn a_file_that_is_not_json_is_a_usage_error() {
    let path =
        std::env::temp_dir().join(format!("chessclockctl-notjson-{}.json", std::process::id()));
    std::fs::write(&path, "not json").expect("write");
    let out = ctl(&["simulate", "--vectors", path.to_str().expect("UTF-8 path")]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}
