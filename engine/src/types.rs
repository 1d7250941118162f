//! The engine's public value types: time, sides, results, statuses, inputs, events, display
//! (outcomes and refusals live in `outcome.rs` and `refusal.rs`, re-exported here).
//!
//! Plain data; no behaviour beyond parsing and printing.

use serde::{Deserialize, Serialize};

use crate::params::TimeControl;

pub use super::outcome::{
    FlagReason, FlagRecord, PerSide, Phase, ResultReason, SidePhase, StatusCause,
};
pub use super::refusal::{AdjustField, InputError};
pub use super::verdict::{BoardClaim, BoardEnd, PendingClaim, Ruling};

/// Milliseconds since an epoch the caller chooses (the vectors' `t_ms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(u64);

impl Time {
    /// The epoch.
    pub const ZERO: Time = Time(0);

    /// `ms` after the epoch.
    pub fn from_ms(ms: u64) -> Time {
        Time(ms)
    }

    /// Milliseconds after the epoch.
    pub fn as_ms(self) -> u64 {
        self.0
    }

    pub(crate) fn plus(self, ms: u64) -> Time {
        Time(self.0.saturating_add(ms))
    }

    pub(crate) fn since(self, earlier: Time) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

/// A player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// White.
    White,
    /// Black.
    Black,
}

impl Side {
    /// The opponent.
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// `white` or `black`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }

    pub(crate) fn idx(self) -> usize {
        match self {
            Side::White => 0,
            Side::Black => 1,
        }
    }

    pub(crate) const BOTH: [Side; 2] = [Side::White, Side::Black];

    /// The spellings [`str::parse`] accepts, in the order of [`Side::BOTH`].
    pub const NAMES: [&'static str; 2] = ["white", "black"];
}

impl std::str::FromStr for Side {
    type Err = crate::words::WordError;

    /// `white` or `black`, exactly.
    fn from_str(s: &str) -> Result<Side, Self::Err> {
        crate::words::parse_word(s, "a side", &Side::NAMES, &Side::BOTH)
    }
}

impl AdjustOp {
    /// The spellings [`str::parse`] accepts.
    pub const NAMES: [&'static str; 2] = ["set", "add"];
}

impl std::str::FromStr for AdjustOp {
    type Err = crate::words::WordError;

    /// `set` or `add`, exactly.
    fn from_str(s: &str) -> Result<AdjustOp, Self::Err> {
        crate::words::parse_word(
            s,
            "an adjust operation",
            &AdjustOp::NAMES,
            &[AdjustOp::Set, AdjustOp::Add],
        )
    }
}

/// Set or add, for arbiter adjustments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AdjustOp {
    /// Replace the value.
    Set,
    /// Add to the value (may be negative).
    Add,
}

/// A game result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    /// 1-0.
    #[serde(rename = "1-0")]
    WhiteWins,
    /// 0-1.
    #[serde(rename = "0-1")]
    BlackWins,
    /// 1/2-1/2.
    #[serde(rename = "1/2-1/2")]
    Draw,
}

impl GameResult {
    /// The spellings [`str::parse`] accepts (and [`Display`](std::fmt::Display) writes).
    pub const NAMES: [&'static str; 3] = ["1-0", "0-1", "1/2-1/2"];

    /// The side that wins, if any.
    pub fn winner(self) -> Option<Side> {
        match self {
            GameResult::WhiteWins => Some(Side::White),
            GameResult::BlackWins => Some(Side::Black),
            GameResult::Draw => None,
        }
    }

    /// The PGN token (also what [`Display`](std::fmt::Display) writes): `1-0`, `0-1` or
    /// `1/2-1/2`.
    pub fn pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    pub(crate) fn win_for(side: Side) -> GameResult {
        match side {
            Side::White => GameResult::WhiteWins,
            Side::Black => GameResult::BlackWins,
        }
    }
}

impl std::str::FromStr for GameResult {
    type Err = crate::words::WordError;

    /// `1-0`, `0-1` or `1/2-1/2`, exactly.
    fn from_str(s: &str) -> Result<GameResult, Self::Err> {
        crate::words::parse_word(
            s,
            "a result",
            &GameResult::NAMES,
            &[
                GameResult::WhiteWins,
                GameResult::BlackWins,
                GameResult::Draw,
            ],
        )
    }
}

impl std::fmt::Display for GameResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.pgn())
    }
}

/// The game's status (spec §1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Set up, not started.
    #[default]
    Ready,
    /// A clock runs.
    Running,
    /// Paused mid-turn.
    Paused,
    /// Stopped by a time event.
    Flagged,
    /// Ended by a result (rule, claim or board).
    Ended,
}

impl Status {
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ready => "ready",
            Status::Running => "running",
            Status::Paused => "paused",
            Status::Flagged => "flagged",
            Status::Ended => "ended",
        }
    }
}

display_as_str!(Status);

