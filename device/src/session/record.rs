//! The game's record's life in the session ([`GameRecordPart`](super::parts::GameRecordPart)):
//! when it starts (the clock's start, at the wall time the caller passes in), the round it
//! was played in, and when it is due ([`SessionOutput::RecordDue`]): the game ended (a
//! result, an observed game's too), a new game replaced one under way, or the clock is
//! detached with its game under way (the [`Note::Detached`] journaled first). The actor only
//! forwards the record to the journal writer, which folds it from the journal.
//!
//! Owns these rules, the game's PGN `Date` (its start's day) and its `GameId`
//! ([`GameIds`]); no IO, no clock reads.

use super::note::Note;
use super::{RecordDue, Session, SessionOutput};
use crate::link::driver::Instant;
use crate::session::interface::ClockEvent;

/// The game's id, its PGN `GameId` (docs/relay.md): the same for one game from its first
/// move to its record, whatever its tags become (players renamed or swapped, a substitute,
/// the board renumbered, corrections) and across restarts (the journal's start keeps it);
/// another for the next game on the board. The journal's start holds `base`, given by the IO
/// layer; a new game on the pieces while the journal goes on (the board's game count past
/// `games_at`) is told apart by a number of its own, made from `base` alone, so a restart
/// (which replays the board's steps) gives the same. Later journals' ids are made from `seed`
/// (random, given by the IO layer) and a count, without reading a clock.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct GameIds {
    /// The id the journal's start keeps.
    base: String,
    /// The board's game count that `base` is the id of (the games after it are new games).
    games_at: u32,
    /// Where later bases come from.
    seed: u64,
    /// Bases made from `seed` so far.
    made: u64,
}

/// A 64-bit mix (splitmix64's finaliser).
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Session {
    /// The game's id is `base` (its journal's start keeps it); the next games' are made from
    /// `seed`. Before the board's steps are replayed (`resume_board`).
    pub(crate) fn set_game_id(&mut self, base: String, seed: u64) {
        *self.record.ids_mut() = GameIds {
            base,
            games_at: self.board_games(),
            seed,
            made: 0,
        };
    }

    /// The id the journal's start keeps for the current game ([`SessionOutput::NewGame`]).
    pub(crate) fn journal_game_id(&self) -> &str {
        &self.record.ids().base
    }

    /// The game's id now (its `GameId` tag).
    pub(crate) fn game_id(&self) -> String {
        let ids = self.record.ids();
        match self.board_games().saturating_sub(ids.games_at) {
            0 | 1 => ids.base.clone(),
            n => {
                let mut x: u64 = 0xcbf2_9ce4_8422_2325;
                for b in ids.base.bytes() {
                    x = (x ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
                }
                format!("{:016x}", mix(x ^ u64::from(n)))
            }
        }
    }

    /// The board's games so far, as a replay of the journal's steps counts them: the steps
    /// that rebuild a game under way start with its `NewGame`.
    fn board_games(&self) -> u32 {
        self.board.game().games()
    }

    /// A new journal starts ([`SessionOutput::NewGame`]): a game that had begun (its clock
    /// started, a move made, a result) is followed by a new id; one that had not keeps it,
    /// so that a broadcast never sees an empty game change its id. The board's game that
    /// goes on is the first of the new journal's steps.
    pub(super) fn renew_game_id(&mut self, begun: bool) {
        let going_on = u32::from(self.board.game().tracker().position().is_some());
        let games_at = self.board_games().saturating_sub(going_on);
        let ids = self.record.ids_mut();
        if begun || ids.base.is_empty() {
            ids.made += 1;
            ids.base = format!("{:016x}", mix(ids.seed ^ mix(ids.made)));
        }
        ids.games_at = games_at;
    }

    /// Wall time (Unix ms) at the wake-up about to be handled, for the game's record; `None`
    /// for a clock that keeps no record (not journaled).
    pub(crate) fn set_wall_ms(&mut self, wall_ms: Option<u64>) {
        self.record.set_wall_ms(wall_ms);
    }

    /// A game resumed from the journal, whose record started at `started_wall_ms` in the
    /// clock's round.
    pub(crate) fn resume_record(&mut self, started_wall_ms: u64) {
        self.record
            .resume(started_wall_ms, self.place().map(|(round, _)| round));
        self.set_date(Some(chessclock_game::pgn_date(started_wall_ms)));
    }

    /// Say the bus event `event` at engine time `t_ms` (the game's record notes its start
    /// and its result).
    pub(super) fn say(&mut self, t_ms: u64, event: ClockEvent) {
        let round = self.place().map(|(round, _)| round);
        if self.record.said(&event, round) {
            let date = self.record.started_wall_ms().map(chessclock_game::pgn_date);
            self.set_date(date);
        }
        self.outputs.push_back(SessionOutput::Clock { t_ms, event });
    }

    /// Whether the game's record has started and the game has no result yet.
    pub(super) fn under_way(&self, now: Instant) -> bool {
        self.record.started_wall_ms().is_some() && self.snapshot(now).result.is_none()
    }

    /// The game's record as it stands at `now`.
    pub(super) fn record_due(&self, now: Instant, under_way_only: bool) -> SessionOutput {
        SessionOutput::RecordDue(Box::new(RecordDue {
            name: self.name().to_owned(),
            port: self.cfg.port.clone(),
            snapshot: self.snapshot(now),
            board: self.has_board_moves().then(|| self.pgn_game(now)),
            info: self.pgn_info(),
            round: self
                .record
                .played_round()
                .or_else(|| self.place().map(|(round, _)| round)),
            under_way_only,
        }))
    }

    /// A new game: the last game's record is done, the next starts with its clock.
    pub(super) fn clear_record(&mut self) {
        self.record.clear();
        self.set_date(None);
    }

    /// The clock is detached at `now`: a game under way is noted so and its record is due
    /// as it stands.
    pub(crate) fn detach(&mut self, now: Instant) {
        self.time.advance(now);
        if !self.under_way(now) {
            return;
        }
        tracing::warn!(
            clock = self.cfg.clock,
            "clock {} is detached with its game under way: the game is written to games/ as \
             it stood",
            self.cfg.clock
        );
        self.note(now, Note::Detached, true);
        let due = self.record_due(now, true);
        self.outputs.push_back(due);
    }
}
