//! The board's game as steps: each change of the game the [`crate::BoardGame`] made (an
//! orientation learnt, a new game or set-up position, a move with the mover's clock, a
//! takeback, a result on the board, the board a correction left held, the times a press gave
//! a move, the game information), in the form a journal keeps, so that folding the steps
//! over a fresh board game ([`crate::BoardGame::replay`]) rebuilds the same game.
//!
//! Owns the steps' shape and their JSON spelling (a journal written by one version is read
//! by the next: fields are only ever added, with defaults). It must not decide what a board
//! means (the tracker's) nor know where steps are kept (the daemon's journal).

use serde::{Deserialize, Serialize};

use crate::event::{GameResult, ResultSignal};

/// One change of the board's game. See the module docs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// The board's orientation became known (`rotated`: field 0 is h1).
    Orientation {
        /// The board is turned round.
        rotated: bool,
    },
    /// A new game from the standard start position.
    NewGame,
    /// Right after [`Step::NewGame`]: the game begins from this position instead.
    SetUp {
        /// The start position (X-FEN castling for Chess960).
        fen: String,
        /// It castles as Chess960 does.
        chess960: bool,
    },
    /// A move (`corrects`: it replaced the last move, made by the same player), and the
    /// mover's clock and time it was recorded with.
    Move {
        /// UCI (castling as the king's move; Chess960 castling as king takes rook).
        uci: String,
        /// The move replaced the last one at the same ply.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        corrects: bool,
        /// The mover's clock the move was recorded with, ms.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock_ms: Option<u64>,
        /// How long the move took, ms, if a press said (one made before the move too).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        elapsed_ms: Option<u64>,
        /// The times came from the press that ended the move.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        from_press: bool,
    },
    /// Plies were taken back: the game is back at ply `to_ply`.
    Takeback {
        /// The ply the game is back at (0: its start).
        to_ply: u32,
    },
    /// A result was set on the board.
    Result {
        /// The result.
        result: GameResult,
        /// How it was signalled.
        signal: ResultSignal,
    },
    /// A correction left the pieces standing in this placement (FEN board part): it is not
    /// read as a move, takeback or new game until the board shows the game again. Said
    /// whenever it changes; empty: nothing is held any more.
    Held {
        /// The placement (empty: none).
        board: String,
    },
    /// `white` (or Black) pressed: its last move gets these times, or, if a press timed it
    /// already, its next move read (a press that came before its move).
    Press {
        /// White pressed (else Black).
        white: bool,
        /// The mover's clock after the press, ms.
        clock_ms: u64,
        /// How long the move took, ms, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        elapsed_ms: Option<u64>,
    },
    /// Game information tags were set (each replaces the tag of its name).
    Info {
        /// The tags, as given.
        tags: Vec<(String, String)>,
    },
}

/// Why a step could not be replayed (the journal holds a game this version cannot rebuild,
/// or steps out of order): the game stays as it was before the step.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StepError {
    /// A move or a takeback with no game to apply it to.
    #[error("there is no game on the board to apply it to")]
    NoGame,
    /// A move that is not legal in the game's position.
    #[error("{uci:?} is not a legal move in {fen}")]
    Illegal {
        /// The move.
        uci: String,
        /// The position.
        fen: String,
    },
    /// A takeback past the game's start, or a correction of no move.
    #[error("the game has {played} plies: ply {ply} is not one of them")]
    NoSuchPly {
        /// The ply asked for.
        ply: u32,
        /// The plies played.
        played: usize,
    },
    /// A position or placement that cannot be read.
    #[error("{text:?} is not a position: {reason}")]
    BadPosition {
        /// As kept.
        text: String,
        /// Why.
        reason: String,
    },
    /// Tags the game information refuses.
    #[error("game information refused: {0}")]
    Info(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON spelling is the journal's: it must not change under journals already
    /// written.
    #[test]
    fn steps_are_spelled_as_journals_keep_them() {
        let cases = [
            (Step::NewGame, r#"{"step":"new_game"}"#),
            (
                Step::Move {
                    uci: "e2e4".into(),
                    corrects: false,
                    clock_ms: Some(5000),
                    elapsed_ms: Some(1200),
                    from_press: false,
                },
                r#"{"step":"move","uci":"e2e4","clock_ms":5000,"elapsed_ms":1200}"#,
            ),
            (
                Step::Move {
                    uci: "e7e5".into(),
                    corrects: true,
                    clock_ms: None,
                    elapsed_ms: None,
                    from_press: true,
                },
                r#"{"step":"move","uci":"e7e5","corrects":true,"from_press":true}"#,
            ),
            (
                Step::Result {
                    result: GameResult::Draw,
                    signal: ResultSignal::KingsInCentre,
                },
                r#"{"step":"result","result":"1/2-1/2","signal":"kings_in_centre"}"#,
            ),
            (
                Step::Press {
                    white: true,
                    clock_ms: 1,
                    elapsed_ms: Some(2),
                },
                r#"{"step":"press","white":true,"clock_ms":1,"elapsed_ms":2}"#,
            ),
            (
                Step::Info {
                    tags: vec![("White".into(), "Ann".into())],
                },
                r#"{"step":"info","tags":[["White","Ann"]]}"#,
            ),
        ];
        for (step, json) in cases {
            assert_eq!(serde_json::to_string(&step).expect("serialise"), json);
            assert_eq!(
                serde_json::from_str::<Step>(json).expect("read back"),
                step,
                "{json}"
            );
        }
    }
}
