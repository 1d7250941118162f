//! [`ClockEvent`]: what happened in a clock's game — a move on the board, a change of the
//! game's state, a press, a flag, a result. The one typed event the daemon signals on
//! D-Bus (strings only there), journals in the game's record ([`crate::LogEvent`]) and
//! counts in its tests.
//!
//! Plain data of engine and board types; its JSON (`{"event": "pressed", ...}`) is the
//! record's. Clients decode the signals into their own forward-compatible form
//! (`chessclock_api::event`).

use chessclock_engine::{FlagReason, GameResult, Press, ResultReason, Side, Status, StatusCause};
use serde::Serialize;

/// Something that happened on a clock.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ClockEvent {
    /// A move was made on the board (or replaced the last one).
    Move {
        /// Half-move number, 1 = White's first.
        ply: u32,
        /// SAN.
        san: String,
        /// UCI.
        uci: String,
        /// The position after it.
        fen: String,
        /// The mover's clock, ms.
        mover_ms: u64,
    },
    /// Game state transition (`reason` `start` begins the record).
    StateChanged {
        /// Previous state.
        old: Status,
        /// New state.
        new: Status,
        /// Why (`start`, `pause`, `flag`, `new_game`, a result's reason, ... on the bus).
        reason: StatusCause,
    },
    /// A valid press ended a turn (the engine's one press event).
    Pressed(Press),
    /// A flag fell.
    Flag {
        /// Whose flag fell.
        side: Side,
        /// Why (spec §1.1 reason code when serialised).
        reason: FlagReason,
    },
    /// The game has a result (possibly provisional).
    Result {
        /// `1-0`, `0-1`, `1/2-1/2` when serialised.
        result: GameResult,
        /// Why (spec §1.1 reason code when serialised).
        reason: ResultReason,
    },
}
