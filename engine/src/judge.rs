//! The game's end judged with the board: a result read on the board, a flag against the
//! position (FIDE 6.9), draw claims judged from the board's history (FIDE 9.2, 9.3, 9.5.3)
//! and the USCF 14H claim of insufficient losing chances with the director's rulings.
//!
//! Part of the [`Engine`] state machine. What the position is (a mate, a repetition, who can
//! still mate) is the board game's to say; the engine is told through inputs, so a replay of
//! the journal judges the same way without the board. Each input is checked against the
//! status first and changes nothing when refused.

use crate::core::Engine;
use crate::method::Method;
use crate::params::{DelayKind, Method as ControlMethod, Segment, TimeControl};
use crate::rules::Kind;
use crate::types::{
    AdjustField, FlagReason, GameResult, InputError, Phase, ResultReason, Side, Status, StatusCause,
};
use crate::verdict::{
    BoardClaim, BoardEnd, DENIED_CLAIM_PENALTY_MS, LOSING_CHANCES_MAX_MS, PendingClaim, Ruling,
    WRONG_CLAIM_BONUS_MS,
};

impl Engine {
    /// The board's result, if the clock's state lets it stand: not before the start, not
    /// after the end, and not after a flag that decided the game first (FIDE 6.9).
    pub(crate) fn board_end(&mut self, end: BoardEnd) -> Result<(), InputError> {
        match self.status {
            Status::Ready => return Err(InputError::NotStarted),
            Status::Ended => return Err(InputError::AlreadyEnded),
            Status::Flagged if self.result.is_some() => return Err(InputError::FlagFellFirst),
            // A flag waits for the verdict on the position it fell in: that position was dead
            // before the flag (FIDE 5.2.2 ends the game at once), anything else came after.
            Status::Flagged if self.awaiting.is_some() && end != BoardEnd::DeadPosition => {
                return Err(InputError::FlagFellFirst);
            }
            _ => {}
        }
        let reason = match end {
            BoardEnd::Checkmate { .. } => ResultReason::Checkmate,
            BoardEnd::Stalemate => ResultReason::Stalemate,
            BoardEnd::Signal { .. } => ResultReason::BoardSignal,
            BoardEnd::FivefoldRepetition => ResultReason::FivefoldRepetition,
            BoardEnd::SeventyFiveMoves => ResultReason::SeventyFiveMoves,
            BoardEnd::DeadPosition => ResultReason::DeadPosition,
        };
        self.decide(end.result(), reason);
        Ok(())
    }

    /// End the game with `result` for `reason`, unless the winner is on double-flag extra
    /// time: then it is a draw (the double-flag rule, spec §4.10).
    pub(crate) fn decide(&mut self, result: GameResult, reason: ResultReason) {
        let (result, reason) = match result.winner() {
            Some(w) if self.timing.on_extra_time(w.idx()) => {
                (GameResult::Draw, ResultReason::WinnerInExtraTime)
            }
            _ => (result, reason),
        };
        self.pending = None;
        self.finish(result, reason, Status::Ended);
    }

    /// Which sides win on the opponent's flag (the board game's verdict on the position;
    /// `None`: not known yet); a flag against a side that would not win is a draw. A flag
    /// waiting for the verdict is decided by it.
    pub(crate) fn set_mating_material(&mut self, white: Option<bool>, black: Option<bool>) {
        self.can_mate = [white, black];
        if let Some((side, reason)) = self.awaiting
            && self.can_mate[side.other().idx()].is_some()
        {
            self.awaiting = None;
            self.flag_result(side, reason);
        }
    }

    /// What `side`'s flag for `reason` decides: the opponent wins, unless the opponent would
    /// not win on time in the position (FIDE 6.9: it cannot checkmate by any series of legal
    /// moves; USCF 14E): a draw. Not known yet: the flag waits for the verdict (status
    /// `flagged`, no result).
    pub(crate) fn flag_result(&mut self, side: Side, reason: FlagReason) {
        let winner = side.other();
        match self.can_mate[winner.idx()] {
            Some(true) => self.finish(
                GameResult::win_for(winner),
                ResultReason::Flag(reason),
                Status::Flagged,
            ),
            Some(false) => self.finish(
                GameResult::Draw,
                ResultReason::InsufficientMaterial,
                Status::Flagged,
            ),
            None => {
                self.awaiting = Some((side, reason));
                self.set_status(Status::Flagged, StatusCause::Flag);
            }
        }
    }

    /// A threefold or fifty-move claim, judged from the board's history: right, drawn at
    /// once; wrong, two minutes more for the opponent and play goes on (FIDE 9.5.3).
    pub(crate) fn board_claim(
        &mut self,
        side: Side,
        claim: BoardClaim,
        valid: bool,
    ) -> Result<(), InputError> {
        if !matches!(self.status, Status::Running | Status::Paused) {
            return Err(InputError::ClaimNotNow(self.status));
        }
        if valid {
            let reason = match claim {
                BoardClaim::Threefold => ResultReason::ThreefoldRepetition,
                BoardClaim::FiftyMoves => ResultReason::FiftyMoves,
            };
            self.decide(GameResult::Draw, reason);
        } else {
            self.change_time(
                side.other(),
                i64::try_from(WRONG_CLAIM_BONUS_MS).unwrap_or(0),
            );
        }
        Ok(())
    }