/// What happens to a game. Serialisable (the daemon journals inputs to replay a game).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Input {
    /// Start `side`'s clock (not a move).
    Start {
        /// Side to move first.
        side: Side,
    },
    /// `side` ends its turn.
    Press {
        /// The presser.
        side: Side,
    },
    /// `side` ends its turn, which completed its move `move_number` as the e-board counts
    /// them: the move counter (and a multi-period control's transitions) follow the board's
    /// moves, not the presses (a press without a move, or a move without a press, does not
    /// shift the count).
    PressMove {
        /// The presser.
        side: Side,
        /// The presser's move number on the board (1 = its first move).
        move_number: u32,
    },
    /// Stop the running clock, keeping the turn's elapsed time.
    Pause,
    /// Continue the same turn.
    Resume,
    /// Arbiter change of a detail field while paused / ready / flagged.
    Adjust {
        /// Whose value.
        side: Side,
        /// The detail field.
        field: AdjustField,
        /// Set or add.
        op: AdjustOp,
        /// Amount in ms.
        ms: i64,
    },
    /// Arbiter correction of a press counter.
    SetMoves {
        /// Whose counter.
        side: Side,
        /// New value.
        moves: u32,
    },
    /// Double-flag draw claim.
    ClaimDraw {
        /// The claimant.
        side: Side,
    },
    /// The game ended on the board.
    BoardResult {
        /// The result on the board.
        result: GameResult,
    },
    /// Replace the method for the rest of the game, keeping times and counters.
    Reconfigure {
        /// The new control.
        control: Box<TimeControl>,
    },
    /// The game ended on the board (a mate, a stalemate, the result signal, fivefold
    /// repetition, 75 moves), read at this instant.
    BoardEnd {
        /// How.
        end: BoardEnd,
    },
    /// Which sides win if the opponent's flag falls in the board's position now (FIDE 6.9:
    /// the side can still checkmate by some series of legal moves; USCF 14E under US Chess
    /// rules), both until told otherwise. A flag against a side that would not win is a
    /// draw. `None`: the verdict on this position is not known yet (a search runs): a flag
    /// then waits for it, status `flagged` without a result, and the next input that tells
    /// the side decides it. Journals before the verdict could be pending say `true`/`false`.
    MatingMaterial {
        /// White wins on Black's flag.
        #[serde(default)]
        white: Option<bool>,
        /// Black wins on White's flag.
        #[serde(default)]
        black: Option<bool>,
    },
    /// A threefold or fifty-move claim by `side`, judged from the board's history.
    BoardClaim {
        /// The claimant.
        side: Side,
        /// What is claimed.
        claim: BoardClaim,
        /// Whether the board's history bears it out.
        valid: bool,
    },
    /// USCF 14H: `side` claims insufficient losing chances; the clock pauses for the
    /// director.
    ClaimLosingChances {
        /// The claimant.
        side: Side,
    },
    /// The director's ruling on the pending 14H claim.
    Ruling {
        /// The ruling.
        ruling: Ruling,
    },
}

/// A valid press that ended a turn: the one press event of the workspace (the engine's
/// event, the daemon's `Pressed` signal and game records, the clients' `monitor`, SSE and
/// MQTT JSON), spelled `{"side", "move", "move_ms", "white_ms", "black_ms"}` everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Press {
    /// Who pressed.
    pub side: Side,
    /// The presser's completed move number (JSON `move`; game records before it was one
    /// event wrote `move_number`, still read).
    #[serde(rename = "move", alias = "move_number")]
    pub move_number: u32,
    /// How long the turn took, ms.
    pub move_ms: u64,
    /// White's displayed value after the press, ms.
    pub white_ms: u64,
    /// Black's displayed value after the press, ms.
    pub black_ms: u64,
}

impl Press {
    /// The presser's value after the press, ms.
    pub fn mover_ms(&self) -> u64 {
        match self.side {
            Side::White => self.white_ms,
            Side::Black => self.black_ms,
        }
    }
}

/// Something that happened, for the daemon to report.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The status changed.
    StatusChanged {
        /// Before.
        old: Status,
        /// After.
        new: Status,
        /// Why.
        reason: StatusCause,
    },
    /// A valid press.
    Pressed(Press),
    /// A byo-yomi period ran out and the next began (the phase stays the same).
    PeriodChanged {
        /// Whose.
        side: Side,
        /// Periods left now, the new one included.
        periods_left: u32,
    },
    /// A side's phase changed.
    PhaseChanged {
        /// Whose.
        side: Side,
        /// Before.
        old: Phase,
        /// After.
        new: Phase,
    },
    /// A time event.
    Flag {
        /// Whose flag.
        side: Side,
        /// Why.
        reason: FlagReason,
    },
    /// A result.
    Result {
        /// The result.
        result: GameResult,
        /// Why.
        reason: ResultReason,
    },
}

/// What a count-down-only clock should show now (spec §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Display {
    /// White's value in whole seconds, rounded up.
    pub white_s: u64,
    /// Black's value in whole seconds, rounded up.
    pub black_s: u64,
    /// The side the hardware should count down now, if any.
    pub counting: Option<Side>,
    /// When the value does something the device's own countdown cannot show (a jump, the end
    /// of a delay window, a waiting side that moves): push again then.
    pub next_refresh: Option<Time>,
    /// For the counting side: ms until its value crosses the next whole second.
    pub ms_to_next_second: Option<u64>,
}

/// The configuration cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);
