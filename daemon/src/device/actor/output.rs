//! After every wake-up: the session's timeouts and events (journal, record, bus events,
//! notices, a dead link), the writes to the port, the published state and the live PGN.
//!
//! Owns the IO side of what the session decided: it must not decide what the clock shows or
//! what an event means (the session's).

use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::time::Instant;

use super::Actor;
use crate::device::handle::{ClockEvent, ClockState, EngineAt};
use crate::device::persist::{self, GameRecord};
use crate::device::port::BoardIo;
use crate::device::session::SessionEvent;
use crate::monotonic::monotonic_us;

/// How long a write may take before the port is taken as gone.
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);
/// Where live PGN files go, below the state directory.
const LIVE_DIR: &str = "live";

impl<P: BoardIo> Actor<P> {
    pub(super) async fn service(&mut self, now: Instant) {
        if self.reopen_at.is_some_and(|at| at <= now) {
            self.try_reopen(now);
        }
        let at = self.at(now);
        self.session.handle_timeout(at);
        self.drain_session(now);
        self.flush(now).await;
        // A failed write is a lost port; its events (the note) go to the journal.
        self.drain_session(now);
        self.refresh_state(now);
        self.write_live_pgn(now);
    }

    /// Act on everything the session said since the last call.
    pub(super) fn drain_session(&mut self, now: Instant) {
        let mut finished = false;
        while let Some(ev) = self.session.poll_event() {
            match ev {
                SessionEvent::Input { t_ms, input } => {
                    if let Some(p) = &self.persist {
                        p.append(GameRecord::Input {
                            t_ms,
                            wall_ms: persist::wall_ms(),
                            input,
                        });
                    }
                }
                SessionEvent::Note { t_ms, what, record } => {
                    self.record_note(t_ms, &what, record);
                }
                SessionEvent::Clock { t_ms, event } => {
                    if let Some(log) = &mut self.log {
                        log.event(t_ms, persist::wall_ms(), &event);
                        finished |= matches!(event, ClockEvent::Result { .. });
                    }
                    self.emit(event);
                }
                SessionEvent::Notice(notice) => {
                    self.state.notices.push(notice);
                    self.publish = true;
                }
                SessionEvent::LinkDead => self.lost(now, "the board stopped answering"),
            }
        }
        if finished {
            self.write_record(now);
        }
    }

    pub(super) fn emit(&self, ev: ClockEvent) {
        tracing::debug!(clock = self.state.index, ?ev, "event");
        let _ = self.events.send(ev);
    }

    /// Bring the state up to date; publish it if anything besides the ticking times differs
    /// from what was last published.
    pub(super) fn refresh_state(&mut self, now: Instant) {
        let at = self.at(now);
        let changed = std::mem::take(&mut self.publish) | self.session.take_changed();
        if self.session.take_pgn_changed() {
            self.pgn_dirty = true;
            self.state.board = self.session.board_view();
        }
        let info = self.session.device_info();
        if self.state.model != info.model {
            self.state.model.clone_from(&info.model);
        }
        if self.state.firmware != info.firmware {
            self.state.firmware.clone_from(&info.firmware);
        }
        if self.state.board_serial != info.board_serial {
            self.state.board_serial.clone_from(&info.board_serial);
        }
        self.state.device_state = self.session.device_state();
        self.state.mode = self.session.mode();
        self.state.white_side = self.session.white_side();
        let snap = self.session.snapshot(at);
        self.state.game_state = snap.status;
        self.state.snapshot = snap;
        self.state.as_of_us = monotonic_us().saturating_sub(
            u64::try_from(Instant::now().saturating_duration_since(now).as_micros()).unwrap_or(0),
        );
        let state = &self.state;
        let session = &self.session;
        self.state_tx.send_if_modified(|cur| {
            // Times move continuously; publish only when something besides them changed,
            // or the snapshot differs (an event happened). Compared in place: the state
            // (moves, game information) is copied only when it is published, with the engine
            // that lets the bus compute live snapshots without asking this actor.
            let publish = changed || !same_except_time(cur, state);
            if publish {
                cur.clone_from(state);
                cur.engine =
                    EngineAt((!session.observing()).then(|| Arc::new(session.engine().clone())));
            }
            publish
        });
    }

    /// Rewrite the live PGN files if the game changed (off the loop; errors are logged).
    fn write_live_pgn(&mut self, now: Instant) {
        if !std::mem::take(&mut self.pgn_dirty) {
            return;
        }
        let Some(dir) = self.options.state_dir.as_ref().map(|d| d.join(LIVE_DIR)) else {
            return;
        };
        let text = self.session.pgn(self.at(now));
        crate::device::live::update(dir, live_file_name(&self.state.name), text);
    }

    /// Remove the live PGN file of the clock's old name `old`.
    pub(super) fn remove_live_pgn(&self, old: &str) {
        if let Some(dir) = self.options.state_dir.as_ref().map(|d| d.join(LIVE_DIR)) {
            crate::device::live::remove(dir, live_file_name(old));
        }
    }

    /// Write everything the session has to send; a failed or stuck write is a lost port.
    async fn flush(&mut self, now: Instant) {
        let at = self.at(now);
        let mut pending = Vec::new();
        while let Some(bytes) = self.session.poll_transmit(at) {
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

/// The live file of a clock named `name` (`/` and leading dots are not kept).
fn live_file_name(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| if c == '/' || c == '\0' { '_' } else { c })
        .collect();
    format!("{}.pgn", safe.trim_start_matches('.'))
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
