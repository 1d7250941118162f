//! A test rig around the real binaries: `chessclock-emu` serving an emulated board on a pty,
//! `chessclockd` on a private bus, and `chessclockctl` and `--check-config` runs.
//!
//! Owns process plumbing (spawning, JSON-line collection, waiting with deadlines); it must
//! not interpret the product's behaviour beyond finding JSON fields.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;

/// How long a test waits for something that should happen at once.
pub const WAIT: Duration = Duration::from_secs(10);

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

/// Items a reader thread sends (JSON events, output lines), kept in arrival order so that
/// waits can start from a mark.
#[derive(Debug)]
pub struct Collector<T> {
    items: mpsc::Receiver<T>,
    seen: Vec<T>,
    /// Names the source in failure messages.
    label: String,
}

impl<T: Clone + std::fmt::Debug> Collector<T> {
    /// Collect what arrives on `items`; `label` names the source in failure messages.
    pub fn new(items: mpsc::Receiver<T>, label: &str) -> Collector<T> {
        Collector {
            items,
            seen: Vec::new(),
            label: label.to_owned(),
        }
    }

    fn pump(&mut self, deadline: Instant) -> bool {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.items.recv_timeout(left.max(Duration::from_millis(1))) {
            Ok(v) => {
                self.seen.push(v);
                true
            }
            Err(_) => false,
        }
    }

    /// Wait for the first item after index `from` that matches `pred`; returns its index
    /// and value.
    pub fn wait_for(
        &mut self,
        from: usize,
        timeout: Duration,
        what: &str,
        pred: impl Fn(&T) -> bool,
    ) -> Result<(usize, T)> {
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
                    "{}: timed out waiting for {what}; its last items: {:?}",
                    self.label,
                    self.seen.iter().rev().take(8).collect::<Vec<_>>()
                );
            }
        }
    }

    /// What has been waited through so far (without taking in what is still queued).
    pub fn recorded(&self) -> &[T] {
        &self.seen
    }

    /// Everything received so far.
    pub fn seen(&mut self) -> &[T] {
        while let Ok(v) = self.items.try_recv() {
            self.seen.push(v);
        }
        &self.seen
    }

    /// Index of the next item (for `wait_for(from, ..)`).
    pub fn mark(&mut self) -> usize {
        self.seen().len()
    }
}

impl Collector<String> {
    /// The lines of `from`, read on a thread of their own; each also printed to stderr after
    /// `echo` when there is one (a child's log, shown with a failing test).
    pub fn lines(
        from: impl Read + Send + 'static,
        label: &str,
        echo: Option<&'static str>,
    ) -> Collector<String> {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(from).lines() {
                let Ok(line) = line else { return };
                if let Some(prefix) = echo {
                    eprintln!("{prefix}{line}");
                }
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Collector::new(rx, label)
    }
}

/// A running `chessclock-emu --json`.
#[derive(Debug)]
pub struct Emu {
    child: Child,
    stdin: ChildStdin,
    events: Collector<Value>,
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
            events: Collector::new(rx, "chessclock-emu events"),
            path,
        })
    }

    /// Send one stdin command (`lever`, `power on`, `unplug`, ...).
    pub fn send(&mut self, line: &str) -> Result<()> {
        writeln!(self.stdin, "{line}")?;
        self.stdin.flush()?;
        Ok(())
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
        self.events.wait_for(from, timeout, what, pred)
    }

    /// Everything seen so far.
    pub fn seen(&mut self) -> &[Value] {
        self.events.seen()
    }

    /// Index of the next event (for `wait_for(from, ..)`).
    pub fn mark(&mut self) -> usize {
        self.events.mark()
    }

    /// Wait until the emulator has shown its pieces as `ranks` (rank 8 first, the ranks
    /// apart). Its view follows the board a moment later and its piece commands are checked
    /// against it; for what a running daemon has read, wait for the daemon's status instead.
    pub fn wait_pieces(&mut self, ranks: &str) -> Result<()> {
        let want = ranks.replace(' ', "");
        self.wait_for(0, WAIT, &format!("the pieces {ranks}"), |v| {
            v["pieces"].as_str() == Some(want.as_str())
        })?;
        Ok(())
    }

    /// Pull the board's cable and wait until the emulator says it is out.
    pub fn unplug(&mut self) -> Result<()> {
        self.plug("unplug", "unplugged").map(drop)
    }

    /// Plug the board in again and wait until the emulator says where (its `replugged`
    /// event).
    pub fn replug(&mut self) -> Result<Value> {
        self.plug("replug", "replugged")
    }

    /// `line`, then the emulator's `event` saying its board task applied it (the emulator
    /// reports what it sees after a minute at the latest).
    fn plug(&mut self, line: &str, event: &str) -> Result<Value> {
        let mark = self.mark();
        self.send(line)?;
        let (_, v) = self.wait_for(mark, PLUG_WAIT, event, |v| v["event"] == event)?;
        Ok(v)
    }
}

/// How long a test waits for the emulator to say an unplug or replug took: beyond the minute
/// the emulator itself waits for its board task before it says where the board is.
pub const PLUG_WAIT: Duration = Duration::from_secs(65);

impl Drop for Emu {
    fn drop(&mut self) {
        let _ = self.send("quit");
        stop_child(&mut self.child);
    }
}

/// Is this event a set-and-run the clock received?
pub fn is_set_and_run(v: &Value) -> bool {
    v.get("event").and_then(Value::as_str) == Some("host_command")
        && v.pointer("/command/sub").and_then(Value::as_str) == Some("set_and_run")
}

/// A running program (`chessclockctl` watching or monitoring) whose stdout is read line by
/// line; stopped on drop.
#[derive(Debug)]
pub struct Spawned {
    child: Child,
    lines: Collector<String>,
}

