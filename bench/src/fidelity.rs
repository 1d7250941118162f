//! Display fidelity: what an emulated clock showed against `ceil(engine ms / 1000)`, sampled
//! every few milliseconds after the run.
//!
//! The engine value at any instant is extrapolated from the daemon's snapshots (exact at their
//! `as_of_us`) with the engine's own rule ([`Run::value_after`]: the delay window, then the
//! runner's countdown and what flows to the waiting side). Owns the sample accounting (share
//! off, longest episode); it does no IO and reads no clock: every instant is a
//! CLOCK_MONOTONIC microsecond passed in.

use chessclock_engine::Run;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A side of the game (the engine's, through the API crate).
pub use chessclock_api::Side;

/// One engine snapshot of the daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineSnap {
    /// CLOCK_MONOTONIC µs at which the values hold.
    pub as_of_us: u64,
    /// White's time, ms.
    pub white_ms: u64,
    /// Black's time, ms.
    pub black_ms: u64,
    /// The side whose time runs, if any.
    pub running: Option<Side>,
    /// How the times move from `as_of_us` on: the engine's own rule ([`Run`]), read from
    /// the published `delay_left_ms`, `flows_ms` and `counts_up`.
    pub run: Option<Run>,
}

impl EngineSnap {
    /// Read a snapshot (`GetSnapshot` or the `Snapshot` property, as JSON); `None` if it
    /// lacks `as_of_us` or the times.
    pub fn from_json(v: &Value) -> Option<EngineSnap> {
        let as_of_us = v.get("as_of_us")?.as_u64()?;
        let white_ms = v.get("white_ms")?.as_u64()?;
        let black_ms = v.get("black_ms")?.as_u64()?;
        let running = v.get("running").and_then(|r| Side::deserialize(r).ok());
        let run = running.map(|runner| Run {
            runner,
            delay_left_ms: v
                .pointer(&format!("/detail/{}/delay_left_ms", runner.as_str()))
                .and_then(Value::as_u64)
                .unwrap_or(0),
            flows_ms: v.get("flows_ms").and_then(Value::as_u64).unwrap_or(0),
            counts_up: v.get("counts_up").and_then(Value::as_bool).unwrap_or(false),
        });
        Some(EngineSnap {
            as_of_us,
            white_ms,
            black_ms,
            running,
            run,
        })
    }

    /// The snapshot in one clock of `chessclockctl status --json`, read as the client's own
    /// type.
    pub fn of_status(c: &chessclock_api::ClockStatus) -> EngineSnap {
        let run = c.running.map(|runner| Run {
            runner,
            delay_left_ms: c
                .detail
                .get(runner)
                .get("delay_left_ms")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            flows_ms: c.flows_ms.unwrap_or(0),
            counts_up: c.counts_up,
        });
        EngineSnap {
            as_of_us: c.as_of_us,
            white_ms: c.white_ms,
            black_ms: c.black_ms,
            running: c.running,
            run,
        }
    }

    /// (White, Black) engine ms at `t_us` (at or after `as_of_us`).
    pub fn values_at(&self, t_us: u64) -> (u64, u64) {
        let elapsed_ms = t_us.saturating_sub(self.as_of_us) / 1000;
        match (self.running, self.run) {
            (Some(_), Some(run)) => (
                run.value_after(Side::White, self.white_ms, elapsed_ms),
                run.value_after(Side::Black, self.black_ms, elapsed_ms),
            ),
            _ => (self.white_ms, self.black_ms),
        }
    }
}

/// What the emulated clock showed from `t_us` on (whole seconds per half).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown {
    /// CLOCK_MONOTONIC µs of the change.
    pub t_us: u64,
    /// Left half, s.
    pub left_s: u32,
    /// Right half, s.
    pub right_s: u32,
}

/// Fidelity over some samples (additive: [`Fidelity::merge`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Fidelity {
    /// Board samples taken (one board at one instant, while its game ran).
    pub samples: u64,
    /// Samples where either half was off `ceil(engine ms / 1000)` by a second or more.
    pub off: u64,
    /// Of those, samples where a half showed a second or more *above* the engine.
    pub high: u64,
    /// Longest run of consecutive off samples of one board, in ms.
    pub longest_episode_ms: u64,
}

impl Fidelity {
    /// Share of samples off, in percent (`None` without samples).
    pub fn off_percent(&self) -> Option<f64> {
        (self.samples > 0).then(|| 100.0 * self.off as f64 / self.samples as f64)
    }

    /// Add another board's or window's figures.
    pub fn merge(&mut self, other: Fidelity) {
        self.samples += other.samples;
        self.off += other.off;
        self.high += other.high;
        self.longest_episode_ms = self.longest_episode_ms.max(other.longest_episode_ms);
    }
}

/// Sample one board every `step_us` in `[from_us, to_us)`: at each instant the latest
/// snapshot at or before it (sorted by `as_of_us`) gives the engine values, the latest display
/// change at or before it the shown ones. Instants before the first of either, or where the
/// game does not run, are not sampled (and end an episode).
pub fn sample_board(
    snaps: &[EngineSnap],
    shown: &[Shown],
    white_left: bool,
    from_us: u64,
    to_us: u64,
    step_us: u64,
) -> Fidelity {
    let mut f = Fidelity::default();
    let (mut si, mut di) = (0usize, 0usize);
    let mut run = 0u64;
    let step = step_us.max(1);
    let mut t = from_us;
    while t < to_us {
        while si < snaps.len() && snaps[si].as_of_us <= t {
            si += 1;
        }
        while di < shown.len() && shown[di].t_us <= t {
            di += 1;
        }
        let sample = match (si.checked_sub(1), di.checked_sub(1)) {
            (Some(s), Some(d)) if snaps[s].running.is_some() => Some((&snaps[s], &shown[d])),
            _ => None,
        };
        match sample {
            Some((snap, disp)) => {
                let (w, b) = snap.values_at(t);
                let (want_l, want_r) = if white_left { (w, b) } else { (b, w) };
                let off = |shown_s: u32, engine_ms: u64| {
                    u64::from(shown_s).abs_diff(engine_ms.div_ceil(1000)) >= 1
                };
                let high =
                    |shown_s: u32, engine_ms: u64| u64::from(shown_s) > engine_ms.div_ceil(1000);
                f.samples += 1;
                if off(disp.left_s, want_l) || off(disp.right_s, want_r) {
                    f.off += 1;
                    if high(disp.left_s, want_l) || high(disp.right_s, want_r) {
                        f.high += 1;
                    }
                    run += 1;
                    f.longest_episode_ms = f.longest_episode_ms.max(run * step / 1000);
                } else {
                    run = 0;
                }
            }
            None => run = 0,
        }
        t += step;
    }
    f
}

#[cfg(test)]
mod tests;
