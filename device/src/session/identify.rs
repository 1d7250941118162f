//! Finding a board in the hall (`chessclockctl identify`): the clock shows its board number
//! (`bd 137`; a clock without one, its clock index: `cl 3`) and beeps, for a few seconds,
//! then the times again; refused while the game runs (the players' times come first), in
//! observe mode, or with no clock to show it on.
//!
//! Part of the pure [`Session`]: the words, the checks and the request. It shows the words
//! through the one text path (`Driver::show_text`, whose timer brings the times back) and
//! must not send clock commands of its own.

use std::time::Duration;

use chessclock_engine::Status;
use chessclock_protocol::ClockModel;

use super::Session;
use crate::link::driver::{Instant, MAX_TEXT};
use crate::link::state::DeviceState;
use crate::session::interface::{DeviceError, Reply};

/// How long the board number stays on the display when the caller names no time.
pub(crate) const IDENTIFY_FOR: Duration = Duration::from_secs(5);

/// How long the beep that goes with it lasts.
const BEEP_MS: u32 = 1000;

/// What the display says to identify board `board` (`None`: no board number, so clock
/// `clock`'s index) on `model`: `bd 137`, or closer (`bd1000`, `10000`) where the display is
/// short; `None` if even the number does not fit (8 characters on a DGT 3000, 6
/// seven-segment digits on a DGT XL, whose `b`, `d`, `c` and `l` are lower case).
pub(crate) fn words(board: Option<u32>, clock: u32, model: ClockModel) -> Option<String> {
    let width = if model == ClockModel::DgtXl { 6 } else { 8 };
    let (prefix, n) = match board {
        Some(b) if b > 0 => ("bd", b),
        _ => ("cl", clock),
    };
    [
        format!("{prefix} {n}"),
        format!("{prefix}{n}"),
        n.to_string(),
    ]
    .into_iter()
    .find(|w| w.len() <= width)
}

impl Session {
    /// Show the board number with a beep for `seconds` (0: [`IDENTIFY_FOR`]) at `now`.
    pub(super) fn identify(&mut self, now: Instant, seconds: u32) -> Result<Reply, DeviceError> {
        let clock = self.cfg.clock;
        let duration = match seconds {
            0 => IDENTIFY_FOR,
            s => Duration::from_secs(u64::from(s)),
        };
        if duration > MAX_TEXT {
            return Err(DeviceError::Invalid(format!(
                "identify for {seconds} s: the board number stays on the clock at most {} s, \
                 so that the times come back; identify it again for longer",
                MAX_TEXT.as_secs()
            )));
        }
        let status = self.status();
        if status == Status::Running {
            return Err(DeviceError::NotAllowed(format!(
                "clock {clock}'s game is running: its display shows the players' times; \
                 pause the clock first (`chessclockctl pause {clock}`) or wait until the game \
                 ends"
            )));
        }
        let model = match self.driver.model() {
            Some(model) if self.driver.clock_usable() => model,
            _ => return Err(DeviceError::NotAllowed(self.no_clock_to_show())),
        };
        let board = self.place().map(|(_, board)| board);
        let Some(text) = words(board, clock, model) else {
            return Err(DeviceError::NotAllowed(format!(
                "board {} has too many digits for the clock's display",
                board.unwrap_or(clock)
            )));
        };
        self.show_text(now, &text, duration);
        self.beep(BEEP_MS);
        Ok(Reply::Done)
    }

    /// Why there is no clock to identify the board on, and what to do.
    fn no_clock_to_show(&self) -> String {
        let clock = self.cfg.clock;
        let why = match self.driver.device_state() {
            DeviceState::Disconnected => "its board is not connected: plug it in",
            DeviceState::Opening | DeviceState::Probing => {
                "its board is still being opened: try again in a moment"
            }
            DeviceState::NoClock => {
                "its board reports no clock: cable a DGT 3000 or DGT XL to it and switch it on"
            }
            DeviceState::NotInPcMode => {
                "its clock is not in PC mode: set it to option 25 (DGT 3000) or 23 (DGT XL)"
            }
            DeviceState::Ready | DeviceState::NotResponding => {
                "its clock does not answer: check its cable and batteries"
            }
        };
        format!("clock {clock} cannot show its board number: {why}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_fit_each_display() {
        use ClockModel::{Dgt3000, DgtXl};
        let cases = [
            (Some(137), Dgt3000, Some("bd 137")),
            (Some(137), DgtXl, Some("bd 137")),
            (Some(1000), Dgt3000, Some("bd 1000")),
            (Some(1000), DgtXl, Some("bd1000")),
            (Some(10_000), Dgt3000, Some("bd 10000")),
            (Some(10_000), DgtXl, Some("10000")),
            (Some(1_234_567), DgtXl, None),
            (Some(123_456_789), Dgt3000, None),
            (None, Dgt3000, Some("cl 3")),
            (Some(0), DgtXl, Some("cl 3")),
        ];
        for (board, model, want) in cases {
            let got = words(board, 3, model);
            assert_eq!(got.as_deref(), want, "board {board:?} on {model:?}");
            if model == DgtXl
                && let Some(w) = &got
            {
                assert!(
                    w.chars()
                        .all(|c| chessclock_protocol::clock_text::seven_segment(c).is_some()),
                    "{w} shows on seven segments"
                );
            }
        }
    }
}
