//! The arbiter's inputs and the ways a game ends other than on time: adjustments, move
//! counter corrections, draw claims, board results and reconfiguration (spec §2.6, §4.10).
//!
//! Part of the [`Engine`] state machine: each input is checked against the status first and
//! changes nothing when refused. No timing arithmetic here: the methods own their fields.

use std::sync::Arc;

use crate::core::Engine;
use crate::method::{Method, Timing, Unflag};
use crate::params::{MAX_COUNT, TimeControl};
use crate::rules::Rules;
use crate::types::{AdjustField, AdjustOp, GameResult, InputError, ResultReason, Side, Status};

impl Engine {
    fn arbiter_allowed(&self, action: &'static str) -> Result<(), InputError> {
        match self.status {
            Status::Ready | Status::Paused | Status::Flagged => Ok(()),
            status => Err(InputError::NeedsPause { action, status }),
        }
    }

    /// Arbiter change of one detail field (spec §2.6). Times are in ms; `periods_left` and
    /// `stones_left` are counts (the `ms` value is the count); `cap_left_ms` corrects the
    /// independent cap (what the player may still use of it).
    pub(crate) fn adjust(
        &mut self,
        side: Side,
        field: AdjustField,
        op: AdjustOp,
        ms: i64,
    ) -> Result<(), InputError> {
        self.arbiter_allowed("adjust")?;
        let i = side.idx();
        let apply = |current: u64, max: u64| -> Result<u64, InputError> {
            let new = match op {
                AdjustOp::Set => ms,
                AdjustOp::Add => i64::try_from(current)
                    .unwrap_or(i64::MAX)
                    .saturating_add(ms),
            };
            let Ok(value) = u64::try_from(new) else {
                return Err(InputError::Negative { field, value: new });
            };
            if value > max {
                return Err(InputError::OverLimit { field, value, max });
            }
            Ok(value)
        };
        if field == AdjustField::CapLeftMs {
            let Some(a) = self.rules.overall_cap else {
                return Err(InputError::NoCap);
            };
            let left = apply(a.saturating_sub(self.cap_used[i]), a)?;
            self.cap_used[i] = a - left;
            return Ok(());
        }
        let method = self.control.method;
        let unflag = self.timing.adjust(i, field, &apply).map_err(|e| match e {
            InputError::NotInMethod { field, .. } => InputError::NotInMethod { field, method },
            other => other,
        })?;
        match unflag {
            Unflag::Yes => self.flagged[i] = false,
            Unflag::IfPositive(v) if v > 0 => self.flagged[i] = false,
            Unflag::IfPositive(_) | Unflag::No => {}
        }
        Ok(())
    }

    /// Arbiter correction of a press counter.
    pub(crate) fn set_moves(&mut self, side: Side, moves: u32) -> Result<(), InputError> {
        self.arbiter_allowed("set_moves")?;
        if moves > MAX_COUNT {
            return Err(InputError::TooManyMoves(moves));
        }
        let i = side.idx();
        if moves > self.moves[i] {
            self.timing.set_moves(i, moves);
        }
        self.moves[i] = moves;
        Ok(())
    }

    pub(crate) fn claim(&mut self, side: Side) -> Result<(), InputError> {
        if !matches!(self.timing, Timing::DoubleFlag(_)) {
            return Err(InputError::ClaimNeedsDoubleFlag);
        }
        if !matches!(self.status, Status::Running | Status::Paused) {
            return Err(InputError::ClaimNotNow(self.status));
        }
        let me = self.timing.on_extra_time(side.idx());
        let opp = self.timing.on_extra_time(side.other().idx());
        if me || !opp {
            return Err(InputError::ClaimNotYours);
        }
        self.finish(
            GameResult::Draw,
            ResultReason::DrawClaimOpponentInExtra,
            Status::Ended,
        );
        Ok(())
    }

    pub(crate) fn board_result(&mut self, result: GameResult) -> Result<(), InputError> {
        if self.status == Status::Ready {
            return Err(InputError::NotStarted);
        }
        if self.status == Status::Ended {
            return Err(InputError::AlreadyEnded);
        }
        self.watched = None;
        self.decide(result, ResultReason::Board);
        Ok(())
    }

    /// Replace the control for the rest of the game (spec §2.6), keeping each side's real
    /// remaining time (the method state, never the displayed value: no Bronstein `+d`, no
    /// independent-cap minimum, no byo-yomi total), the counters and the cap already used.
    /// Not while a clock runs. Mid-turn, the side to move keeps what is left of
    /// its delay window and gets no second `cr/before` credit.
    pub(crate) fn reconfigure(&mut self, tc: TimeControl) -> Result<(), InputError> {
        // Never while a clock runs (§2.6: pause first). An ended game may take a new
        // control (nothing runs; the daemon sets the next game's control this way).
        if self.status == Status::Running {
            return Err(InputError::ReconfigureRunning);
        }
        let rules = Rules::new(&tc).map_err(InputError::InvalidControl)?;
        let untouched = self.status == Status::Ready
            && self.moves == [0, 0]
            && self.cap_used == [0, 0]
            && self.timing == Timing::new(&self.rules.kind);
        self.timing = if untouched {
            Timing::new(&rules.kind)
        } else {
            let mid_turn = Side::BOTH.map(|s| self.turn == Some(s) && self.status != Status::Ready);
            self.timing.carry_over(&rules.kind, self.moves, mid_turn)
        };
        self.rules = Arc::new(rules);
        self.control = Arc::new(tc);
        Ok(())
    }
}
