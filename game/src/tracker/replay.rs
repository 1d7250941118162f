//! Rebuilding the tracker's game from its steps ([`Step`]): the orientation, the game's start,
//! its moves, takebacks and result, and the board a correction held, as they were made, with
//! no board seen.
//!
//! Owns applying one step to the game as the rules that made it did (a move is played only if
//! legal), emitting the same events; it must not read the pieces: after a replay the tracker
//! has seen no board, and the next board report is judged against the rebuilt game (the
//! position itself, a legal continuation, or a problem). No IO, no clock reads.

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Board, CastlingMode, Chess};

use super::{Tracker, fen};
use crate::event::{BoardState, GameEvent};
use crate::step::{Step, StepError};
use chessclock_protocol::Orientation;

impl Tracker {
    /// Apply `step` at `now` as the tracker made it; a step that does not fit the game is an
    /// error and changes nothing. Steps that are not the tracker's (a press's times, game
    /// information) change nothing here.
    pub fn replay(&mut self, now: u64, step: &Step) -> Result<(), StepError> {
        // The held board changes only by its own step: it is said whenever it changed.
        let held = self.held.clone();
        self.replay_step(now, step)?;
        if !matches!(step, Step::Held { .. }) {
            self.held = held;
        }
        Ok(())
    }

    fn replay_step(&mut self, now: u64, step: &Step) -> Result<(), StepError> {
        match step {
            Step::Orientation { rotated } => {
                let o = if *rotated {
                    Orientation::Rotated
                } else {
                    Orientation::Normal
                };
                self.orientation = Some(o);
                self.emit(GameEvent::Orientation(o));
            }
            Step::NewGame => self.begin(now, Chess::default()),
            Step::SetUp {
                fen: text,
                chess960,
            } => {
                let bad = |reason: String| StepError::BadPosition {
                    text: text.clone(),
                    reason,
                };
                let mode = if *chess960 {
                    CastlingMode::Chess960
                } else {
                    CastlingMode::Standard
                };
                let pos: Chess = text
                    .parse::<Fen>()
                    .map_err(|e| bad(e.to_string()))?
                    .into_position(mode)
                    .map_err(|e| bad(e.to_string()))?;
                self.positions = vec![pos];
                self.moves.clear();
                self.state = BoardState::Synced;
                self.emit(GameEvent::SetUp {
                    fen: text.clone(),
                    chess960: *chess960,
                    at_ms: now,
                });
            }
            Step::Move { uci, corrects, .. } => self.replay_move(now, uci, *corrects)?,
            Step::Takeback { to_ply } => {
                let played = self.moves.len();
                let to = usize::try_from(*to_ply).unwrap_or(usize::MAX);
                if self.positions.is_empty() || to > played {
                    return Err(StepError::NoSuchPly {
                        ply: *to_ply,
                        played,
                    });
                }
                self.positions.truncate(to + 1);
                self.moves.truncate(to);
                self.state = BoardState::Synced;
                self.emit(GameEvent::Takeback {
                    plies: u32::try_from(played - to).unwrap_or(u32::MAX),
                    to_ply: *to_ply,
                    fen: self.fen().unwrap_or_default(),
                    at_ms: now,
                });
            }
            Step::Result { result, signal } => {
                self.state = BoardState::Finished(*result);
                self.emit(GameEvent::Result {
                    result: *result,
                    signal: *signal,
                    at_ms: now,
                });
            }
            Step::Held { board } if board.is_empty() => self.held = None,
            Step::Held { board } => {
                let held = board.parse::<Board>().map_err(|e| StepError::BadPosition {
                    text: board.clone(),
                    reason: e.to_string(),
                })?;
                self.held = Some(held);
            }
            Step::Press { .. } | Step::Info { .. } => {}
        }
        Ok(())
    }

    /// The pieces' placement a correction left held (FEN board part), if any.
    pub fn held(&self) -> Option<String> {
        self.held.as_ref().map(ToString::to_string)
    }

    /// The pieces' placement a correction left held, if any.
    pub fn held_board(&self) -> Option<&Board> {
        self.held.as_ref()
    }

    fn replay_move(&mut self, now: u64, uci: &str, corrects: bool) -> Result<(), StepError> {
        let mut corrected = None;
        if corrects {
            let (Some(last), true) = (self.moves.last(), self.positions.len() >= 2) else {
                return Err(StepError::NoSuchPly {
                    ply: 0,
                    played: self.moves.len(),
                });
            };
            corrected = Some(last.event.san.clone());
        }
        let at = self
            .positions
            .len()
            .saturating_sub(1 + usize::from(corrects));
        let cur = self.positions.get(at).cloned().ok_or(StepError::NoGame)?;
        let illegal = || StepError::Illegal {
            uci: uci.to_owned(),
            fen: fen(&cur),
        };
        let m = uci
            .parse::<UciMove>()
            .map_err(|_| illegal())?
            .to_move(&cur)
            .map_err(|_| illegal())?;
        if corrects {
            self.moves.pop();
            self.positions.pop();
        }
        self.push_move(now, &cur, m, corrected);
        Ok(())
    }
}
