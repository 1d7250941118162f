//! The game's record's life in the session ([`GameRecordPart`](super::parts::GameRecordPart)):
//! when it starts (the clock's start, at the wall time the caller passes in), the round it
//! was played in, and when it is due ([`SessionOutput::RecordDue`]): the game ended (a
//! result, an observed game's too), a new game replaced one under way, or the clock is
//! detached with its game under way (the [`Note::Detached`] journaled first). The actor only
//! forwards the record to the journal writer, which folds it from the journal.
//!
//! Owns these rules and the game's PGN `Date` (its start's day); no IO, no clock reads.

use super::note::Note;
use super::{RecordDue, Session, SessionOutput};
use crate::link::driver::Instant;
use crate::session::interface::ClockEvent;

impl Session {
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
