//! After every wake-up: the session's timeout, then what it says (the journal, a record due,
//! bus events, a new game, a dead link, a search, the live file), the writes to the port and
//! the state it publishes. The IO side of what the session decided; it decides nothing.

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
        // The live file the publish found due.
        self.drain_session(now);
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
                SessionOutput::NewGame {
                    control,
                    t_ms,
                    game_id,
                } => self.started_new_game(*control, t_ms, game_id),
                SessionOutput::RecordDue(due) => self.write_record(*due),
                SessionOutput::LinkDead => self.lost(now, "the board stopped answering"),
                SessionOutput::Search(request) => self.search(request),
                SessionOutput::LiveFile {
                    round,
                    board,
                    pgn,
                    replaces,
                } => self.write_live(round, board, pgn, replaces),
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
        tracing::debug!(clock = self.clock, ?ev, "event");
        let _ = self.events.send(ev);
    }

    /// Send the state the session publishes, if it says so.
    fn publish(&mut self, now: Instant) {
        let at = self.at(now);
        let session = &mut self.session;
        self.state_tx
            .send_if_modified(|cur| session.publish(at, cur));
    }

    /// Write the live file the session says is due (off the loop; errors are logged), in
    /// the live folder (the configured one, else `live/` in the state directory).
    fn write_live(&self, round: u32, board: u32, pgn: String, replaces: Option<u32>) {
        let Some(live) = self.options.live_folder() else {
            return;
        };
        let dir = live.join(round_dir(round));
        if let Some(old) = replaces {
            self.live.remove(dir.clone(), game_file(old));
        }
        self.live.update(dir, game_file(board), pgn);
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

/// The live feed's folder of round `round` (LiveChess's and the Broadcaster's layout).
pub(crate) fn round_dir(round: u32) -> String {
    format!("round-{round}")
}

/// The live file of board `board` in its round's folder.
pub(crate) fn game_file(board: u32) -> String {
    format!("game-{board}.pgn")
}
