//! The operator's corrections of the game the board told: take back plies the board misread
//! ([`Tracker::undo`]), play a legal move the board did not show ([`Tracker::force`]), and
//! set the game's position from a FEN or from the pieces as they stand
//! ([`Tracker::set_position`], [`Tracker::set_position_from_board`]).
//!
//! Owns what a correction does to the game and what the tracker expects of the board after
//! it: the board as it stood at the correction is "held" — whenever the board shows it, it is
//! not read as a move, takeback or new game, until the board is in step with the game again;
//! if it does not show the corrected position it is reported as unexplained after the settle
//! time (the differences say how to set the pieces). A bad
//! correction is an error that says what is wrong and changes nothing. Like the tracker it
//! does no IO and reads no clock.

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Bitboard, CastlingMode, Chess, Color, FromSetup, Position, Setup};

use super::{Tracker, differences};
use crate::event::{BoardState, GameEvent, GameResult};
use crate::placement::placement;

/// Why a correction was refused (nothing changed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CorrectionError {
    /// No board contents were ever seen.
    #[error(
        "no e-board has reported its pieces: corrections apply to the game read from an \
         e-board's pieces; connect the board (or wait for its first report)"
    )]
    NoBoard,
    /// The board never showed a start position and no position was set.
    #[error(
        "there is no game on the board yet: set up the start position, or set the game's \
         position from a FEN"
    )]
    NoGame,
    /// The board's orientation is not known, so its pieces cannot be read as a position.
    #[error(
        "the board's orientation is not known yet (it is learnt from a start position): set \
         up the start position once, or give the position as a FEN"
    )]
    NoOrientation,
    /// The game has its result on the board.
    #[error(
        "the game on the board is finished ({}): undo and forced moves apply to a game in \
         progress; set a position to go on from one",
        .0.pgn()
    )]
    Finished(GameResult),
    /// Undo of no plies.
    #[error("undo 0 plies changes nothing: give how many plies to take back, 1 or more")]
    UndoNothing,
    /// Undo of more plies than were played.
    #[error(
        "cannot take back {plies} plies: the game has {played}; take back at most {played}, or \
         set the position from a FEN"
    )]
    UndoPastStart {
        /// Asked.
        plies: u32,
        /// Played.
        played: usize,
    },
    /// Not UCI notation.
    #[error(
        "{uci:?} is not a move in UCI notation: write the from and to squares, e.g. e2e4, \
         e7e8q for a promotion, e1g1 for castling"
    )]
    BadUci {
        /// As given.
        uci: String,
    },
    /// A move that is not legal in the game's position.
    #[error(
        "{uci} is not a legal move in the game's position {fen}: check the move (and who is \
         to move), or undo the misread plies first"
    )]
    Illegal {
        /// As given.
        uci: String,
        /// The position.
        fen: String,
    },
    /// Not a FEN, or not a legal position.
    #[error("{fen:?} is not a position to play from: {reason}; give a legal position's FEN")]
    BadFen {
        /// As given.
        fen: String,
        /// Why.
        reason: String,
    },
    /// The pieces do not stand in a legal position.
    #[error(
        "the pieces on the board are not a legal position with {turn} to move: {reason}; set \
         the pieces right (or give the side to move) and try again"
    )]
    BadBoard {
        /// The side to move tried.
        turn: &'static str,
        /// Why.
        reason: String,
    },
}

/// One correction of the game, as the operator asks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Correction {
    /// Take back this many plies ([`Tracker::undo`]).
    Undo(u32),
    /// Play this move in UCI ([`Tracker::force`]).
    Force(String),
    /// Begin from this FEN ([`Tracker::set_position`]).
    Position(String),
    /// Begin from the pieces as they stand, this side to move (`None`: kept)
    /// ([`Tracker::set_position_from_board`]).
    Board(Option<Color>),
}

