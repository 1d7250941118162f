//! Chess games from a DGT e-board, sans IO: board dumps and field updates in, typed moves and
//! events out; and a PGN writer.
//!
//! - [`Tracker`] reconstructs the game (rules by shakmaty; no move generator of our own);
//!   [`recover`] finds the moves a board's own log (EE_MOVES) saw while no host listened.
//! - [`ClockObserver`] reads per-move clock times from the clock's reports (observe mode).
//! - [`BoardGame`] is the board's game for every caller (the daemon, `chessclockctl
//!   replay`): both combined into a [`GameRecord`] (moves with clocks, result, problems), plus
//!   the game information and what changed.
//! - [`Step`] is one change of the board's game as a journal keeps it: the board game says
//!   each ([`BoardGame::poll_step`]) and folding them rebuilds the game
//!   ([`BoardGame::replay`]).
//! - [`GameLog`] is the record a clock's game leaves: its events, rendered as PGN and JSON.
//! - [`laws`] says what the rules make of the positions: mate, stalemate, repetitions, the
//!   move counts, who can still mate by the material; [`winnable`] who can still mate by
//!   search (the unwinnability solver's seam) and what a flag decides under FIDE's or US
//!   Chess's rules.
//! - [`pairings`] reads a round's pairings (CSV, tags-only PGN, FIDE TRF-16) into boards and
//!   the game information tags they give.
//! - [`pgn`] writes broadcast-grade PGN (the workspace's one PGN writer) and reads PGN tags.
//!
//! Nothing here does IO, spawns tasks or reads a clock; time is passed in. How moves are
//! recognised is written down in `docs/board-game.md`.
#![deny(missing_docs)]

pub mod board_game;
pub mod clock_event;
pub mod event;
pub mod game_log;
pub mod laws;
pub mod observe;
pub mod pairings;
pub mod pgn;
pub mod placement;
pub mod record;
pub mod step;
pub mod tracker;
pub mod winnable;

pub use board_game::{BoardGame, Clocks};
pub use clock_event::ClockEvent;
pub use event::{BoardState, Difference, GameEvent, GameResult, MoveEvent, ResultSignal};
pub use game_log::{GameLog, LogEntry, LogEvent, Rendered, pgn_date};
pub use laws::{Assessment, assess};
pub use observe::{ClockObserver, Half, LeverPress};
pub use placement::RawFields;
pub use record::{GameRecord, PgnClocks, Problem, RecordChange, RecordedMove, START_FEN};
pub use shakmaty;
pub use step::{Step, StepError};
pub use tracker::{
    Correction, CorrectionError, PlayedMove, Recovered, RecoveryError, Tracker, TrackerConfig,
    recover,
};
pub use winnable::{Judgement, Rulebook};
