//! The game's record (architecture §7) is the `game` crate's
//! [`GameLog`](chessclock_game::GameLog); this module owns only turning the daemon's
//! [`ClockEvent`]s into the record's typed events, so the actor hands its events over as they
//! are (`log.event(t_ms, wall_ms, &event)`). It must not render or write anything.

use chessclock_game::LogEvent;

use super::handle::ClockEvent;

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
