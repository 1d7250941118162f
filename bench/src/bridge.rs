//! The bridge's figures (issue 12 item 6): from a daemon `Pressed` signal to the matching
//! Server-Sent Event at each of many SSE clients and to the MQTT event message, with N
//! virtual clocks under random presses; plus the bridge's CPU and memory.
//!
//! Owns the run (private bus with the real policy, the real chessclockd, chessclock-bridge
//! and mosquitto) and its measurements; it asserts nothing about the figures.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use chessclock_tests::rig::write_config;
use chessclock_tests::{PrivateBus, TempDir};
use futures_util::StreamExt;
use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

use crate::daemon::{Ctl, Daemon};
use crate::mono_us;
use crate::procstat::{self, Memory};
use crate::stats::{Summary, summarize};

/// What to run.
#[derive(Debug, Clone)]
pub struct BridgeRunConfig {
    /// Virtual clocks.
    pub clocks: usize,
    /// SSE clients.
    pub sse_clients: usize,
    /// Measured window.
    pub duration: Duration,
    /// Seed of the think times.
    pub seed: u64,
    /// chessclockd, chessclockctl, chessclock-bridge.
    pub daemon: PathBuf,
    /// The client binary.
    pub ctl: PathBuf,
    /// The bridge binary.
    pub bridge: PathBuf,
    /// The D-Bus policy directory.
    pub policy_dir: PathBuf,
}

/// The figures of one run.
#[derive(Debug, Clone, Serialize)]
pub struct BridgeReport {
    /// Virtual clocks.
    pub clocks: usize,
    /// SSE clients.
    pub sse_clients: usize,
    /// Seconds measured.
    pub seconds: f64,
    /// `Pressed` signals seen by the bench in the window.
    pub presses: usize,
    /// Signal → SSE event, ms, over every client and press.
    pub sse_ms: Summary,
    /// SSE events expected (presses × clients) that never came.
    pub sse_missing: usize,
    /// Signal → MQTT event, ms; `None` without mosquitto.
    pub mqtt_ms: Option<Summary>,
    /// MQTT events that never came.
    pub mqtt_missing: usize,
    /// Events of every kind each SSE client received per second (mean).
    pub sse_events_per_client_s: f64,
    /// Bridge CPU, % of one core, over the window.
    pub bridge_cpu_percent: f64,
    /// Bridge peak RSS and threads.
    pub bridge_memory: Memory,
    /// Load average when the run began.
    pub load_start: f64,
}

/// (clock index, side, move number): one press, as every channel names it.
type Key = (u32, String, u32);
type Arrivals = Arc<Mutex<Vec<(Key, u64)>>>;
/// Every SSE event received by all clients (any kind), for the event rate.
static SSE_EVENTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

fn index_of(path: &str) -> Option<u32> {
    path.rsplit('/').next()?.parse().ok()
}

fn key_of(index: u32, v: &Value) -> Option<Key> {
    Some((
        index,
        v["side"].as_str()?.to_owned(),
        u32::try_from(v["move"].as_u64()?).ok()?,
    ))
}