impl Spawned {
    /// `chessclockctl --address ADDRESS ARGS...`.
    pub fn ctl(address: &str, args: &[&str]) -> Result<Spawned> {
        let mut cmd = Command::new(workspace_bin("chessclockctl")?);
        cmd.args(["--address", address])
            .args(args)
            .stderr(Stdio::inherit());
        Spawned::start(cmd, &format!("chessclockctl {args:?}"))
    }

    /// Run `shell_command` with its stdout on a pseudo-terminal (`script` from util-linux);
    /// `None` when `script` is not installed.
    pub fn on_terminal(shell_command: &str) -> Result<Option<Spawned>> {
        if Command::new("script").arg("--version").output().is_err() {
            return Ok(None);
        }
        let mut cmd = Command::new("script");
        // Its stderr only says "Session terminated" when it is stopped.
        cmd.args(["-q", "-e", "-f", "-c", shell_command, "/dev/null"])
            .stderr(Stdio::null());
        Spawned::start(cmd, shell_command).map(Some)
    }

    fn start(mut cmd: Command, what: &str) -> Result<Spawned> {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start {what}"))?;
        let mut out = child.stdout.take().context("stdout")?;
        let (tx, rx) = mpsc::channel();
        // Raw chunks rather than lines: a terminal frame does not end in a newline.
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            let mut pending = Vec::new();
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                pending.extend_from_slice(&buf[..n]);
                while let Some(nl) = pending.iter().position(|&b| b == b'\n') {
                    let line: Vec<u8> = pending.drain(..=nl).collect();
                    let line = String::from_utf8_lossy(&line).trim_end().to_owned();
                    if tx.send(line).is_err() {
                        return;
                    }
                }
            }
        });
        Ok(Spawned {
            child,
            lines: Collector::new(rx, what),
        })
    }

    /// The lines waited through so far.
    pub fn seen(&self) -> &[String] {
        self.lines.recorded()
    }

    /// Wait (up to `timeout`) for a line from index `from` on that `pred` accepts.
    pub fn wait_line(
        &mut self,
        from: usize,
        timeout: Duration,
        what: &str,
        pred: impl Fn(&str) -> bool,
    ) -> Result<(usize, String)> {
        self.lines.wait_for(from, timeout, what, |l| pred(l))
    }

    /// A JSON line from `from` on that `pred` accepts (waiting up to [`WAIT`]).
    pub fn wait_json(
        &mut self,
        from: usize,
        what: &str,
        pred: impl Fn(&Value) -> bool,
    ) -> Result<(usize, Value)> {
        let (i, line) = self.wait_line(from, WAIT, what, |l| {
            serde_json::from_str::<Value>(l).is_ok_and(|v| pred(&v))
        })?;
        Ok((i, serde_json::from_str(&line)?))
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        // SIGTERM first: `script` then ends the program on its terminal too.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        stop_child(&mut self.child);
    }
}

/// Wait up to 2 s for `child` to exit, then kill it.
/// Send `child` the signal `name` (`HUP`, `STOP`, `CONT`, ...) with kill(1), without waiting
/// for anything.
pub(crate) fn signal(child: &Child, name: &str) -> Result<()> {
    let pid = child.id().to_string();
    let status = Command::new("kill")
        .args([&format!("-{name}"), &pid])
        .status()?;
    if !status.success() {
        bail!("kill -{name} {pid} failed: {status}");
    }
    Ok(())
}

fn stop_child(child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// `log` opened for appending.
fn append(log: &Path) -> Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .with_context(|| format!("cannot open {}", log.display()))
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
        Daemon::spawn_to(address, config, env, Stdio::inherit(), None)
    }

    /// [`Daemon::spawn`] with the daemon's log (stderr) appended to `log`, for tests that
    /// check what it says.
    pub fn spawn_logged(address: &str, config: &Path, log: &Path) -> Result<Daemon> {
        Daemon::spawn_to(address, config, &[], Stdio::from(append(log)?), None)
    }

    /// [`Daemon::spawn_logged`] running as `user` (with its groups; needs root): a daemon
    /// whose opens are refused as the package's user's would be. `config`, the state
    /// directory and the bus must be reachable by that user.
    pub fn spawn_logged_as(
        user: &crate::TestUser,
        address: &str,
        config: &Path,
        log: &Path,
    ) -> Result<Daemon> {
        Daemon::spawn_to(address, config, &[], Stdio::from(append(log)?), Some(user))
    }

    fn spawn_to(
        address: &str,
        config: &Path,
        env: &[(&str, &str)],
        stderr: Stdio,
        user: Option<&crate::TestUser>,
    ) -> Result<Daemon> {
        let exe = workspace_bin("chessclockd")?;
        let mut cmd = match user {
            Some(user) => user.command(&exe.to_string_lossy()),
            None => Command::new(&exe),
        };
        cmd.args(["--address", address, "--config"])
            .arg(config)
            .env(
                "CHESSCLOCKD_LOG",
                "chessclockd=debug,chessclock_device=debug",
            )
            .stdin(Stdio::null())
            .stderr(stderr);
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
        signal(&self.child, name)
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

/// `program --check-config --config FILE`, without the variables that would override it
/// (the log's, systemd's credentials).
pub fn check_config(program: &str, file: &Path) -> Output {
    let mut cmd = Command::new(workspace_bin(program).expect("built binary"));
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if k.starts_with("CHESSCLOCKD_")
            || k.starts_with("CHESSCLOCK_BRIDGE_")
            || k == "RUST_LOG"
            || k == "CREDENTIALS_DIRECTORY"
        {
            cmd.env_remove(&*k);
        }
    }
    cmd.arg("--check-config")
        .arg("--config")
        .arg(file)
        .output()
        .expect("run --check-config")
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
