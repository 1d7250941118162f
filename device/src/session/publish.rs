//! The published state ([`ClockState`]) of the session: built from the game, the link and
//! the clock's facts the session keeps (name, control, notices, connection), and published
//! only when something besides the running times changed.
//!
//! Part of the pure [`Session`]: it builds and compares the state; sending it (the watch
//! channel) is the actor's. The state's `as_of_us` is the session's time line moved onto
//! CLOCK_MONOTONIC by the config's `epoch_us`: no clock is read here.

use std::sync::Arc;

use super::{Session, SessionConfig, SessionOutput};
use crate::link::driver::Instant;
use crate::link::state::DeviceState;
use crate::session::interface::{ClockState, EngineAt, PublishedClock};
use chessclock_engine::{BoardClaim, Engine, Status, Time, notation};

/// The state of a session not yet connected, on `engine` at engine time `offset_ms` (a
/// resumed game is published as it is from the first state on, not as `ready`).
pub(super) fn first_state(cfg: &SessionConfig, engine: &Engine, offset_ms: u64) -> ClockState {
    let snapshot = engine.snapshot(Time::from_ms(offset_ms));
    ClockState {
        clock: PublishedClock {
            index: cfg.clock,
            name: cfg.name.clone(),
            port: cfg.port.clone(),
            device_state: DeviceState::Disconnected,
            game_state: snapshot.status,
            time_control: notation::canonical(engine.control()),
            white_side: cfg.white_side,
            mode: cfg.mode,
            ..PublishedClock::default()
        },
        snapshot,
        as_of_us: cfg.epoch_us,
        engine: EngineAt(None),
    }
}

impl Session {
    /// The clock's name.
    pub fn name(&self) -> &str {
        &self.published.state().name
    }

    /// The port's label.
    pub fn port(&self) -> &str {
        &self.cfg.port
    }

    /// The clock's index.
    pub fn clock(&self) -> u32 {
        self.cfg.clock
    }

    /// Tell the operator `notice` about this game (the problems of a resumed game).
    pub(crate) fn add_notice(&mut self, notice: String) {
        self.published.notice(notice);
    }

    /// The state at `now`, with the engine (drive mode) for live snapshots.
    pub fn published(&mut self, now: Instant) -> ClockState {
        self.update_state(now);
        let mut state = self.published.state().clone();
        state.engine = self.engine_at();
        state
    }

    /// Write the state at `now` over `cur` (the last published) if anything besides the
    /// running times differs, or something changed since the last call (an event happened);
    /// whether it did. Compared in place: the state (moves, game information) is copied only
    /// when it is published, with the engine that lets the bus compute live snapshots
    /// without asking the actor.
    /// The live file, if due, follows as a [`SessionOutput::LiveFile`].
    pub fn publish(&mut self, now: Instant, cur: &mut ClockState) -> bool {
        if self.board.take_pgn_changed() {
            self.live.changed();
        }
        let changed = self.published.take_changed();
        self.update_state(now);
        let publish = changed || !same_except_time(cur, self.published.state());
        if publish {
            cur.clone_from(self.published.state());
            cur.engine = self.engine_at();
        }
        self.live_file(now);
        publish
    }

    /// The live PGN file, if the game's PGN changed: `round-R/game-B.pgn` of the clock's
    /// place, once the game has players or a move ([`broadcastable`]: a folder watcher
    /// uploads every file, and a game of `?` against `?` is no game); a file written once
    /// follows its game. The file of an earlier round stays as it was last written.
    fn live_file(&mut self, now: Instant) {
        if !self.cfg.live || !self.live.take_due() {
            return;
        }
        let Some(at) = self.place() else {
            return;
        };
        if !self.live.written_at(at) && !broadcastable(self.published.state()) {
            return;
        }
        let replaces = self.live.write_at(at);
        let pgn = self.pgn(now);
        self.outputs.push_back(SessionOutput::LiveFile {
            round: at.0,
            board: at.1,
            pgn,
            replaces,
        });
    }

    /// A resumed game's live file is written again at once (after a reboot the feed's
    /// tmpfs is empty); a new one's waits for its first move or its players.
    pub(super) fn live_file_due(&mut self, due: bool) {
        let _ = self.board.take_pgn_changed();
        if due {
            self.live.changed();
        }
    }

    fn engine_at(&self) -> EngineAt {
        EngineAt((!self.observing()).then(|| Arc::new(self.engine.clone())))
    }

    /// Bring the kept state up to `now`.
    fn update_state(&mut self, now: Instant) {
        if self.board.take_stale() {
            self.set_board_fields();
            let claimable = self.claimable_now();
            self.board.set_claimable(claimable);
        }
        self.published.sync_info();
        self.published.state_mut().board = self.board.place().map_or(0, |(_, board)| board);
        self.published.state_mut().device_state = self.device_state();
        self.published.state_mut().mode = self.mode();
        self.published.state_mut().white_side = self.white_side();
        let snap = self.snapshot(now);
        let open = matches!(snap.status, Status::Running | Status::Paused);
        let claimable: &[BoardClaim] = if open { self.board.claimable() } else { &[] };
        if self.published.state().draw_claimable != claimable {
            self.published.state_mut().draw_claimable = claimable.to_vec();
        }
        self.published.state_mut().game_state = snap.status;
        self.published.state_mut().snapshot = snap;
        let since_epoch_us = u64::try_from(now.since_epoch().as_micros()).unwrap_or(u64::MAX);
        self.published.state_mut().as_of_us = self.cfg.epoch_us.saturating_add(since_epoch_us);
    }
}

/// Whether a clock's game belongs in the live folder: it has a player (a pairing, game
/// information), a move (on the board or a press of the clock) or a result.
fn broadcastable(st: &ClockState) -> bool {
    let named = st
        .game_info
        .iter()
        .any(|(n, v)| (n == "White" || n == "Black") && !v.is_empty() && v != "?");
    named
        || !st.moves_san.is_empty()
        || st.snapshot.moves.white + st.snapshot.moves.black > 0
        || st.snapshot.result.is_some()
}

/// Whether two states differ only in the running clock's elapsed time: the snapshot's
/// values that tick (ms counts, texts, detail fields) are ignored, everything else compared.
fn same_except_time(a: &ClockState, b: &ClockState) -> bool {
    a.clock == b.clock && a.snapshot.same_except_time(&b.snapshot)
}
