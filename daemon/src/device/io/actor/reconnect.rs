//! A port that vanished (EOF, an IO error, a failed write, a link the session found dead)
//! and its reopening every `reopen_interval`.
//!
//! Owns the port's loss and return; the game goes on in the session meanwhile. It must not
//! decode bytes or keep link timers (the driver's).

use tokio::time::Instant;

use super::Actor;
use crate::device::io::port::BoardIo;
use chessclock_device::session::ShellEvent;

impl<P: BoardIo> Actor<P> {
    pub(super) fn lost(&mut self, now: Instant, why: &str) {
        if self.port.take().is_some() {
            tracing::warn!(
                clock = self.clock,
                "{} is gone ({why}); the game goes on, reopening every {:?}",
                self.label,
                self.options.reopen_interval
            );
        }
        let at = self.at(now);
        self.session
            .handle_event(at, ShellEvent::PortLost(why.to_owned()));
        self.reopen_at = Some(now + self.options.reopen_interval);
    }

    pub(super) fn try_reopen(&mut self, now: Instant) {
        match (self.open)() {
            Ok(stream) => {
                tracing::info!(clock = self.clock, "{} is back", self.label);
                self.port = Some(stream);
                self.reopen_at = None;
                let at = self.at(now);
                self.session.handle_event(at, ShellEvent::PortBack);
            }
            Err(e) => {
                tracing::debug!(clock = self.clock, "reopen failed: {e}");
                self.reopen_at = Some(now + self.options.reopen_interval);
            }
        }
    }
}
