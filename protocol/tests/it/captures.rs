//! Replays the real DGT captures in `shared/captures/dgt/` (one base64 chunk per line, as
//! each serial read returned it) and checks the decode against the recorded `.json` decodes
//! of the original driver, field by field, and across three ways of splitting the input.
//! The captures are third-party and not in the repository: see `chessclock_testdata::shared`.

use std::path::{Path, PathBuf};

use base64::Engine;
use chessclock_protocol::{ClockSide, Decoded, Decoder, Message};
use serde_json::Value;

/// The captures' folder, or `None` (the test passes having said what it skipped).
fn captures() -> Option<PathBuf> {
    chessclock_testdata::shared(
        "captures/dgt",
        "the real DGT captures (protocol captures::)",
    )
}

fn chunks(dir: &Path, name: &str) -> Vec<Vec<u8>> {
    let path = dir.join(format!("{name}.inbytes")).display().to_string();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            base64::engine::general_purpose::STANDARD
                .decode(l.trim())
                .unwrap_or_else(|e| panic!("{path} line {}: {e}", i + 1))
        })
        .collect()
}

fn expected(dir: &Path, name: &str) -> Vec<Value> {
    let path = dir.join(format!("{name}.json")).display().to_string();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}: {e}")))
        .collect()
}

fn decode<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> Vec<Decoded> {
    let mut d = Decoder::new();
    let mut out = Vec::new();
    for piece in pieces {
        d.push(piece);
        out.extend(
            d.by_ref()
                .map(|r| r.unwrap_or_else(|e| panic!("decode error: {e}"))),
        );
    }
    d.finish();
    out.extend(
        d.by_ref()
            .map(|r| r.unwrap_or_else(|e| panic!("decode error: {e}"))),
    );
    assert_eq!(
        d.dropped_total(),
        0,
        "a real capture should have no garbage"
    );
    out
}

fn check_side(side: &ClockSide, want: &Value, ctx: &str) {
    let t = side.time;
    assert_eq!(u64::from(t.hours()), want["hours"], "{ctx} hours");
    assert_eq!(u64::from(t.minutes()), want["minutes"], "{ctx} minutes");
    assert_eq!(u64::from(t.seconds()), want["seconds"], "{ctx} seconds");
    assert_eq!(side.flag, want["flag"], "{ctx} flag");
    assert_eq!(side.final_flag, want["final_flag"], "{ctx} final_flag");
    assert_eq!(
        side.time_per_move, want["time_per_move"],
        "{ctx} time_per_move"
    );
}

fn check(msg: &Message, want: &Value, ctx: &str) {
    match msg {
        Message::BoardDump(board) => {
            let letters: Vec<&str> = want["board"]
                .as_array()
                .expect("board array")
                .iter()
                .map(|v| v.as_str().expect("letter"))
                .collect();
            assert_eq!(board.to_piece_string(), letters.concat(), "{ctx}");
        }
        Message::FieldUpdate { square, piece } => {
            assert_eq!(
                square.to_string(),
                want["field"].as_str().expect("field"),
                "{ctx}"
            );
            let letter = piece.map_or('.', |p| p.to_char()).to_string();
            assert_eq!(letter, want["piece"].as_str().expect("piece"), "{ctx}");
        }
        Message::ClockReport(r) => {
            check_side(&r.left, &want["left_clock"], &format!("{ctx} left"));
            check_side(&r.right, &want["right_clock"], &format!("{ctx} right"));
            assert_eq!(r.running, want["clock_running"], "{ctx}");
            assert_eq!(r.right_high, want["right_high"], "{ctx}");
            assert_eq!(r.battery_low, want["battery_indicator"], "{ctx}");
            assert_eq!(r.left_turn(), want["left_turn"], "{ctx}");
            assert_eq!(r.right_turn(), want["right_turn"], "{ctx}");
            assert_eq!(!r.clock_connected, want["no_clock"], "{ctx}");
        }
        other => panic!("{ctx}: unexpected message {other:?} for {want}"),
    }
}

fn replay(name: &str, counts: (usize, usize, usize)) {
    let Some(dir) = captures() else { return };
    let chunks = chunks(&dir, name);
    let as_recorded = decode(chunks.iter().map(Vec::as_slice));
    let all: Vec<u8> = chunks.concat();
    let at_once = decode([all.as_slice()]);
    let byte_by_byte = decode(all.chunks(1));
    assert_eq!(as_recorded, at_once, "{name}: as recorded vs all at once");
    assert_eq!(
        as_recorded, byte_by_byte,
        "{name}: as recorded vs byte by byte"
    );

    let want = expected(&dir, name);
    assert_eq!(as_recorded.len(), want.len(), "{name}: message count");
    let mut seen = (0, 0, 0);
    for (i, (got, want)) in as_recorded.iter().zip(&want).enumerate() {
        let Decoded::Message(msg) = got else {
            panic!("{name} #{i}: {got:?}")
        };
        match msg {
            Message::BoardDump(_) => seen.0 += 1,
            Message::ClockReport(_) => seen.1 += 1,
            Message::FieldUpdate { .. } => seen.2 += 1,
            _ => {}
        }
        check(msg, want, &format!("{name} message #{i}"));
        // The encoder reproduces the exact bytes.
        let mut d = Decoder::new();
        d.push(&msg.encode());
        assert_eq!(d.next(), Some(Ok(got.clone())), "{name} #{i} re-encoded");
    }
    assert_eq!(
        seen, counts,
        "{name}: (dumps, clock reports, field updates)"
    );
}

#[test]
fn capture_1_normal_orientation() {
    replay("1", (1, 323, 131));
}

#[test]
fn capture_2_rotated_board() {
    replay("2", (1, 578, 226));
}

#[test]
fn capture_bytes_reencode_exactly() {
    let Some(dir) = captures() else { return };
    for name in ["1", "2"] {
        let all: Vec<u8> = chunks(&dir, name).concat();
        let reencoded: Vec<u8> = decode([all.as_slice()])
            .iter()
            .flat_map(|d| match d {
                Decoded::Message(m) => m.encode(),
                Decoded::Dropped(_) => Vec::new(),
            })
            .collect();
        assert_eq!(reencoded, all, "capture {name}");
    }
}
