//! After every wake-up: timeouts, engine events, what the clock must show (times, then
//! announcements), the published state, and the writes to the port.
//!
//! Owns what the actor asks the driver to show (times via set-and-run, announcement text),
//! the bus state and events, and the writes of what the driver polls out.

use std::time::Duration;

use chessclock_protocol::ClockModel;
use tokio::io::AsyncWriteExt;
use tokio::time::Instant;

use super::{Actor, MAX_ANNOUNCEMENTS};
use crate::device::announce;
use crate::device::display::face;
use std::sync::Arc;

use crate::device::handle::{BoardSide, ClockEvent, ClockState, DeviceState, EngineAt};
use crate::device::persist;
use crate::device::port::BoardIo;
use crate::engine::Event;
use crate::monotonic::monotonic_us;

/// How long a write may take before the port is taken as gone.
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);

impl<P: BoardIo> Actor<P> {
    pub(super) async fn service(&mut self, now: Instant) {
        let t = self.time(now);
        self.engine.handle_timeout(t);
        self.drain_events(now);
        if self.reopen_at.is_some_and(|at| at <= now) {
            self.try_reopen(now);
        }
        self.driver.handle_timeout(self.at(now));
        self.drain_driver(now);
        self.board_timeout(now);
        // Events of what the driver's news did (a lever press): one push below for all.
        self.drain_events(now);
        let changed = std::mem::take(&mut self.publish);
        self.update_display(now);
        self.show_announcement(now);
        self.flush(now).await;
        // A failed write reports the loss through the driver.
        self.drain_driver(now);
        self.refresh_state(now, changed);
        self.write_live_pgn(now);
    }

    pub(super) fn update_display(&mut self, now: Instant) {
        if self.observing() {
            return;
        }
        if !self.driver.clock_usable() && self.driver.device_state() != DeviceState::NotInPcMode {
            return;
        }
        let at = self.at(now);
        if self.driver.text_showing() {
            // The game comes first: a change of the game (a press, a flag, a start, an
            // arbiter's correction) ends any text, an operator's included, and its times go
            // out now. A mere re-sync waits for the text's end (the clock counts behind it).
            if !self.dirty {
                return;
            }
            self.driver.end_text();
        }
        let t = self.time(now);
        let d = self.engine.display(t);
        let wanted = face(d.white_s, d.black_s, d.counting, self.options.white_side);
        let differs = self.driver.shows(at).is_none_or(|shown| shown != wanted);
        if !(self.dirty || self.refresh || differs) {
            return;
        }
        self.driver.push_times(at, wanted, d.ms_to_next_second);
        self.dirty = false;
        self.refresh = false;
        let (left, right) = self.flag_icons(now);
        self.driver.flag_icons(left, right);
    }

    /// The lasting mark of a double-flag player on extra time ("cannot win", spec
    /// timecontrols §4.10 display): the flag icon of that player's half, (left, right). It
    /// stays on through the second flag and goes out when the arbiter gives main time back
    /// or a new game starts.
    fn flag_icons(&self, now: Instant) -> (bool, bool) {
        use crate::engine::{MethodDetail, Side};
        let snap = self.engine.snapshot(self.time(now));
        let extra = |side: Side| {
            matches!(
                snap.detail.get(side).method,
                MethodDetail::DoubleFlag {
                    extra_ms: Some(_),
                    ..
                }
            )
        };
        let white = extra(Side::White);
        let black = extra(Side::Black);
        match self.options.white_side {
            BoardSide::Left => (white, black),
            BoardSide::Right => (black, white),
        }
    }

    /// Show the latest game event as text, after the times it changed have been pushed (the
    /// device keeps counting behind the text); the times come back after
    /// [`announce::SHOW_FOR`].
    pub(super) fn show_announcement(&mut self, now: Instant) {
        if !self.driver.clock_usable() || self.observing() {
            self.announcements.clear();
            return;
        }
        if self.driver.text_showing() {
            return;
        }
        let Some(a) = self.announcements.pop_front() else {
            return;
        };
        if a.beep {
            self.driver.beep(1000);
        }
        self.driver
            .show_text(self.at(now), &a.text, announce::SHOW_FOR);
    }

