//! The opt-in port scan and configuration reloads, end to end: the real `chessclockd` on a
//! private bus, emulated boards from the real `chessclock-emu` behind symlinks that the scan
//! patterns match.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use chessclock_tests::e2e::emu;
use chessclock_tests::rig::{Daemon, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

/// The ports of the attached clocks, once `want` of them are attached.
fn wait_ports(d: &Daemon, want: usize) -> Result<Vec<String>> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let list = d.ctl_json(&["list", "--json"])?;
        let ports: Vec<String> = list
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|c| c.get("port").and_then(Value::as_str).map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        if ports.len() >= want {
            return Ok(ports);
        }
        if Instant::now() > deadline {
            bail!("expected {want} clocks, have {ports:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_scan_attaches_boards_that_answer_and_leaves_silent_ports_alone() -> Result<()> {
    let dir = TempDir::new("scan")?;
    let link = |n: &str| dir.path().join(n).display().to_string();
    let (board, silent) = (link("dgt-board"), link("dgt-silent"));
    let _board = emu(&["--link", &board])?;
    // A port that never answers: every byte the "board" sends is dropped.
    let _silent = emu(&["--link", &silent, "--fault", "drop=1"])?;
    let pattern = format!("{}/dgt-*", dir.path().display());
    let config = write_config(
        dir.path(),
        &[],
        &format!("scan = true\nscan_ports = [{pattern:?}]\ndefault_time_control = \"G/3 inc/2\""),
    )?;
    let bus = PrivateBus::start_session()?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    let ports = wait_ports(&d, 1)?;
    assert_eq!(ports, std::slice::from_ref(&board));
    let st = d.wait_status("0", Duration::from_secs(10), "scanned board ready", |v| {
        v.get("device_state").and_then(Value::as_str) == Some("ready")
    })?;
    assert_eq!(
        st.get("time_control").and_then(Value::as_str),
        Some("G/3 inc/2"),
        "a scanned board gets the default time control: {st}"
    );
    // The silent port stays unattached however long the scan takes.
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(wait_ports(&d, 1)?, [board]);
    Ok(())
}

fn status(d: &Daemon) -> Result<Value> {
    d.ctl_json(&["status", "0", "--json"])
}

fn field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

#[test]
fn sighup_keeps_the_running_game_applies_settings_and_attaches_new_clocks() -> Result<()> {
    let dir = TempDir::new("reload")?;
    let mut first = emu(&[])?;
    let config = write_config(dir.path(), &[(&first.path, "G/5 d/0")], "")?;
    let bus = PrivateBus::start_session()?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    let wait = Duration::from_secs(10);
    d.wait_status("0", wait, "ready", |v| field(v, "device_state") == "ready")?;
    assert!(d.ctl(&["start", "0"]).status.success());
    // Before the reload the clock's run button pauses (pause_button defaults to true).
    first.send("button run")?;
    d.wait_status("0", wait, "paused by the button", |v| {
        field(v, "status") == "paused"
    })?;
    assert!(d.ctl(&["resume", "0"]).status.success());

    let second = emu(&[])?;
    write_config(
        dir.path(),
        &[(&first.path, "G/1 d/0"), (&second.path, "G/3 inc/2")],
        "pause_button = false",
    )?;
    d.signal("HUP")?;
    let ports = wait_ports(&d, 2)?;
    assert!(ports.contains(&second.path), "{ports:?}");

    // After it the button is ignored: the lever press that follows it on the same line is
    // taken, which it would not be on a paused clock.
    first.send("button run")?;
    first.send("lever")?;
    let st = d.wait_status("0", wait, "White's press", |v| {
        v.pointer("/moves/white").and_then(Value::as_u64) == Some(1)
    })?;
    assert_eq!(field(&st, "status"), "running", "{st}");
    assert_eq!(
        field(&status(&d)?, "time_control"),
        "G/5 d/0",
        "a reload does not change a running game's control"
    );
    Ok(())
}

#[test]
fn a_bad_time_control_in_the_file_stops_the_start_naming_the_key() -> Result<()> {
    let dir = TempDir::new("badtc")?;
    let config = write_config(dir.path(), &[], "default_time_control = \"G/5 inc/x\"")?;
    let out = std::process::Command::new(chessclock_tests::rig::workspace_bin("chessclockd")?)
        .args(["--address", "unix:path=/nonexistent/bus", "--config"])
        .arg(&config)
        .output()?;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("default_time_control:"), "{err}");
    assert!(err.contains("G/5 inc/x"), "{err}");
    Ok(())
}
