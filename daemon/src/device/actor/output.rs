//! After every wake-up: timeouts, engine events, what the clock must show (times, then
//! announcements), the published state, and the writes to the port.
//!
//! Owns everything the actor sends out: set-and-run pushes, text, the bus state and events.

use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::time::Instant;

use super::{Actor, MAX_ANNOUNCEMENTS, clock_event, same_except_time};
use crate::device::announce;
use crate::device::display::{Face, Pushed, face, predicted};
use crate::device::handle::{ClockEvent, DeviceState};
use crate::device::queue::TimeoutOutcome;
use crate::device::{link, persist};
use crate::engine::Event;
use crate::monotonic::monotonic_us;

/// How long a write may take before the port is taken as gone.
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);
/// Board probe: resend the handshake this often until the board answers.
const PROBE_INTERVAL: Duration = Duration::from_secs(2);
/// After this much silence from a probed board, ask it for its serial number (PicoChess's
/// keep-alive, dgt-protocol §7.6).
const KEEPALIVE_IDLE: Duration = Duration::from_secs(3);
/// A board that stays silent this long after a keep-alive is taken as gone (a link that died
/// without EOF, e.g. Bluetooth out of range): closed and reopened like an unplugged one.
const KEEPALIVE_DEAD: Duration = Duration::from_secs(6);
/// While the clock refuses set-and-run (not in PC mode), check again this often.
pub(super) const PC_MODE_RECHECK: Duration = Duration::from_secs(5);

impl Actor {
    pub(super) async fn service(&mut self, now: Instant) {
        let t = self.time(now);
        self.engine.handle_timeout(t);
        self.drain_events(now);
        if self.reopen_at.is_some_and(|at| at <= now) {
            self.try_reopen(now);
        }
        self.keep_alive(now);
        if self.probe_next.is_some_and(|at| at <= now) && self.port.is_some() {
            self.probe_attempts += 1;
            if self.probe_attempts > 1 {
                tracing::debug!(
                    clock = self.state.index,
                    "board handshake, attempt {}",
                    self.probe_attempts
                );
            }
            self.send_raw(link::handshake());
            self.probe_next = Some(now + PROBE_INTERVAL);
        }
        if let Some(outcome) = self.queue.poll_timeout(now) {
            match outcome {
                TimeoutOutcome::Resend(bytes) => self.send_raw(bytes),
                TimeoutOutcome::GaveUp(kind) => {
                    tracing::warn!(
                        clock = self.state.index,
                        "the clock did not acknowledge {kind:?} after {} tries",
                        self.options.command_retries + 1
                    );
                    if self.state.device_state != DeviceState::NoClock {
                        self.set_device_state(DeviceState::NotResponding);
                    }
                }
            }
        }
        if self.pc_mode_recheck.is_some_and(|at| at <= now) {
            self.pc_mode_recheck = Some(now + PC_MODE_RECHECK);
            self.dirty = true;
        }
        if self.text_until.is_some_and(|at| at <= now) {
            self.text_until = None;
            self.queue.push(link::end());
            self.dirty = true;
        }
        let changed = self.dirty;
        self.update_display(now);
        self.show_announcement(now);
        if let Some(bytes) = self.queue.poll_send(now) {
            self.send_raw(bytes);
        }
        self.flush().await;
        self.refresh_state(now, changed);
    }

    /// When the keep-alive check is next due (only for a probed board on an open port).
    pub(super) fn keepalive_deadline(&self) -> Option<Instant> {
        if self.port.is_none() || self.probe_next.is_some() {
            return None;
        }
        Some(match self.keepalive_sent {
            Some(sent) => sent + KEEPALIVE_DEAD,
            None => self.last_rx + KEEPALIVE_IDLE,
        })
    }

    /// Ask a silent board whether it is still there; give it up if it does not answer.
    pub(super) fn keep_alive(&mut self, now: Instant) {
        let Some(due) = self.keepalive_deadline() else {
            return;
        };
        if now < due {
            return;
        }
        if self.keepalive_sent.is_some() {
            self.lost(now, "the board stopped answering");
        } else {
            self.send_raw(link::board_serial_request());
            self.keepalive_sent = Some(now);
        }
    }

    pub(super) fn update_display(&mut self, now: Instant) {
        if !self.clock_usable() && self.state.device_state != DeviceState::NotInPcMode {
            return;
        }
        if self.text_until.is_some() {
            return;
        }
        let t = self.time(now);
        let d = self.engine.display(t);
        let wanted = face(d.white_s, d.black_s, d.counting, self.options.white_side);
        let resync_due = self.resync_at.is_some_and(|at| at <= now);
        let differs = self
            .pushed
            .as_ref()
            .is_none_or(|p| predicted(p, now) != wanted);
        if !(self.dirty || resync_due || differs) {
            return;
        }
        self.push_face(now, wanted, d.ms_to_next_second);
    }

