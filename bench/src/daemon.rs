//! The system under test: the real `chessclockd` binary on the private bus, configured with
//! one clock per emulated board, and `chessclockctl status --json` runs against it (the
//! readiness check and the polling load).
//!
//! Owns process plumbing (spawn, wait until every clock is ready, stop) and the timing of
//! status calls; it must not interpret the daemon's state beyond the fields it waits for.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chessclock_tests::TempDir;
use serde_json::Value;

use crate::fidelity::EngineSnap;
use crate::mono_us;
pub use chessclock_api::ClockStatus;
use chessclock_api::DeviceState;

/// A workspace binary next to the running bench (`target/<profile>/NAME`, also from a test
/// executable under `deps/`).
pub fn sibling_bin(name: &str) -> Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot locate the bench executable")?;
    let mut dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir.pop();
    }
    let path = dir.join(name);
    if !path.exists() {
        bail!(
            "{} is not built; run `cargo build --release --workspace --bins` (or pass its path)",
            path.display()
        );
    }
    Ok(path)
}

/// A running `chessclockd`; killed on drop.
#[derive(Debug)]
pub struct Daemon {
    child: Child,
    /// Its process id, for `/proc`.
    pub pid: u32,
}

impl Daemon {
    /// Start `exe --address ADDRESS --config CONFIG`, its log in `log`, with `runtime` as
    /// its `RUNTIME_DIRECTORY` (where systemd's unit puts the live feed: a tmpfs).
    pub fn spawn(
        exe: &Path,
        address: &str,
        config: &Path,
        log: &Path,
        runtime: &Path,
    ) -> Result<Daemon> {
        let log_file = std::fs::File::create(log)
            .with_context(|| format!("cannot create {}", log.display()))?;
        let child = Command::new(exe)
            .args(["--address", address, "--config"])
            .arg(config)
            .env("RUNTIME_DIRECTORY", runtime)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .with_context(|| format!("cannot start {}", exe.display()))?;
        let pid = child.id();
        Ok(Daemon { child, pid })
    }

    /// A runtime directory as the service gets one: on the tmpfs `/dev/shm` where there is
    /// one, else in the system's temp dir.
    pub fn runtime_dir() -> Result<TempDir> {
        TempDir::new_in(Path::new("/dev/shm"), "bench-run")
            .or_else(|_| TempDir::new("bench-run"))
            .context("cannot create a runtime directory")
    }

    /// Has it exited?
    pub fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Stop with SIGTERM (then SIGKILL after 5 s).
    pub fn stop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.pid.to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if self.exited() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `chessclockctl --address ADDRESS` runs.
#[derive(Debug, Clone)]
pub struct Ctl {
    exe: PathBuf,
    address: String,
}

impl Ctl {
    /// Runs of `exe` against `address`.
    pub fn new(exe: PathBuf, address: &str) -> Ctl {
        Ctl {
            exe,
            address: address.to_owned(),
        }
    }

    /// `status --json` of every clock.
    pub fn status_all(&self) -> Result<Vec<ClockStatus>> {
        let out = Command::new(&self.exe)
            .args(["--address", &self.address, "status", "--json"])
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("cannot run {}", self.exe.display()))?;
        if !out.status.success() {
            bail!(
                "chessclockctl status --json failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        // The client's own type (the published clock, the snapshot): one clock is an
        // object, several an array.
        let v: Value = serde_json::from_slice(&out.stdout)
            .context("chessclockctl status --json printed no JSON")?;
        let list = if v.is_array() {
            v
        } else {
            Value::Array(vec![v])
        };
        serde_json::from_value(list).context("chessclockctl status --json is not a clock status")
    }

    /// Wait until `n` clocks are listed and all are ready.
    pub fn wait_ready(
        &self,
        n: usize,
        daemon: &mut Daemon,
        timeout: Duration,
    ) -> Result<Vec<ClockStatus>> {
        let deadline = Instant::now() + timeout;
        let mut last;
        loop {
            match self.status_all() {
                Ok(list)
                    if list.len() == n
                        && list.iter().all(|c| c.device_state == DeviceState::Ready) =>
                {
                    return Ok(list);
                }
                Ok(list) => {
                    let ready = list
                        .iter()
                        .filter(|c| c.device_state == DeviceState::Ready)
                        .count();
                    last = format!("{} clocks listed, {ready} ready", list.len());
                }
                Err(e) => last = format!("{e:#}"),
            }
            if daemon.exited() {
                bail!("chessclockd exited before its clocks were ready ({last})");
            }
            if Instant::now() > deadline {
                bail!("the {n} clocks were not ready within {timeout:?}: {last}");
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// What the status poller measured.
#[derive(Debug, Clone, Default)]
pub struct PollLog {
    /// Wall time of each successful full `status --json`, ms.
    pub latencies_ms: Vec<f64>,
    /// Failed runs.
    pub failures: u64,
    /// Snapshots read, by clock path.
    pub snaps: Vec<(String, EngineSnap)>,
}

/// Run `status --json` back to back on a thread until `stop` is set.
pub fn spawn_poller(ctl: Ctl, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<PollLog> {
    std::thread::spawn(move || {
        let mut log = PollLog::default();
        while !stop.load(Ordering::Relaxed) {
            let t0 = mono_us();
            match ctl.status_all() {
                Ok(list) => {
                    log.latencies_ms.push((mono_us() - t0) as f64 / 1000.0);
                    for c in list {
                        let snap = EngineSnap::of_status(&c);
                        log.snaps.push((c.clock, snap));
                    }
                }
                Err(_) => {
                    log.failures += 1;
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        }
        log
    })
}
