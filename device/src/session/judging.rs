//! The board judges the timed game (docs/rules.md): after each change of the board's
//! position the game crate's [`assess`] says whether the game ended on the board (mate,
//! stalemate, fivefold, 75 moves), and `verdicts` who can still mate (a dead position ends
//! the game; a flag is judged against it); the DGT result signal is a result too. In drive
//! mode these become engine inputs at the instant the deciding bytes were read (journaled
//! like a press); observed, a result on the board is the game's result.
//!
//! Part of the pure [`Session`]: it owns when the board's verdicts reach the engine, not the
//! rules themselves (the game crate's) nor what they do to the clock (the engine's).

use chessclock_game::assess;
use chessclock_game::event::BoardState;
use chessclock_game::tracker::side_to_move;

use super::Session;
use crate::link::driver::Instant;
use crate::session::interface::DeviceError;
use chessclock_engine::{BoardClaim, BoardEnd, GameResult, Input, InputError, Side};

/// Which rules the board's position and history decide (docs/rules.md). Unset: FIDE's,
/// except under a double-flag control, whose seed abolishes them (`none`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DrawRules {
    /// FIDE's Laws: fivefold repetition and 75 moves end the game (9.6), threefold and 50
    /// moves may be claimed (9.2, 9.3), a dead position ends the game (5.2.2), a flag loses
    /// unless the opponent cannot mate by any series of legal moves (6.9).
    Fide,
    /// US Chess's rules: threefold and 50 moves may be claimed (14C, 14F), a dead position
    /// ends the game (14D), a flag is judged by 14E; no automatic fivefold or 75-move draw.
    Uscf,
    /// None of the draw rules: a repetition, a long game or a dead position is played on,
    /// and a flag is judged as FIDE 6.9 says.
    None,
}

impl std::str::FromStr for DrawRules {
    type Err = chessclock_engine::words::WordError;

    /// `fide`, `uscf` or `none`, exactly.
    fn from_str(s: &str) -> Result<DrawRules, Self::Err> {
        chessclock_engine::words::parse_word(
            s,
            "a set of draw rules",
            &["fide", "uscf", "none"],
            &[DrawRules::Fide, DrawRules::Uscf, DrawRules::None],
        )
    }
}

impl Session {
    /// The board's position changed at `at` (a move read, a takeback, a position set, a
    /// correction): judge it.
    pub(super) fn judge_board(&mut self, at: Instant) {
        let Some(verdict) = assess(self.board.game().tracker().positions()) else {
            return;
        };
        if self.observing() {
            if let Some(end) = verdict.end {
                self.observed_result(at, end.result());
            }
            return;
        }
        // Who can still mate: not asked of a mated or stalemated position.
        if !matches!(
            verdict.end,
            Some(BoardEnd::Checkmate { .. } | BoardEnd::Stalemate)
        ) {
            self.judge_position(at);
        }
        let Some(end) = verdict.end else {
            return;
        };
        let draw_rule = matches!(
            end,
            BoardEnd::FivefoldRepetition | BoardEnd::SeventyFiveMoves
        );
        if draw_rule && self.rules() != DrawRules::Fide {
            return;
        }
        self.end_on_board(at, end);
    }

    /// Whether the draws of the board's history may be claimed on this clock (FIDE 9.2,
    /// 9.3; USCF 14C, 14F): as configured (`draw_rules`), else on except under the
    /// double-flag clock, whose seed abolishes them.
    pub(super) fn draw_rules(&self) -> bool {
        self.rules() != DrawRules::None
    }

    /// The draws the player to move may claim in the board's position now (drive mode, the
    /// draw rules on, the board's game known): the published `draw_claimable`.
    pub(super) fn claimable_now(&self) -> Vec<BoardClaim> {
        if self.observing() || !self.draw_rules() || !self.board_known() {
            return Vec::new();
        }
        let Some(verdict) = assess(self.board.game().tracker().positions()) else {
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
        let tracker = self.board.game().tracker();
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
                "clock {clock} plays without draw rules (draw_rules = \"none\", or its \
                 double-flag control's default): there is no {} claim; set draw_rules = \
                 \"fide\" (or \"uscf\") in its [[clock]] table to allow it",
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
        let positions = self.board.game().tracker().positions();
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

    pub(super) fn end_on_board(&mut self, at: Instant, end: BoardEnd) {
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
                    BoardEnd::DeadPosition => "a dead position",
                }
            )),
        }
    }
}