    pub(super) fn push_face(&mut self, now: Instant, wanted: Face, ms_to_next_second: Option<u64>) {
        self.queue.push(link::set_and_run(wanted));
        self.pushed = Some(Pushed {
            face: wanted,
            at: now,
        });
        self.dirty = false;
        // The device starts its own second now; the engine's next whole second may be sooner.
        // Push once more at that instant so both tick together.
        self.resync_at = match ms_to_next_second {
            Some(ms) if ms > 0 && ms < 1000 && self.resync_at.is_none_or(|at| at <= now) => {
                Some(now + Duration::from_millis(ms))
            }
            _ => None,
        };
    }

    /// Show the latest game event as text, after the times it changed have been pushed (the
    /// device keeps counting behind the text); the times come back after
    /// [`announce::SHOW_FOR`].
    pub(super) fn show_announcement(&mut self, now: Instant) {
        if !self.clock_usable() {
            self.announcements.clear();
            return;
        }
        if self.text_until.is_some() {
            return;
        }
        let Some(a) = self.announcements.pop_front() else {
            return;
        };
        if a.beep {
            self.queue.push(link::beep(1000));
        }
        self.queue
            .push(link::text(self.link.model(), &a.text, false));
        self.text_until = Some(now + announce::SHOW_FOR);
    }

    pub(super) fn drain_events(&mut self, now: Instant) {
        let (t_ms, wall_ms) = (self.time(now).as_ms(), persist::wall_ms());
        let mut finished = false;
        while let Some(ev) = self.engine.poll_event() {
            self.dirty = true;
            if let Some(a) = announce::announce(&ev, self.link.model()) {
                // Keep the latest few; a backlog of stale news helps nobody.
                if self.announcements.len() == MAX_ANNOUNCEMENTS {
                    self.announcements.pop_front();
                }
                self.announcements.push_back(a);
            }
            if let Event::Flag { side, reason } = &ev {
                self.journal_note(t_ms, wall_ms, &format!("flag {} {reason}", side.as_str()));
            }
            let Some(ev) = clock_event(ev) else { continue };
            if let Some(log) = &mut self.log {
                log.event(t_ms, wall_ms, &ev);
                finished |= matches!(ev, ClockEvent::Result { .. });
            }
            self.emit(ev);
        }
        if finished {
            self.write_record(now);
        }
    }

    pub(super) fn emit(&self, ev: ClockEvent) {
        tracing::debug!(clock = self.state.index, ?ev, "event");
        let _ = self.events.send(ev);
    }

    pub(super) fn set_device_state(&mut self, s: DeviceState) {
        if self.state.device_state != s {
            tracing::info!(
                clock = self.state.index,
                "device state {} -> {}",
                self.state.device_state.as_str(),
                s.as_str()
            );
            self.state.device_state = s;
            if s == DeviceState::Ready {
                self.dirty = true;
            }
        }
    }

    /// Recompute the state; publish it if `changed` or anything besides the ticking times
    /// differs from what was last published.
    pub(super) fn refresh_state(&mut self, now: Instant, changed: bool) {
        let snap = self.engine.snapshot(self.time(now));
        self.state.game_state = snap.status;
        self.state.snapshot = snap;
        self.state.as_of_us = monotonic_us().saturating_sub(
            u64::try_from(Instant::now().saturating_duration_since(now).as_micros()).unwrap_or(0),
        );
        let state = self.state.clone();
        self.state_tx.send_if_modified(|cur| {
            // Times move continuously; publish only when something besides them changed,
            // or the snapshot differs (an event happened).
            let publish = changed || !same_except_time(cur, &state);
            if publish {
                *cur = state;
            }
            publish
        });
    }

    // ---- writing -------------------------------------------------------------------------

    pub(super) fn send_raw(&mut self, bytes: Vec<u8>) {
        self.link.queue_write(bytes);
    }

    pub(super) async fn flush(&mut self) {
        let Some(port) = self.port.as_mut() else {
            self.link.clear_writes();
            return;
        };
        let pending = self.link.take_writes();
        if pending.is_empty() {
            return;
        }
        let write = async {
            port.write_all(&pending).await?;
            port.flush().await
        };
        match tokio::time::timeout(WRITE_TIMEOUT, write).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => self.lost(Instant::now(), &e.to_string()),
            Err(_) => self.lost(Instant::now(), "write timed out"),
        }
    }
}
