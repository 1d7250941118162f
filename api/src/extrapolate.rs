//! A clock's values some time after its status was read: the running side's time goes down
//! (after what is left of a delay window; up under count-up), and under hourglass or phased
//! swing the waiting side gains what flows to it. Clients use it to redraw between the
//! daemon's signals without asking again; the daemon publishes every change of state (a
//! press, a phase, a flag), so only this steady run is left to draw.
//!
//! Owns reading the engine's rule ([`chessclock_engine::Run`]) from the published fields
//! (`running`, `status`, the runner's `delay_left_ms`, `flows_ms`, `counts_up`); never the
//! notation. The bridge's page script reads the same fields. It never decides anything: a flag, a phase
//! change or a result comes from the daemon.

use chessclock_engine::Run;
use serde_json::Value;

use crate::status::{ClockStatus, Side};

impl ClockStatus {
    /// How the values move after the status was read, if a clock runs.
    pub fn run(&self) -> Option<Run> {
        let runner = self.running.filter(|_| self.status == "running")?;
        let delay = self.detail.get(runner).get("delay_left_ms");
        Some(Run {
            runner,
            delay_left_ms: delay.and_then(Value::as_u64).unwrap_or(0),
            flows_ms: self.flows_ms.unwrap_or(0),
            counts_up: self.counts_up,
        })
    }

    /// Side `side`'s value `elapsed_ms` after the status was read.
    pub fn ms_after(&self, side: Side, elapsed_ms: u64) -> u64 {
        let base = self.ms(side);
        self.run()
            .map_or(base, |run| run.value_after(side, base, elapsed_ms))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::clock::PublishedClock;

    fn status(control: &str, running: Option<Side>, white: u64, black: u64) -> ClockStatus {
        let state = if running.is_some() {
            "running"
        } else {
            "ready"
        };
        ClockStatus {
            clock: "/org/chessclockd/ChessClock1/Clock/0".into(),
            published: PublishedClock {
                board: 1,
                time_control: control.into(),
                ..PublishedClock::default()
            },
            white_ms: white,
            black_ms: black,
            running,
            status: state.into(),
            ..ClockStatus::default()
        }
    }

    #[test]
    fn the_runner_counts_down_and_the_waiting_side_stands() {
        let st = status("G/5", Some(Side::White), 300_000, 200_000);
        assert_eq!(st.ms_after(Side::White, 1_500), 298_500);
        assert_eq!(st.ms_after(Side::Black, 1_500), 200_000);
        assert_eq!(st.ms_after(Side::White, 400_000), 0, "never below zero");
    }

    #[test]
    fn a_count_up_runner_counts_up() {
        let mut st = status("UP", Some(Side::Black), 10_000, 20_000);
        st.counts_up = true;
        assert_eq!(st.ms_after(Side::Black, 1_500), 21_500);
        assert_eq!(st.ms_after(Side::White, 1_500), 10_000);
    }

    #[test]
    fn nothing_moves_unless_running() {
        let mut st = status("G/5", Some(Side::White), 300_000, 200_000);
        st.status = "paused".into();
        assert_eq!(st.ms_after(Side::White, 5_000), 300_000);
        let st = status("G/5", None, 300_000, 200_000);
        assert_eq!(st.ms_after(Side::Black, 5_000), 200_000);
    }

    #[test]
    fn a_delay_window_is_used_first() {
        let mut st = status("G/5 d/5", Some(Side::Black), 300_000, 200_000);
        st.detail.black.insert("delay_left_ms".into(), json!(3_000));
        assert_eq!(st.ms_after(Side::Black, 2_000), 200_000);
        assert_eq!(st.ms_after(Side::Black, 4_500), 198_500);
    }

    #[test]
    fn hourglass_gives_the_waiting_side_what_the_runner_loses() {
        let mut st = status("HG/1", Some(Side::White), 2_000, 58_000);
        st.flows_ms = Some(2_000);
        assert_eq!(st.ms_after(Side::Black, 1_500), 59_500);
        assert_eq!(
            st.ms_after(Side::Black, 5_000),
            60_000,
            "no more than it had"
        );
    }

    #[test]
    fn the_notation_is_not_read_only_the_published_flow() {
        let st = status("HG/1", Some(Side::White), 2_000, 58_000);
        assert_eq!(st.ms_after(Side::Black, 1_500), 58_000);
        let mut st = status("G/5", Some(Side::White), 2_000, 58_000);
        st.flows_ms = Some(1_000);
        assert_eq!(st.ms_after(Side::Black, 1_500), 59_000);
    }

    #[test]
    fn swing_flows_up_to_the_balance() {
        let mut st = status("G/5 sw/10", Some(Side::White), 100_000, 100_000);
        st.detail.white.insert("swing_ms".into(), json!(4_000));
        st.flows_ms = Some(4_000);
        assert_eq!(st.ms_after(Side::Black, 3_000), 103_000);
        assert_eq!(st.ms_after(Side::Black, 9_000), 104_000);
    }
}
