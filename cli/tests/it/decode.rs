//! Runs the real `chessclockctl decode` on the shared DGT captures and checks every JSON line
//! against the original driver's recorded decode (`N.json`), mapping its field names to ours.

use std::process::Command;

use crate::support::ctl;
use serde_json::Value;

/// The shared captures (third-party, not in the repository), or `None` (the test passes having
/// said what it skipped): see `chessclock_testdata::shared`.
fn captures() -> Option<std::path::PathBuf> {
    chessclock_testdata::shared(
        "captures/dgt",
        "chessclockctl decode on the real DGT captures",
    )
}

fn json_lines(bytes: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

fn side_matches(got: &Value, want: &Value, ctx: &str) {
    let total = |v: &Value, k: &str| {
        v[k].as_u64()
            .unwrap_or_else(|| panic!("{ctx}: {k} missing in {v}"))
    };
    let want_seconds =
        total(want, "hours") * 3600 + total(want, "minutes") * 60 + total(want, "seconds");
    assert_eq!(got["seconds"].as_u64(), Some(want_seconds), "{ctx} seconds");
    for key in ["flag", "final_flag", "time_per_move"] {
        assert_eq!(got[key], want[key], "{ctx} {key}");
    }
}

fn check_capture(name: &str) {
    let Some(dir) = captures() else { return };
    let input = dir.join(format!("{name}.inbytes")).display().to_string();
    let out = ctl(&["decode", "--format", "base64-lines", "--json", &input]);
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let got = json_lines(&out.stdout);
    let want = json_lines(
        &std::fs::read(dir.join(format!("{name}.json"))).expect("reading expected decode"),
    );
    assert_eq!(got.len(), want.len(), "{name}: number of messages");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let ctx = format!("{name} line {}", i + 1);
        if let Some(board) = w.get("board") {
            assert_eq!(g["type"], "board", "{ctx}");
            let letters: String = board
                .as_array()
                .expect("array")
                .iter()
                .map(|v| v.as_str().expect("str"))
                .collect();
            assert_eq!(g["pieces"].as_str(), Some(letters.as_str()), "{ctx}");
        } else if let Some(field) = w.get("field") {
            assert_eq!(g["type"], "field_update", "{ctx}");
            assert_eq!(&g["square"], field, "{ctx}");
            let piece = w["piece"].as_str().expect("piece");
            if piece == "." {
                assert!(g["piece"].is_null(), "{ctx}: {g}");
            } else {
                assert_eq!(g["piece"].as_str(), Some(piece), "{ctx}");
            }
        } else {
            assert_eq!(g["type"], "clock_report", "{ctx}");
            side_matches(&g["left"], &w["left_clock"], &format!("{ctx} left"));
            side_matches(&g["right"], &w["right_clock"], &format!("{ctx} right"));
            assert_eq!(g["running"], w["clock_running"], "{ctx}");
            assert_eq!(g["right_high"], w["right_high"], "{ctx}");
            assert_eq!(g["battery_low"], w["battery_indicator"], "{ctx}");
            assert_eq!(
                g["clock_connected"].as_bool(),
                w["no_clock"].as_bool().map(|b| !b),
                "{ctx}"
            );
            let status = g["status"].as_u64().expect("status");
            assert_eq!(
                status & 0x08 != 0,
                w["left_turn"] == true,
                "{ctx} left_turn"
            );
            assert_eq!(
                status & 0x10 != 0,
                w["right_turn"] == true,
                "{ctx} right_turn"
            );
        }
    }
}

#[test]
fn capture_1_decodes_like_the_recorded_json() {
    check_capture("1");
}

#[test]
fn capture_2_decodes_like_the_recorded_json() {
    check_capture("2");
}

#[test]
fn bad_base64_names_the_line() {
    let dir = std::env::temp_dir().join(format!("chessclockctl-decode-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("bad.inbytes");
    std::fs::write(&path, "jgAFNAA=\n\nnot base64!\n").expect("writing input");
    let out = ctl(&[
        "decode",
        "--format",
        "base64-lines",
        path.to_str().expect("utf-8 path"),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("bad.inbytes line 3"), "{err}");
    assert!(
        out.stdout.is_empty(),
        "nothing decoded before the error is reported"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn junk_and_acks_in_hex_input() {
    let dir = std::env::temp_dir().join(format!("chessclockctl-decode-hex-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("acks.hex");
    // junk byte, version ack (spec §9.3), then a field update split over two lines.
    std::fs::write(
        &path,
        "# test\n12 8d 00 0a 0a 10 09 0a 20 00 00\n8e0005\n2401\n",
    )
    .expect("writing input");
    let out = ctl(&[
        "decode",
        "--format",
        "hex",
        "--json",
        path.to_str().expect("utf-8 path"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = json_lines(&out.stdout);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(
        (got[0]["type"].as_str(), got[0]["bytes"].as_str()),
        (Some("dropped"), Some("12"))
    );
    assert_eq!(got[1]["type"], "clock_ack");
    assert_eq!(got[1]["ack"], serde_json::json!([16, 9, 32, 0]));
    assert!(
        got[1]["meaning"]
            .as_str()
            .is_some_and(|m| m.contains("DGT 3000")),
        "{}",
        got[1]
    );
    assert_eq!(
        (got[2]["square"].as_str(), got[2]["piece"].as_str()),
        (Some("e4"), Some("P"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn raw_stdin_with_trailing_partial_frame() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_chessclockctl"))
        .args(["decode", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning chessclockctl");
    // Board version 3.10, then the first two bytes of a field update that never completes.
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&[0x93, 0x00, 0x05, 0x03, 0x0A, 0x8E, 0x00])
        .expect("writing");
    let out = child.wait_with_output().expect("waiting");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines, ["version 3.10", "dropped 2 bytes: 8e00"], "{text}");
}
