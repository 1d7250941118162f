//! The bridge's log level and logging (the daemon's are `log_control`'s): LogControl1 under
//! its own bus name, invalid filters at start, the bus policy on setting it, and colour on a
//! terminal for both programs unless `NO_COLOR` is set.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chessclock_tests::paths::repo_path;
use chessclock_tests::rig::{workspace_bin, write_config};
use chessclock_tests::{PolicyUsers, PrivateBus, TempDir, policy_users};

use super::log_control::{BRIDGE, Case, get_property, read, set_property, text};

/// chessclock-bridge with its stderr in a file (not a terminal), killed on drop; no daemon
/// is needed for its log control.
struct LoggingBridge {
    child: Child,
    stderr: std::path::PathBuf,
}

impl LoggingBridge {
    /// Start it with `env` and `args` and the settings file `dir/none.toml` (empty unless
    /// written before), and wait until it owns its bus name.
    fn spawn(bus: &PrivateBus, dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Result<Self> {
        let stderr = dir.join("bridge.stderr");
        let listen = format!("127.0.0.1:{}", chessclock_tests::bridge::free_port()?);
        let mut cmd = Command::new(workspace_bin("chessclock-bridge")?);
        cmd.args(["--address", bus.address(), "--listen", &listen])
            .args(["--config"])
            .arg(dir.join("none.toml"))
            .args(args)
            .env_remove("CHESSCLOCK_BRIDGE_LOG")
            .env_remove("RUST_LOG")
            .env_remove("JOURNAL_STREAM")
            .stdin(Stdio::null())
            .stderr(std::fs::File::create(&stderr)?);
        if !dir.join("none.toml").exists() {
            std::fs::write(dir.join("none.toml"), "")?;
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn()?;
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if get_property(bus, None, BRIDGE, "LogLevel")?.is_ok() {
                return Ok(LoggingBridge { child, stderr });
            }
            if let Some(status) = child.try_wait()? {
                bail!("the bridge exited early ({status}): {}", read(&stderr));
            }
            if Instant::now() > deadline {
                bail!("the bridge did not own {BRIDGE}: {}", read(&stderr));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn log(&self) -> String {
        read(&self.stderr)
    }
}

impl Drop for LoggingBridge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_bridge_serves_log_control_under_its_bus_name_and_logs_at_the_level_set() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-log")?;
    let bridge = LoggingBridge::spawn(&bus, dir.path(), &[("CHESSCLOCK_BRIDGE_LOG", "warn")], &[])?;
    let get = |name| get_property(&bus, None, BRIDGE, name);
    assert_eq!(get("LogLevel")?, Ok("warning".to_owned()));
    assert_eq!(get("LogTarget")?, Ok("console".to_owned()));
    assert_eq!(get("SyslogIdentifier")?, Ok("chessclock-bridge".to_owned()));
    // At warning level the start (logged at info) leaves no line.
    assert!(!bridge.log().contains("listening on"), "{}", bridge.log());

    // systemctl service-log-level sends this; the change itself is logged at info.
    assert_eq!(set_property(&bus, None, BRIDGE, "LogLevel", "info")?, None);
    assert_eq!(get("LogLevel")?, Ok("info".to_owned()));
    let deadline = Instant::now() + Duration::from_secs(5);
    while !bridge.log().contains("log level set to info") {
        assert!(Instant::now() < deadline, "{}", bridge.log());
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        set_property(&bus, None, BRIDGE, "LogLevel", "debgu")?.as_deref(),
        Some("org.freedesktop.DBus.Error.InvalidArgs")
    );
    assert_eq!(
        set_property(&bus, None, BRIDGE, "LogTarget", "journal")?.as_deref(),
        Some("org.freedesktop.DBus.Error.NotSupported")
    );
    assert_eq!(get("LogLevel")?, Ok("info".to_owned()), "unchanged");
    // stderr is a file here, not a terminal: no colour codes.
    assert!(!bridge.log().contains('\u{1b}'), "{:?}", bridge.log());
    drop(bridge);

    // The flag wins over the variable, which wins over the settings file.
    std::fs::write(dir.path().join("none.toml"), "log = \"err\"\n")?;
    let env = [("CHESSCLOCK_BRIDGE_LOG", "warn")];
    let bridge = LoggingBridge::spawn(&bus, dir.path(), &env, &["--log-level", "debug"])?;
    assert_eq!(get("LogLevel")?, Ok("debug".to_owned()));
    drop(bridge);
    let bridge = LoggingBridge::spawn(&bus, dir.path(), &[], &[])?;
    assert_eq!(get("LogLevel")?, Ok("err".to_owned()), "from the file");
    drop(bridge);
    Ok(())
}

#[test]
fn an_invalid_bridge_log_filter_stops_the_start_and_says_where_it_came_from() -> Result<()> {
    let dir = TempDir::new("bridge-log-bad")?;
    let file = dir.path().join("bridge.toml");
    std::fs::write(&file, "# the level\nlog = \"loud\"\n")?;
    let cases: [Case; 3] = [
        (&[], &[], "log ("),
        (
            &[("CHESSCLOCK_BRIDGE_LOG", "debgu")],
            &[],
            "CHESSCLOCK_BRIDGE_LOG: \"debgu\"",
        ),
        (&[], &["--log-level", "info,"], "--log-level: "),
    ];
    for (env, args, want) in cases {
        let mut cmd = Command::new(workspace_bin("chessclock-bridge")?);
        cmd.env_remove("CHESSCLOCK_BRIDGE_LOG")
            .env_remove("RUST_LOG")
            .args(["--address", "unix:path=/nonexistent/bus", "--config"])
            .arg(&file)
            .args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output()?;
        assert_eq!(
            out.status.code(),
            Some(2),
            "{env:?} {args:?}: {}",
            text(&out)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with(&format!("chessclock-bridge: {want}")),
            "{env:?} {args:?}: {err}"
        );
        assert!(err.contains("use a level"), "says how to fix it: {err}");
    }
    let out = Command::new(workspace_bin("chessclock-bridge")?)
        .env_remove("CHESSCLOCK_BRIDGE_LOG")
        .env_remove("RUST_LOG")
        .arg("--config")
        .arg(&file)
        .output()?;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{}, line 2)", file.display())),
        "names the file and line: {err}"
    );
    Ok(())
}

/// What `program` writes to a terminal (through script(1)) in its first 3 seconds, with
/// `no_color` as NO_COLOR if given.
fn on_terminal(program: &str, args: &str, no_color: Option<&str>) -> Result<String> {
    let exe = workspace_bin(program)?;
    let mut cmd = Command::new("script");
    cmd.args(["-qec"])
        .arg(format!("timeout 3 {} {args}", exe.display()))
        .arg("/dev/null")
        .env_remove("NO_COLOR")
        .env_remove("JOURNAL_STREAM")
        .env_remove("CHESSCLOCKD_LOG")
        .env_remove("CHESSCLOCK_BRIDGE_LOG")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null());
    if let Some(v) = no_color {
        cmd.env("NO_COLOR", v);
    }
    let out = cmd.output().context("run script(1) (package bsdutils)")?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn both_programs_colour_a_terminal_unless_no_color_is_set() -> Result<()> {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIP: script(1) is not installed (package bsdutils)");
        return Ok(());
    }
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("log-colour")?;
    let config = write_config(dir.path(), &[], "")?;
    let empty = dir.path().join("bridge.toml");
    std::fs::write(&empty, "")?;
    let listen = format!("127.0.0.1:{}", chessclock_tests::bridge::free_port()?);
    let runs = [
        (
            "chessclockd",
            format!("--address {} --config {}", bus.address(), config.display()),
            "serving org.chessclockd.ChessClock1",
        ),
        (
            "chessclock-bridge",
            format!(
                "--address {} --listen {listen} --config {}",
                bus.address(),
                empty.display()
            ),
            "listening on",
        ),
    ];
    for (program, args, line) in runs {
        let coloured = on_terminal(program, &args, None)?;
        assert!(coloured.contains(line), "{program}: {coloured:?}");
        assert!(
            coloured.contains("\u{1b}["),
            "{program} colours a terminal: {coloured:?}"
        );
        // An empty NO_COLOR is no request (no-color.org).
        let empty = on_terminal(program, &args, Some(""))?;
        assert!(empty.contains("\u{1b}["), "{program}: {empty:?}");
        let plain = on_terminal(program, &args, Some("1"))?;
        assert!(plain.contains(line), "{program}: {plain:?}");
        assert!(
            !plain.contains('\u{1b}'),
            "{program} with NO_COLOR: {plain:?}"
        );
    }
    Ok(())
}

