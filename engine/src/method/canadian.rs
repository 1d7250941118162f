//! Canadian byo-yomi (spec §4.9): main time, then periods in which a number of stones
//! (moves) must be played; a new period starts when they are.

use super::overtime::Overtime;
use super::{Adjusted, Apply, Boundary, Method, Unflag, not_in_method};
use crate::params::MAX_COUNT;
use crate::snapshot::MethodDetail;
use crate::types::{AdjustField, FlagReason, InputError, Phase};

/// Parameters and both sides' clocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Canadian {
    stones: u32,
    period: u64,
    sides: [Overtime; 2],
}

impl Canadian {
    pub(crate) fn new(main: u64, stones: u32, period: u64) -> Canadian {
        Canadian {
            stones,
            period,
            sides: [Overtime::new(main, stones, period); 2],
        }
    }

    pub(crate) fn carry_same(&mut self, old: &Canadian, i: usize) {
        self.sides[i].carry_from(&old.sides[i], self.stones, self.period);
    }
}

impl Method for Canadian {
    fn time_to_boundary(&self, i: usize) -> u64 {
        self.sides[i].running()
    }

    fn consume(&mut self, i: usize, d: u64) {
        self.sides[i].consume(d);
    }

    fn at_boundary(&mut self, i: usize, _my_moves: u32) -> Boundary {
        let s = &mut self.sides[i];
        if s.overtime {
            return Boundary::Flag(FlagReason::Time);
        }
        s.enter();
        Boundary::Continue
    }

    fn press(&mut self, i: usize, _u: u64, _m: u32, _moves: [u32; 2]) {
        let s = &mut self.sides[i];
        if s.overtime {
            s.count = s.count.saturating_sub(1);
            if s.count == 0 {
                s.count = self.stones;
                s.period_rem = self.period;
            }
        }
    }

    fn value(&self, i: usize, _mover: bool, _next_move: u32, _flagged: bool) -> u64 {
        self.sides[i].running()
    }

    fn phase(&self, i: usize) -> Phase {
        if self.sides[i].overtime {
            Phase::Overtime
        } else {
            Phase::Main
        }
    }

    fn detail(&self, i: usize) -> MethodDetail {
        let s = &self.sides[i];
        MethodDetail::Canadian {
            main_ms: s.main,
            period_ms: s.period_rem,
            stones_left: s.count,
        }
    }

    fn zero(&mut self, i: usize) {
        let s = &mut self.sides[i];
        s.main = 0;
        s.period_rem = 0;
    }

    fn adjust(&mut self, i: usize, field: AdjustField, apply: Apply<'_>) -> Adjusted {
        let s = &mut self.sides[i];
        match field {
            AdjustField::StonesLeft => {
                let n = apply(u64::from(s.count), u64::from(MAX_COUNT))?;
                if n == 0 {
                    return Err(InputError::CountBelowOne(field));
                }
                s.count = u32::try_from(n).unwrap_or(MAX_COUNT);
                Ok(Unflag::No)
            }
            _ => s
                .adjust_time(field, apply)
                .unwrap_or_else(|| Err(not_in_method(field))),
        }
    }

    fn remaining(&self, i: usize) -> u64 {
        self.sides[i].running()
    }

    fn carry_remaining(&mut self, i: usize, r: u64, _moves: u32) {
        self.sides[i].carry_remaining(r);
    }
}
