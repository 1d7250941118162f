//! One run size end to end: a private bus with the real policy, N emulated boards on ptys,
//! the real daemon configured with one clock per board, games started over D-Bus, a quiet
//! window (presses only) then a polled window (presses + `status --json` back to back), with
//! the pty floor probed throughout ([`crate::floor::Probe`]), then the analysis into a
//! [`SizeReport`].
//!
//! Owns the sequence and the time windows; the board IO is [`crate::board`], the figures are
//! [`crate::analysis`] and [`crate::fidelity`].

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use chessclock_api::clock::Half;
use chessclock_tests::rig::write_config;
use chessclock_tests::{PrivateBus, TempDir};
use tokio::sync::watch;

use crate::analysis::{bytes_between, conservation_ms, press_latencies, stamp_lags};
use crate::board::{BoardLog, Phase, ServedBoard};
use crate::bus::{Bus, ClockSignals};
use crate::daemon::{Ctl, Daemon, PollLog, spawn_poller};
use crate::fidelity::{EngineSnap, Fidelity, sample_board};
use crate::floor::{self, FloorSample, Probe};
use crate::mono_us;
use crate::procstat::{self, CpuTicks};
use crate::reader_floor;
use crate::report::{FidelityFigures, SizeReport, SlowestPress, Window};
use crate::stats::summarize;

/// Fidelity sampling step.
const SAMPLE_US: u64 = 10_000;
/// How long the reader floor is measured after the run.
const READER_FLOOR_SECS: u64 = 10;

/// Wait between two transfers of the pty floor probe.
const FLOOR_EVERY: Duration = Duration::from_millis(20);

/// What to run.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Emulated boards.
    pub boards: usize,
    /// Length of the quiet and of the polled window together.
    pub duration: Duration,
    /// Seed of the players' think times.
    pub seed: u64,
    /// The daemon binary.
    pub daemon: PathBuf,
    /// The `chessclockctl` binary.
    pub ctl: PathBuf,
    /// The D-Bus policy directory (the project's `dbus/`).
    pub policy_dir: PathBuf,
    /// Time controls, assigned round robin.
    pub controls: Vec<String>,
}

/// CPU readings of everything measured, at one instant.
#[derive(Debug, Clone, Copy)]
struct Mark {
    t_us: u64,
    daemon: CpuTicks,
    bus: Option<CpuTicks>,
    bench: CpuTicks,
    signals: usize,
}

fn mark(daemon_pid: &str, bus_pid: Option<&str>, bus: &Bus) -> Result<Mark> {
    Ok(Mark {
        t_us: mono_us(),
        daemon: procstat::cpu_ticks(daemon_pid)?,
        bus: bus_pid.and_then(|p| procstat::cpu_ticks(p).ok()),
        bench: procstat::cpu_ticks("self")?,
        signals: bus.signal_count(),
    })
}

/// The pid of this process's child named `comm` (e.g. the private `dbus-daemon`).
fn child_named(comm: &str) -> Option<String> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|c| c.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .find(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == comm)
        })
}

/// Sleep `d`, sampling the daemon's memory every second; keeps the largest.
fn sleep_sampling(
    d: Duration,
    pid: &str,
    peak: &mut procstat::Memory,
    daemon: &mut Daemon,
) -> Result<()> {
    let end = mono_us() + d.as_micros() as u64;
    loop {
        if daemon.exited() {
            bail!("chessclockd exited during the run");
        }
        if let Ok(m) = procstat::memory(pid) {
            peak.rss_kib = peak.rss_kib.max(m.rss_kib);
            peak.threads = peak.threads.max(m.threads);
        }
        let left = end.saturating_sub(mono_us());
        if left == 0 {
            return Ok(());
        }
        std::thread::sleep(Duration::from_micros(left.min(1_000_000)));
    }
}

