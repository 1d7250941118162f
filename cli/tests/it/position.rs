//! Runs the real `chessclockctl position assess` on real positions: the verdicts of each
//! side (a locked pawn wall, bishops of one colour, a forced capture into a bare king, K+R v
//! K+N helpmates, K+N v K+P forced mates), FIDE's and US Chess's flag rules, the batch form
//! on standard input (one JSON line per FEN, in order), and bad FENs (exit 2, or 1 and an
//! error line in the batch).

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::support::ctl;

fn json(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("not JSON: {text}: {e}"))
}

fn assess(args: &[&str]) -> Value {
    let out = ctl(&[&["position", "assess", "--json"], args].concat());
    assert!(out.status.success(), "{out:?}");
    json(&out)
}

#[test]
fn each_side_s_verdict_on_real_positions() {
    for (fen, white, black, dead) in [
        (
            "8/3k4/6p1/p2p1pP1/P2P1P2/2K5/8/8 b - - 0 1",
            "cannot_mate",
            "cannot_mate",
            true,
        ),
        (
            "8/2bk4/8/p1p1p1p1/P1P1P1P1/8/3K4/5B2 w - - 0 1",
            "cannot_mate",
            "cannot_mate",
            true,
        ),
        (
            "8/8/4k3/2b5/8/8/4KB2/8 w - - 0 1",
            "cannot_mate",
            "cannot_mate",
            true,
        ),
        (
            "8/8/8/8/4K3/8/6Q1/7k b - - 0 1",
            "cannot_mate",
            "cannot_mate",
            true,
        ),
        (
            "8/8/5n2/5k2/8/8/2K5/7R w - - 0 1",
            "can_mate",
            "can_mate",
            false,
        ),
        (
            "k1K5/p7/8/3N4/8/8/8/8 w - - 0 1",
            "can_mate",
            "can_mate",
            false,
        ),
        (
            "8/8/4k3/8/8/8/4K3/4Q3 w - - 0 1",
            "can_mate",
            "cannot_mate",
            false,
        ),
    ] {
        let v = assess(&[fen]);
        assert_eq!(
            (
                v["white"].as_str(),
                v["black"].as_str(),
                v["dead"].as_bool()
            ),
            (Some(white), Some(black), Some(dead)),
            "{fen}: {v}"
        );
        assert_eq!(v["fen"], fen);
        assert!(v["time_us"].is_u64(), "the time spent: {v}");
    }
}

#[test]
fn a_flag_is_judged_by_fide_or_us_chess_rules() {
    // K+R v K+N: White's flag loses under FIDE (a helpmate for Black), draws under 14E2.
    let fen = "8/8/5n2/5k2/8/8/2K5/7R w - - 0 1";
    let fide = assess(&[fen]);
    assert_eq!(fide["rules"], "fide");
    assert_eq!(fide["white_flag"]["result"], "loses", "{fide}");
    let uscf = assess(&["--rules", "uscf", fen]);
    assert_eq!(uscf["white_flag"]["result"], "draws", "{uscf}");
    assert_eq!(uscf["white_flag"]["undecided"], true, "the arbiter is told");
    assert!(
        uscf["white_flag"]["explanation"]
            .as_str()
            .is_some_and(|e| e.contains("14E2")),
        "{uscf}"
    );
    // K+N v K+P, the knight mates at once: Black's flag loses under 14E2 too.
    let uscf = assess(&["--rules", "uscf", "k1K5/p7/8/3N4/8/8/8/8 w - - 0 1"]);
    assert_eq!(uscf["black_flag"]["result"], "loses", "{uscf}");
}

#[test]
fn the_human_form_names_the_verdicts_and_the_rule() {
    let out = ctl(&[
        "position",
        "assess",
        "8/3k4/6p1/p2p1pP1/P2P1P2/2K5/8/8",
        "b",
        "-",
        "-",
        "0",
        "1",
    ]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("White:    cannot checkmate by any series of legal moves"),
        "{text}"
    );
    assert!(text.contains("FIDE 5.2.2"), "{text}");
    assert!(text.contains("judged in"), "{text}");
}

#[test]
fn standard_input_gives_one_json_line_per_fen_in_order_and_names_a_bad_line() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chessclockctl"))
        .args(["position", "assess", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running chessclockctl");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(
            b"8/8/8/8/4K3/8/6Q1/7k b - - 0 1\n\
              not a position\n\
              \n\
              rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n",
        )
        .expect("written");
    let out = child.wait_with_output().expect("done");
    assert_eq!(out.status.code(), Some(1), "a line was not a position");
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0]["dead"], true);
    assert_eq!(lines[1]["error"], "bad_fen");
    assert_eq!(lines[1]["line"], 2);
    assert!(
        lines[1]["message"]
            .as_str()
            .is_some_and(|m| m.contains("not a FEN")),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2]["white"], "can_mate");
}

#[test]
fn a_bad_fen_is_a_usage_error_that_says_how_to_write_one() {
    let out = ctl(&["position", "assess", "8/8 w"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is not a FEN") && err.contains("six fields"),
        "{err}"
    );
    // Two white kings: a FEN, but no legal position.
    let out = ctl(&[
        "position",
        "assess",
        "--json",
        "8/8/8/8/8/8/8/KK5k w - - 0 1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let v = json(&out);
    assert_eq!(v["error"], "bad_fen");
    assert!(
        v["message"]
            .as_str()
            .is_some_and(|m| m.contains("not a legal position")),
        "{v}"
    );
}
