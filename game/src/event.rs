//! The typed outputs of game reconstruction: events and the board's state.
//!
//! Owns the shapes the daemon, the CLI and the PGN writer read. It must not decide anything:
//! [`crate::tracker`] produces these values.

use chessclock_protocol::Orientation;
use shakmaty::Color;

pub use crate::placement::{GameResult, ResultSignal};

/// One move made on the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveEvent {
    /// Half-move number, 1 = White's first move.
    pub ply: u32,
    /// Standard algebraic notation with check/mate suffix, e.g. `Nf3`, `exd6`, `O-O`, `e8=Q+`.
    pub san: String,
    /// UCI notation (castling as the king's move, e.g. `e1g1`).
    pub uci: String,
    /// The position after the move, as FEN.
    pub fen: String,
    /// Who moved.
    pub color: Color,
    /// When the move was recognised (the caller's clock, ms).
    pub at_ms: u64,
    /// The SAN of the move this one replaces at the same ply (a move corrected before the
    /// opponent replied), `None` for a new ply.
    pub corrects: Option<String>,
}

/// A square where the board differs from the game's position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Difference {
    /// The chess square.
    pub square: shakmaty::Square,
    /// What the game's position has there.
    pub expected: Option<shakmaty::Piece>,
    /// What the board shows there.
    pub found: Option<shakmaty::Piece>,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name =
            |p: Option<shakmaty::Piece>| p.map_or("empty".to_owned(), |p| p.char().to_string());
        write!(
            f,
            "{}: expected {}, found {}",
            self.square,
            name(self.expected),
            name(self.found)
        )
    }
}

/// Something that happened to the game on the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameEvent {
    /// The board's orientation was detected from the start position (or changed at a new game).
    Orientation(Orientation),
    /// All pieces are on their start squares: a new game begins (the old one, if any, ends).
    NewGame {
        /// When (ms).
        at_ms: u64,
    },
    /// Right after [`GameEvent::NewGame`]: the game begins from this position, not the
    /// standard start (a Chess960 start on the board, or a position the operator set).
    SetUp {
        /// The start position, as FEN (X-FEN castling for Chess960).
        fen: String,
        /// The game castles as Chess960 does (PGN `Variant "Chess960"`).
        chess960: bool,
        /// When (ms).
        at_ms: u64,
    },
    /// A move was made (or, with `corrects`, the last move was replaced).
    Move(MoveEvent),
    /// Moves were taken back: the board shows the position after ply `to_ply`.
    Takeback {
        /// How many plies were taken back.
        plies: u32,
        /// The ply the game is back at (0 = start).
        to_ply: u32,
        /// The position now, as FEN.
        fen: String,
        /// When (ms).
        at_ms: u64,
    },
    /// A result was set on the board.
    Result {
        /// The result.
        result: GameResult,
        /// How it was signalled.
        signal: ResultSignal,
        /// When (ms).
        at_ms: u64,
    },
    /// The board has shown, for the settle time, a position no legal sequence explains. The
    /// game is unchanged; the operator should restore the position (the differences say how).
    Unexplained {
        /// The ply the game is at.
        ply: u32,
        /// Where the board differs from the game's position.
        differences: Vec<Difference>,
        /// When (ms).
        at_ms: u64,
    },
    /// After [`GameEvent::Unexplained`], the board is explained again.
    Explained {
        /// When (ms).
        at_ms: u64,
    },
}

/// What the board shows relative to the game, now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardState {
    /// No board contents seen yet, or no start position seen: no game to follow.
    NoGame,
    /// The board shows the game's position.
    Synced,
    /// The game's position with some pieces lifted (in the air): nothing to report yet.
    PiecesInAir {
        /// Squares whose piece is off the board.
        lifted: Vec<shakmaty::Square>,
    },
    /// Neither: a move in progress, or a problem if it lasts (see [`GameEvent::Unexplained`]).
    Unexplained {
        /// Where the board differs from the game's position.
        differences: Vec<Difference>,
    },
    /// A result was set on the board; only a new game (start position) is followed now.
    Finished(GameResult),
}
