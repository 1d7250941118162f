//! The values of the game's end that the board and the arbiter bring: how a game ended on
//! the board, a draw claim judged from the board's history, a USCF 14H claim waiting for
//! the director and the director's ruling (docs/rules.md).
//!
//! Plain data, serialisable (the daemon journals them inside [`crate::Input`]); the engine's
//! behaviour on them is `judge.rs`'s. Deciding what the position is (mate, repetition,
//! material) is the board game's: the engine is told, and judges only the clock's part.

use serde::{Deserialize, Serialize};

use super::types::{GameResult, Side};

/// How a game ended on the board (FIDE 5.1, 5.2, 9.6), as the board's game read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BoardEnd {
    /// `winner` checkmated the opponent.
    Checkmate {
        /// Who gave mate.
        winner: Side,
    },
    /// The player to move has no legal move and is not in check.
    Stalemate,
    /// The DGT result signal: both kings on the centre squares, or the result pieces.
    Signal {
        /// The result the signal says.
        result: GameResult,
    },
    /// The same position for the fifth time (FIDE 9.6.1).
    FivefoldRepetition,
    /// 75 moves by each player without a pawn move or a capture (FIDE 9.6.2).
    SeventyFiveMoves,
    /// Neither player can checkmate by any series of legal moves (FIDE 5.2.2, USCF 14D).
    DeadPosition,
}

impl BoardEnd {
    /// The result the board says, before the clock's rules (a winner on double-flag extra
    /// time draws).
    pub fn result(self) -> GameResult {
        match self {
            BoardEnd::Checkmate { winner } => GameResult::win_for(winner),
            BoardEnd::Signal { result } => result,
            BoardEnd::Stalemate
            | BoardEnd::FivefoldRepetition
            | BoardEnd::SeventyFiveMoves
            | BoardEnd::DeadPosition => GameResult::Draw,
        }
    }
}

/// Whether one side can still checkmate by some series of legal moves, as a search of the
/// position decided it (the game crate's `winnable`): the published `can_mate` and the
/// offline `position assess`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Mating {
    /// A series of legal moves ends in its mate (a helpmate exists).
    CanMate,
    /// No series of legal moves ends in its mate.
    CannotMate,
    /// Not decided: the search ran out of its limits, or it has not answered yet.
    Undetermined,
}

impl Mating {
    /// `can_mate`, `cannot_mate` or `undetermined`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mating::CanMate => "can_mate",
            Mating::CannotMate => "cannot_mate",
            Mating::Undetermined => "undetermined",
        }
    }
}

/// Who can still checkmate in a position: one [`Mating`] per side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WhoCanMate {
    /// Whether White can still mate.
    pub white: Mating,
    /// Whether Black can still mate.
    pub black: Mating,
}

impl WhoCanMate {
    /// `side`'s verdict.
    pub fn of(self, side: Side) -> Mating {
        match side {
            Side::White => self.white,
            Side::Black => self.black,
        }
    }

    /// Neither side can mate: the position is dead (FIDE 5.2.2).
    pub fn dead(self) -> bool {
        self.white == Mating::CannotMate && self.black == Mating::CannotMate
    }
}

/// A draw a player claims from the board's history (FIDE 9.2, 9.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum BoardClaim {
    /// The same position for the third time, or about to be (FIDE 9.2).
    Threefold,
    /// 50 moves by each player without a pawn move or a capture (FIDE 9.3).
    FiftyMoves,
}

impl BoardClaim {
    /// `threefold` or `fifty_moves`.
    pub fn as_str(self) -> &'static str {
        match self {
            BoardClaim::Threefold => "threefold",
            BoardClaim::FiftyMoves => "fifty_moves",
        }
    }
}

/// What a USCF 14H claim of insufficient losing chances waits for, shown in the snapshot
/// (`claim`) while the clock is paused for the director.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PendingClaim {
    /// The claimant.
    pub side: Side,
    /// The claimant's flag fell while the director watched the game: a ruling of `draw`
    /// upholds the claim, `deny` lets the flag stand.
    pub flag_fell: bool,
}

