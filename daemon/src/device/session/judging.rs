//! The board judges the timed game (docs/rules.md): after each move read from the pieces the
//! game crate's [`assess`] says whether the game ended on the board (mate, stalemate,
//! fivefold, 75 moves) and who can still mate; the DGT result signal is a result too. In
//! drive mode these become engine inputs at the instant the deciding bytes were read
//! (journaled like a press); observed, a result on the board is the game's result.
//!
//! Part of the pure [`Session`]: it owns when the board's verdicts reach the engine, not the
//! rules themselves (the game crate's) nor what they do to the clock (the engine's).

use chessclock_game::assess;
use chessclock_game::event::BoardState;
use chessclock_game::tracker::side_to_move;

use super::Session;
use crate::device::link::driver::Instant;
use crate::device::session::interface::DeviceError;
use crate::engine::params::Method;
use crate::engine::{BoardClaim, BoardEnd, GameResult, Input, InputError, Side};

/// Which of FIDE's draw rules the board's history decides (docs/rules.md): fivefold
/// repetition and 75 moves end the game, threefold repetition and 50 moves may be claimed.
/// Unset, they are on except under a double-flag control, whose seed abolishes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DrawRules {
    /// FIDE 9.2, 9.3 and 9.6.
    Fide,
    /// None of them: a repetition or a long game is played on.
    None,
}

impl std::str::FromStr for DrawRules {
    type Err = crate::engine::words::WordError;

    /// `fide` or `none`, exactly.
    fn from_str(s: &str) -> Result<DrawRules, Self::Err> {
        crate::engine::words::parse_word(
            s,
            "a set of draw rules",
            &["fide", "none"],
            &[DrawRules::Fide, DrawRules::None],
        )
    }
}

impl Session {
    /// A move was read at `at`: judge the position.
    pub(super) fn judge_board(&mut self, at: Instant) {
        let Some(verdict) = assess(self.board.game.tracker().positions()) else {
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
        let draw_rule = matches!(
            end,
            BoardEnd::FivefoldRepetition | BoardEnd::SeventyFiveMoves
        );
        if draw_rule && !self.draw_rules() {
            return;
        }
        self.end_on_board(at, end);
    }

    /// Whether FIDE's draw rules (9.2, 9.3, 9.6) apply to this clock's game: as configured
    /// (`draw_rules`), else on except under the double-flag clock, whose seed abolishes them.
    pub(super) fn draw_rules(&self) -> bool {
        match self.cfg.draw_rules {
            Some(DrawRules::Fide) => true,
            Some(DrawRules::None) => false,
            None => self.engine.control().method != Method::DoubleFlag,
        }
    }

    /// The draws the player to move may claim in the board's position now (drive mode, the
    /// draw rules on, the board's game known): the published `draw_claimable`.
    pub(super) fn claimable_now(&self) -> Vec<BoardClaim> {
        if self.observing() || !self.draw_rules() || !self.board_known() {
            return Vec::new();
        }
        let Some(verdict) = assess(self.board.game.tracker().positions()) else {
            return Vec::new();
        };
        [BoardClaim::Threefold, BoardClaim::FiftyMoves]
            .into_iter()
            .filter(|c| verdict.claim_holds(*c))
            .collect()
    }

    /// Whether the board's game is known now: a start position seen and the board showing
    /// the game's position (pieces in the air at most).
    fn board_known(&self) -> bool {
        let tracker = self.board.game.tracker();
        !tracker.positions().is_empty()
            && matches!(
                tracker.state(),
                BoardState::Synced | BoardState::PiecesInAir { .. }
            )
    }

    /// `side` claims `claim` (FIDE 9.2, 9.3): the engine input judging it from the board's
    /// history, or why the claim cannot be judged (nothing changes then).
    pub(super) fn board_claim(&self, side: Side, claim: BoardClaim) -> Result<Input, DeviceError> {
        let clock = self.cfg.clock;
        if !self.draw_rules() {
            return Err(DeviceError::NotAllowed(format!(
                "clock {clock} plays without FIDE's draw rules (draw_rules = \"none\", or its \
                 double-flag control's default): there is no {} claim; set draw_rules = \
                 \"fide\" in its [[clock]] table to allow it",
                claim.as_str()
            )));
        }
        if !self.board_known() {
            return Err(DeviceError::NotAllowed(format!(
                "clock {clock}'s board does not show a game it followed from the start position \
                 (no board, or a position no legal move explains): the arbiter judges the \
                 claim; set the result with `chessclockctl result {clock} 1/2-1/2`"
            )));
        }
        let positions = self.board.game.tracker().positions();
        if let Some(last) = positions.last() {
            let to_move = match side_to_move(last) {
                chessclock_game::shakmaty::Color::White => Side::White,
                chessclock_game::shakmaty::Color::Black => Side::Black,
            };
            if to_move != side {
                return Err(DeviceError::NotAllowed(format!(
                    "it is {}'s move on clock {clock}'s board: only the player to move claims \
                     a draw (FIDE 9.2, 9.3)",
                    to_move.as_str()
                )));
            }
        }
        let valid = assess(positions).is_some_and(|v| v.claim_holds(claim));
        Ok(Input::BoardClaim { side, claim, valid })
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
