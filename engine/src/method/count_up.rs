//! Count-up (the DGT 3000/XL "upcount" mode): both clocks count the time each player has
//! used, up from 0:00. No limit of its own: only the independent cap (`cap/`), which the
//! core keeps, can flag.

use super::{Adjusted, Apply, Boundary, Method, Unflag, adjust_ms, not_in_method};
use crate::snapshot::MethodDetail;
use crate::types::{AdjustField, FlagReason, Phase};

/// Both sides' time used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CountUp {
    used: [u64; 2],
}

impl CountUp {
    pub(crate) fn new() -> CountUp {
        CountUp { used: [0, 0] }
    }

    pub(crate) fn carry_same(&mut self, old: &CountUp, i: usize) {
        self.used[i] = old.used[i];
    }
}

impl Method for CountUp {
    fn time_to_boundary(&self, _i: usize) -> u64 {
        // Never: the clock has no limit of its own (the core's cap may still be one).
        u64::MAX
    }

    fn consume(&mut self, i: usize, d: u64) {
        self.used[i] = self.used[i].saturating_add(d);
    }

    fn at_boundary(&mut self, _i: usize, _my_moves: u32) -> Boundary {
        // Unreachable in practice (no boundary); a flag is the safe answer.
        Boundary::Flag(FlagReason::Time)
    }

    fn press(&mut self, _i: usize, _u: u64, _m: u32, _moves: [u32; 2]) {}

    fn value(&self, i: usize, _mover: bool, _next_move: u32, _flagged: bool) -> u64 {
        self.used[i]
    }

    fn counts_down(&self, _i: usize, _value: u64) -> bool {
        false
    }

    fn counts_up(&self) -> bool {
        true
    }

    fn phase(&self, _i: usize) -> Phase {
        Phase::Up
    }

    fn detail(&self, _i: usize) -> MethodDetail {
        MethodDetail::CountUp
    }

    fn zero(&mut self, _i: usize) {}

    fn adjust(&mut self, i: usize, field: AdjustField, apply: Apply<'_>) -> Adjusted {
        match field {
            // The time used, as the clock shows it.
            AdjustField::MainMs => adjust_ms(&mut self.used[i], apply).map(|_| Unflag::No),
            _ => Err(not_in_method(field)),
        }
    }

    fn remaining(&self, _i: usize) -> u64 {
        // Nothing is "left" on a clock without a limit: another method starts afresh.
        0
    }

    fn carry_remaining(&mut self, i: usize, _r: u64, _moves: u32) {
        self.used[i] = 0;
    }
}
