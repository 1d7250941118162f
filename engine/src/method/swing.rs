//! Phased swing, with a cut-off and open-ended (spec §4.14): the mover's swing balance flows
//! to the opponent while it thinks; once spent, its reserve runs. At the cut-off (both sides
//! have made the moves) each side's swing joins its reserve.

use super::{Adjusted, Apply, Boundary, Method, adjust_ms, not_in_method};
use crate::snapshot::MethodDetail;
use crate::types::{AdjustField, FlagReason, InputError, Phase};

/// One side's clock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Side {
    swing: u64,
    reserve: u64,
}

/// Parameters and both sides' clocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Swing {
    /// Full moves of the cut-off (`None`: open-ended).
    cutoff: Option<u32>,
    /// The cut-off has passed.
    post_cutoff: bool,
    sides: [Side; 2],
}

impl Swing {
    pub(crate) fn new(reserve: u64, swing: u64, cutoff: Option<u32>) -> Swing {
        Swing {
            cutoff,
            post_cutoff: false,
            sides: [Side { swing, reserve }; 2],
        }
    }

    pub(crate) fn carry_same(&mut self, old: &Swing, i: usize) {
        self.sides[i] = old.sides[i];
        self.post_cutoff = old.post_cutoff;
    }

    fn swinging(&self, i: usize) -> bool {
        self.sides[i].swing > 0 && !self.post_cutoff
    }
}

impl Method for Swing {
    fn time_to_boundary(&self, i: usize) -> u64 {
        if self.swinging(i) {
            self.sides[i].swing
        } else {
            self.sides[i].reserve
        }
    }

    fn consume(&mut self, i: usize, d: u64) {
        if self.swinging(i) {
            let t = d.min(self.sides[i].swing);
            self.sides[i].swing -= t;
            self.sides[1 - i].swing = self.sides[1 - i].swing.saturating_add(t);
        } else {
            let s = &mut self.sides[i];
            s.reserve -= d.min(s.reserve);
        }
    }

    fn at_boundary(&mut self, i: usize, _my_moves: u32) -> Boundary {
        let s = &self.sides[i];
        if s.swing == 0 && s.reserve == 0 {
            Boundary::Flag(FlagReason::Time)
        } else {
            // The swing balance is spent: the reserve runs now.
            Boundary::Continue
        }
    }

    fn press(&mut self, _i: usize, _u: u64, _m: u32, moves: [u32; 2]) {
        if let Some(n) = self.cutoff
            && !self.post_cutoff
            && moves.iter().all(|&k| k >= n)
        {
            self.post_cutoff = true;
            for s in &mut self.sides {
                s.reserve = s.reserve.saturating_add(s.swing);
                s.swing = 0;
            }
        }
    }

    fn value(&self, i: usize, _mover: bool, _next_move: u32, _flagged: bool) -> u64 {
        self.sides[i].swing.saturating_add(self.sides[i].reserve)
    }

    fn waiting_side_moves(&self, i: usize) -> bool {
        self.swinging(i)
    }

    fn phase(&self, i: usize) -> Phase {
        if self.post_cutoff {
            Phase::PostCutoff
        } else if self.sides[i].swing > 0 {
            Phase::Swing
        } else {
            Phase::Reserve
        }
    }

    fn detail(&self, i: usize) -> MethodDetail {
        MethodDetail::Swing {
            swing_ms: self.sides[i].swing,
            reserve_ms: self.sides[i].reserve,
        }
    }

    fn zero(&mut self, i: usize) {
        self.sides[i].reserve = 0;
    }

    fn adjust(&mut self, i: usize, field: AdjustField, apply: Apply<'_>) -> Adjusted {
        let s = &mut self.sides[i];
        match field {
            AdjustField::MainMs => Err(InputError::NoMainInSwing),
            AdjustField::SwingMs => adjust_ms(&mut s.swing, apply),
            AdjustField::ReserveMs => adjust_ms(&mut s.reserve, apply),
            _ => Err(not_in_method(field)),
        }
    }

    fn remaining(&self, i: usize) -> u64 {
        self.sides[i].swing.saturating_add(self.sides[i].reserve)
    }

    fn carry_remaining(&mut self, i: usize, r: u64, _moves: u32) {
        self.sides[i] = Side {
            swing: 0,
            reserve: r,
        };
    }
}
