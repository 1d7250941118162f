//! Hourglass (spec §4.7): what one side spends, the other gains.

use super::{Adjusted, Apply, Boundary, Method, adjust_ms, not_in_method};
use crate::snapshot::MethodDetail;
use crate::types::{AdjustField, FlagReason, Phase};

/// Both sides' sand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hourglass {
    rem: [u64; 2],
}

impl Hourglass {
    pub(crate) fn new(per_side: u64) -> Hourglass {
        Hourglass {
            rem: [per_side, per_side],
        }
    }

    pub(crate) fn carry_same(&mut self, old: &Hourglass, i: usize) {
        self.rem[i] = old.rem[i];
    }
}

impl Method for Hourglass {
    fn time_to_boundary(&self, i: usize) -> u64 {
        self.rem[i]
    }

    fn consume(&mut self, i: usize, d: u64) {
        self.rem[i] -= d.min(self.rem[i]);
        self.rem[1 - i] = self.rem[1 - i].saturating_add(d);
    }

    fn at_boundary(&mut self, _i: usize, _my_moves: u32) -> Boundary {
        Boundary::Flag(FlagReason::Time)
    }

    fn press(&mut self, _i: usize, _u: u64, _m: u32, _moves: [u32; 2]) {}

    fn value(&self, i: usize, _mover: bool, _next_move: u32, _flagged: bool) -> u64 {
        self.rem[i]
    }

    fn waiting_side_moves(&self, _i: usize) -> bool {
        true
    }

    fn phase(&self, _i: usize) -> Phase {
        Phase::Hourglass
    }

    fn detail(&self, _i: usize) -> MethodDetail {
        MethodDetail::Hourglass
    }

    fn zero(&mut self, i: usize) {
        self.rem[i] = 0;
    }

    fn adjust(&mut self, i: usize, field: AdjustField, apply: Apply<'_>) -> Adjusted {
        match field {
            AdjustField::MainMs => adjust_ms(&mut self.rem[i], apply),
            _ => Err(not_in_method(field)),
        }
    }

    fn remaining(&self, i: usize) -> u64 {
        self.rem[i]
    }

    fn carry_remaining(&mut self, i: usize, r: u64, _moves: u32) {
        self.rem[i] = r;
    }
}
