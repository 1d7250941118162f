//! The life of the game's record: its start, the round it was played in, and when it is
//! due. Only the timing of the record; writing it is `record.rs`'s.

use chessclock_game::GameLog;

use crate::session::interface::ClockEvent;
use crate::session::record::GameIds;

/// The life of the game's record: when it started, the round it was played in, and whether
/// it is due. Invariant: a record starts only with the wall time passed in (a clock that
/// keeps no record is given none), `played_round` is the clock's round at that start, and a
/// result makes the record due once.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct GameRecordPart {
    /// Wall time (Unix ms) of the latest wake-up, passed in by a caller that keeps the
    /// game's record (a journaled clock); `None`: no record is kept.
    wall_ms: Option<u64>,
    /// When the game's clock started (wall time, its PGN `Date`).
    started_wall_ms: Option<u64>,
    /// The round the game was played in: the clock's round when its record started (a
    /// roll-over moves the clock on before the last game's record is written).
    played_round: Option<u32>,
    /// The game ended (a result, an observed game's too): its record is due once the
    /// events said with the result are out.
    ended: bool,
    /// The game's id (its PGN `GameId`) and how the next is made (`record.rs`).
    ids: GameIds,
}

impl GameRecordPart {
    /// Wall time (Unix ms) of the wake-up about to be handled; `None`: no record is kept.
    pub(crate) fn set_wall_ms(&mut self, wall_ms: Option<u64>) {
        self.wall_ms = wall_ms;
    }

    /// When the game's clock started (wall time), if it did.
    pub(crate) fn started_wall_ms(&self) -> Option<u64> {
        self.started_wall_ms
    }

    /// The game's ids.
    pub(crate) fn ids(&self) -> &GameIds {
        &self.ids
    }

    pub(crate) fn ids_mut(&mut self) -> &mut GameIds {
        &mut self.ids
    }

    /// The round the game was played in, if its record started.
    pub(crate) fn played_round(&self) -> Option<u32> {
        self.played_round
    }

    /// A bus event was said while the clock was in `round`: a start begins the record (at
    /// the wake-up's wall time), a result makes it due. Whether the start's date changed.
    pub(crate) fn said(&mut self, event: &ClockEvent, round: Option<u32>) -> bool {
        let Some(wall_ms) = self.wall_ms else {
            return false;
        };
        self.ended |= matches!(event, ClockEvent::Result { .. });
        if self.started_wall_ms.is_some() || !GameLog::starts(event) {
            return false;
        }
        self.started_wall_ms = Some(wall_ms);
        self.played_round = round;
        true
    }

    /// A game resumed from the journal, started at `started_wall_ms` in `round`.
    pub(crate) fn resume(&mut self, started_wall_ms: u64, round: Option<u32>) {
        self.started_wall_ms = Some(started_wall_ms);
        self.played_round = round;
    }

    /// A new game: the last one's record is done; the next starts with its clock.
    pub(crate) fn clear(&mut self) {
        self.started_wall_ms = None;
        self.played_round = None;
    }

    /// Whether the ended game's record is due now (once).
    pub(crate) fn take_ended(&mut self) -> bool {
        std::mem::take(&mut self.ended)
    }
}

#[cfg(test)]
mod tests {
    use super::GameRecordPart;
    use crate::session::interface::ClockEvent;
    use chessclock_engine::{GameResult, ResultReason, Status, StatusCause};

    #[test]
    fn the_record_starts_with_the_clock_in_its_round_and_a_result_makes_it_due_once() {
        let start = ClockEvent::StateChanged {
            old: Status::Ready,
            new: Status::Running,
            reason: StatusCause::Start,
        };
        let result = ClockEvent::Result {
            result: GameResult::Draw,
            reason: ResultReason::Board,
        };
        let mut record = GameRecordPart::default();
        assert!(
            !record.said(&start, Some(1)),
            "no wall time: no record kept"
        );
        assert!(!record.said(&result, Some(1)));
        assert!(!record.take_ended());
        record.wall_ms = Some(5);
        assert!(record.said(&start, Some(1)), "the start's date");
        record.wall_ms = Some(9);
        assert!(!record.said(&start, Some(2)), "started once");
        assert_eq!(
            (record.started_wall_ms, record.played_round),
            (Some(5), Some(1))
        );
        record.said(&result, Some(2));
        assert!(record.take_ended());
        assert!(!record.take_ended(), "due once");
        record.clear();
        assert_eq!((record.started_wall_ms, record.played_round), (None, None));
    }
}
