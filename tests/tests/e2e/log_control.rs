//! The log level of the daemon and of the bridge (one logging module, chessclock-system)
//! through the real bus: `org.freedesktop.LogControl1` read and changed with
//! `chessclockctl log-level` and plain D-Bus calls, its effect on what they log, the bus
//! policy on setting it, invalid filters at start, and colour only on a terminal without
//! `NO_COLOR`.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
pub(super) use chessclock_tests::e2e::text;
use chessclock_tests::paths::repo_path;
use chessclock_tests::rig::{workspace_bin, write_config};
use chessclock_tests::{PolicyUsers, PrivateBus, TempDir, TestUser, policy_users};

pub(super) const LOG_CONTROL: &str = "org.freedesktop.LogControl1";
pub(super) const LOG_PATH: &str = "/org/freedesktop/LogControl1";
pub(super) const DAEMON: &str = "org.chessclockd.ChessClock1";
pub(super) const BRIDGE: &str = "org.chessclockd.Bridge1";

/// chessclockd with its stderr in a file (a pipe, not a terminal), killed on drop.
struct LoggingDaemon {
    child: Child,
    stderr: std::path::PathBuf,
    address: String,
}

impl LoggingDaemon {
    fn spawn(address: &str, dir: &Path, log: &str) -> Result<LoggingDaemon> {
        let config = write_config(dir, &[], "")?;
        let stderr = dir.join("daemon.stderr");
        let mut child = Command::new(workspace_bin("chessclockd")?)
            .args(["--address", address, "--config"])
            .arg(&config)
            .env("CHESSCLOCKD_LOG", log)
            .env_remove("JOURNAL_STREAM")
            .stdin(Stdio::null())
            .stderr(std::fs::File::create(&stderr)?)
            .spawn()?;
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let out = ctl(address, None, &["log-level"])?;
            if out.status.success() {
                break;
            }
            if let Some(status) = child.try_wait()? {
                bail!("chessclockd exited early ({status}): {}", read(&stderr));
            }
            if Instant::now() > deadline {
                bail!("chessclockd did not serve LogControl1: {}", text(&out));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(LoggingDaemon {
            child,
            stderr,
            address: address.to_owned(),
        })
    }

    fn log(&self) -> String {
        read(&self.stderr)
    }

    /// Wait until the daemon's log holds `needle`.
    fn wait_log(&self, needle: &str) -> Result<()> {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !self.log().contains(needle) {
            if Instant::now() > deadline {
                bail!("no {needle:?} in the daemon's log:\n{}", self.log());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }
}

impl Drop for LoggingDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(super) fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn ctl(address: &str, user: Option<&TestUser>, args: &[&str]) -> Result<Output> {
    let exe = workspace_bin("chessclockctl")?;
    let mut cmd = match user {
        Some(u) => u.command(&exe.display().to_string()),
        None => Command::new(exe),
    };
    Ok(cmd.args(["--address", address]).args(args).output()?)
}

/// Set a LogControl1 property of `dest` with a plain D-Bus call (dbus-send) as `user`;
/// returns the error name.
pub(super) fn set_property(
    bus: &PrivateBus,
    user: Option<&TestUser>,
    dest: &str,
    name: &str,
    value: &str,
) -> Result<Option<String>> {
    let out = bus
        .dbus_send(user)
        .args([
            &format!("--dest={dest}"),
            LOG_PATH,
            "org.freedesktop.DBus.Properties.Set",
            &format!("string:{LOG_CONTROL}"),
            &format!("string:{name}"),
            &format!("variant:string:{value}"),
        ])
        .output()
        .context("run dbus-send (package dbus-bin)")?;
    if out.status.success() {
        return Ok(None);
    }
    let t = text(&out);
    Ok(Some(
        t.split_whitespace()
            .find(|w| w.starts_with("org.freedesktop.DBus.Error."))
            .map(|w| w.trim_end_matches(':').to_owned())
            .unwrap_or(t),
    ))
}

#[test]
fn the_log_level_changes_at_run_time_and_takes_effect() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("log-control")?;
    let daemon = LoggingDaemon::spawn(bus.address(), dir.path(), "warn")?;
    let a = daemon.address.clone();

    let out = ctl(&a, None, &["log-level"])?;
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "warning");
    // At warning level an attach (logged at info) leaves no line.
    let out = ctl(&a, None, &["add-virtual", "quiet"])?;
    assert!(out.status.success(), "{}", text(&out));
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !daemon.log().contains("attached clock 0"),
        "{}",
        daemon.log()
    );

