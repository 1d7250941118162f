//! The README's first command, end to end: `chessclockd --demo` with no session bus starts
//! its own bus, drives an emulated DGT 3000 under the double-flag demo control (auto-played),
//! is reachable with the real `chessclockctl` at the address it prints, and stops cleanly on
//! SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chessclock_tests::rig::workspace_bin;
use serde_json::Value;

#[test]
fn the_demo_plays_a_double_flag_game_on_its_own_bus() -> Result<()> {
    let mut demo = Command::new(workspace_bin("chessclockd")?)
        .arg("--demo")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env("XDG_RUNTIME_DIR", "/nonexistent")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("start chessclockd --demo")?;
    let stdout = demo.stdout.take().context("stdout")?;
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    let address = loop {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .with_context(|| format!("the demo printed no address; it printed {seen:?}"))?;
        if let Some(rest) = line.split("--address '").nth(1) {
            break rest.split('\'').next().unwrap_or_default().to_owned();
        }
        seen.push(line);
    };
    assert!(
        seen.iter().any(|l| l.contains("df/")),
        "the demo names its double-flag control: {seen:?}"
    );
    let ctl = workspace_bin("chessclockctl")?;
    let status = |args: &[&str]| -> Result<Value> {
        let out = Command::new(&ctl)
            .args(["--address", &address])
            .args(args)
            .output()?;
        if !out.status.success() {
            bail!("{}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(serde_json::from_slice(&out.stdout)?)
    };
    // The emulated board presses its own lever: the game moves without anyone.
    let deadline = Instant::now() + Duration::from_secs(30);
    let st = loop {
        let st = status(&["status", "0", "--json"])?;
        if st.pointer("/moves/white").and_then(Value::as_u64) >= Some(1) {
            break st;
        }
        if Instant::now() > deadline {
            bail!("no move was auto-played: {st}");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(
        st["time_control"].as_str().map(|c| c.contains("df/")),
        Some(true),
        "{st}"
    );
    assert_eq!(st["model"], "DGT 3000", "{st}");
    // The live display line follows the emulated clock.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .context("no display line")?;
        if line.contains("DGT 3000 shows") && line.contains("engine:") {
            break;
        }
    }
    Command::new("kill")
        .args(["-TERM", &demo.id().to_string()])
        .status()?;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(exit) = demo.try_wait()? {
            assert!(
                exit.success(),
                "the demo must stop cleanly on SIGTERM: {exit}"
            );
            return Ok(());
        }
        if Instant::now() > deadline {
            let _ = demo.kill();
            bail!("the demo did not stop within 10 s of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
