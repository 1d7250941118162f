//! What the board says: handshake answers, clock version, acks, buttons and lever changes; a
//! port that vanished and came back.
//!
//! Owns the reaction to [`Incoming`] messages and to the port's loss; it must not write to
//! the port itself (writes are queued and flushed by the run loop).

use tokio::time::Instant;

use super::Actor;
use super::output::PC_MODE_RECHECK;
use crate::device::handle::{BoardSide, DeviceState};
use crate::device::link::{self, Incoming, Link, Model};
use crate::device::port;
use crate::device::queue::{AckOutcome, Kind};
use crate::engine::{Input, Side, Status};

impl Actor {
    pub(super) fn handle_incoming(&mut self, now: Instant, msg: Incoming) {
        match msg {
            Incoming::BoardVersion { .. } => {
                if self.probe_next.take().is_some() {
                    tracing::info!(clock = self.state.index, "board answered the handshake");
                    self.send_raw(link::board_serial_request());
                    self.queue.push(link::clock_version());
                }
            }
            Incoming::BoardSerial(serial) => {
                self.state.board_serial = serial;
            }
            Incoming::ClockVersion { model, firmware } => {
                // A repeated answer (two version requests crossed) changes nothing.
                let known = self.link.model() == model && self.state.firmware == firmware;
                self.link.set_model(model);
                self.state.model = model.name().to_owned();
                self.state.firmware = firmware;
                self.set_device_state(DeviceState::Ready);
                self.dirty |= !known;
            }
            Incoming::Ack(ack) => self.handle_ack(now, ack),
            Incoming::Button(code) => self.handle_button(now, code),
            Incoming::Report(r) => {
                if r.no_clock {
                    self.set_device_state(DeviceState::NoClock);
                    return;
                }
                if self.link.model() == Model::Unknown
                    && self.probe_next.is_none()
                    && !self.queue.busy()
                {
                    // A clock switched on after the probe: ask it who it is. (During the
                    // probe the handshake's answer asks already.)
                    self.queue.push(link::clock_version());
                }
                if self.state.device_state == DeviceState::NoClock {
                    self.set_device_state(DeviceState::Probing);
                }
                self.handle_lever(now, r.right_high, r.running);
            }
            Incoming::Other => {}
        }
    }

    pub(super) fn handle_ack(&mut self, now: Instant, ack: [u8; 4]) {
        match self.queue.on_ack(now, ack) {
            AckOutcome::Completed(kind) => {
                if kind == Kind::Version
                    && let Some((model, firmware)) = link::clock_version_from_ack(ack)
                {
                    self.handle_incoming(now, Incoming::ClockVersion { model, firmware });
                }
                if kind == Kind::SetAndRun
                    && matches!(
                        self.state.device_state,
                        DeviceState::NotInPcMode | DeviceState::NotResponding
                    )
                {
                    self.set_device_state(DeviceState::Ready);
                    self.pc_mode_recheck = None;
                }
            }
            AckOutcome::Refused(kind) => {
                if kind == Kind::SetAndRun {
                    let option = match self.link.model() {
                        Model::DgtXl => "option 23",
                        _ => "option 25 (DGT XL: option 23)",
                    };
                    tracing::warn!(
                        clock = self.state.index,
                        "the clock refused set-and-run: it is not in PC mode; select {option} on \
                         the clock"
                    );
                    self.set_device_state(DeviceState::NotInPcMode);
                    self.pc_mode_recheck = Some(now + PC_MODE_RECHECK);
                }
            }
            AckOutcome::Duplicate | AckOutcome::Unmatched => {}
        }
    }

    pub(super) fn handle_button(&mut self, now: Instant, code: u8) {
        if code != link::BUTTON_RUN || !self.options.pause_button {
            return;
        }
        let t = self.time(now);
        let input = match self.state.game_state {
            Status::Running => Input::Pause,
            Status::Paused => Input::Resume,
            _ => return,
        };
        if let Err(e) = self.apply(t, input) {
            tracing::debug!(clock = self.state.index, "run button ignored: {e}");
        }
    }

    /// A lever change is a press by the side whose half went down.
    pub(super) fn handle_lever(&mut self, now: Instant, right_high: bool, _running: bool) {
        let previous = self.lever_right_high.replace(right_high);
        let Some(previous) = previous else { return };
        if previous == right_high {
            return;
        }
        // Right half up now: the left player ended a move.
        let pressed_half = if right_high {
            BoardSide::Left
        } else {
            BoardSide::Right
        };
        let side = if pressed_half == self.options.white_side {
            Side::White
        } else {
            Side::Black
        };
        let at = now
            .checked_sub(self.options.transport_latency)
            .unwrap_or(now)
            .max(self.epoch);
        let t = self.time(at);
        if let Err(e) = self.apply(t, Input::Press { side }) {
            tracing::debug!(clock = self.state.index, "lever ignored: {e}");
        }
    }

    pub(super) fn lost(&mut self, now: Instant, why: &str) {
        if self.port.take().is_some() {
            tracing::warn!(
                clock = self.state.index,
                "{} is gone ({why}); the game goes on, reopening every {:?}",
                self.path.display(),
                self.options.reopen_interval
            );
        }
        self.note(now, &format!("disconnected: {why}"));
        self.queue.reset_link();
        self.link = Link::default();
        self.pushed = None;
        self.lever_right_high = None;
        self.state.connected = false;
        self.set_device_state(DeviceState::Disconnected);
        self.reopen_at = Some(now + self.options.reopen_interval);
        self.probe_next = None;
    }

    pub(super) fn try_reopen(&mut self, now: Instant) {
        match port::open_tty(&self.path) {
            Ok(stream) => {
                tracing::info!(clock = self.state.index, "{} is back", self.path.display());
                self.note(now, "reconnected");
                self.port = Some(stream);
                self.last_rx = now;
                self.keepalive_sent = None;
                self.reopen_at = None;
                self.state.connected = true;
                self.set_device_state(DeviceState::Probing);
                self.probe_next = Some(now);
                self.probe_attempts = 0;
                self.dirty = true;
            }
            Err(e) => {
                tracing::debug!(clock = self.state.index, "reopen failed: {e}");
                self.reopen_at = Some(now + self.options.reopen_interval);
            }
        }
    }
}
