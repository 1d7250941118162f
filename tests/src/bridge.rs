//! Harness for the bridge's end-to-end tests: the real `chessclock-bridge` binary on a free
//! port, an HTTP client, a Server-Sent Events reader, and the rule for external programs
//! (Chromium, mosquitto): missing in CI is a failure, elsewhere a skip with a message.
//!
//! Owns process and HTTP plumbing only; what the bridge must answer is the tests' business.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::rig::{Collector, WAIT, workspace_bin};

/// A free TCP port on 127.0.0.1 (bound and released).
pub fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Where `program` is (on `PATH`, or in /usr/sbin and /sbin, where Debian puts daemons such
/// as mosquitto). In CI (`CI=true`) a missing program is an error, so that a test never
/// passes by skipping there; elsewhere `None` (skip) with a message.
pub fn have(program: &str, package: &str) -> Result<Option<PathBuf>> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|d| d.join(program))
        .find(|p| p.is_file());
    if found.is_some() {
        return Ok(found);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        bail!("{program} is not installed (Debian package {package}; scripts/test.sh installs it)");
    }
    eprintln!(
        "SKIPPED: {program} is not installed (apt-get install {package}); not in CI, so skipping"
    );
    Ok(None)
}

/// A running `chessclock-bridge`, stopped on drop; its log lines are collected.
#[derive(Debug)]
pub struct Bridge {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    log: Collector<String>,
}

impl Bridge {
    /// Start the bridge on the bus at `address` with `args`, and wait until it answers.
    pub fn spawn(address: &str, args: &[&str]) -> Result<Bridge> {
        Bridge::spawn_env(address, args, &[])
    }

    /// [`Bridge::spawn`] with the environment variables `env` set too (they win over the
    /// harness's own, such as `CHESSCLOCK_BRIDGE_LOG`).
    pub fn spawn_env(address: &str, args: &[&str], env: &[(&str, &str)]) -> Result<Bridge> {
        let port = free_port()?;
        let listen = format!("127.0.0.1:{port}");
        let mut child = Command::new(workspace_bin("chessclock-bridge")?)
            .args(["--address", address, "--listen", &listen])
            .args(args)
            .env("CHESSCLOCK_BRIDGE_LOG", "chessclock_bridge=debug")
            .env("NO_COLOR", "1")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot start chessclock-bridge")?;
        let err = child.stderr.take().context("stderr")?;
        let mut b = Bridge {
            child,
            base: format!("http://{listen}"),
            log: Collector::lines(err, "chessclock-bridge log", Some("bridge: ")),
        };
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Ok((200, _)) = b.get("/api/v1/clocks") {
                return Ok(b);
            }
            if let Ok(Some(status)) = b.child.try_wait() {
                bail!("chessclock-bridge exited early: {status}");
            }
            if Instant::now() > deadline {
                bail!("chessclock-bridge did not answer on {}", b.base);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// GET `path`: status and body text.
    pub fn get(&self, path: &str) -> Result<(u16, String)> {
        let resp = reqwest::blocking::Client::new()
            .get(format!("{}{path}", self.base))
            .timeout(WAIT)
            .send()?;
        let status = resp.status().as_u16();
        Ok((status, resp.text()?))
    }

    /// GET `path` as JSON, which must answer 200.
    pub fn get_json(&self, path: &str) -> Result<Value> {
        let (status, body) = self.get(path)?;
        if status != 200 {
            bail!("GET {path}: {status} {body}");
        }
        Ok(serde_json::from_str(&body)?)
    }

    /// Wait for a log line from index `from` on containing `needle`.
    pub fn wait_log(&mut self, from: usize, needle: &str) -> Result<usize> {
        Ok(self
            .log
            .wait_for(from, WAIT, needle, |l| l.contains(needle))?
            .0)
    }

    /// Every log line so far.
    pub fn log_lines(&mut self) -> &[String] {
        self.log.seen()
    }

    /// Index of the next log line.
    pub fn log_mark(&mut self) -> usize {
        self.log.mark()
    }

    /// Send a signal by name (`STOP`, `CONT`, ...) without waiting for anything.
    pub fn signal(&self, name: &str) -> Result<()> {
        crate::rig::signal(&self.child, name)
    }

    /// Kill the bridge at once (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One Server-Sent Event.
#[derive(Debug, Clone)]
pub struct SseEvent {
    /// `id:` field.
    pub id: u64,
    /// `event:` field.
    pub kind: String,
    /// `data:` as JSON.
    pub data: Value,
}

/// A reader of `/api/v1/events`, events collected in arrival order.
#[derive(Debug)]
pub struct Sse {
    events: Collector<SseEvent>,
}

impl Sse {
    /// Open the stream, resuming after `last_id` if given.
    pub fn open(bridge: &Bridge, last_id: Option<u64>) -> Result<Sse> {
        let mut req = reqwest::blocking::Client::builder()
            .timeout(None)
            .build()?
            .get(format!("{}/api/v1/events", bridge.base))
            .header("accept", "text/event-stream");
        if let Some(id) = last_id {
            req = req.header("last-event-id", id.to_string());
        }
        let resp = req.send()?;
        if resp.status().as_u16() != 200 {
            bail!("GET /api/v1/events: {}", resp.status());
        }
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let (mut id, mut kind, mut data) = (0u64, String::new(), String::new());
            for line in BufReader::new(resp).lines() {
                let Ok(line) = line else { return };
                if line.is_empty() {
                    // The stream's heartbeat (every 5 s, not numbered: it keeps the last id)
                    // is for the pages' judgement of stale data, not an event of the daemon.
                    if kind == "heartbeat" {
                        kind.clear();
                        data.clear();
                        continue;
                    }
                    if !data.is_empty() {
                        let ev = SseEvent {
                            id,
                            kind: std::mem::take(&mut kind),
                            data: serde_json::from_str(&data).unwrap_or(Value::Null),
                        };
                        data.clear();
                        if tx.send(ev).is_err() {
                            return;
                        }
                    }
                    continue;
                }
                if let Some(v) = line.strip_prefix("id:") {
                    id = v.trim().parse().unwrap_or(0);
                } else if let Some(v) = line.strip_prefix("event:") {
                    kind = v.trim().to_owned();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push_str(v.strip_prefix(' ').unwrap_or(v));
                }
            }
        });
        Ok(Sse {
            events: Collector::new(rx, "the bridge's event stream"),
        })
    }

    /// Wait for the first event from index `from` on that `pred` accepts.
    pub fn wait(
        &mut self,
        from: usize,
        what: &str,
        pred: impl Fn(&SseEvent) -> bool,
    ) -> Result<(usize, SseEvent)> {
        self.events.wait_for(from, WAIT, what, pred)
    }

    /// Index of the next event.
    pub fn mark(&mut self) -> usize {
        self.events.mark()
    }

    /// The events received so far.
    pub fn seen(&mut self) -> &[SseEvent] {
        self.events.seen()
    }
}

/// A clock's JSON without the fields that change between two reads of a game that is not
/// running (engine time and the instant it holds for).
pub fn stable(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(stable).collect()),
        Value::Object(o) => {
            let mut o = o.clone();
            o.remove("t_ms");
            o.remove("as_of_us");
            Value::Object(o)
        }
        other => other.clone(),
    }
}
