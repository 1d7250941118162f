//! The daemon on a system-like private bus with the real policy file: who may read and who
//! may control; the committed introspection XML against what the daemon serves; systemd
//! readiness notification.

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use anyhow::Result;
use chessclock_tests::e2e::text;
use chessclock_tests::paths::repo_path;
use chessclock_tests::rig::{Daemon, write_config};
use chessclock_tests::{NotifySocket, PolicyUsers, PrivateBus, TempDir, policy_users};

fn ctl_as(bus: &PrivateBus, user: &chessclock_tests::TestUser, args: &[&str]) -> Result<Output> {
    let ctl = chessclock_tests::rig::workspace_bin("chessclockctl")?;
    let mut cmd = user.command(&ctl.display().to_string());
    cmd.args(["--address", bus.address()]).args(args);
    Ok(cmd.output()?)
}

#[test]
fn an_unprivileged_user_reads_but_cannot_control() -> Result<()> {
    let Some(PolicyUsers { reader, operator }) = policy_users()? else {
        return Ok(());
    };
    let bus = PrivateBus::start_system_like(&repo_path("dbus"))?;
    let dir = TempDir::new("bus-policy")?;
    let config = write_config(dir.path(), &[], "")?;
    let daemon = Daemon::spawn(bus.address(), &config, &[])?;
    let out = daemon.ctl(&["add-virtual", "board"]);
    assert!(out.status.success(), "root may control: {}", text(&out));

    let out = ctl_as(&bus, &reader, &["status", "0", "--json"])?;
    assert!(out.status.success(), "a reader may read: {}", text(&out));
    let out = ctl_as(&bus, &reader, &["start", "0"])?;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("permission denied"),
        "one clear sentence: {}",
        text(&out)
    );
    let out = ctl_as(&bus, &operator, &["start", "0"])?;
    assert!(
        out.status.success(),
        "an operator may control: {}",
        text(&out)
    );
    // `doctor` tells the reader to join the operators' group, and the operator nothing.
    for (user, allowed) in [(&reader, false), (&operator, true)] {
        let out = ctl_as(&bus, user, &["doctor", "-J"])?;
        let checks: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout)?;
        let perm = checks
            .iter()
            .find(|c| c["check"] == "permission")
            .ok_or_else(|| anyhow::anyhow!("no permission check: {}", text(&out)))?;
        assert_eq!(perm["ok"], allowed, "{}: {perm}", user.name);
        if !allowed {
            assert!(perm["detail"].to_string().contains("chessclock"), "{perm}");
            assert_eq!(out.status.code(), Some(1), "a failed check fails doctor");
        }
    }
    Ok(())
}

fn introspect(address: &str, path: &str) -> Result<String> {
    let out = Command::new("dbus-send")
        .args([
            &format!("--bus={address}"),
            "--print-reply=literal",
            "--dest=org.chessclockd.ChessClock1",
            path,
            "org.freedesktop.DBus.Introspectable.Introspect",
        ])
        .output()?;
    anyhow::ensure!(out.status.success(), "introspect {path}: {}", text(&out));
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Only our own interface element, without child nodes and standard interfaces.
fn our_interface(xml: &str, name: &str) -> Option<String> {
    let start = xml.find(&format!("<interface name=\"{name}\">"))?;
    let end = start + xml[start..].find("</interface>")? + "</interface>".len();
    Some(
        xml[start..end]
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
            + "\n",
    )
}

fn check_xml(file: &Path, served: &str) -> Result<()> {
    if std::env::var_os("CHESSCLOCK_BLESS").is_some() {
        std::fs::write(file, served)?;
        return Ok(());
    }
    let committed = std::fs::read_to_string(file).map_err(|e| {
        anyhow::anyhow!(
            "{}: {e}; generate it with CHESSCLOCK_BLESS=1 cargo test -p chessclock-tests --test e2e daemon_bus::",
            file.display()
        )
    })?;
    assert_eq!(
        committed,
        served,
        "{} differs from what the daemon serves; if the change is intended, regenerate it with \
         CHESSCLOCK_BLESS=1 cargo test -p chessclock-tests --test e2e daemon_bus::",
        file.display()
    );
    Ok(())
}

#[test]
fn committed_introspection_matches_what_the_daemon_serves() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("introspect")?;
    let config = write_config(dir.path(), &[], "")?;
    let daemon = Daemon::spawn(bus.address(), &config, &[])?;
    let out = daemon.ctl(&["add-virtual", "board"]);
    assert!(out.status.success(), "{}", text(&out));
    let manager = introspect(bus.address(), "/org/chessclockd/ChessClock1")?;
    let clock = introspect(bus.address(), "/org/chessclockd/ChessClock1/Clock/0")?;
    let m = our_interface(&manager, "org.chessclockd.ChessClock1.Manager")
        .ok_or_else(|| anyhow::anyhow!("no Manager interface in {manager}"))?;
    let c = our_interface(&clock, "org.chessclockd.ChessClock1.Clock")
        .ok_or_else(|| anyhow::anyhow!("no Clock interface in {clock}"))?;
    assert!(
        manager.contains("org.freedesktop.DBus.ObjectManager"),
        "the manager serves ObjectManager"
    );
    check_xml(
        &repo_path("dbus/org.chessclockd.ChessClock1.Manager.xml"),
        &m,
    )?;
    check_xml(&repo_path("dbus/org.chessclockd.ChessClock1.Clock.xml"), &c)?;
    Ok(())
}

#[test]
fn readiness_is_notified_and_sigterm_stops_cleanly() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("notify")?;
    let config = write_config(dir.path(), &[], "")?;
    let notify = NotifySocket::bind()?;
    let socket = notify.path().display().to_string();
    let mut daemon = Daemon::spawn(
        bus.address(),
        &config,
        &[("NOTIFY_SOCKET", &socket), ("WATCHDOG_USEC", "400000")],
    )?;
    let lines = notify
        .wait_for_line("READY=1", Duration::from_secs(10))
        .ok_or_else(|| anyhow::anyhow!("no READY=1"))?;
    assert!(
        lines.iter().any(|l| l.contains("STATUS=")),
        "a status line comes with readiness: {lines:?}"
    );
    notify
        .wait_for_line("WATCHDOG=1", Duration::from_secs(5))
        .ok_or_else(|| anyhow::anyhow!("no watchdog ping"))?;
    // A clock comes: the status line follows, and the watchdog (which now also asks the
    // clock's actor) keeps pinging.
    let out = daemon.ctl(&["add-virtual", "status-check"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    notify
        .wait_for_line("STATUS=1 clock(s) attached", Duration::from_secs(5))
        .ok_or_else(|| anyhow::anyhow!("no status update after attaching a clock"))?;
    notify
        .wait_for_line("WATCHDOG=1", Duration::from_secs(5))
        .ok_or_else(|| anyhow::anyhow!("no watchdog ping with a clock attached"))?;
    assert!(daemon.terminate()?, "exit status 0 after SIGTERM");
    Ok(())
}
