//! Japanese byo-yomi (spec §4.8): main time, then periods of fixed length; a move inside a
//! period restarts it, running one out uses the next.

use super::overtime::Overtime;
use super::{Adjusted, Apply, Boundary, Method, Unflag, not_in_method};
use crate::params::MAX_COUNT;
use crate::snapshot::MethodDetail;
use crate::types::{AdjustField, FlagReason, InputError, Phase};

/// Parameters and both sides' clocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Byoyomi {
    periods: u32,
    period: u64,
    sides: [Overtime; 2],
}

impl Byoyomi {
    pub(crate) fn new(main: u64, periods: u32, period: u64) -> Byoyomi {
        Byoyomi {
            periods,
            period,
            sides: [Overtime::new(main, periods, period); 2],
        }
    }

    pub(crate) fn carry_same(&mut self, old: &Byoyomi, i: usize) {
        self.sides[i].carry_from(&old.sides[i], self.periods, self.period);
    }
}

impl Method for Byoyomi {
    fn time_to_boundary(&self, i: usize) -> u64 {
        self.sides[i].running()
    }

    fn consume(&mut self, i: usize, d: u64) {
        self.sides[i].consume(d);
    }

    fn at_boundary(&mut self, i: usize, _my_moves: u32) -> Boundary {
        let s = &mut self.sides[i];
        if !s.overtime {
            // The periods start, with any arbiter correction of periods_left / period_ms
            // made during main time (initially P and T).
            s.enter();
            Boundary::Continue
        } else if s.count > 1 {
            s.count -= 1;
            s.period_rem = self.period;
            Boundary::NextPeriod {
                periods_left: s.count,
            }
        } else {
            Boundary::Flag(FlagReason::Time)
        }
    }

    fn press(&mut self, i: usize, _u: u64, _m: u32, _moves: [u32; 2]) {
        if self.sides[i].overtime {
            self.sides[i].period_rem = self.period;
        }
    }

    fn value(&self, i: usize, _mover: bool, _next_move: u32, _flagged: bool) -> u64 {
        let s = &self.sides[i];
        if s.overtime {
            u64::from(s.count.saturating_sub(1))
                .saturating_mul(self.period)
                .saturating_add(s.period_rem)
        } else {
            s.main
        }
    }

    fn phase(&self, i: usize) -> Phase {
        if self.sides[i].overtime {
            Phase::Byoyomi
        } else {
            Phase::Main
        }
    }

    fn detail(&self, i: usize) -> MethodDetail {
        let s = &self.sides[i];
        MethodDetail::Byoyomi {
            main_ms: s.main,
            periods_left: s.count,
            period_ms: s.period_rem,
        }
    }

    fn zero(&mut self, i: usize) {
        let s = &mut self.sides[i];
        s.main = 0;
        s.period_rem = 0;
        s.count = s.count.min(1);
    }

    fn adjust(&mut self, i: usize, field: AdjustField, apply: Apply<'_>) -> Adjusted {
        let s = &mut self.sides[i];
        match field {
            AdjustField::PeriodsLeft => {
                let n = apply(u64::from(s.count), u64::from(MAX_COUNT))?;
                if n == 0 {
                    return Err(InputError::CountBelowOne(field));
                }
                s.count = u32::try_from(n).unwrap_or(MAX_COUNT);
                // A spent period (a byo-yomi flag) is restarted: the player gets the periods.
                if s.overtime && s.period_rem == 0 {
                    s.period_rem = self.period;
                }
                Ok(Unflag::Yes)
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
