//! `chessclockctl games list|export` on the real daemon's state directory: two games finish
//! (a flag, an arbiter's result), the list names them, the export is one PGN python-chess
//! reads with both games, a round selects one, a bad date is a usage error.

use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result};
use chessclock_tests::pgn::python_reads;
use chessclock_tests::rig::{Daemon, workspace_bin, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

fn games(state: &std::path::Path, args: &[&str]) -> Result<std::process::Output> {
    Ok(Command::new(workspace_bin("chessclockctl")?)
        .arg("games")
        .args(args)
        .args(["--state-dir", state.to_str().context("path")?])
        .output()?)
}

#[test]
fn finished_games_are_listed_and_exported_as_one_pgn() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("cli-games")?;
    let config = write_config(dir.path(), &[], "default_time_control = \"G/5 d/0\"")?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    let ok = |args: &[&str]| {
        let out = d.ctl(args);
        assert!(out.status.success(), "{args:?}: {out:?}");
    };
    ok(&["add-virtual", "Board 1"]);
    ok(&["add-virtual", "Board 2"]);
    ok(&["info", "0", "round=4.1", "white=Ann", "black=Bob"]);
    ok(&["info", "1", "round=5.1", "white=Cid", "black=Dee"]);
    for clock in ["0", "1"] {
        ok(&["start", clock]);
        ok(&["press", clock, "white"]);
    }
    ok(&["result", "0", "1-0"]);
    ok(&["result", "1", "1/2-1/2"]);
    let state = dir.path().join("state");
    let list = loop {
        let out = games(&state, &["list", "-J"])?;
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        if v.as_array().is_some_and(|a| a.len() == 2) {
            break v;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let whites: Vec<&str> = list
        .as_array()
        .context("array")?
        .iter()
        .filter_map(|g| g["white"].as_str())
        .collect();
    assert!(whites.contains(&"Ann") && whites.contains(&"Cid"), "{list}");

    let out = games(&state, &["export"])?;
    assert!(out.status.success());
    let file = dir.path().join("all.pgn");
    std::fs::write(&file, &out.stdout)?;
    let read = python_reads(&file)?;
    assert_eq!(read.len(), 2, "{}", String::from_utf8_lossy(&out.stdout));

    let out = games(&state, &["export", "--round", "5"])?;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("[White \"Cid\"]") && !text.contains("Ann"),
        "{text}"
    );

    let out = games(&state, &["list", "--since", "26/11/2026"])?;
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("YYYY-MM-DD"));

    let out = games(&dir.path().join("nowhere"), &["list"])?;
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
    Ok(())
}