impl std::fmt::Display for Correction {
    /// How the game's record tells it (`undo 2`, `force e2e4`, `position <fen>`, `position
    /// board`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Correction::Undo(n) => write!(f, "undo {n}"),
            Correction::Force(uci) => write!(f, "force {uci}"),
            Correction::Position(fen) => write!(f, "position {fen}"),
            Correction::Board(None) => f.write_str("position board"),
            Correction::Board(Some(c)) => write!(f, "position board {}", color_name(*c)),
        }
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl Tracker {
    /// Apply `correction` at `now`; nothing changes when it is refused.
    pub fn correct(&mut self, now: u64, correction: &Correction) -> Result<(), CorrectionError> {
        match correction {
            Correction::Undo(n) => self.undo(now, *n),
            Correction::Force(uci) => self.force(now, uci),
            Correction::Position(fen) => self.set_position(now, fen),
            Correction::Board(turn) => self.set_position_from_board(now, *turn),
        }
    }

    /// Take back the last `plies` plies of the game (the board misread them).
    pub fn undo(&mut self, now: u64, plies: u32) -> Result<(), CorrectionError> {
        self.in_progress()?;
        let played = self.moves.len();
        let k = usize::try_from(plies).unwrap_or(usize::MAX);
        if k == 0 {
            return Err(CorrectionError::UndoNothing);
        }
        if k > played {
            return Err(CorrectionError::UndoPastStart { plies, played });
        }
        self.explained(now);
        self.positions.truncate(played - k + 1);
        self.moves.truncate(played - k);
        let fen = self.fen().unwrap_or_default();
        self.emit(GameEvent::Takeback {
            plies,
            to_ply: u32::try_from(played - k).unwrap_or(u32::MAX),
            fen,
            at_ms: now,
        });
        self.expect_board(now);
        Ok(())
    }

    /// Play `uci`, a legal move in the game's position that the board did not show.
    pub fn force(&mut self, now: u64, uci: &str) -> Result<(), CorrectionError> {
        self.in_progress()?;
        let cur = self
            .positions
            .last()
            .cloned()
            .ok_or(CorrectionError::NoGame)?;
        let parsed: UciMove = uci.trim().parse().map_err(|_| CorrectionError::BadUci {
            uci: uci.to_owned(),
        })?;
        let m = parsed.to_move(&cur).map_err(|_| CorrectionError::Illegal {
            uci: uci.trim().to_owned(),
            fen: super::fen(&cur),
        })?;
        self.explained(now);
        self.push_move(now, &cur, m, None);
        self.expect_board(now);
        Ok(())
    }

    /// The game begins anew from the position `fen` (standard or Chess960 castling, as its
    /// castling rights need). Also before any start position, if the board has reported.
    pub fn set_position(&mut self, now: u64, fen: &str) -> Result<(), CorrectionError> {
        if !self.seen {
            return Err(CorrectionError::NoBoard);
        }
        let bad = |reason: String| CorrectionError::BadFen {
            fen: fen.to_owned(),
            reason,
        };
        let parsed: Fen = fen.trim().parse().map_err(|e| bad(format!("{e}")))?;
        let pos: Chess = match parsed.clone().into_position(CastlingMode::Standard) {
            Ok(pos) => pos,
            Err(standard) => parsed
                .into_position(CastlingMode::Chess960)
                .map_err(|_| bad(standard.to_string()))?,
        };
        if self.orientation.is_none() {
            let o = [
                chessclock_protocol::Orientation::Normal,
                chessclock_protocol::Orientation::Rotated,
            ]
            .into_iter()
            .filter(|o| self.cfg.orientation.is_none_or(|f| f == *o))
            .find(|o| placement(&self.raw, *o) == *pos.board())
            .or(self.cfg.orientation)
            .unwrap_or(chessclock_protocol::Orientation::Normal);
            self.orientation = Some(o);
            self.emit(GameEvent::Orientation(o));
        }
        self.explained(now);
        self.begin(now, pos);
        self.expect_board(now);
        Ok(())
    }

    /// The game begins anew from the pieces as they stand, `turn` to move (`None`: the side to
    /// move now). Castling rights are kept only where the game still had them and king and
    /// rook stand where they stood (no game: the standard squares).
    pub fn set_position_from_board(
        &mut self,
        now: u64,
        turn: Option<Color>,
    ) -> Result<(), CorrectionError> {
        if !self.seen {
            return Err(CorrectionError::NoBoard);
        }
        let o = self.orientation.ok_or(CorrectionError::NoOrientation)?;
        let board = placement(&self.raw, o);
        let cur = self.positions.last().cloned().unwrap_or_default();
        let turn = turn.unwrap_or(cur.turn());
        let kept = |sq: shakmaty::Square| {
            let color = if sq.rank() == shakmaty::Rank::First {
                Color::White
            } else {
                Color::Black
            };
            board.piece_at(sq) == Some(color.rook())
                && board.king_of(color).is_some()
                && board.king_of(color) == cur.board().king_of(color)
        };
        let castling_rights: Bitboard = cur
            .castles()
            .castling_rights()
            .into_iter()
            .filter(|sq| kept(*sq))
            .collect();
        let setup = Setup {
            board,
            turn,
            castling_rights,
            fullmoves: cur.fullmoves(),
            ..Setup::empty()
        };
        let pos = Chess::from_setup(setup, cur.castles().mode()).map_err(|e| {
            CorrectionError::BadBoard {
                turn: color_name(turn),
                reason: e.to_string(),
            }
        })?;
        self.explained(now);
        self.begin(now, pos);
        self.expect_board(now);
        Ok(())
    }

    /// Undo and forced moves need a game in progress.
    fn in_progress(&self) -> Result<(), CorrectionError> {
        if !self.seen {
            return Err(CorrectionError::NoBoard);
        }
        if self.positions.is_empty() {
            return Err(CorrectionError::NoGame);
        }
        if let BoardState::Finished(result) = self.state {
            return Err(CorrectionError::Finished(result));
        }
        Ok(())
    }

    /// After a correction: the board shows the corrected position (synced), or it is held
    /// as it stands until it changes, and reported after the settle time if it stays.
    fn expect_board(&mut self, now: u64) {
        let (Some(o), Some(cur)) = (self.orientation, self.positions.last()) else {
            return;
        };
        let board = placement(&self.raw, o);
        if board == *cur.board() {
            self.held = None;
            self.state = BoardState::Synced;
            return;
        }
        self.state = BoardState::Unexplained {
            differences: differences(cur.board(), &board),
        };
        self.held = Some(board);
        self.last_change = now;
        self.reported = false;
    }
}
