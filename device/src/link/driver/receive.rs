//! What the board says: bytes decoded and filtered, then the handshake's answer, the clock's
//! version, acks, buttons, reports and lever changes.
//!
//! Owns the driver's reaction to received messages; it must not write (bytes to send go to
//! the driver's transmit queue) and takes `now` from the caller.

use chessclock_protocol::{ClockAck, ClockModel, Decoded, quirks};

use super::queue::{AckOutcome, Kind};
use super::time::{Instant, Timer};
use super::wire::{self, Incoming};
use super::{Driver, DriverEvent, KEEPALIVE_IDLE, PC_MODE_RECHECK};
use crate::link::display::BoardSide;
use crate::link::state::DeviceState;

impl Driver {
    /// Bytes arrived from the port at `now` (the time they were read: lever presses in them
    /// are stamped with it). Ignored while the port is not connected.
    pub(crate) fn handle_input(&mut self, now: Instant, bytes: &[u8]) {
        if !self.connected || bytes.is_empty() {
            return;
        }
        self.board_log_bytes(now);
        self.decoder.push(bytes);
        while let Some(item) = self.decoder.next() {
            if let Ok(Decoded::Message(_)) = &item {
                // A whole message proves the link alive; bytes alone do not (a board
                // flooding garbage is as dead as a silent one).
                self.keepalive_sent = false;
                if !self.probing {
                    self.timers.set(Timer::KeepAlive, now + KEEPALIVE_IDLE);
                }
            }
            match item {
                Ok(Decoded::Message(m)) if quirks::is_ignorable(&m) => {}
                Ok(Decoded::Message(m)) => self.on_message(now, wire::classify(m)),
                Ok(Decoded::Dropped(d)) => self.garbage.dropped(self.cfg.clock, now, d.count),
                Err(e) => tracing::debug!(clock = self.cfg.clock, "bad frame from the board: {e}"),
            }
        }
    }

    fn on_message(&mut self, now: Instant, msg: Incoming) {
        match msg {
            Incoming::BoardVersion => {
                if self.probing {
                    tracing::info!(clock = self.cfg.clock, "board answered the handshake");
                    self.probing = false;
                    self.timers.stop(Timer::Probe);
                    self.timers.set(Timer::KeepAlive, now + KEEPALIVE_IDLE);
                    // The clock as it stands, before the first set-and-run: the board reports
                    // only changes, and a press made while nobody listened (the daemon down,
                    // the board unplugged) must be judged before the display is set.
                    self.send(wire::clock_report_request());
                    self.send(wire::board_serial_request());
                    self.send(wire::board_dump_request());
                    self.queue.push(wire::version_request());
                }
            }
            Incoming::BoardSerial(serial) => {
                if serial != self.board_serial {
                    self.board_serial.clone_from(&serial);
                    self.events.push_back(DriverEvent::BoardSerial(serial));
                }
            }
            Incoming::Ack(ack) => self.on_ack(now, &ack),
            Incoming::Button(button) => self.events.push_back(DriverEvent::Button(button)),
            Incoming::Report {
                right_high,
                no_clock,
                report,
            } => {
                if no_clock {
                    self.set_state(DeviceState::NoClock);
                    return;
                }
                if self.device_state == DeviceState::NoClock {
                    self.set_state(DeviceState::Probing);
                }
                // The clock said who it is before the board said where its lever is: this
                // report makes it ready, after the report itself (a press made while nobody
                // listened is read before the first set-and-run).
                let lever_awaited = self.lever_wait != super::LeverWait::No;
                if lever_awaited {
                    self.lever_wait = super::LeverWait::No;
                    self.timers.stop(Timer::LeverWait);
                }
                // A clock switched on after the probe, or on again after it was off: ask it
                // who it is, until it says. (During the board's probe the handshake's answer
                // asks already.)
                let unidentified =
                    self.model.is_none() || self.device_state == DeviceState::Probing;
                if unidentified && !lever_awaited && !self.probing && !self.queue.busy() {
                    self.queue.push(wire::version_request());
                }
                // The report first: a lever change in it is read against its times.
                self.events
                    .push_back(DriverEvent::ClockReport { report, at: now });
                // This wake-up compares the display as the device tick would: the tick waits
                // for the second after the one this report came with (or before).
                self.schedule_device_tick(now + super::DEVICE_TICK_SLACK);
                self.on_lever(now, right_high);
                if lever_awaited {
                    self.set_state(DeviceState::Ready);
                }
            }
            Incoming::Board(message) => {
                if matches!(message, chessclock_protocol::Message::FieldUpdate { .. }) {
                    // Ask for the whole board once the pieces stand still (a lost update
                    // must not leave the game behind the board).
                    self.timers
                        .set(Timer::BoardSettle, now + super::BOARD_SETTLE);
                }
                self.events
                    .push_back(DriverEvent::Board { message, at: now });
            }
            Incoming::BoardLog(payload) => self.board_log_arrived(now, payload),
            Incoming::Other => {}
        }
    }