    /// USCF 14H: `side` claims insufficient losing chances. Only in a sudden-death period
    /// with the claimant at two minutes or less; the clock pauses for the director.
    pub(crate) fn claim_losing_chances(&mut self, side: Side) -> Result<(), InputError> {
        if !matches!(self.status, Status::Running | Status::Paused) {
            return Err(InputError::ClaimNotNow(self.status));
        }
        if self.pending.is_some() {
            return Err(InputError::ClaimPending);
        }
        let phase = self.phase(side);
        if !matches!(phase, Phase::Sd | Phase::PeriodSd(_)) {
            return Err(InputError::ClaimNeedsSuddenDeath(phase));
        }
        let left = self.value(side);
        if left > LOSING_CHANCES_MAX_MS {
            return Err(InputError::ClaimTooEarly(left));
        }
        self.pending = Some(PendingClaim {
            side,
            flag_fell: false,
        });
        self.set_status(Status::Paused, StatusCause::Claim);
        Ok(())
    }

    /// A watched claimant's flag fell: the game pauses for the director instead of ending.
    pub(crate) fn pause_for_ruling(&mut self, side: Side) {
        self.watched = None;
        self.pending = Some(PendingClaim {
            side,
            flag_fell: true,
        });
        self.set_status(Status::Paused, StatusCause::Claim);
    }

    /// The director's ruling on the pending 14H claim (USCF 14H2).
    pub(crate) fn rule(&mut self, ruling: Ruling) -> Result<(), InputError> {
        let Some(claim) = self.pending else {
            return Err(InputError::NoClaimPending);
        };
        let side = claim.side;
        match ruling {
            Ruling::Draw => {
                self.watched = None;
                self.decide(GameResult::Draw, ResultReason::InsufficientLosingChances);
                return Ok(());
            }
            Ruling::Deny if claim.flag_fell => {
                self.pending = None;
                let reason = self.flags.last().map_or(FlagReason::Time, |f| f.reason);
                self.flag_result(side, reason);
                return Ok(());
            }
            Ruling::Deny => {
                self.change_time(side, -i64::try_from(DENIED_CLAIM_PENALTY_MS).unwrap_or(0));
            }
            Ruling::Delay { .. } | Ruling::Watch if claim.flag_fell => {
                return Err(InputError::RulingAfterFlag(ruling.as_str()));
            }
            Ruling::Delay { delay_ms } => {
                self.place_delay(delay_ms)?;
                let half = self.timing.remaining(side.idx()) / 2;
                self.change_time_to(side, half);
            }
            Ruling::Watch => self.watched = Some(side),
        }
        self.pending = None;
        self.set_status(Status::Running, StatusCause::Resume);
        Ok(())
    }

    /// Put a delay clock on the game for the rest of it (both players): every segment
    /// without a delay gets a US delay of `delay_ms` from the next turn on.
    fn place_delay(&mut self, delay_ms: u64) -> Result<(), InputError> {
        let Kind::Segments { segs, .. } = &self.rules.kind else {
            return Err(InputError::DelayNeedsSegments(self.control.method));
        };
        let with_delay = |s: &[Segment]| -> Vec<Segment> {
            s.iter()
                .map(|seg| match seg.delay_ms {
                    Some(d) if d > 0 => seg.clone(),
                    _ => Segment {
                        delay_ms: Some(delay_ms),
                        delay_kind: Some(DelayKind::Us),
                        ..seg.clone()
                    },
                })
                .collect()
        };
        let (white, black) = (with_delay(&segs[0]), with_delay(&segs[1]));
        let mut params = self.control.params.clone();
        if white == black {
            params.segments = Some(white);
            params.segments_white = None;
            params.segments_black = None;
        } else {
            params.segments = None;
            params.segments_white = Some(white);
            params.segments_black = Some(black);
        }
        let method = match self.control.method {
            ControlMethod::SuddenDeath => ControlMethod::UsDelay,
            m => m,
        };
        self.reconfigure(TimeControl { method, params })
    }

    /// Add `delta` ms (negative: take, down to zero) to `side`'s remaining time, whatever the
    /// status: the rules' own corrections, not an arbiter's adjustment.
    fn change_time(&mut self, side: Side, delta: i64) {
        let now = self.timing.remaining(side.idx());
        let to = if delta < 0 {
            now.saturating_sub(delta.unsigned_abs())
        } else {
            now.saturating_add(delta.unsigned_abs())
        };
        self.change_time_to(side, to);
    }

    /// Set `side`'s remaining time to `ms` in the field that holds it (main time, or phased
    /// swing's reserve).
    fn change_time_to(&mut self, side: Side, ms: u64) {
        let i = side.idx();
        let set = |_: u64, _: u64| Ok(ms);
        let changed = [AdjustField::MainMs, AdjustField::ReserveMs]
            .into_iter()
            .any(|field| self.timing.adjust(i, field, &set).is_ok());
        if changed && ms > 0 {
            self.flagged[i] = false;
        }
    }
}

#[cfg(test)]
mod tests;