/// Run one size.
pub fn run_size(cfg: &RunConfig) -> Result<SizeReport> {
    let load_start = procstat::loadavg()?;
    let dir = TempDir::new("bench").context("cannot create a temp dir")?;
    let run = Daemon::runtime_dir()?;
    let bus = PrivateBus::start_system_like(&cfg.policy_dir)?;
    let bus_pid = child_named("dbus-daemon");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("bench-boards")
        .enable_all()
        .build()?;
    let base_us = mono_us();
    let boards: Vec<ServedBoard> = {
        let _guard = rt.enter();
        (0..cfg.boards)
            .map(|i| ServedBoard::open(cfg.seed.wrapping_add(i as u64 * 0x9E37_79B9), base_us))
            .collect::<Result<_>>()?
    };
    let ports: Vec<String> = boards
        .iter()
        .map(|b| b.path().display().to_string())
        .collect();
    let pairs: Vec<(&str, &str)> = ports
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), cfg.controls[i % cfg.controls.len()].as_str()))
        .collect();
    let config = write_config(dir.path(), &pairs, "")?;
    let (phase_tx, phase_rx) = watch::channel(Phase::Serve);
    let tasks: Vec<_> = boards
        .into_iter()
        .map(|b| rt.spawn(b.run(phase_rx.clone())))
        .collect();

    let mut daemon = Daemon::spawn(
        &cfg.daemon,
        bus.address(),
        &config,
        &dir.path().join("daemon.log"),
        run.path(),
    )?;
    let pid = daemon.pid.to_string();
    let ctl = Ctl::new(cfg.ctl.clone(), bus.address());
    let ready_within = Duration::from_secs(30 + cfg.boards as u64 / 2);
    let clocks = ctl
        .wait_ready(cfg.boards, &mut daemon, ready_within)
        .with_context(|| {
            let log = std::fs::read_to_string(dir.path().join("daemon.log")).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(5).collect();
            format!("daemon log (last lines, newest first): {tail:?}")
        })?;
    let board_of: HashMap<&str, usize> = ports
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    // Per board: its clock's object path and whether White is on the left.
    let mut clock_of: Vec<(String, bool)> = vec![(String::new(), true); cfg.boards];
    for c in &clocks {
        let i = *board_of.get(c.port.as_str()).with_context(|| {
            format!(
                "the daemon drives {} which is no board of the bench",
                c.port
            )
        })?;
        clock_of[i] = (c.clock.clone(), c.white_side != Half::Right);
    }
    let dbus = Bus::connect(bus.address())?;
    for (path, _) in &clock_of {
        dbus.start(path)?;
    }
    let _ = phase_tx.send(Phase::Play);
    let mut peak = procstat::Memory::default();
    let half = cfg.duration / 2;

    let probe = Probe::start(FLOOR_EVERY)?;
    let m0 = mark(&pid, bus_pid.as_deref(), &dbus)?;
    sleep_sampling(half, &pid, &mut peak, &mut daemon)?;
    let m1 = mark(&pid, bus_pid.as_deref(), &dbus)?;
    let stop = Arc::new(AtomicBool::new(false));
    let poller = spawn_poller(ctl.clone(), Arc::clone(&stop));
    sleep_sampling(cfg.duration - half, &pid, &mut peak, &mut daemon)?;
    let m2 = mark(&pid, bus_pid.as_deref(), &dbus)?;
    let floor = probe.stop();
    let _ = phase_tx.send(Phase::Serve);
    stop.store(true, Ordering::Relaxed);
    let polls = poller
        .join()
        .map_err(|_| anyhow::anyhow!("the status poller panicked"))?;
    let floor = floor?;
    // Let the answers to the last presses arrive.
    std::thread::sleep(Duration::from_millis(1500));
    let _ = phase_tx.send(Phase::Stop);
    let logs: Vec<BoardLog> = rt.block_on(async {
        let mut logs = Vec::new();
        for t in tasks {
            logs.push(t.await.unwrap_or_default());
        }
        logs
    });
    let bench_threads = procstat::memory("self").map(|m| m.threads).unwrap_or(0);
    let signals = dbus.by_clock();
    daemon.stop();
    let load_end = procstat::loadavg()?;

    let input = Analysed {
        logs: &logs,
        clock_of: &clock_of,
        signals: &signals,
        polls: &polls,
        floor: &floor,
        controls: &cfg.controls,
    };
    let quiet = input.window(m0, m1, false);
    // At the boards' own message rate, with no daemon running any more.
    let reader_floor = reader_floor::measure(
        cfg.boards,
        quiet.messages_per_s,
        Duration::from_secs(READER_FLOOR_SECS),
    )?;
    Ok(SizeReport {
        boards: cfg.boards,
        controls: cfg.controls.clone(),
        quiet,
        reader_floor,
        polled: input.window(m1, m2, true),
        presses_made: logs.iter().map(|l| l.presses.len() as u64).sum(),
        presses_seen: signals.values().map(|s| s.pressed.len() as u64).sum(),
        presses_unanswered: logs
            .iter()
            .flat_map(|l| press_latencies(&l.presses, &l.set_and_runs))
            .filter(|(_, lat)| lat.is_none())
            .count() as u64,
        set_and_runs: logs.iter().map(|l| l.set_and_runs.len() as u64).sum(),
        games: signals.values().filter_map(conservation_ms).count(),
        conservation_max_abs_ms: signals
            .values()
            .filter_map(conservation_ms)
            .map(f64::abs)
            .max_by(f64::total_cmp),
        status_ms: summarize(&polls.latencies_ms),
        status_failures: polls.failures,
        daemon_rss_kib: peak.rss_kib,
        daemon_threads: peak.threads,
        bench_threads,
        load_start,
        load_end,
    })
}

