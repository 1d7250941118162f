//! What the driver reports about the board (lever presses, buttons, the clock's identity and
//! state, a dead link), and a port that vanished and came back.
//!
//! Owns the game's reaction to [`DriverEvent`]s and the port's loss and reopening; it must
//! not decode bytes or keep link timers (that is the driver's) nor write to the port (writes
//! are flushed by the run loop).

use chessclock_protocol::Button;
use tokio::time::Instant;

use super::Actor;
use crate::device::display::side_on;
use crate::device::driver::DriverEvent;
use crate::device::persist;
use crate::device::port::BoardIo;
use crate::engine::{Input, Status};

impl<P: BoardIo> Actor<P> {
    /// Act on everything the driver reported since the last call.
    pub(super) fn drain_driver(&mut self, now: Instant) {
        while let Some(ev) = self.driver.poll_event() {
            match ev {
                DriverEvent::Lever { half, at } if self.observing() => {
                    let side = side_on(half, self.options.white_side);
                    self.observed_press(side, at);
                }
                DriverEvent::ClockReport { report, at } => {
                    if self.observing() {
                        self.observed.on_report(report, at);
                    }
                }
                DriverEvent::Lever { half, at } => {
                    let side = side_on(half, self.options.white_side);
                    let t = self.time_at(at);
                    let press = self.press_input(side);
                    if let Err(e) = self.apply(t, press) {
                        tracing::debug!(clock = self.state.index, "lever ignored: {e}");
                    }
                }
                DriverEvent::Button(button) => self.handle_button(now, button),
                DriverEvent::Board { message, at } => self.on_board_message(at, &message),
                DriverEvent::BoardSerial(serial) => self.board_identified(now, serial),
                DriverEvent::ClockIdentified {
                    model,
                    firmware,
                    changed,
                } => {
                    self.state.model = model.to_string();
                    self.state.firmware = firmware;
                    if changed {
                        self.state_changed();
                    }
                }
                DriverEvent::DeviceState { new, .. } => self.state.device_state = new,
                DriverEvent::RefreshDisplay => self.refresh = true,
                DriverEvent::LinkDead => self.lost(now, "the board stopped answering"),
                DriverEvent::Acked(_) | DriverEvent::Refused(_) | DriverEvent::GaveUp(_) => {}
            }
        }
    }

    /// Observe mode: `side` pressed at `at`; its move gets the clock's time.
    fn observed_press(&mut self, side: crate::engine::Side, at: crate::device::driver::Instant) {
        let white_side = self.options.white_side;
        let Some(p) = self.observed.on_lever(side, at, white_side) else {
            return;
        };
        let remaining = if side == crate::engine::Side::White {
            p.white_ms
        } else {
            p.black_ms
        };
        self.board_press(side, remaining, p.move_ms);
        self.emit(crate::device::handle::ClockEvent::Pressed {
            side,
            move_number: p.move_number,
            move_ms: p.move_ms,
            white_ms: p.white_ms,
            black_ms: p.black_ms,
        });
        self.publish = true;
    }

    fn handle_button(&mut self, now: Instant, button: Button) {
        if button != Button::Run || !self.options.pause_button || self.observing() {
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

    /// The board on the port said its serial number. The journal records it with the game;
    /// a game under way that was played on another board goes on, but the operator is told
    /// (in the log and in `notices`): it may be another game, which only they can tell.
    fn board_identified(&mut self, now: Instant, serial: String) {
        if self.state.board_serial != serial {
            self.state.board_serial.clone_from(&serial);
            self.publish = true;
        }
        if serial.is_empty() || self.journal_serial.as_deref() == Some(serial.as_str()) {
            return;
        }
        if let Some(before) = self.journal_serial.as_deref()
            && self.state.game_state != Status::Ready
        {
            let notice = format!(
                "board {serial} is on {}, but this game was played on board {before}: the game \
                 goes on; if this is another game, end it and start anew (`chessclockctl \
                 new-game {}`)",
                self.state.port, self.state.index
            );
            tracing::warn!(clock = self.state.index, "{notice}");
            self.state.notices.push(notice);
            self.publish = true;
        }
        self.journal_serial = Some(serial.clone());
        let (t_ms, wall_ms) = (self.time(now).as_ms(), persist::wall_ms());
        self.journal_note(t_ms, wall_ms, &persist::board_serial_note(&serial));
    }

    pub(super) fn lost(&mut self, now: Instant, why: &str) {
        if self.port.take().is_some() {
            tracing::warn!(
                clock = self.state.index,
                "{} is gone ({why}); the game goes on, reopening every {:?}",
                self.state.port,
                self.options.reopen_interval
            );
        }
        self.note(now, &format!("disconnected: {why}"));
        self.driver.disconnect();
        self.state.connected = false;
        self.state.device_state = self.driver.device_state();
        self.reopen_at = Some(now + self.options.reopen_interval);
    }

    pub(super) fn try_reopen(&mut self, now: Instant) {
        match (self.open)() {
            Ok(stream) => {
                tracing::info!(clock = self.state.index, "{} is back", self.state.port);
                self.note(now, "reconnected");
                self.port = Some(stream);
                self.reopen_at = None;
                self.state.connected = true;
                self.driver.connect(self.at(now));
                self.state.device_state = self.driver.device_state();
                self.state_changed();
            }
            Err(e) => {
                tracing::debug!(clock = self.state.index, "reopen failed: {e}");
                self.reopen_at = Some(now + self.options.reopen_interval);
            }
        }
    }
}
