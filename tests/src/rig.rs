//! A test rig around the real binaries: `chessclock-emu` serving an emulated board on a pty,
//! `chessclockd` on a private bus, and `chessclockctl` runs.
//!
//! Owns process plumbing (spawning, JSON-line collection, waiting with deadlines); it must
//! not interpret the product's behaviour beyond finding JSON fields.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;

/// Path of a workspace binary next to the running test executable (`target/<profile>/NAME`).
pub fn workspace_bin(name: &str) -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| anyhow!("cannot find the target directory from {}", exe.display()))?;
    let path = dir.join(name);
    if !path.exists() {
        bail!(
            "{} is not built; run `cargo build --workspace --bins` before the tests",
            path.display()
        );
    }
    Ok(path)
}

/// A running `chessclock-emu --json`.
#[derive(Debug)]
pub struct Emu {
    child: Child,
    stdin: ChildStdin,
    events: mpsc::Receiver<Value>,
    seen: Vec<Value>,
    /// The path a daemon should open.
    pub path: String,
}

impl Emu {
    /// Start the emulator binary `exe` with extra `args` (`--json` is added).
    pub fn spawn(exe: &Path, args: &[&str]) -> Result<Emu> {
        let mut child = Command::new(exe)
            .arg("--json")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("cannot start {}", exe.display()))?;
        let stdin = child.stdin.take().context("emu stdin")?;
        let stdout = child.stdout.take().context("emu stdout")?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Ok(v) = serde_json::from_str::<Value>(&line)
                    && tx.send(v).is_err()
                {
                    break;
                }
            }
        });
        let first = rx
            .recv_timeout(Duration::from_secs(10))
            .context("chessclock-emu printed no path")?;
        let path = first
            .get("path")
            .and_then(Value::as_str)
            .ok_or_else(|| anyhow!("first emu line has no path: {first}"))?
            .to_owned();
        Ok(Emu {
            child,
            stdin,
            events: rx,
            seen: Vec::new(),
            path,
        })
    }

    /// Send one stdin command (`lever`, `power on`, `unplug`, ...).
    pub fn send(&mut self, line: &str) -> Result<()> {
        writeln!(self.stdin, "{line}")?;
        self.stdin.flush()?;
        Ok(())
    }

    fn pump(&mut self, deadline: Instant) -> bool {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.events.recv_timeout(left.max(Duration::from_millis(1))) {
            Ok(v) => {
                self.seen.push(v);
                true
            }
            Err(_) => false,
        }
    }

    /// Wait for the first event after index `from` that matches `pred`; returns its index
    /// and value.
    pub fn wait_for(
        &mut self,
        from: usize,
        timeout: Duration,
        what: &str,
        pred: impl Fn(&Value) -> bool,
    ) -> Result<(usize, Value)> {
        let deadline = Instant::now() + timeout;
        let mut i = from;
        loop {
            while i < self.seen.len() {
                if pred(&self.seen[i]) {
                    return Ok((i, self.seen[i].clone()));
                }
                i += 1;
            }
            if Instant::now() >= deadline || !self.pump(deadline) && Instant::now() >= deadline {
                bail!(
                    "timed out waiting for {what}; last emu events: {:?}",
                    self.seen.iter().rev().take(8).collect::<Vec<_>>()
                );
            }
        }
    }

    /// Everything seen so far.
    pub fn seen(&mut self) -> &[Value] {
        while let Ok(v) = self.events.try_recv() {
            self.seen.push(v);
        }
        &self.seen
    }

    /// Index of the next event (for `wait_for(from, ..)`).
    pub fn mark(&mut self) -> usize {
        self.seen().len()
    }
}

impl Drop for Emu {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Is this event a set-and-run the clock received?
pub fn is_set_and_run(v: &Value) -> bool {
    v.get("event").and_then(Value::as_str) == Some("host_command")
        && v.pointer("/command/sub").and_then(Value::as_str) == Some("set_and_run")
}

/// A running `chessclockd`, killed on drop.
#[derive(Debug)]
pub struct Daemon {
    child: Child,
    /// The bus address it serves on.
    pub address: String,
    ctl: PathBuf,
}

impl Daemon {
    /// Start `chessclockd --address ADDR --config CONFIG` with `env` and wait until the
    /// manager answers.
    pub fn spawn(address: &str, config: &Path, env: &[(&str, &str)]) -> Result<Daemon> {
        let exe = workspace_bin("chessclockd")?;
        let mut cmd = Command::new(&exe);
        cmd.args(["--address", address, "--config"])
            .arg(config)
            .env("CHESSCLOCKD_LOG", "chessclockd=debug")
            .stdin(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = cmd
            .spawn()
            .with_context(|| format!("cannot start {}", exe.display()))?;
        let mut d = Daemon {
            child,
            address: address.to_owned(),
            ctl: workspace_bin("chessclockctl")?,
        };
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if d.ctl(&["list", "--json"]).status.success() {
                return Ok(d);
            }
            if let Ok(Some(status)) = d.child.try_wait() {
                bail!("chessclockd exited early: {status}");
            }
            if Instant::now() > deadline {
                bail!("chessclockd did not come up on {address}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Run `chessclockctl --address ADDR ARGS...`.
    pub fn ctl(&self, args: &[&str]) -> Output {
        Command::new(&self.ctl)
            .args(["--address", &self.address])
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run chessclockctl: {e}"))
    }

    /// `chessclockctl ... --json` parsed; fails with its stderr otherwise.
    pub fn ctl_json(&self, args: &[&str]) -> Result<Value> {
        let out = self.ctl(args);
        if !out.status.success() {
            bail!(
                "chessclockctl {args:?} failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(serde_json::from_slice(&out.stdout)?)
    }

    /// Poll `status CLOCK --json` until `pred` holds.
    pub fn wait_status(
        &self,
        clock: &str,
        timeout: Duration,
        what: &str,
        pred: impl Fn(&Value) -> bool,
    ) -> Result<Value> {
        let deadline = Instant::now() + timeout;
        let mut last = Value::Null;
        loop {
            if let Ok(v) = self.ctl_json(&["status", clock, "--json"]) {
                if pred(&v) {
                    return Ok(v);
                }
                last = v;
            }
            if Instant::now() > deadline {
                bail!("timed out waiting for {what}; last status: {last}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stop with SIGTERM and wait; returns whether it exited cleanly.
    pub fn terminate(&mut self) -> Result<bool> {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status()?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait()? {
                return Ok(status.success());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        bail!("chessclockd did not stop within 10 s of SIGTERM")
    }

    /// Send a signal by name (`HUP`, `USR1`, ...) without waiting for anything.
    pub fn signal(&self, name: &str) -> Result<()> {
        let pid = self.child.id().to_string();
        let status = Command::new("kill")
            .args([&format!("-{name}"), &pid])
            .status()?;
        if !status.success() {
            bail!("kill -{name} {pid} failed: {status}");
        }
        Ok(())
    }

    /// Kill with SIGKILL (a crash) and wait.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Write a config file with a state dir and one `[[clock]]` per port.
pub fn write_config(dir: &Path, ports: &[(&str, &str)], extra: &str) -> Result<PathBuf> {
    let state = dir.join("state");
    let mut text = format!("state_dir = {:?}\n{extra}\n", state.display().to_string());
    for (port, control) in ports {
        text.push_str(&format!(
            "[[clock]]\nport = {port:?}\ntime_control = {control:?}\n"
        ));
    }
    let path = dir.join("chessclockd.toml");
    std::fs::write(&path, text)?;
    Ok(path)
}
