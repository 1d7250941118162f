//! `chessclockctl doctor` against the real daemon on a private bus: every check in its JSON,
//! the exit status 0 only when none failed, the checks it cannot make here skipped and named
//! (the broker without one set, the clock's synchronisation without systemd), a daemon that
//! is not there named with what to do on this host, and the daemon's and the bridge's
//! settings checked by the real programs: a bad drop-in fails, naming its file and line.

use std::time::Duration;

use anyhow::{Context, Result};
use chessclock_tests::rig::{Daemon, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

fn doctor(address: &str, dir: &std::path::Path, extra: &[&str]) -> Result<(i32, Vec<Value>)> {
    let state = dir.join("state");
    let udev = dir.join("udev");
    std::fs::create_dir_all(&state)?;
    std::fs::create_dir_all(&udev)?;
    let args: Vec<String> = [
        "--address",
        address,
        "doctor",
        "-J",
        "--state-dir",
        &state.display().to_string(),
        "--udev-dir",
        &udev.display().to_string(),
        "--bridge-config",
        &dir.join("bridge.toml").display().to_string(),
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .chain(extra.iter().map(|s| (*s).to_owned()))
    .collect();
    let out = std::process::Command::new(chessclock_tests::rig::workspace_bin("chessclockctl")?)
        .args(&args)
        .output()
        .context("chessclockctl doctor")?;
    let checks: Vec<Value> = serde_json::from_slice(&out.stdout)
        .with_context(|| format!("doctor -J: {}", String::from_utf8_lossy(&out.stdout)))?;
    Ok((out.status.code().unwrap_or(-1), checks))
}

/// systemd is PID 1 here (as `sd_booted(3)` asks).
fn systemd() -> bool {
    std::path::Path::new("/run/systemd/system").is_dir()
}

fn find<'a>(checks: &'a [Value], name: &str) -> &'a Value {
    checks
        .iter()
        .find(|c| c["check"] == name)
        .unwrap_or_else(|| panic!("no {name} check in {checks:?}"))
}

/// install.md's "A round without a board": `doctor` right after the clocks are added (a
/// script runs the next command within milliseconds) finds them ready, not probing.
#[test]
fn virtual_clocks_are_ready_when_add_virtual_returns() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("doctor-virtual")?;
    let config = write_config(dir.path(), &[], "")?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    for name in ["Table 1", "Table 2"] {
        assert!(d.ctl(&["add-virtual", name]).status.success());
    }
    let list = d.ctl_json(&["list", "--json"])?;
    let states: Vec<&Value> = list
        .as_array()
        .context("list --json is an array")?
        .iter()
        .map(|c| &c["device_state"])
        .collect();
    assert_eq!(
        states,
        [&Value::from("ready"), &Value::from("ready")],
        "{list}"
    );
    let (_, checks) = doctor(bus.address(), dir.path(), &[])?;
    assert_eq!(find(&checks, "boards")["ok"], true, "{checks:?}");
    Ok(())
}

#[test]
fn doctor_checks_the_daemon_the_boards_and_the_files_and_exits_by_them() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("doctor")?;
    // No daemon yet: it says so, with what to do, and fails.
    let (code, checks) = doctor(bus.address(), dir.path(), &[])?;
    assert_eq!(code, 1);
    let daemon = find(&checks, "daemon");
    assert_eq!(daemon["ok"], false);
    // What to do depends on the host: systemctl under systemd, install.md's commands without.
    let advice = if systemd() {
        "systemctl start chessclockd"
    } else {
        "\"Without systemd\""
    };
    assert!(
        daemon["detail"]
            .as_str()
            .is_some_and(|d| d.contains(advice)),
        "{daemon}"
    );

    let config = write_config(dir.path(), &[], "")?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    assert!(d.ctl(&["add-virtual", "board one"]).status.success());
    d.wait_status("0", Duration::from_secs(10), "a ready board", |v| {
        v["device_state"] == "ready"
    })?;
    let (_, checks) = doctor(bus.address(), dir.path(), &[])?;
    for name in [
        "daemon",
        "permission",
        "boards",
        "state",
        "bridge",
        "bluetooth",
    ] {
        assert_eq!(find(&checks, name)["ok"], true, "{name}: {checks:?}");
    }
    let udev = find(&checks, "udev");
    assert_eq!(udev["ok"], false, "no rules in the empty dir: {udev}");
    std::fs::write(dir.path().join("udev/60-chessclockd.rules"), "")?;
    let (code, checks) = doctor(bus.address(), dir.path(), &[])?;
    assert_eq!(find(&checks, "udev")["ok"], true);
    // Not set up here: the bridge (no bridge.toml), so its broker; no Bluetooth board; and
    // without systemd the clock's synchronisation. Skipped, saying so, failing nothing.
    let mut skipped = vec!["bridge", "mqtt", "bluetooth"];
    if !systemd() {
        skipped.push("time");
    }
    for name in &skipped {
        let c = find(&checks, name);
        assert_eq!(
            (&c["ok"], &c["skipped"]),
            (&true.into(), &true.into()),
            "{c}"
        );
        assert!(
            c["detail"]
                .as_str()
                .is_some_and(|d| d.contains("skipped") || d.contains("systemd is not running")),
            "{c}"
        );
    }
    for name in ["daemon", "permission", "boards", "udev", "state"] {
        assert_eq!(find(&checks, name)["skipped"], false, "{name}: {checks:?}");
    }
    // The exit status follows every check, the time check included (it depends on the
    // machine: timedatectl may be missing here).
    let all_ok = checks.iter().all(|c| c["ok"] == true);
    assert_eq!(code == 0, all_ok, "{checks:?}");
    for c in &checks {
        assert!(
            c["detail"].as_str().is_some_and(|d| !d.is_empty()),
            "every check says what it found: {c}"
        );
    }
    // The text form marks them and names them in its last line.
    let udev_dir = dir.path().join("udev");
    let out = std::process::Command::new(chessclock_tests::rig::workspace_bin("chessclockctl")?)
        .args(["--address", bus.address(), "doctor", "--state-dir"])
        .arg(dir.path().join("state"))
        .arg("--udev-dir")
        .arg(&udev_dir)
        .arg("--bridge-config")
        .arg(dir.path().join("bridge.toml"))
        .output()?;
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.lines().any(|l| l.starts_with("skip mqtt ")),
        "{shown}"
    );
    let last = shown.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("skipped: ") && last.contains("mqtt") && last.ends_with("(not failed)"),
        "{shown}"
    );
    Ok(())
}

