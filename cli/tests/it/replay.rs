//! Runs the real `chessclockctl replay` on the shared DGT captures (a normal and a rotated
//! board) and checks the game against each capture's `N.uci` move list, move for move.

use crate::support::ctl;
use serde_json::Value;

/// The shared captures' folder with a trailing `/` (third-party, not in the repository), or
/// `None` (the test passes having said what it skipped): see `chessclock_testdata::shared`.
fn captures() -> Option<String> {
    chessclock_testdata::shared(
        "captures/dgt",
        "chessclockctl replay on the real DGT captures",
    )
    .map(|d| format!("{}/", d.display()))
}

fn replay(args: &[&str]) -> String {
    let out = ctl(&[&["replay"], args].concat());
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The moves of an `N.uci` file: one full move per line, `1. e2e4 e7e5`, `*` at the end.
fn expected_moves(dir: &str, name: &str) -> Vec<String> {
    std::fs::read_to_string(format!("{dir}{name}.uci"))
        .expect("reading the .uci file")
        .split_whitespace()
        .filter(|w| !w.ends_with('.') && *w != "*")
        .map(str::to_owned)
        .collect()
}

fn check(name: &str, orientation: &str) {
    let Some(dir) = captures() else { return };
    let file = format!("{dir}{name}.inbytes");
    let doc: Value = serde_json::from_str(&replay(&["--format", "base64-lines", &file, "--json"]))
        .expect("one JSON document");
    let moves = doc["moves"].as_array().expect("moves array");
    let uci: Vec<&str> = moves
        .iter()
        .map(|m| m["uci"].as_str().expect("uci"))
        .collect();
    let want = expected_moves(&dir, name);
    assert_eq!(uci, want, "{name}: moves");
    for (i, m) in moves.iter().enumerate() {
        assert_eq!(m["ply"].as_u64(), Some(i as u64 + 1), "{name} ply");
        assert!(
            m["san"].as_str().is_some_and(|s| !s.is_empty()),
            "{name}: {m}"
        );
        assert!(
            m["fen"].as_str().is_some_and(|s| s.split(' ').count() == 6),
            "{name}: {m}"
        );
        // 3 min + 2 s: every clock reading is a plausible time on that clock.
        let clock = m["clock_ms"]
            .as_u64()
            .unwrap_or_else(|| panic!("{name}: no clock in {m}"));
        assert!(clock <= 190_000 && clock % 1000 == 0, "{name}: {m}");
    }
    assert_eq!(doc["orientation"], orientation, "{name}");
    assert_eq!(
        doc["result"],
        Value::Null,
        "{name}: both games end unfinished (*)"
    );
    assert_eq!(doc["problems"], Value::Array(vec![]), "{name}");
}

#[test]
fn capture_1_normal_board_gives_its_moves() {
    check("1", "normal");
}

#[test]
fn capture_2_rotated_board_gives_its_moves() {
    check("2", "rotated");
}

#[test]
fn first_clock_readings_are_the_clock_after_each_press() {
    let Some(dir) = captures() else { return };
    // Spec §9.1 decodes capture 1 by hand: White's press leaves L at 3:01, Black's R at 3:03.
    let doc: Value = serde_json::from_str(&replay(&[
        "--format",
        "base64-lines",
        &format!("{dir}1.inbytes"),
        "--json",
    ]))
    .expect("JSON");
    assert_eq!(doc["moves"][0]["clock_ms"], 181_000);
    assert_eq!(doc["moves"][1]["clock_ms"], 183_000);
    assert_eq!(doc["white_clock_half"], "left");
}

#[test]
fn pgn_and_text_outputs_carry_the_same_game() {
    let Some(dir) = captures() else { return };
    let file = format!("{dir}2.inbytes");
    let pgn = replay(&["--format", "base64-lines", &file, "--pgn"]);
    assert!(pgn.starts_with("[Event \"?\"]\n"), "{pgn}");
    // Rotated board, White on the right half: R shows 3:03 after the first press.
    assert!(pgn.contains("\n1. e4 {[%clk 0:03:03]"), "{pgn}");
    assert!(pgn.contains("50. Qh6+ {[%clk"), "{pgn}");
    assert!(pgn.lines().all(|l| l.len() <= 79), "{pgn}");
    let text = replay(&["--format", "base64-lines", &file]);
    assert!(text.starts_with("orientation: rotated\n"), "{text}");
    assert!(text.contains("e2e4"), "{text}");
    assert!(text.contains("result: *"), "{text}");
}

#[test]
fn a_stream_without_a_start_position_is_a_problem_not_a_game() {
    // One field update (e4 white pawn) and nothing else, as hex.
    let dir = std::env::temp_dir().join(format!("replay-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("lone.hex");
    std::fs::write(&file, "8e 00 05 24 01\n").expect("write");
    let doc: Value = serde_json::from_str(&replay(&[
        "--format",
        "hex",
        file.to_str().expect("path"),
        "--json",
    ]))
    .expect("JSON");
    assert_eq!(doc["moves"], Value::Array(vec![]));
    assert_eq!(doc["problems"][0]["kind"], "no_game");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_input_is_refused_with_the_line() {
    let dir = std::env::temp_dir().join(format!("replay-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("bad.hex");
    std::fs::write(&file, "8e 00 05 24 01\nzz\n").expect("write");
    let out = ctl(&["replay", "--format", "hex", file.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2") && err.contains("hex digit"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}
