//! The bench's report: every figure of one run size, and the whole run (machine, command),
//! as JSON (`--json`) and as a human table.
//!
//! Owns the report's shape and its rendering only; the figures are computed elsewhere.

use std::fmt::Write as _;

use serde::Serialize;

use crate::fidelity::Fidelity;
use crate::procstat::Machine;
use crate::stats::Summary;

/// Display fidelity of one window.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct FidelityFigures {
    /// Board samples (every 10 ms per board while its game ran).
    pub samples: u64,
    /// Samples with a half off `ceil(engine ms / 1000)` by a second or more.
    pub off: u64,
    /// `off / samples`, percent.
    pub off_percent: Option<f64>,
    /// Samples where a half showed a second or more above the engine, percent.
    pub high_percent: Option<f64>,
    /// Longest episode of one board, ms.
    pub longest_episode_ms: u64,
}

impl From<Fidelity> for FidelityFigures {
    fn from(f: Fidelity) -> Self {
        FidelityFigures {
            samples: f.samples,
            off: f.off,
            off_percent: f.off_percent(),
            high_percent: (f.samples > 0).then(|| 100.0 * f.high as f64 / f.samples as f64),
            longest_episode_ms: f.longest_episode_ms,
        }
    }
}

/// One press's press → display split at the daemon's instant for it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SlowestPress {
    /// Lever change written → set-and-run read by the board, ms.
    pub total_ms: f64,
    /// Of it, lever change written → the daemon's instant for the press, ms (the way in).
    pub stamp_lag_ms: f64,
}

/// Figures of one window of the run: without (quiet) or with (polled) the status poller.
#[derive(Debug, Clone, Serialize)]
pub struct Window {
    /// Length, s.
    pub seconds: f64,
    /// Lever change written → set-and-run read by the board, ms.
    pub press_to_display_ms: Summary,
    /// The daemon's instant for a press (`as_of_us` of its snapshot) minus the instant its
    /// lever change was written, ms: what the player is charged beyond the move.
    pub press_stamp_lag_ms: Summary,
    /// Press → display minus the press's stamp lag, per press, ms: from the daemon's instant
    /// for a press to its display read by the board (the daemon's work, the write and the pty
    /// hop back). With the stamp lag it splits a press → display into the way in and the rest.
    pub stamp_to_display_ms: Summary,
    /// The press with the longest press → display of the window, split at its stamp.
    pub slowest_press: Option<SlowestPress>,
    /// The pty layer's one-way latency for a 7-byte message on a spare pty pair, probed
    /// every 20 ms during the window (under the run's load), ms: the harness floor under
    /// press → display.
    pub pty_floor_ms: Summary,
    /// Display fidelity.
    pub fidelity: FidelityFigures,
    /// Display fidelity of the boards of each time control.
    pub fidelity_by_control: Vec<(String, FidelityFigures)>,
    /// Daemon CPU, percent of one core.
    pub daemon_cpu_percent: f64,
    /// Daemon CPU per message a board sent, µs.
    pub daemon_cpu_us_per_board_message: Option<f64>,
    /// The private dbus-daemon's CPU, percent of one core.
    pub bus_cpu_percent: Option<f64>,
    /// The bench's own CPU (board emulation, signal recording, poller thread), percent.
    pub bench_cpu_percent: f64,
    /// The `chessclockctl` runs of the poller, percent.
    pub poller_cpu_percent: f64,
    /// D-Bus signals the daemon emitted per second.
    pub signals_per_s: f64,
    /// Bytes per second per board, host → board (mean over boards).
    pub bytes_per_s_to_board: f64,
    /// Bytes per second per board, board → host.
    pub bytes_per_s_from_board: f64,
    /// Whole messages all boards sent per second.
    pub messages_per_s: f64,
}