/// The doctor's settings checks run the built `chessclockd` and `chessclock-bridge` (beside
/// the built `chessclockctl`), as a start would read the files: a drop-in waiting for the next
/// start with a bad value fails `doctor`, naming its file, line and key; fixed, it passes.
#[test]
fn a_bad_drop_in_fails_doctor_naming_its_file_and_line() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("doctor-settings")?;
    let config = write_config(dir.path(), &[], "")?;
    let config_arg = config.display().to_string();
    let extra = ["--config", config_arg.as_str()];
    let find_ok = |checks: &[Value], name: &str| find(checks, name)["ok"] == true;

    let (_, checks) = doctor(bus.address(), dir.path(), &extra)?;
    let c = find(&checks, "config");
    assert!(find_ok(&checks, "config"), "{c}");
    assert!(
        c["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("configuration OK (") && d.contains(&config_arg)),
        "{c}"
    );
    // No bridge.toml: its settings are skipped, as its other checks are.
    assert_eq!(
        find(&checks, "bridge_config")["skipped"],
        true,
        "{checks:?}"
    );

    let drop_in = dir.path().join("chessclockd.toml.d/50-retries.toml");
    std::fs::create_dir_all(drop_in.parent().context("parent")?)?;
    std::fs::write(&drop_in, "# more retries\ncommand_retries = 99\n")?;
    let (code, checks) = doctor(bus.address(), dir.path(), &extra)?;
    assert_eq!(code, 1, "{checks:?}");
    let c = find(&checks, "config");
    let detail = c["detail"].as_str().unwrap_or_default();
    assert_eq!(
        (&c["ok"], &c["skipped"]),
        (&false.into(), &false.into()),
        "{c}"
    );
    assert!(
        detail.contains("command_retries: 99 is out of range")
            && detail.contains(&format!("{}, line 2", drop_in.display()))
            && (detail.contains("`sudo systemctl reload chessclockd`")
                || detail.contains("`sudo service chessclockd reload`")),
        "{c}"
    );
    std::fs::write(&drop_in, "command_retries = 9\n")?;
    let (_, checks) = doctor(bus.address(), dir.path(), &extra)?;
    assert!(find_ok(&checks, "config"), "{checks:?}");
    assert!(
        find(&checks, "config")["detail"]
            .as_str()
            .is_some_and(|d| d.contains("50-retries.toml")),
        "the drop-in is among the files read: {checks:?}"
    );

    // The bridge's: its file passes, a bad drop-in of it fails naming it.
    let bridge = dir.path().join("bridge.toml");
    std::fs::write(&bridge, "listen = \"127.0.0.1:1\"\n")?;
    let (_, checks) = doctor(bus.address(), dir.path(), &extra)?;
    assert!(find_ok(&checks, "bridge_config"), "{checks:?}");
    let bad = dir.path().join("bridge.toml.d/50-replay.toml");
    std::fs::create_dir_all(bad.parent().context("parent")?)?;
    std::fs::write(&bad, "replay = \"many\"\n")?;
    let (code, checks) = doctor(bus.address(), dir.path(), &extra)?;
    assert_eq!(code, 1);
    let c = find(&checks, "bridge_config");
    assert!(
        c["ok"] == false
            && c["detail"].as_str().is_some_and(
                |d| d.contains("replay") && d.contains(&format!("{}, line 1", bad.display()))
            ),
        "{c}"
    );
    Ok(())
}
