//! What the caller asks the clock to show: the times (set-and-run, with the re-sync at the
//! engine's next second), text (capped at [`MAX_TEXT`], ended early by the game), the flag
//! icons (best effort) and beeps, and what the device is predicted to show meanwhile.
//!
//! Part of the pure [`Driver`]: it queues clock commands and arms timers, never writes or
//! reads a clock; observe mode sends nothing from here.

use std::time::Duration;

use super::time::{Instant, Timer};
use super::{Driver, MAX_TEXT, wire};
use crate::link::display::{Face, Pushed, next_device_tick, predicted};

/// How long after the engine's whole second a push may come and still count as on it: the
/// device's seconds then fall at most this much after the engine's.
pub(crate) const RESYNC_TOLERANCE_MS: u64 = 50;

impl Driver {
    /// Text is on the display (until its timer ends it).
    pub(crate) fn text_showing(&self) -> bool {
        self.timers.is_set(Timer::TextUntil)
    }

    /// What the device shows at `now` by its own countdown since the last push (`None`:
    /// nothing pushed on this link yet).
    pub(crate) fn shows(&self, now: Instant) -> Option<Face> {
        self.pushed.as_ref().map(|p| predicted(p, now))
    }

    /// Set the clock's times and running half. `ms_to_next_second`: how far the engine is
    /// from its next whole second; the push is repeated then so the device ticks in phase.
    pub(crate) fn push_times(&mut self, now: Instant, face: Face, ms_to_next_second: Option<u64>) {
        if self.observe {
            return;
        }
        self.queue.push(wire::set_and_run(face));
        self.pushed = Some(Pushed { face, at: now });
        self.schedule_device_tick(now);
        // The device starts its own second with this push; the engine's next whole second may
        // be sooner: push again then, so that the device's seconds fall on the engine's. The
        // latest push decides (a second push at the same instant used to cancel the re-sync
        // the first had set, leaving Fischer and double-flag clocks a second high). A push
        // just after the engine's second (a re-sync woken a little late) is taken as on it:
        // re-syncing it would come as late and arm another, a push a second until the next
        // press.
        match ms_to_next_second {
            Some(ms) if ms > 0 && ms < 1000 - RESYNC_TOLERANCE_MS => {
                self.timers
                    .set(Timer::Resync, now + Duration::from_millis(ms));
            }
            _ => self.timers.stop(Timer::Resync),
        }
    }

    /// Wake [`DEVICE_TICK_SLACK`] after the device's first own second after `from` (none
    /// while its display stands still).
    pub(super) fn schedule_device_tick(&mut self, from: Instant) {
        match self.pushed.as_ref().and_then(|p| next_device_tick(p, from)) {
            Some(at) => self
                .timers
                .set(Timer::DeviceTick, at + super::DEVICE_TICK_SLACK),
            None => self.timers.stop(Timer::DeviceTick),
        }
    }

    /// Show `text` (cut to the model's display) for `duration`, at most [`MAX_TEXT`]; the
    /// times come back after, or sooner by [`Driver::end_text`].
    pub(crate) fn show_text(&mut self, now: Instant, text: &str, duration: Duration) {
        if self.observe {
            return;
        }
        self.queue.push(wire::text(self.model, text));
        self.timers
            .set(Timer::TextUntil, now + duration.min(MAX_TEXT));
    }

    /// End the text now (the game comes first: a press, a flag, a start...): text not sent
    /// yet is dropped, the text timer stops, and END goes out after any set-and-run already
    /// queued, so the display leaves the text for the times it was just given. Nothing to do
    /// when no text is showing or queued.
    pub(crate) fn end_text(&mut self) {
        let queued = self.queue.drop_text();
        if !self.timers.is_set(Timer::TextUntil) && !queued {
            return;
        }
        self.timers.stop(Timer::TextUntil);
        self.queue.push(wire::end());
    }

    /// Light the flag icon of the left and/or right half (a double-flag player on extra time:
    /// "cannot win"), or put it out. Sent only when it differs from what this link last sent;
    /// the icons are kept across set-and-runs. Best effort: a clock that refuses ICONS or
    /// does not acknowledge them (the DGT 3000's support is unverified) is sent no more on
    /// this link, and its state does not change.
    pub(crate) fn flag_icons(&mut self, left: bool, right: bool) {
        if self.observe || self.icons_refused || self.icons == Some((left, right)) {
            return;
        }
        self.queue.push(wire::flag_icons(left, right));
        self.icons = Some((left, right));
    }

    /// Whether the clock did not take the flag icons on this link.
    #[cfg(test)]
    pub(crate) fn icons_refused(&self) -> bool {
        self.icons_refused
    }

    /// Beep for about `ms` milliseconds.
    pub(crate) fn beep(&mut self, ms: u32) {
        if self.observe {
            return;
        }
        self.queue.push(wire::beep(ms));
    }
}