/// Run once.
pub fn run_bridge(cfg: &BridgeRunConfig) -> Result<BridgeReport> {
    let load_start = procstat::loadavg()?;
    let dir = TempDir::new("bench-bridge")?;
    let run = Daemon::runtime_dir()?;
    let bus = PrivateBus::start_system_like(&cfg.policy_dir)?;
    let config = write_config(dir.path(), &[], "")?;
    let mut daemon = Daemon::spawn(
        &cfg.daemon,
        bus.address(),
        &config,
        &dir.path().join("daemon.log"),
        run.path(),
    )?;
    let ctl = Ctl::new(cfg.ctl.clone(), bus.address());
    // The daemon is up once a status answers (an empty list).
    ctl.wait_ready(0, &mut daemon, Duration::from_secs(30))?;
    for i in 0..cfg.clocks {
        let out = std::process::Command::new(&cfg.ctl)
            .args(["--address", bus.address(), "add-virtual", &format!("v{i}")])
            .output()?;
        if !out.status.success() {
            bail!(
                "add-virtual failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    ctl.wait_ready(cfg.clocks, &mut daemon, Duration::from_secs(60))?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let report = rt.block_on(measure(cfg, bus.address(), dir.path()));
    daemon.stop();
    let mut report = report?;
    report.load_start = load_start;
    Ok(report)
}

async fn measure(
    cfg: &BridgeRunConfig,
    address: &str,
    dir: &std::path::Path,
) -> Result<BridgeReport> {
    let conn = zbus::connection::Builder::address(address).build().await?;
    let mqtt_port = free_port()?;
    let mut broker = start_mosquitto(dir, mqtt_port).await;
    let http_port = free_port()?;
    let mut bridge_cmd = Command::new(&cfg.bridge);
    bridge_cmd
        .args([
            "--address",
            address,
            "--listen",
            &format!("127.0.0.1:{http_port}"),
        ])
        .env("CHESSCLOCK_BRIDGE_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    if broker.is_some() {
        bridge_cmd.args([
            "--mqtt",
            &format!("mqtt://127.0.0.1:{mqtt_port}"),
            "--host",
            "bench",
        ]);
    }
    let bridge = bridge_cmd
        .spawn()
        .context("cannot start chessclock-bridge")?;
    let bridge_pid = bridge.id().context("bridge pid")?.to_string();
    wait_http(http_port).await?;

    // Start every game (White to move), then attach the listeners.
    let paths: Vec<String> = (0..cfg.clocks)
        .map(|i| format!("{}{i}", chessclock_api::names::CLOCK_PATH_PREFIX))
        .collect();
    for p in &paths {
        call(&conn, p, "Start", "white").await?;
    }
    let signals: Arrivals = Arc::default();
    record_signals(&conn, signals.clone()).await?;
    let sse: Vec<Arrivals> = (0..cfg.sse_clients).map(|_| Arrivals::default()).collect();
    for a in &sse {
        tokio::spawn(sse_client(http_port, a.clone()));
    }
    let mqtt: Arrivals = Arc::default();
    let mut sub = match &broker {
        Some(_) => Some(mqtt_sub(mqtt_port, mqtt.clone()).await?),
        None => None,
    };
    tokio::time::sleep(Duration::from_secs(2)).await;

    // The window: each clock pressed by the side to move every 2-8 s.
    let cpu0 = procstat::cpu_ticks(&bridge_pid)?;
    let events0 = SSE_EVENTS.load(std::sync::atomic::Ordering::Relaxed);
    let t0 = mono_us();
    let mut presses = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        let conn = conn.clone();
        let p = p.clone();
        let mut rng = fastrand::Rng::with_seed(cfg.seed.wrapping_add(i as u64));
        let end = tokio::time::Instant::now() + cfg.duration;
        presses.push(tokio::spawn(async move {
            let mut side = "white";
            loop {
                let wait = Duration::from_millis(rng.u64(2_000..8_000));
                if tokio::time::Instant::now() + wait > end {
                    return;
                }
                tokio::time::sleep(wait).await;
                if call(&conn, &p, "Press", side).await.is_ok() {
                    side = if side == "white" { "black" } else { "white" };
                }
            }
        }));
    }
    let mut peak = Memory::default();
    let end = tokio::time::Instant::now() + cfg.duration;
    while tokio::time::Instant::now() < end {
        if let Ok(m) = procstat::memory(&bridge_pid) {
            peak.rss_kib = peak.rss_kib.max(m.rss_kib);
            peak.threads = peak.threads.max(m.threads);
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    for p in presses {
        let _ = p.await;
    }
    // Let the last events arrive.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let seconds = (mono_us() - t0) as f64 / 1e6;
    let cpu1 = procstat::cpu_ticks(&bridge_pid)?;
    let events = SSE_EVENTS.load(std::sync::atomic::Ordering::Relaxed) - events0;
    let sse_events_per_client_s = events as f64 / cfg.sse_clients.max(1) as f64 / seconds;
    let cpu = (cpu1.own - cpu0.own) as f64 / procstat::ticks_per_second() as f64 / seconds * 100.0;

    let sent: HashMap<Key, u64> = signals
        .lock()
        .map_err(|_| anyhow::anyhow!("poisoned"))?
        .iter()
        .filter(|(_, t)| *t >= t0)
        .cloned()
        .collect();
    let (sse_ms, sse_missing) = latencies(&sent, &sse);
    let (mqtt_ms, mqtt_missing) = if broker.is_some() {
        let (s, m) = latencies(&sent, std::slice::from_ref(&mqtt));
        (Some(s), m)
    } else {
        (None, 0)
    };
    if let Some(s) = sub.as_mut() {
        let _ = s.kill().await;
    }
    if let Some(b) = broker.as_mut() {
        let _ = b.kill().await;
    }
    Ok(BridgeReport {
        clocks: cfg.clocks,
        sse_clients: cfg.sse_clients,
        seconds,
        presses: sent.len(),
        sse_ms,
        sse_missing,
        mqtt_ms,
        mqtt_missing,
        sse_events_per_client_s,
        bridge_cpu_percent: cpu,
        bridge_memory: peak,
        load_start: 0.0,
    })
}

/// Signal → arrival latencies over every channel, ms, and how many never arrived.
fn latencies(sent: &HashMap<Key, u64>, channels: &[Arrivals]) -> (Summary, usize) {
    let mut ms = Vec::new();
    let mut missing = 0;
    for ch in channels {
        let got: HashMap<Key, u64> = ch
            .lock()
            .map(|v| v.iter().cloned().collect())
            .unwrap_or_default();
        for (k, t) in sent {
            match got.get(k) {
                Some(a) => ms.push(a.saturating_sub(*t) as f64 / 1000.0),
                None => missing += 1,
            }
        }
    }
    (summarize(&ms), missing)
}

async fn call(conn: &zbus::Connection, path: &str, method: &str, side: &str) -> Result<()> {
    conn.call_method(
        Some(chessclock_api::names::BUS_NAME),
        path,
        Some(chessclock_api::names::CLOCK_INTERFACE),
        method,
        &(side,),
    )
    .await
    .with_context(|| format!("{method} on {path}"))?;
    Ok(())
}

/// Record the arrival of every `Pressed` signal.
async fn record_signals(conn: &zbus::Connection, into: Arrivals) -> Result<()> {
    let rule = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .interface(chessclock_api::names::CLOCK_INTERFACE)
        .member("Pressed")
        .build()?;
    let mut stream =
        zbus::MessageStream::for_match_rule(rule, conn, std::num::NonZeroUsize::new(65_536))
            .await?;
    tokio::spawn(async move {
        while let Some(Ok(m)) = stream.next().await {
            let t = mono_us();
            let Some(index) = m.header().path().and_then(|p| index_of(p.as_str())) else {
                continue;
            };
            if let Ok((side, mv, _, _, _)) = m.body().deserialize::<(String, u32, u64, u64, u64)>()
                && let Ok(mut v) = into.lock()
            {
                v.push(((index, side, mv), t));
            }
        }
    });
    Ok(())
}

/// One SSE client: a raw HTTP/1.1 GET of `/api/v1/events`, recording `pressed` events.
async fn sse_client(port: u16, into: Arrivals) -> Result<()> {
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    s.write_all(b"GET /api/v1/events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n")
        .await?;
    let mut lines = BufReader::new(s).lines();
    let mut kind = String::new();
    while let Some(line) = lines.next_line().await? {
        let t = mono_us();
        if let Some(k) = line.strip_prefix("event:") {
            kind = k.trim().to_owned();
            SSE_EVENTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        } else if let Some(d) = line.strip_prefix("data:")
            && kind == "pressed"
            && let Ok(v) = serde_json::from_str::<Value>(d.trim())
            && let Some(index) = v["index"].as_u64().and_then(|i| u32::try_from(i).ok())
            && let Some(k) = key_of(index, &v)
            && let Ok(mut a) = into.lock()
        {
            a.push((k, t));
        }
    }
    Ok(())
}

async fn start_mosquitto(dir: &std::path::Path, port: u16) -> Option<Child> {
    let conf = dir.join("mosquitto.conf");
    std::fs::write(
        &conf,
        format!("listener {port} 127.0.0.1\nallow_anonymous true\n"),
    )
    .ok()?;
    let exe = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    let Some(exe) = exe else {
        eprintln!("chessclock-bridge-bench: mosquitto not installed: no MQTT figures");
        return None;
    };
    let child = Command::new(exe)
        .arg("-c")
        .arg(&conf)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .ok()?;
    for _ in 0..50 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return Some(child);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    None
}

/// `mosquitto_sub` on every clock's event topic, recording `pressed` events.
async fn mqtt_sub(port: u16, into: Arrivals) -> Result<Child> {
    let mut child = Command::new("mosquitto_sub")
        .args([
            "-h",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-v",
            "-t",
            "chessclockd/+/clock/+/event",
        ])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .context("mosquitto_sub (Debian package mosquitto-clients)")?;
    let out = child.stdout.take().context("stdout")?;
    tokio::spawn(async move {
        let mut lines = BufReader::new(out).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let t = mono_us();
            let Some((topic, payload)) = line.split_once(' ') else {
                continue;
            };
            let index = topic.split('/').nth(3).and_then(|i| i.parse().ok());
            if let (Some(index), Ok(v)) = (index, serde_json::from_str::<Value>(payload))
                && v["event"] == "pressed"
                && let Some(k) = key_of(index, &v)
                && let Ok(mut a) = into.lock()
            {
                a.push((k, t));
            }
        }
    });
    Ok(child)
}

async fn wait_http(port: u16) -> Result<()> {
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    bail!("chessclock-bridge did not listen on port {port}")
}
