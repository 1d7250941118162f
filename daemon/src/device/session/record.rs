//! The game's record (architecture §7) is the `game` crate's
//! [`GameLog`](chessclock_game::GameLog); this module owns only turning the daemon's
//! [`ClockEvent`]s into the record's typed events, so the actor hands its events over as they
//! are (`log.event(t_ms, wall_ms, &event)`). It must not render or write anything.

use chessclock_game::LogEvent;

use crate::device::session::command::ClockEvent;

impl From<&ClockEvent> for LogEvent {
    fn from(ev: &ClockEvent) -> LogEvent {
        match ev.clone() {
            ClockEvent::Move {
                ply,
                san,
                uci,
                fen,
                mover_ms,
            } => LogEvent::Move {
                ply,
                san,
                uci,
                fen,
                mover_ms,
            },
            ClockEvent::StateChanged { old, new, reason } => {
                LogEvent::StateChanged { old, new, reason }
            }
            ClockEvent::Pressed {
                side,
                move_number,
                move_ms,
                white_ms,
                black_ms,
            } => LogEvent::Pressed {
                side,
                move_number,
                move_ms,
                white_ms,
                black_ms,
            },
            ClockEvent::Flag { side, reason } => LogEvent::Flag { side, reason },
            ClockEvent::Result { result, reason } => LogEvent::Result { result, reason },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{FlagReason, GameResult, ResultReason, Side};
    use crate::store;

    /// The record's events are written as the bus's events were: the same JSON, variant for
    /// variant.
    #[test]
    fn a_clock_event_and_its_record_event_have_the_same_json() {
        let events = [
            ClockEvent::Move {
                ply: 1,
                san: "e4".into(),
                uci: "e2e4".into(),
                fen: "8/8/8/8/8/8/8/8 b - - 0 1".into(),
                mover_ms: 299_000,
            },
            ClockEvent::StateChanged {
                old: crate::engine::Status::Ready,
                new: crate::engine::Status::Running,
                reason: crate::engine::StatusCause::Start,
            },
            ClockEvent::Pressed {
                side: Side::Black,
                move_number: 3,
                move_ms: 1500,
                white_ms: 290_000,
                black_ms: 280_000,
            },
            ClockEvent::Flag {
                side: Side::White,
                reason: FlagReason::Time,
            },
            ClockEvent::Result {
                result: GameResult::BlackWins,
                reason: ResultReason::Flag(FlagReason::Time),
            },
        ];
        for ev in events {
            let clock = store::to_json(&ev).expect("clock event");
            let record = store::to_json(&LogEvent::from(&ev)).expect("record event");
            assert_eq!(record, clock);
        }
    }
}
