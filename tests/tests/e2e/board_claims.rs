//! End to end: draw claims judged from the board (docs/rules.md) under the real
//! `chessclockd` with the real `chessclock-emu` moving pieces on a pty. python-chess, the
//! independent judge, agrees the position is a threefold repetition; the daemon says it is
//! claimable, refuses the player not to move, draws on the right claim, and the result
//! survives SIGKILL (journaled before the claim was answered). A USCF 14H claim pauses the
//! clock for `chessclockctl ruling`.

use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result};
use chessclock_tests::e2e::{board_read, ctl_ok, emu, press_lever};
use chessclock_tests::json::s;
use chessclock_tests::rig::{Daemon, write_config};
use chessclock_tests::{PrivateBus, TempDir};

const WAIT: Duration = Duration::from_secs(10);

/// python-chess's verdict on the game `moves` (UCI): has the position stood three times?
/// (Its `can_claim_threefold_repetition` also counts the position a move would reach, the
/// claim with a written move of FIDE 9.2.1.1, which the daemon does not take.)
fn python_says_threefold(moves: &[&str]) -> Result<bool> {
    let script = format!(
        "import chess\nb = chess.Board()\nfor m in {moves:?}:\n    b.push_uci(m)\n\
         print(b.is_repetition(3))\n"
    );
    let out = Command::new("python3")
        .args(["-c", &script])
        .output()
        .context("python3 (python-chess) is needed: ./scripts/test.sh installs it")?;
    anyhow::ensure!(
        out.status.success(),
        "python-chess: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).trim() == "True")
}

#[test]
fn a_threefold_claim_is_judged_from_the_board_and_survives_a_crash() -> Result<()> {
    let dir = TempDir::new("board-claims")?;
    let bus = PrivateBus::start_session()?;
    let mut emu = emu(&[])?;
    let config = write_config(dir.path(), &[(&emu.path, "G/5")], "")?;
    let mut d = Daemon::spawn(bus.address(), &config, &[])?;
    // The FEN is empty until the pieces were read: the game starts on a board that was.
    board_read(&d, |f| !f.is_empty())?;
    ctl_ok(&d, &["start", "0"]);
    let shuffle = [
        "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8",
    ];
    for (i, uci) in shuffle.iter().enumerate() {
        emu.send(&format!("move {uci}"))?;
        d.wait_status("0", WAIT, "the move read", |v| {
            v["moves_san"].as_array().is_some_and(|a| a.len() > i)
        })?;
        press_lever(&mut emu, &d, "0")?;
        let claimable = python_says_threefold(&shuffle[..=i])?;
        assert_eq!(claimable, i == shuffle.len() - 1, "python-chess after {i}");
    }
    let st = d.wait_status("0", WAIT, "the repetition claimable", |v| {
        v["draw_claimable"] == serde_json::json!(["threefold"])
    })?;
    assert_eq!(s(&st, "/status"), "running", "{st}");
    let text = ctl_ok(&d, &["status", "0"]);
    assert!(text.contains("claimable threefold"), "{text}");

    let wrong = d.ctl(&["claim", "0", "black", "--kind", "threefold"]);
    assert!(!wrong.status.success(), "Black is not to move");
    let err = String::from_utf8_lossy(&wrong.stderr);
    assert!(err.contains("white's move"), "{err}");
    let bad = d.ctl(&["claim", "0", "white", "--kind", "perpetual"]);
    assert!(!bad.status.success(), "not a kind of claim");

    ctl_ok(&d, &["claim", "0", "white", "--kind", "threefold"]);
    let st = d.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(s(&st, "/status"), "ended", "{st}");
    assert_eq!(s(&st, "/result"), "1/2-1/2", "{st}");
    assert_eq!(s(&st, "/reason"), "threefold_repetition", "{st}");
    assert!(st.get("draw_claimable").is_none(), "{st}");

    // Answered means journaled: a crash right after keeps the result.
    d.kill();
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    let st = d.wait_status("0", WAIT, "the clock back", |v| s(v, "/status") == "ended")?;
    assert_eq!(s(&st, "/result"), "1/2-1/2", "{st}");
    assert_eq!(s(&st, "/reason"), "threefold_repetition", "{st}");
    Ok(())
}

#[test]
fn a_14h_claim_waits_for_the_ruling_and_the_ruling_survives_a_crash() -> Result<()> {
    let dir = TempDir::new("board-14h")?;
    let bus = PrivateBus::start_session()?;
    let config = write_config(dir.path(), &[], "default_time_control = \"G/2\"")?;
    let mut d = Daemon::spawn(bus.address(), &config, &[])?;
    ctl_ok(&d, &["add-virtual", "Board 1"]);
    ctl_ok(&d, &["start", "0"]);
    ctl_ok(
        &d,
        &[
            "claim",
            "0",
            "white",
            "--kind",
            "insufficient-losing-chances",
        ],
    );
    let st = d.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(s(&st, "/status"), "paused", "{st}");
    assert_eq!(s(&st, "/claim/side"), "white", "{st}");
    let text = ctl_ok(&d, &["status", "0"]);
    assert!(text.contains("waiting for the director"), "{text}");
    let white = st["white_ms"].as_u64().context("white_ms")?;

    ctl_ok(&d, &["ruling", "0", "delay", "--seconds", "5"]);
    let st = d.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(s(&st, "/status"), "running", "{st}");
    assert!(st.get("claim").is_none(), "{st}");
    let halved = st["white_ms"].as_u64().context("white_ms")?;
    assert!(
        halved <= white / 2 && halved + 2_000 >= white / 2,
        "{white} halved: {halved}"
    );
    assert!(
        s(&st, "/time_control").contains("d/5"),
        "a 5 s delay on the clock: {st}"
    );
    let control = s(&st, "/time_control").to_owned();
    let none = d.ctl(&["ruling", "0", "draw"]);
    assert!(!none.status.success(), "no claim pending any more");

    d.kill();
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    let st = d.wait_status("0", WAIT, "the virtual clock back", |v| {
        s(v, "/name") == "Board 1"
    })?;
    assert_eq!(s(&st, "/time_control"), control, "{st}");
    assert!(
        st["white_ms"].as_u64().unwrap_or(u64::MAX) <= halved,
        "the halved time kept: {st}"
    );
    Ok(())
}
