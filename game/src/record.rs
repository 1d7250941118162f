//! The board's game as a record: its moves with their clock times, result and problems, and
//! the PGN game it makes.
//!
//! Owns the shapes [`crate::BoardGame`] fills and the daemon, `chessclockctl replay` and
//! the PGN read: one move with the mover's clock ([`RecordedMove`]), a problem, one game
//! ([`GameRecord`]), what changed ([`RecordChange`]) and the clock side of a PGN
//! ([`PgnClocks`]). It must not decide anything about moves or clocks (the board game's) nor
//! write text (the [`crate::pgn`] writer's).

use shakmaty::Color;

use crate::event::{GameResult, MoveEvent, ResultSignal};
use crate::pgn::{GameInfo, PgnGame, PgnMove};

/// The FEN of the start position (the position before any board was seen).
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// One move of the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedMove {
    /// The move as the tracker reported it.
    pub event: MoveEvent,
    /// The mover's clock after the move, ms, if known: from the press that ended it, else
    /// the caller's clock when the move was seen, else the clock's next reading.
    pub clock_ms: Option<u64>,
    /// How long the move took by the clock, ms, if known.
    pub elapsed_ms: Option<u64>,
    /// The clock time came from the press that ended this move (not a later reading).
    pub from_press: bool,
}

/// Something the operator should know about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// When (ms of the caller's clock).
    pub at_ms: u64,
    /// The ply the game was at.
    pub ply: u32,
    /// What happened, in words.
    pub message: String,
    /// The board was explained again later.
    pub resolved: bool,
}

/// One game's record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameRecord {
    /// The moves.
    pub moves: Vec<RecordedMove>,
    /// The result set on the board, and how.
    pub signalled: Option<(GameResult, ResultSignal)>,
    /// The result the position after the last move has (mate, stalemate, dead position).
    pub outcome: Option<GameResult>,
    /// The colour whose flag fell (final flag in a clock report), if any.
    pub flag: Option<Color>,
    /// Problems seen during the game.
    pub problems: Vec<Problem>,
    /// The position the game began from (FEN) and whether it castles as Chess960, when it
    /// is not the standard start (PGN `SetUp`, `FEN`, `Variant`).
    pub setup: Option<(String, bool)>,
}

/// What changed in the current game, for a caller that publishes it (the daemon's bus).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordChange {
    /// A move was made (or replaced the last one: a correction before the reply).
    Move(RecordedMove),
    /// Moves were taken back or a new game began: the list of moves changed otherwise.
    Rewound,
    /// The board shows what no legal sequence explains (the operator must restore it), or
    /// is explained again (`None`).
    Problem(Option<String>),
    /// A result was set on the board.
    Result(GameResult),
}

/// What the clock side adds to a PGN when the caller runs the clock (the daemon's engine).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnClocks {
    /// `TimeControl` in PGN form, if the control has one.
    pub time_control: Option<String>,
    /// Our canonical notation of the control.
    pub control_notation: String,
    /// White's clock now, ms.
    pub white_ms: u64,
    /// Black's clock now, ms.
    pub black_ms: u64,
    /// The clock's result, if the game ended on the clock.
    pub result: Option<GameResult>,
    /// `Termination`, if ended.
    pub termination: Option<String>,
}

impl GameRecord {
    /// The result: set on the board, else from the final position.
    pub fn result(&self) -> Option<GameResult> {
        self.signalled.map(|(r, _)| r).or(self.outcome)
    }

    /// The game as a PGN game with `info`. With `clocks` (a caller that runs the clock), the
    /// clocks, control, result and termination are the clock's (the board's result if the
    /// clock has none); without, they come from the record: each side's last clock, the
    /// result set on the board or by the position, `time forfeit` for a fallen flag.
    pub fn pgn(&self, info: &GameInfo, clocks: Option<PgnClocks>) -> PgnGame {
        let moves = self
            .moves
            .iter()
            .map(|m| PgnMove {
                san: Some(m.event.san.clone()),
                clock_ms: m.clock_ms,
                elapsed_ms: m.elapsed_ms,
            })
            .collect();
        let game = PgnGame {
            info: info.clone(),
            moves,
            setup: self.setup.clone(),
            ..PgnGame::default()
        };
        match clocks {
            Some(c) => PgnGame {
                time_control: c.time_control,
                control_notation: Some(c.control_notation),
                white_clock_ms: Some(c.white_ms),
                black_clock_ms: Some(c.black_ms),
                result: c.result.or(self.signalled.map(|(r, _)| r)),
                termination: c.termination,
                ..game
            },
            None => {
                let last_clock = |c: Color| {
                    self.moves
                        .iter()
                        .rev()
                        .find(|m| m.event.color == c)
                        .and_then(|m| m.clock_ms)
                };
                let result = self.result();
                let termination = match (result, self.flag) {
                    (Some(_), _) => "normal",
                    (None, Some(_)) => "time forfeit",
                    (None, None) => "unterminated",
                };
                PgnGame {
                    white_clock_ms: last_clock(Color::White),
                    black_clock_ms: last_clock(Color::Black),
                    result,
                    termination: Some(termination.to_owned()),
                    ..game
                }
            }
        }
    }
}