/// The director's ruling on a USCF 14H claim (14H2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "ruling", rename_all = "snake_case")]
pub enum Ruling {
    /// The claim is upheld: drawn.
    Draw,
    /// The claim is denied: one minute off the claimant, play resumes.
    Deny,
    /// The claimant's time is halved and a delay of `delay_ms` is on the clock for the rest
    /// of the game (both players), play resumes.
    Delay {
        /// The delay per move.
        delay_ms: u64,
    },
    /// Play resumes under the director's eye: the claimant's flag pauses the game for a
    /// ruling instead of ending it.
    Watch,
}

impl Ruling {
    /// `draw`, `deny`, `delay` or `watch`.
    pub fn as_str(self) -> &'static str {
        match self {
            Ruling::Draw => "draw",
            Ruling::Deny => "deny",
            Ruling::Delay { .. } => "delay",
            Ruling::Watch => "watch",
        }
    }
}

/// FIDE 9.5.3: an incorrect claim gives the opponent two more minutes.
pub const WRONG_CLAIM_BONUS_MS: u64 = 120_000;
/// USCF 14H: a claim needs the claimant at two minutes or less.
pub const LOSING_CHANCES_MAX_MS: u64 = 120_000;
/// USCF 14H2: a denied claim costs the claimant one minute.
pub const DENIED_CLAIM_PENALTY_MS: u64 = 60_000;
/// USCF 14H2: the delay a director places on the clock unless told otherwise.
pub const DEFAULT_RULING_DELAY_MS: u64 = 5_000;

/// What a player claims (`chessclockctl claim --kind`, D-Bus `Claim`): the double-flag
/// draw (the seed's rule, judged by the clock), a draw from the board's history, or the
/// USCF 14H claim the director rules on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    /// The double-flag draw: the side still on main time claims once the opponent's main
    /// time is out (spec §4.10).
    DoubleFlag,
    /// A threefold repetition or fifty-move draw, judged from the board's history.
    Board(BoardClaim),
    /// USCF 14H: insufficient losing chances; the clock pauses for the director.
    LosingChances,
}

impl ClaimKind {
    /// The spellings [`str::parse`] accepts (the CLI's `--kind`, D-Bus `Claim`'s `kind`).
    pub const NAMES: [&'static str; 4] = [
        "double-flag",
        "threefold",
        "fifty-moves",
        "insufficient-losing-chances",
    ];
    const ALL: [ClaimKind; 4] = [
        ClaimKind::DoubleFlag,
        ClaimKind::Board(BoardClaim::Threefold),
        ClaimKind::Board(BoardClaim::FiftyMoves),
        ClaimKind::LosingChances,
    ];

    /// The kind's spelling, as accepted.
    pub fn as_str(self) -> &'static str {
        let i = Self::ALL.iter().position(|k| *k == self).unwrap_or(0);
        Self::NAMES[i]
    }
}

impl std::str::FromStr for ClaimKind {
    type Err = crate::words::WordError;

    /// One of [`ClaimKind::NAMES`], exactly.
    fn from_str(s: &str) -> Result<ClaimKind, Self::Err> {
        crate::words::parse_word(s, "a kind of claim", &Self::NAMES, &Self::ALL)
    }
}

impl Ruling {
    /// The spellings of [`Ruling::parse`].
    pub const NAMES: [&'static str; 4] = ["draw", "deny", "delay", "watch"];

    /// The director's ruling spelled `word`; `delay_ms` is the delay a `delay` ruling puts
    /// on the clock ([`DEFAULT_RULING_DELAY_MS`] when `None`).
    pub fn parse(word: &str, delay_ms: Option<u64>) -> Result<Ruling, crate::words::WordError> {
        let delay = Ruling::Delay {
            delay_ms: delay_ms.unwrap_or(DEFAULT_RULING_DELAY_MS),
        };
        crate::words::parse_word(
            word,
            "a ruling",
            &Self::NAMES,
            &[Ruling::Draw, Ruling::Deny, delay, Ruling::Watch],
        )
    }
}