    let out = ctl(&a, None, &["log-level", "info"])?;
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "chessclockd's log level is now info (was warning)"
    );
    let out = ctl(&a, None, &["add-virtual", "loud"])?;
    assert!(out.status.success(), "{}", text(&out));
    daemon.wait_log("attached clock 1")?;

    // A bad level is refused with the reason and changes nothing.
    let out = ctl(&a, None, &["log-level", "debgu"])?;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("\"debgu\" is neither a level"),
        "{}",
        text(&out)
    );
    let out = ctl(&a, None, &["log-level", "--json"])?;
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(json["log_level"], "info");
    assert_eq!(json["log_target"], "console");
    assert_eq!(json["syslog_identifier"], "chessclockd");

    // systemd's names work as `systemctl service-log-level` sends them; the target is fixed.
    assert_eq!(set_property(&bus, None, DAEMON, "LogLevel", "debug")?, None);
    let out = ctl(&a, None, &["log-level"])?;
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "debug");
    assert_eq!(
        set_property(&bus, None, DAEMON, "LogTarget", "journal")?.as_deref(),
        Some("org.freedesktop.DBus.Error.NotSupported")
    );
    assert_eq!(
        set_property(&bus, None, DAEMON, "LogLevel", "chessclockd=loud")?.as_deref(),
        Some("org.freedesktop.DBus.Error.InvalidArgs")
    );

    // stderr is a file here, not a terminal: no colour codes.
    assert!(!daemon.log().contains('\u{1b}'), "{:?}", daemon.log());
    Ok(())
}

/// Environment, arguments, and the start of the expected message.
pub(super) type Case = (
    &'static [(&'static str, &'static str)],
    &'static [&'static str],
    &'static str,
);

#[test]
fn an_invalid_log_filter_stops_the_start() -> Result<()> {
    let exe = workspace_bin("chessclockd")?;
    let cases: [Case; 4] = [
        (
            &[("CHESSCLOCKD_LOG", "debgu")],
            &[],
            "CHESSCLOCKD_LOG: \"debgu\"",
        ),
        (&[("RUST_LOG", "chessclockd=loud")], &[], "RUST_LOG: "),
        (&[], &["--log-level", "info,"], "--log-level: "),
        // The flag wins over the environment.
        (
            &[("CHESSCLOCKD_LOG", "info")],
            &["--log-level", "x=y=z"],
            "--log-level: ",
        ),
    ];
    for (env, args, want) in cases {
        let mut cmd = Command::new(&exe);
        cmd.env_remove("CHESSCLOCKD_LOG")
            .env_remove("RUST_LOG")
            .args(["--address", "unix:path=/nonexistent/bus"])
            .args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output()?;
        assert!(!out.status.success(), "{env:?} {args:?}: started");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with(&format!("chessclockd: {want}")),
            "{env:?} {args:?}: {err}"
        );
        assert!(err.contains("use a level"), "says how to fix it: {err}");
    }
    Ok(())
}

#[test]
fn only_root_and_operators_may_set_the_log_level() -> Result<()> {
    let Some(PolicyUsers { reader, operator }) = policy_users()? else {
        return Ok(());
    };
    let bus = PrivateBus::start_system_like(&repo_path("dbus"))?;
    let dir = TempDir::new("log-policy")?;
    let daemon = LoggingDaemon::spawn(bus.address(), dir.path(), "info")?;
    let a = daemon.address.clone();

    let out = ctl(&a, Some(&reader), &["log-level"])?;
    assert!(out.status.success(), "a reader may read: {}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "info");
    let out = ctl(&a, Some(&reader), &["log-level", "debug"])?;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("permission denied: changing the log level"),
        "{}",
        text(&out)
    );
    let out = ctl(&a, None, &["log-level"])?;
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "info");

    let out = ctl(&a, Some(&operator), &["log-level", "debug"])?;
    assert!(out.status.success(), "an operator may: {}", text(&out));
    let out = ctl(&a, None, &["log-level", "warning"])?;
    assert!(out.status.success(), "root may: {}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "chessclockd's log level is now warning (was debug)"
    );
    let out = ctl(&a, None, &["--quiet", "log-level", "info"])?;
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "{}",
        text(&out)
    );
    Ok(())
}

/// Read a LogControl1 property of `dest` with dbus-send as `user`: its string value, or the
/// error text.
pub(super) fn get_property(
    bus: &PrivateBus,
    user: Option<&TestUser>,
    dest: &str,
    name: &str,
) -> Result<std::result::Result<String, String>> {
    let out = bus
        .dbus_send(user)
        .args([
            &format!("--dest={dest}"),
            LOG_PATH,
            "org.freedesktop.DBus.Properties.Get",
            &format!("string:{LOG_CONTROL}"),
            &format!("string:{name}"),
        ])
        .output()
        .context("run dbus-send (package dbus-bin)")?;
    if !out.status.success() {
        return Ok(Err(text(&out)));
    }
    // `variant       string "info"`
    let reply = String::from_utf8_lossy(&out.stdout);
    Ok(reply
        .split_once("string \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(value, _)| value.to_owned())
        .ok_or(reply.into_owned()))
}
