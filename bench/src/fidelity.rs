//! Display fidelity: what an emulated clock showed against `ceil(engine ms / 1000)`, sampled
//! every few milliseconds after the run.
//!
//! The engine value at any instant is extrapolated from the daemon's snapshots (exact at their
//! `as_of_us`) with the motion of the running method: a countdown, a US delay that holds the
//! mover's time while `delay_left_ms` lasts, an hourglass (the waiting side gains what the
//! mover uses), a swing (the waiting side gains while the mover spends swing). Owns that
//! extrapolation and the sample accounting (share off, longest episode); it does no IO and
//! reads no clock: every instant is a CLOCK_MONOTONIC microsecond passed in.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A side of the game (the engine's, through the API crate).
pub use chessclock_api::Side;

/// How the running side's time (and the waiting side's) moves until the next snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Motion {
    /// The mover counts down, the other side is static.
    Countdown,
    /// US delay: the mover's time holds for this many ms, then counts down.
    Delay(u64),
    /// The mover counts down and the waiting side gains as much.
    Hourglass,
    /// The mover spends this much swing (counting down) while the waiting side gains as
    /// much; after it, the mover counts down and the other side is static.
    Swing(u64),
}

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
    /// How the times move from `as_of_us` on.
    pub motion: Motion,
}

impl EngineSnap {
    /// Read a snapshot (`GetSnapshot`, the `Snapshot` property or one clock of
    /// `chessclockctl status --json`); `None` if it lacks `as_of_us` or the times.
    pub fn from_json(v: &Value) -> Option<EngineSnap> {
        let as_of_us = v.get("as_of_us")?.as_u64()?;
        let white_ms = v.get("white_ms")?.as_u64()?;
        let black_ms = v.get("black_ms")?.as_u64()?;
        let running = v.get("running").and_then(|r| Side::deserialize(r).ok());
        let motion = match running {
            None => Motion::Countdown,
            Some(s) => {
                let name = s.as_str();
                let phase = v.pointer(&format!("/phase/{name}")).and_then(Value::as_str);
                let detail = |k: &str| {
                    v.pointer(&format!("/detail/{name}/{k}"))
                        .and_then(Value::as_u64)
                };
                match (phase, detail("delay_left_ms"), detail("swing_ms")) {
                    (Some("hourglass"), _, _) => Motion::Hourglass,
                    (Some("swing"), _, Some(swing)) if swing > 0 => Motion::Swing(swing),
                    (_, Some(d), _) if d > 0 => Motion::Delay(d),
                    _ => Motion::Countdown,
                }
            }
        };
        Some(EngineSnap {
            as_of_us,
            white_ms,
            black_ms,
            running,
            motion,
        })
    }

    /// (White, Black) engine ms at `t_us` (at or after `as_of_us`).
    pub fn values_at(&self, t_us: u64) -> (u64, u64) {
        let Some(mover) = self.running else {
            return (self.white_ms, self.black_ms);
        };
        let e = t_us.saturating_sub(self.as_of_us) / 1000;
        let (m, o) = match mover {
            Side::White => (self.white_ms, self.black_ms),
            Side::Black => (self.black_ms, self.white_ms),
        };
        let (m2, o2) = match self.motion {
            Motion::Countdown => (m.saturating_sub(e), o),
            Motion::Delay(d) => (m.saturating_sub(e.saturating_sub(d)), o),
            Motion::Hourglass => (m.saturating_sub(e), o + e.min(m)),
            Motion::Swing(s) => (m.saturating_sub(e), o + e.min(s).min(m)),
        };
        match mover {
            Side::White => (m2, o2),
            Side::Black => (o2, m2),
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
