//! A port that vanished (EOF, an IO error, a failed write, a link the session found dead)
//! and its reopening every `reopen_interval`.
//!
//! Owns the port's loss and return; the game goes on in the session meanwhile. It must not
//! decode bytes or keep link timers (the driver's).

use tokio::time::Instant;

use super::Actor;
use crate::device::io::port::BoardIo;

impl<P: BoardIo> Actor<P> {
    pub(super) fn lost(&mut self, now: Instant, why: &str) {
        if self.port.take().is_some() {
            tracing::warn!(
                clock = self.session.clock(),
                "{} is gone ({why}); the game goes on, reopening every {:?}",
                self.session.port(),
                self.options.reopen_interval
            );
        }
        let at = self.at(now);
        self.session.disconnect(at, why);
        self.reopen_at = Some(now + self.options.reopen_interval);
    }

    pub(super) fn try_reopen(&mut self, now: Instant) {
        match (self.open)() {
            Ok(stream) => {
                tracing::info!(
                    clock = self.session.clock(),
                    "{} is back",
                    self.session.port()
                );
                self.port = Some(stream);
                self.reopen_at = None;
                let at = self.at(now);
                self.session.connect(at);
            }
            Err(e) => {
                tracing::debug!(clock = self.session.clock(), "reopen failed: {e}");
                self.reopen_at = Some(now + self.options.reopen_interval);
            }
        }
    }
}