/// Every figure of one run size.
#[derive(Debug, Clone, Serialize)]
pub struct SizeReport {
    /// Emulated boards (= clocks).
    pub boards: usize,
    /// Time controls played, round robin over the boards.
    pub controls: Vec<String>,
    /// Without the status poller.
    pub quiet: Window,
    /// With `chessclockctl status --json` polled back to back.
    pub polled: Window,
    /// The least CPU per message a reader with the daemon's IO stack pays here, at the quiet
    /// window's message rate (measured after the run, without a daemon).
    pub reader_floor: crate::reader_floor::ReaderFloor,
    /// Lever presses made.
    pub presses_made: u64,
    /// `Pressed` signals received.
    pub presses_seen: u64,
    /// Presses that got no set-and-run for the expected half before the next press.
    pub presses_unanswered: u64,
    /// Set-and-runs the boards read over the run (the design: one at a press, one at the
    /// engine's next whole second; spec §7).
    pub set_and_runs: u64,
    /// Games with a conservation figure.
    pub games: usize,
    /// Largest |time charged − time elapsed| of a game, ms.
    pub conservation_max_abs_ms: Option<f64>,
    /// Full `status --json` of all clocks (while polled), ms.
    pub status_ms: Summary,
    /// Status runs that failed.
    pub status_failures: u64,
    /// Daemon RSS, KiB (largest sample).
    pub daemon_rss_kib: u64,
    /// Daemon threads (largest sample).
    pub daemon_threads: u64,
    /// The bench's threads at the end.
    pub bench_threads: u64,
    /// 1-minute load average before and after.
    pub load_start: f64,
    /// See `load_start`.
    pub load_end: f64,
}

/// The pty layer's own latency, measured in the bench before the run, without a daemon or
/// other load (see each [`Window`]'s `pty_floor_ms` for it under load).
#[derive(Debug, Clone, Serialize)]
pub struct Floor {
    /// One-way master → slave write → read of a 7-byte message, µs.
    pub pty_one_way_us: Summary,
}

/// The whole run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The machine.
    pub machine: Machine,
    /// Command line that produced it.
    pub command: String,
    /// RNG seed of the players.
    pub seed: u64,
    /// Harness floor.
    pub floor: Floor,
    /// One entry per size.
    pub sizes: Vec<SizeReport>,
}

fn ms(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| {
        if x < 10.0 {
            format!("{x:.2}")
        } else {
            format!("{x:.0}")
        }
    })
}

fn trio(s: &Summary) -> String {
    format!("{} / {} / {}", ms(s.p50), ms(s.p99), ms(s.max))
}

/// [`trio`] with 3 decimals below 1 ms (the pty floor's median is tens of µs), and the count.
fn fine_trio(s: &Summary) -> String {
    let f = |v: Option<f64>| match v {
        Some(x) if x < 1.0 => format!("{x:.3}"),
        _ => ms(v),
    };
    format!("{} / {} / {} ({})", f(s.p50), f(s.p99), f(s.max), s.count)
}

fn pct(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.2} %"))
}

