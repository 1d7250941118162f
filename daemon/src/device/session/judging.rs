//! The board judges the timed game (docs/rules.md): after each move read from the pieces the
//! game crate's [`judge`] says whether the game ended on the board (mate, stalemate,
//! fivefold, 75 moves) and who can still mate; the DGT result signal is a result too. In
//! drive mode these become engine inputs at the instant the deciding bytes were read
//! (journaled like a press); observed, a result on the board is the game's result.
//!
//! Part of the pure [`Session`]: it owns when the board's verdicts reach the engine, not the
//! rules themselves (the game crate's) nor what they do to the clock (the engine's).

use chessclock_game::judge;

use super::Session;
use crate::device::link::driver::Instant;
use crate::engine::params::Method;
use crate::engine::{BoardEnd, GameResult, Input, InputError};

impl Session {
    /// A move was read at `at`: judge the position.
    pub(super) fn judge_board(&mut self, at: Instant) {
        let Some(verdict) = judge(self.board_game.tracker().positions()) else {
            return;
        };
        if self.observing() {
            if let Some(end) = verdict.end {
                self.observed_result(at, end.result());
            }
            return;
        }
        if verdict.can_mate != self.engine.mating_material() {
            let (white, black) = verdict.can_mate;
            // Taken in every status; nothing to refuse.
            let _ = self.apply(at, Input::MatingMaterial { white, black });
        }
        let Some(end) = verdict.end else {
            return;
        };
        // The double-flag clock abolishes the automatic draws by repetition and move count.
        let draw_rule = matches!(
            end,
            BoardEnd::FivefoldRepetition | BoardEnd::SeventyFiveMoves
        );
        if draw_rule && self.engine.control().method == Method::DoubleFlag {
            return;
        }
        self.end_on_board(at, end);
    }

    /// The DGT result signal (kings on the centre squares, result pieces) read at `at`.
    pub(super) fn board_signal(&mut self, at: Instant, result: GameResult) {
        if self.observing() {
            self.observed_result(at, result);
        } else {
            self.end_on_board(at, BoardEnd::Signal { result });
        }
    }

    fn end_on_board(&mut self, at: Instant, end: BoardEnd) {
        match self.apply(at, Input::BoardEnd { end }) {
            Ok(()) => {}
            // A game played before the clock was started, or already decided by a result:
            // the board's result stays in its PGN only.
            Err(InputError::NotStarted | InputError::AlreadyEnded) => {}
            Err(e) => self.notify(format!(
                "clock {}: the board shows {} ({}); not taken: {e}",
                self.cfg.clock,
                end.result(),
                match end {
                    BoardEnd::Checkmate { .. } => "checkmate",
                    BoardEnd::Stalemate => "stalemate",
                    BoardEnd::Signal { .. } => "the result signal",
                    BoardEnd::FivefoldRepetition => "fivefold repetition",
                    BoardEnd::SeventyFiveMoves => "75 moves",
                }
            )),
        }
    }
}