    fn on_ack(&mut self, now: Instant, ack: &ClockAck) {
        if self.duplicates.is_duplicate(ack, now.as_ms()) {
            tracing::debug!(clock = self.cfg.clock, ?ack, "duplicate ack dropped");
            return;
        }
        match self.queue.on_ack(ack) {
            AckOutcome::Completed(kind) => {
                self.timers.stop(Timer::Ack);
                if kind == Kind::Version
                    && let Some((model, firmware)) = wire::clock_version(ack)
                {
                    self.identified(now, model, firmware);
                }
                if kind == Kind::SetAndRun
                    && matches!(
                        self.device_state,
                        DeviceState::NotInPcMode | DeviceState::NotResponding
                    )
                {
                    self.timers.stop(Timer::PcModeRecheck);
                    self.set_state(DeviceState::Ready);
                }
                self.events.push_back(DriverEvent::Acked(kind));
            }
            AckOutcome::Refused(Kind::Icons) => {
                self.timers.stop(Timer::Ack);
                self.icons_refused = true;
                tracing::info!(
                    clock = self.cfg.clock,
                    "the clock refused the flag icons; none are sent to it"
                );
                self.events.push_back(DriverEvent::Refused(Kind::Icons));
            }
            AckOutcome::Refused(kind) => {
                self.timers.stop(Timer::Ack);
                if kind == Kind::SetAndRun {
                    let option = match self.model {
                        Some(ClockModel::DgtXl) => "option 23",
                        _ => "option 25 (DGT XL: option 23)",
                    };
                    tracing::warn!(
                        clock = self.cfg.clock,
                        "the clock refused set-and-run: it is not in PC mode; select {option} on \
                         the clock"
                    );
                    self.set_state(DeviceState::NotInPcMode);
                    self.timers.set(Timer::PcModeRecheck, now + PC_MODE_RECHECK);
                }
                self.events.push_back(DriverEvent::Refused(kind));
            }
            AckOutcome::Unmatched => {
                tracing::debug!(
                    clock = self.cfg.clock,
                    ?ack,
                    "ack matches nothing in flight"
                );
            }
        }
    }

    /// The clock said who it is at `now`: it is ready, once the board has reported where
    /// its lever is on this link. The first set-and-run must run the half of the player to
    /// move, and a press made while nobody listened (the daemon down, the board unplugged)
    /// is known only from a report; the one the handshake's answer asked for (`0x41`)
    /// usually comes first, but a clock may answer sooner than its board, and a Bluetooth
    /// board may answer the request with an old ack. Without a report the clock waits
    /// [`super::LEVER_WAIT`], is asked again, and after as long again is ready anyway.
    fn identified(&mut self, now: Instant, model: ClockModel, firmware: String) {
        // A repeated answer (two version requests crossed) changes nothing.
        let changed = self.model != Some(model) || self.firmware != firmware;
        self.model = Some(model);
        self.firmware.clone_from(&firmware);
        // A clock switched on again lost its icons: send them afresh.
        self.icons = None;
        if self.lever_right_high.is_none() && self.device_state != DeviceState::Ready {
            if self.lever_wait == super::LeverWait::No {
                self.lever_wait = super::LeverWait::First;
                self.timers.set(Timer::LeverWait, now + super::LEVER_WAIT);
            }
        } else {
            self.set_state(DeviceState::Ready);
        }
        self.events.push_back(DriverEvent::ClockIdentified {
            model,
            firmware,
            changed,
        });
    }

    /// A lever change is a press by the player whose half went down.
    fn on_lever(&mut self, now: Instant, right_high: bool) {
        let previous = self.lever_right_high.replace(right_high);
        if previous.is_none_or(|p| p == right_high) {
            return;
        }
        // Right end up now: the left player ended a move.
        let half = if right_high {
            BoardSide::Left
        } else {
            BoardSide::Right
        };
        let at = now.saturating_sub(self.cfg.transport_latency);
        self.events.push_back(DriverEvent::Lever { half, at });
    }
}

/// Garbage (bytes that were no message) the board sent, counted for the log: a warning once
/// [`GARBAGE_WARN_BYTES`] have piled up, at most one per [`GARBAGE_WARN_EVERY_MS`], with the
/// count; a stray corrupted byte is only a debug line.
#[derive(Debug, Default)]
pub(super) struct Garbage {
    since_warning: u64,
    warned_at: Option<Instant>,
}

const GARBAGE_WARN_BYTES: u64 = 256;
const GARBAGE_WARN_EVERY_MS: u64 = 10_000;

impl Garbage {
    pub(super) fn dropped(&mut self, clock: u32, now: Instant, count: usize) {
        tracing::debug!(clock, count, "dropped garbage");
        self.since_warning = self.since_warning.saturating_add(count as u64);
        let recent = self
            .warned_at
            .is_some_and(|t| now.as_ms() < t.as_ms() + GARBAGE_WARN_EVERY_MS);
        if self.since_warning < GARBAGE_WARN_BYTES || recent {
            return;
        }
        tracing::warn!(
            clock,
            "the board sent {} bytes that are not DGT messages (dropped); check its cable and \
             the board: noise like this comes from a wrong line speed or a faulty board",
            self.since_warning
        );
        self.since_warning = 0;
        self.warned_at = Some(now);
    }
}