#[test]
fn only_root_and_operators_may_set_the_bridge_log_level() -> Result<()> {
    let Some(PolicyUsers { reader, operator }) = policy_users()? else {
        return Ok(());
    };
    // The shipped policy files, the bridge's among them: root may own its name.
    let bus = PrivateBus::start_system_like(&repo_path("dbus"))?;
    let dir = TempDir::new("bridge-log-policy")?;
    let _bridge =
        LoggingBridge::spawn(&bus, dir.path(), &[("CHESSCLOCK_BRIDGE_LOG", "info")], &[])?;

    let as_reader = get_property(&bus, Some(&reader), BRIDGE, "LogLevel")?;
    assert_eq!(as_reader, Ok("info".to_owned()), "a reader may read");
    assert_eq!(
        set_property(&bus, Some(&reader), BRIDGE, "LogLevel", "debug")?.as_deref(),
        Some("org.freedesktop.DBus.Error.AccessDenied")
    );
    assert_eq!(
        get_property(&bus, None, BRIDGE, "LogLevel")?,
        Ok("info".to_owned())
    );
    assert_eq!(
        set_property(&bus, Some(&operator), BRIDGE, "LogLevel", "debug")?,
        None,
        "an operator may"
    );
    assert_eq!(
        set_property(&bus, None, BRIDGE, "LogLevel", "warning")?,
        None,
        "root may"
    );
    assert_eq!(
        get_property(&bus, None, BRIDGE, "LogLevel")?,
        Ok("warning".to_owned())
    );
    Ok(())
}
