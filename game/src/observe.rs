//! Per-move clock times read from the clock's own reports (observe mode, replay).
//!
//! Owns turning BWTIME clock reports into lever presses: which half's player pressed, that
//! half's time in the first report after the press (increment included, as the clock shows
//! it) and how long the turn took by the clock. It must not decide which half is White (the
//! caller does, e.g. from [`ClockObserver::first_runner`] or the first move's press) and it
//! keeps no game.

use chessclock_protocol::ClockReport;

/// A half of the clock (the protocol's).
pub use chessclock_protocol::Half;

/// `half`'s time in `r`, whole seconds.
fn seconds(half: Half, r: &ClockReport) -> u32 {
    r.half(half).total_seconds()
}

/// A lever press seen in the reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeverPress {
    /// The half whose player pressed (its lever end went down, its time stopped).
    pub half: Half,
    /// That half's time in the report after the press, ms (whole seconds: reports have 1 s
    /// resolution).
    pub clock_ms: u64,
    /// How long the turn took by that half's display (time at the turn's start minus time just
    /// before the press), ms; `None` if the turn's start was not seen.
    pub elapsed_ms: Option<u64>,
}

/// Reads lever presses from clock reports. See the module docs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClockObserver {
    last: Option<ClockReport>,
    turn_start: [Option<u32>; 2],
    first_runner: Option<Half>,
}

fn slot(h: Half) -> usize {
    match h {
        Half::Left => 0,
        Half::Right => 1,
    }
}

impl ClockObserver {
    /// An observer that has seen no report.
    pub fn new() -> ClockObserver {
        ClockObserver::default()
    }

    /// A clock report arrived: a lever press, if the lever changed since the last report.
    /// Reports saying no clock is connected are ignored.
    pub fn on_report(&mut self, r: &ClockReport) -> Option<LeverPress> {
        if !r.clock_connected {
            return None;
        }
        let high = r.lever_up();
        if r.running && self.first_runner.is_none() {
            self.first_runner = Some(high);
        }
        let press = match self.last.replace(*r) {
            Some(prev) if prev.right_high != r.right_high => {
                let half = prev.lever_up();
                let before = seconds(half, &prev);
                let elapsed = self.turn_start[slot(half)]
                    .map(|start| u64::from(start.saturating_sub(before)) * 1000);
                self.turn_start[slot(half)] = None;
                self.turn_start[slot(high)] = Some(seconds(high, r));
                Some(LeverPress {
                    half,
                    clock_ms: u64::from(seconds(half, r)) * 1000,
                    elapsed_ms: elapsed,
                })
            }
            _ => None,
        };
        if r.running && self.turn_start[slot(high)].is_none() {
            self.turn_start[slot(high)] = Some(seconds(high, r));
        }
        press
    }

    /// The last report from a connected clock.
    pub fn last(&self) -> Option<&ClockReport> {
        self.last.as_ref()
    }

    /// A half's time in the last report, ms.
    pub fn clock_ms(&self, half: Half) -> Option<u64> {
        self.last
            .as_ref()
            .map(|r| u64::from(seconds(half, r)) * 1000)
    }

    /// The half that was running in the first running report: by the clock's own rule the
    /// half of the player with White when the clock was started at the game's start.
    pub fn first_runner(&self) -> Option<Half> {
        self.first_runner
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessclock_protocol::{ClockSide, ClockTime};

    fn report(left: u32, right: u32, running: bool, right_high: bool) -> ClockReport {
        let side = |s| ClockSide {
            time: ClockTime::from_total_seconds(s).expect("small"),
            flag: false,
            final_flag: false,
            time_per_move: true,
        };
        let status = u8::from(running) | if right_high { 0x12 } else { 0x08 };
        ClockReport::from_status(side(left), side(right), status)
    }

    #[test]
    fn presses_carry_the_time_after_the_press_and_the_turn_length() {
        let mut o = ClockObserver::new();
        assert_eq!(o.on_report(&report(182, 182, false, false)), None);
        assert_eq!(o.on_report(&report(182, 182, true, false)), None);
        assert_eq!(o.first_runner(), Some(Half::Left));
        assert_eq!(o.on_report(&report(179, 182, true, false)), None);
        let p = o.on_report(&report(181, 182, true, true)).expect("press");
        assert_eq!(
            p,
            LeverPress {
                half: Half::Left,
                clock_ms: 181_000,
                elapsed_ms: Some(3000)
            }
        );
        o.on_report(&report(181, 175, true, true));
        let p = o.on_report(&report(181, 177, true, false)).expect("press");
        assert_eq!(
            p,
            LeverPress {
                half: Half::Right,
                clock_ms: 177_000,
                elapsed_ms: Some(7000)
            }
        );
    }

    #[test]
    fn no_clock_reports_are_ignored() {
        let mut o = ClockObserver::new();
        let mut r = report(0, 0, false, true);
        r.clock_connected = false;
        assert_eq!(o.on_report(&r), None);
        assert!(o.last().is_none());
    }
}