    pub(super) fn drain_events(&mut self, now: Instant) {
        let (t_ms, wall_ms) = (self.time(now).as_ms(), persist::wall_ms());
        let mut finished = false;
        while let Some(ev) = self.engine.poll_event() {
            self.state_changed();
            if let Some(a) =
                announce::announce(&ev, self.driver.model().unwrap_or(ClockModel::Dgt3000))
            {
                // Keep the latest few; a backlog of stale news helps nobody.
                if self.announcements.len() == MAX_ANNOUNCEMENTS {
                    self.announcements.pop_front();
                }
                self.announcements.push_back(a);
            }
            if let Event::Pressed {
                side,
                move_ms,
                white_ms,
                black_ms,
                ..
            } = &ev
            {
                let remaining = if *side == crate::engine::Side::White {
                    *white_ms
                } else {
                    *black_ms
                };
                self.board_press(*side, remaining, *move_ms);
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
            self.pgn_dirty = true;
        }
    }

    pub(super) fn emit(&self, ev: ClockEvent) {
        tracing::debug!(clock = self.state.index, ?ev, "event");
        let _ = self.events.send(ev);
    }

    /// Recompute the state; publish it if `changed` or anything besides the ticking times
    /// differs from what was last published.
    pub(super) fn refresh_state(&mut self, now: Instant, changed: bool) {
        let snap = self.snapshot(now);
        self.state.game_state = snap.status;
        self.state.snapshot = snap;
        self.state.as_of_us = monotonic_us().saturating_sub(
            u64::try_from(Instant::now().saturating_duration_since(now).as_micros()).unwrap_or(0),
        );
        let state = &self.state;
        let (engine, observing) = (&self.engine, self.observing());
        self.state_tx.send_if_modified(|cur| {
            // Times move continuously; publish only when something besides them changed,
            // or the snapshot differs (an event happened). Compared in place: the state
            // (moves, game information) is copied only when it is published, with the engine
            // that lets the bus compute live snapshots without asking this actor.
            let publish = changed || !same_except_time(cur, state);
            if publish {
                cur.clone_from(state);
                cur.engine = EngineAt((!observing).then(|| Arc::new(engine.clone())));
            }
            publish
        });
    }

    // ---- writing -------------------------------------------------------------------------

    /// Write everything the driver has to send; a failed or stuck write is a lost port.
    pub(super) async fn flush(&mut self, now: Instant) {
        let at = self.at(now);
        let mut pending = Vec::new();
        while let Some(bytes) = self.driver.poll_transmit(at) {
            pending.extend_from_slice(&bytes);
        }
        let Some(port) = self.port.as_mut() else {
            return;
        };
        if pending.is_empty() {
            return;
        }
        let write = async {
            port.write_all(&pending).await?;
            port.flush().await
        };
        match tokio::time::timeout(WRITE_TIMEOUT, write).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => self.lost(now, &e.to_string()),
            Err(_) => self.lost(now, "write timed out"),
        }
    }
}

impl<P: BoardIo> Actor<P> {
    /// The snapshot at `now`: the engine's, or in observe mode the clock's values over it.
    pub(super) fn snapshot(&self, now: Instant) -> crate::engine::Snapshot {
        let mut snap = self.engine.snapshot(self.time(now));
        if self.observing() {
            self.observed.overlay(&mut snap, self.options.white_side);
        }
        snap
    }
}

/// Whether two states differ only in the running clock's elapsed time: the snapshot's
/// values that tick (ms counts, texts, detail fields) are ignored, everything else compared.
fn same_except_time(a: &ClockState, b: &ClockState) -> bool {
    a.index == b.index
        && a.name == b.name
        && a.port == b.port
        && a.model == b.model
        && a.firmware == b.firmware
        && a.board_serial == b.board_serial
        && a.connected == b.connected
        && a.device_state == b.device_state
        && a.game_state == b.game_state
        && a.time_control == b.time_control
        && a.white_side == b.white_side
        && a.board == b.board
        && a.mode == b.mode
        && a.notices == b.notices
        && a.snapshot.same_except_time(&b.snapshot)
}

/// The bus event for an engine event; phase changes are shown on the clock and in the
/// snapshot, not signalled.
pub(super) fn clock_event(ev: Event) -> Option<ClockEvent> {
    Some(match ev {
        Event::StatusChanged { old, new, reason } => ClockEvent::StateChanged {
            old: old.to_string(),
            new: new.to_string(),
            reason: reason.to_string(),
        },
        Event::Pressed {
            side,
            move_number,
            move_ms,
            white_ms,
            black_ms,
        } => ClockEvent::Pressed {
            side,
            move_number,
            move_ms,
            white_ms,
            black_ms,
        },
        Event::Flag { side, reason } => ClockEvent::Flag { side, reason },
        Event::Result { result, reason } => ClockEvent::Result { result, reason },
        Event::PhaseChanged { .. } => return None,
    })
}
