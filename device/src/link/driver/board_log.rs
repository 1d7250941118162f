//! Reading the board's own move log over the link (DGT_SEND_EE_MOVES `0x49` → EE_MOVES,
//! dgt-protocol §8a): IDLE first, then `0x49`; nothing else is sent while the ~8 s dump
//! arrives (clock commands and the driver's own requests wait), the link is not taken as dead
//! while its bytes keep coming, and afterwards update mode is re-armed with a clock report
//! (a press made during the dump is read from the lever) and a board dump (to cross-check).
//!
//! Owns that exchange only; what the log means is the caller's (the session hands it to the
//! game crate). It must not decode the log, do IO or read a clock.

use std::time::Duration;

use chessclock_protocol::Command;

use super::time::{Instant, Timer};
use super::{Driver, DriverEvent, KEEPALIVE_IDLE, wire};

/// While the log is awaited: this long without a byte and the board is taken as not
/// answering it (the dump is given up; the keep-alive goes on as usual).
pub(crate) const BOARD_LOG_QUIET: Duration = Duration::from_secs(3);

/// The move-log exchange's state on one link.
#[derive(Debug, Default)]
pub(super) struct BoardLog {
    /// `0x49` went out and the log has not come.
    asked: bool,
    /// What the driver had to send meanwhile, in order.
    held: Vec<Vec<u8>>,
    /// A clock command was in flight when the log was asked for: its ack timer starts again.
    ack_pending: bool,
}

impl BoardLog {
    /// Whether the log is awaited (nothing else goes out).
    pub(super) fn awaited(&self) -> bool {
        self.asked
    }

    /// Hold `bytes` until the log is in; false when nothing is awaited (send them now).
    pub(super) fn hold(&mut self, bytes: Vec<u8>) -> Result<(), Vec<u8>> {
        if self.asked {
            self.held.push(bytes);
            Ok(())
        } else {
            Err(bytes)
        }
    }
}

impl Driver {
    /// Ask the board for its move log at `now`; false (nothing sent) when there is no
    /// answered link or the log is awaited already. The answer is a
    /// [`DriverEvent::BoardLog`].
    pub(crate) fn request_board_log(&mut self, now: Instant) -> bool {
        if !self.connected || self.probing || self.board_log.asked {
            return false;
        }
        tracing::info!(
            clock = self.cfg.clock,
            "asking the board for its move log (about 8 s)"
        );
        let mut bytes = Command::Reset.encode();
        bytes.extend(Command::SendEeMoves.encode());
        self.transmit.push_back(bytes);
        self.board_log.asked = true;
        self.board_log.ack_pending = self.timers.is_set(Timer::Ack);
        self.timers.stop(Timer::Ack);
        // The dump after the log asks for the whole board anyway.
        self.timers.stop(Timer::BoardSettle);
        self.keepalive_sent = false;
        self.timers.set(Timer::KeepAlive, now + BOARD_LOG_QUIET);
        true
    }

    /// Bytes arrived at `now`: while the log is awaited, they keep the link alive.
    pub(super) fn board_log_bytes(&mut self, now: Instant) {
        if self.board_log.asked {
            self.timers.set(Timer::KeepAlive, now + BOARD_LOG_QUIET);
        }
    }

    /// The board's log arrived at `now`. An unrequested one (dgt-protocol §7) is drained.
    pub(super) fn board_log_arrived(&mut self, now: Instant, payload: Vec<u8>) {
        if !self.board_log.asked {
            tracing::debug!(
                clock = self.cfg.clock,
                bytes = payload.len(),
                "an unrequested move log from the board, dropped"
            );
            return;
        }
        tracing::info!(
            clock = self.cfg.clock,
            bytes = payload.len(),
            "the board's move log is in"
        );
        self.end_board_log(now);
        self.events.push_back(DriverEvent::BoardLog(Some(payload)));
    }

    /// The keep-alive timer fired at `now`: while the log is awaited that means no byte for
    /// [`BOARD_LOG_QUIET`]; the log is given up (true) and the link goes on.
    pub(super) fn board_log_silent(&mut self, now: Instant) -> bool {
        if !self.board_log.asked {
            return false;
        }
        tracing::warn!(
            clock = self.cfg.clock,
            "the board did not send (all of) its move log"
        );
        self.end_board_log(now);
        self.timers.set(Timer::KeepAlive, now + KEEPALIVE_IDLE);
        self.events.push_back(DriverEvent::BoardLog(None));
        true
    }

    /// Update mode again, the clock's lever and the whole board, then what was held.
    fn end_board_log(&mut self, now: Instant) {
        self.board_log.asked = false;
        let mut rearm = Command::SendUpdateNice.encode();
        rearm.extend(wire::clock_report_request());
        rearm.extend(wire::board_dump_request());
        self.transmit.push_back(rearm);
        self.transmit.extend(self.board_log.held.drain(..));
        if std::mem::take(&mut self.board_log.ack_pending) && self.queue.busy() {
            self.timers.set(Timer::Ack, now + self.cfg.command_timeout);
        }
    }
}