/// The human table: one column per size, one row per figure.
pub fn render(r: &Report) -> String {
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let mut row = |name: &str, f: &dyn Fn(&SizeReport) -> String| {
        rows.push((name.to_owned(), r.sizes.iter().map(f).collect()));
    };
    row("press→display ms p50/p99/max, quiet", &|s| {
        trio(&s.quiet.press_to_display_ms)
    });
    row("press→display ms p50/p99/max, polled", &|s| {
        trio(&s.polled.press_to_display_ms)
    });
    row("press stamp lag ms p50/p99/max, quiet", &|s| {
        trio(&s.quiet.press_stamp_lag_ms)
    });
    row("press stamp lag ms p50/p99/max, polled", &|s| {
        trio(&s.polled.press_stamp_lag_ms)
    });
    row("stamp→display ms p50/p99/max, quiet", &|s| {
        trio(&s.quiet.stamp_to_display_ms)
    });
    row("stamp→display ms p50/p99/max, polled", &|s| {
        trio(&s.polled.stamp_to_display_ms)
    });
    row("slowest press ms: whole = in + rest, polled", &|s| {
        s.polled.slowest_press.map_or("-".to_owned(), |p| {
            format!(
                "{:.2} = {:.2} + {:.2}",
                p.total_ms,
                p.stamp_lag_ms,
                p.total_ms - p.stamp_lag_ms
            )
        })
    });
    row("pty floor one-way ms p50/p99/max (samples), quiet", &|s| {
        fine_trio(&s.quiet.pty_floor_ms)
    });
    row("pty floor one-way ms p50/p99/max (samples), polled", &|s| {
        fine_trio(&s.polled.pty_floor_ms)
    });
    let fid = |f: &FidelityFigures| {
        format!(
            "{} (high {}; longest {} ms)",
            pct(f.off_percent),
            pct(f.high_percent),
            f.longest_episode_ms
        )
    };
    row("display off ≥1 s, quiet", &|s| fid(&s.quiet.fidelity));
    row("display off ≥1 s, polled", &|s| fid(&s.polled.fidelity));
    let controls = r
        .sizes
        .first()
        .map(|s| s.controls.clone())
        .unwrap_or_default();
    for (k, c) in controls.iter().enumerate() {
        for (w, name) in [(false, "quiet"), (true, "polled")] {
            row(&format!("  off ≥1 s, {name}: {c}"), &|s| {
                let win = if w { &s.polled } else { &s.quiet };
                win.fidelity_by_control
                    .get(k)
                    .map_or("-".into(), |(_, f)| pct(f.off_percent))
            });
        }
    }
    row("presses made / seen / unanswered", &|s| {
        format!(
            "{} / {} / {}",
            s.presses_made, s.presses_seen, s.presses_unanswered
        )
    });
    row("set-and-runs per press", &|s| {
        if s.presses_made == 0 {
            return "-".into();
        }
        format!("{:.2}", s.set_and_runs as f64 / s.presses_made as f64)
    });
    row("conservation max |charged−elapsed| ms", &|s| {
        format!("{} ({} games)", ms(s.conservation_max_abs_ms), s.games)
    });
    row("daemon CPU % quiet / polled", &|s| {
        format!(
            "{:.1} / {:.1}",
            s.quiet.daemon_cpu_percent, s.polled.daemon_cpu_percent
        )
    });
    row("daemon CPU µs per board message (quiet)", &|s| {
        s.quiet
            .daemon_cpu_us_per_board_message
            .map_or("-".into(), |v| format!("{v:.0}"))
    });
    row("reader floor CPU µs per board message (msgs/s)", &|s| {
        format!(
            "{:.0} ({:.0}/s)",
            s.reader_floor.cpu_us_per_message, s.reader_floor.rate_per_s
        )
    });
    row("dbus-daemon CPU % quiet / polled", &|s| {
        format!(
            "{} / {}",
            pct(s.quiet.bus_cpu_percent),
            pct(s.polled.bus_cpu_percent)
        )
    });
    row("daemon RSS MiB / threads", &|s| {
        format!(
            "{:.1} / {}",
            s.daemon_rss_kib as f64 / 1024.0,
            s.daemon_threads
        )
    });
    row("status --json all clocks ms p50/p99 (runs)", &|s| {
        format!(
            "{} / {} ({})",
            ms(s.status_ms.p50),
            ms(s.status_ms.p99),
            s.status_ms.count
        )
    });
    row("signals/s quiet / polled", &|s| {
        format!(
            "{:.1} / {:.1}",
            s.quiet.signals_per_s, s.polled.signals_per_s
        )
    });
    row("B/s per board to / from (share of 960 B/s)", &|s| {
        let w = &s.quiet;
        let share = w.bytes_per_s_to_board.max(w.bytes_per_s_from_board) / 9.6;
        format!(
            "{:.0} / {:.0} ({share:.1} %)",
            w.bytes_per_s_to_board, w.bytes_per_s_from_board
        )
    });
    row("bench CPU % quiet / polled (+ctl runs)", &|s| {
        format!(
            "{:.1} / {:.1} (+{:.1})",
            s.quiet.bench_cpu_percent, s.polled.bench_cpu_percent, s.polled.poller_cpu_percent
        )
    });
    row("load average start → end", &|s| {
        format!("{:.2} → {:.2}", s.load_start, s.load_end)
    });

    let mut out = String::new();
    let _ = writeln!(
        out,
        "machine: {} CPUs, {}; seed {}\npty floor one-way µs p50/p99/max: {} / {} / {}",
        r.machine.nproc,
        r.machine.model_name,
        r.seed,
        ms(r.floor.pty_one_way_us.p50),
        ms(r.floor.pty_one_way_us.p99),
        ms(r.floor.pty_one_way_us.max)
    );
    let heads: Vec<String> = r
        .sizes
        .iter()
        .map(|s| format!("N = {}", s.boards))
        .collect();
    let _ = writeln!(out, "| figure | {} |", heads.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(r.sizes.len()));
    for (name, cells) in rows {
        let _ = writeln!(out, "| {name} | {} |", cells.join(" | "));
    }
    out
}