/// The records of a run, for the per-window figures.
struct Analysed<'a> {
    logs: &'a [BoardLog],
    clock_of: &'a [(String, bool)],
    signals: &'a HashMap<String, ClockSignals>,
    polls: &'a PollLog,
    floor: &'a [FloorSample],
    controls: &'a [String],
}

impl Analysed<'_> {
    fn window(&self, a: Mark, b: Mark, polled: bool) -> Window {
        let secs = (b.t_us - a.t_us) as f64 / 1e6;
        let tps = procstat::ticks_per_second() as f64;
        let cpu = |x: u64, y: u64| 100.0 * (y.saturating_sub(x)) as f64 / tps / secs;
        let in_window = |t: u64| (a.t_us..b.t_us).contains(&t);
        let empty = ClockSignals::default();
        let mut latencies = Vec::new();
        let mut lags = Vec::new();
        let mut after_stamp = Vec::new();
        let mut slowest: Option<SlowestPress> = None;
        let mut fidelity = Fidelity::default();
        let mut by_control = vec![Fidelity::default(); self.controls.len()];
        let (mut to_board, mut from_board, mut messages) = (0u64, 0u64, 0u64);
        for (i, (log, (path, white_left))) in self.logs.iter().zip(self.clock_of).enumerate() {
            let sig = self.signals.get(path).unwrap_or(&empty);
            let stamps = stamp_lags(&log.presses, sig);
            for ((t, lat), lag) in press_latencies(&log.presses, &log.set_and_runs)
                .into_iter()
                .zip(stamps)
            {
                if !in_window(t) {
                    continue;
                }
                if let Some(l) = lat {
                    latencies.push(l as f64 / 1000.0);
                }
                if let Some(g) = lag {
                    lags.push(g as f64 / 1000.0);
                }
                if let (Some(l), Some(g)) = (lat, lag) {
                    after_stamp.push((l as i64 - g) as f64 / 1000.0);
                    let this = SlowestPress {
                        total_ms: l as f64 / 1000.0,
                        stamp_lag_ms: g as f64 / 1000.0,
                    };
                    if slowest.is_none_or(|s| this.total_ms > s.total_ms) {
                        slowest = Some(this);
                    }
                }
            }
            let mut snaps: Vec<EngineSnap> = sig.snaps.iter().map(|(s, _)| *s).collect();
            snaps.extend(
                self.polls
                    .snaps
                    .iter()
                    .filter(|(p, _)| p == path)
                    .map(|(_, s)| *s),
            );
            snaps.sort_by_key(|s| s.as_of_us);
            let f = sample_board(&snaps, &log.shown, *white_left, a.t_us, b.t_us, SAMPLE_US);
            fidelity.merge(f);
            if let Some(c) = by_control.get_mut(i % self.controls.len().max(1)) {
                c.merge(f);
            }
            to_board += bytes_between(&log.bytes_in, a.t_us, b.t_us);
            from_board += bytes_between(&log.bytes_out, a.t_us, b.t_us);
            messages += bytes_between(&log.messages_out, a.t_us, b.t_us);
        }
        let n = self.logs.len().max(1) as f64;
        let daemon_cpu_s = b.daemon.own.saturating_sub(a.daemon.own) as f64 / tps;
        Window {
            seconds: secs,
            press_to_display_ms: summarize(&latencies),
            press_stamp_lag_ms: summarize(&lags),
            stamp_to_display_ms: summarize(&after_stamp),
            slowest_press: slowest,
            pty_floor_ms: floor::in_window(self.floor, a.t_us, b.t_us),
            fidelity: fidelity.into(),
            fidelity_by_control: self
                .controls
                .iter()
                .cloned()
                .zip(by_control.into_iter().map(FidelityFigures::from))
                .collect(),
            daemon_cpu_percent: cpu(a.daemon.own, b.daemon.own),
            daemon_cpu_us_per_board_message: (messages > 0 && !polled)
                .then(|| daemon_cpu_s * 1e6 / messages as f64),
            bus_cpu_percent: a.bus.zip(b.bus).map(|(x, y)| cpu(x.own, y.own)),
            bench_cpu_percent: cpu(a.bench.own, b.bench.own),
            poller_cpu_percent: cpu(a.bench.children, b.bench.children),
            signals_per_s: (b.signals - a.signals) as f64 / secs,
            bytes_per_s_to_board: to_board as f64 / n / secs,
            bytes_per_s_from_board: from_board as f64 / n / secs,
            messages_per_s: messages as f64 / secs,
        }
    }
}
