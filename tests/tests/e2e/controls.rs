//! End to end, the controls arbiters ask for (issue 32): the real `chessclockd` on a private
//! dbus-daemon with the real `chessclock-emu` DGT 3000 on a pty, driven with the real
//! `chessclockctl`. An Armageddon draw is scored for Black and its PGN, read by
//! python-chess, says why; a count-up clock is shown counting up.

use anyhow::Result;
use chessclock_tests::e2e::{ctl_ok, started, wait_record};
use chessclock_tests::json::{s, u};
use chessclock_tests::pgn::python_reads;
use chessclock_tests::rig::{WAIT, is_set_and_run};
use serde_json::Value;

#[test]
fn an_armageddon_draw_is_scored_for_black_and_the_pgn_says_why() -> Result<()> {
    let (mut r, mark) = started("W{G/5 d/0} B{G/4 d/0} armageddon")?;
    r.emu.send("lever")?;
    r.daemon
        .wait_status("0", WAIT, "Black to move", |v| s(v, "/running") == "black")?;
    ctl_ok(&r.daemon, &["result", "0", "1/2-1/2"]);
    let st = r
        .daemon
        .wait_status("0", WAIT, "the result", |v| s(v, "/result") == "0-1")?;
    assert_eq!(s(&st, "/reason"), "armageddon", "{st}");
    r.emu
        .wait_for(mark, WAIT, "the result on the DGT 3000", |v| {
            v.get("event").and_then(Value::as_str) == Some("host_command")
                && v.pointer("/command/text").and_then(Value::as_str) == Some("0-1 ARM")
        })?;
    let games = r.dir.path().join("state/games/round-1");
    let pgn_file = wait_record(&games)?;
    let pgn = std::fs::read_to_string(&pgn_file)?;
    assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
    assert!(
        pgn.replace('\n', " ")
            .contains("{Armageddon: drawn (board); a draw scores as a win for Black} 0-1"),
        "{pgn}"
    );
    let read = python_reads(&pgn_file)?;
    assert_eq!(read.len(), 1, "{pgn}");
    assert_eq!(read[0]["errors"], Value::Array(vec![]), "{pgn}");
    assert_eq!(s(&read[0], "/headers/Result"), "0-1", "{pgn}");
    Ok(())
}

#[test]
fn a_count_up_clock_is_shown_counting_up() -> Result<()> {
    let (mut r, mark) = started("UP")?;
    // White's half is pushed at 0:01, 0:02, 0:03 as the seconds are used, the clock stopped
    // (it cannot count up by itself).
    let mut at = mark;
    for second in 1..=3u64 {
        (at, _) = r
            .emu
            .wait_for(at, WAIT, "White's half one second up", |v| {
                is_set_and_run(v)
                    && v.pointer("/command/left_s").and_then(Value::as_u64) == Some(second)
                    && v.pointer("/command/run").and_then(Value::as_str) == Some("none")
            })?;
    }
    let st = r.daemon.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(s(&st, "/status"), "running", "{st}");
    assert_eq!(st["counts_up"], true, "{st}");
    assert!(u(&st, "/white_ms") >= 2_000, "{st}");
    assert_eq!(s(&st, "/phase/white"), "up", "{st}");
    Ok(())
}
