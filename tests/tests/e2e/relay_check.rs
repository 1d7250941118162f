//! End to end: the round's go/no-go (`chessclockctl round check`, issue 44 item 2). The real
//! daemon, CLI and emulator: two emulated boards and a paper board; a missing piece and a
//! clock set to another control fail their checks with their fixes (exit 1), `--wait` follows
//! the fixes and ends when every board is ready, and then the check passes (exit 0).

use std::time::Duration;

use anyhow::{Result, ensure};
use chessclock_tests::e2e::{ctl_ok, emu, text};
use chessclock_tests::json::s;
use chessclock_tests::rig::{Daemon, Spawned, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(10);

/// The checks of `board` that failed, by name.
fn failed(report: &Value, board: u64) -> Vec<String> {
    report["boards"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["board"] == board)
        .flat_map(|b| b["checks"].as_array().cloned().unwrap_or_default())
        .filter(|c| c["ok"] == false)
        .map(|c| s(&c, "/check").to_owned())
        .collect()
}

#[test]
fn a_round_check_names_each_board_s_fault_with_its_fix_and_waits_until_all_are_ready() -> Result<()>
{
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("relay-check")?;
    let config = write_config(dir.path(), &[], "")?;
    let mut one = emu(&["--board-serial", "11111"])?;
    let two = emu(&["--board-serial", "22222"])?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    ctl_ok(&d, &["attach", &one.path]);
    ctl_ok(&d, &["attach", &two.path]);
    for clock in ["0", "1"] {
        d.wait_status(clock, WAIT, "the board ready", |v| {
            s(v, "/device_state") == "ready" && !s(v, "/model").is_empty()
        })?;
    }
    let csv = dir.path().join("round1.csv");
    std::fs::write(
        &csv,
        "board,white,black\n1,Tanaka,Moreau\n2,Novak,Lindqvist\n3,Ito,Berg\n",
    )?;
    ctl_ok(&d, &["round", "load", &csv.display().to_string()]);
    let control = s(
        &d.ctl_json(&["status", "board:1", "--json"])?,
        "/time_control",
    )
    .to_owned();

    // Board 1's white queen is missing; board 2's clock is set to another control.
    one.send("lift d1")?;
    d.wait_status("board:1", WAIT, "the queen missing", |v| {
        !s(v, "/board_problem").is_empty()
    })?;
    ctl_ok(&d, &["set", "board:2", "G/5"]);
    let args = ["round", "check", "--control", control.as_str()];
    let out = d.ctl(&args);
    ensure!(out.status.code() == Some(1), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    ensure!(
        said.contains("board 1 (clock 0): NOT READY: pieces:")
            && said.contains("board 2 (clock 1): NOT READY: control: set to G/5")
            && said.contains(&format!("chessclockctl set board:2 \"{control}\""))
            && said.contains("board 3 (paper): ready")
            && said.contains("round 1: 1 of 3 boards ready"),
        "{said}"
    );
    let json = d.ctl(&[&args[..], &["--json"]].concat());
    ensure!(json.status.code() == Some(1), "{}", text(&json));
    let report: Value = serde_json::from_slice(&json.stdout)?;
    ensure!(report["ready"] == false, "{report}");
    ensure!(failed(&report, 1) == ["pieces"], "{report}");
    ensure!(failed(&report, 2) == ["control"], "{report}");
    ensure!(failed(&report, 3).is_empty(), "{report}");

    // Waiting: the fixes are followed, and the command ends once every board is ready.
    let mut waiting = Spawned::ctl(bus.address(), &[&args[..], &["--wait"]].concat())?;
    waiting.wait_line(0, WAIT, "the first check", |l| {
        l.contains("1 of 3 boards ready")
    })?;
    one.send("place d1 Q")?;
    ctl_ok(&d, &["set", "board:2", &control]);
    waiting.wait_line(0, WAIT, "every board ready", |l| {
        l == "round 1: 3 of 3 boards ready"
    })?;
    let out = d.ctl(&args);
    ensure!(out.status.success(), "{}", text(&out));
    Ok(())
}
