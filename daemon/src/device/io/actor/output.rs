//! After every wake-up: the session's timeouts and events (journal, a game's record the
//! session says is due, bus events, a new game, a dead link), the writes to the port, the state the session publishes and
//! the live PGN.
//!
//! Owns the IO side of what the session decided: it must not decide what the clock shows,
//! what an event means or what the published state holds (the session's).

use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::time::Instant;

use super::Actor;

use crate::device::io::persist::{self, Journaled};
use crate::device::io::port::BoardIo;
use chessclock_device::session::SessionOutput;
use chessclock_device::session::interface::ClockEvent;

/// How long a write may take before the port is taken as gone.
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);

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
        self.publish(now);
        self.write_live_pgn(now);
    }

    /// Act on everything the session said since the last call: what the journal keeps goes
    /// to it (the game's record is folded from it).
    pub(super) fn drain_session(&mut self, now: Instant) {
        while let Some(ev) = self.session.poll_output() {
            if let (Some(p), Some(rec)) = (&self.persist, Journaled::of(&ev, persist::wall_ms())) {
                p.append(rec);
            }
            match ev {
                SessionOutput::Clock { event, .. } | SessionOutput::Signal(event) => {
                    self.emit(event)
                }
                SessionOutput::NewGame => self.started_new_game(now),
                SessionOutput::RecordDue(due) => self.write_record(*due),
                SessionOutput::LinkDead => self.lost(now, "the board stopped answering"),
                SessionOutput::Search(request) => self.search(request),
                // Journaled above; in the published notices already (the session logged it).
                SessionOutput::Input { .. }
                | SessionOutput::Board { .. }
                | SessionOutput::Note { .. }
                | SessionOutput::Notice(_) => {}
            }
        }
    }

    /// Hand a search to the worker; its answer wakes the actor.
    fn search(&self, request: chessclock_device::session::SearchRequest) {
        self.searcher.search(request, self.answers_tx.clone());
    }

    pub(super) fn emit(&self, ev: ClockEvent) {
        tracing::debug!(clock = self.session.clock(), ?ev, "event");
        let _ = self.events.send(ev);
    }

    /// Send the state the session publishes, if it says so.
    fn publish(&mut self, now: Instant) {
        let at = self.at(now);
        if self.session.take_pgn_changed() {
            self.pgn_dirty = true;
        }
        let session = &mut self.session;
        self.state_tx
            .send_if_modified(|cur| session.publish(at, cur));
    }

    /// Rewrite the live PGN files if the game changed (off the loop; errors are logged):
    /// `round-R/game-B.pgn` of the clock's place, once the game has players or a move
    /// ([`broadcastable`]: a folder watcher uploads every file, and a game of `?` against `?`
    /// is no game). A board renumbered within the round leaves
    /// no file under its old number (a folder watcher would upload the game twice); the file
    /// of an earlier round stays as it was last written (that round's feed).
    fn write_live_pgn(&mut self, now: Instant) {
        if !std::mem::take(&mut self.pgn_dirty) {
            return;
        }
        let Some(live) = self.live_dir() else {
            return;
        };
        let (round, board) = self
            .session
            .place()
            .unwrap_or((1, self.session.clock().saturating_add(1)));
        let at = (live.join(round_dir(round)), game_file(board));
        // A file written once follows its game (a move taken back stays a game).
        if self.live_at.as_ref() != Some(&at) && !broadcastable(&self.state_tx.borrow()) {
            return;
        }
        if let Some((dir, file)) = self.live_at.take()
            && dir == at.0
            && file != at.1
        {
            self.live.remove(dir, file);
        }
        let text = self.session.pgn(self.at(now));
        self.live.update(at.0.clone(), at.1.clone(), text);
        self.live_at = Some(at);
    }

    /// The live feed's folder: the configured one, else `live/` in the state directory;
    /// `None` for a clock kept in memory only.
    fn live_dir(&self) -> Option<std::path::PathBuf> {
        self.options.live_folder()
    }

    /// Write everything the session has to send; a failed or stuck write is a lost port.
    /// The bytes are handed to the tty and not drained: a tty's `flush` is `tcdrain`, which
    /// would block the device thread, and every board on it, until the line had sent them
    /// (about 1 ms a byte at 9600 baud); the kernel sends them in order anyway.
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
        match tokio::time::timeout(WRITE_TIMEOUT, port.write_all(&pending)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => self.lost(now, &e.to_string()),
            Err(_) => self.lost(now, "write timed out"),
        }
    }
}

/// Whether a clock's game belongs in the live folder: it has a player (a pairing, game
/// information), a move (on the board or a press of the clock) or a result.
fn broadcastable(st: &chessclock_device::session::interface::ClockState) -> bool {
    let named = st
        .game_info
        .iter()
        .any(|(n, v)| (n == "White" || n == "Black") && !v.is_empty() && v != "?");
    named
        || !st.moves_san.is_empty()
        || st.snapshot.moves.white + st.snapshot.moves.black > 0
        || st.snapshot.result.is_some()
}

/// The live feed's folder of round `round` (LiveChess's and the Broadcaster's layout).
pub(crate) fn round_dir(round: u32) -> String {
    format!("round-{round}")
}

/// The live file of board `board` in its round's folder.
pub(crate) fn game_file(board: u32) -> String {
    format!("game-{board}.pgn")
}
