//! Japanese byo-yomi (spec §4.8): main time, then periods of fixed length; a move inside a
//! period restarts it, running one out uses the next.

use super::{Apply, Boundary, Method, Unflag, adjust_ms, not_in_method};
use crate::params::MAX_COUNT;
use crate::snapshot::MethodDetail;
use crate::types::{AdjustField, FlagReason, InputError, Phase};

/// One side's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Side {
    main: u64,
    /// In the periods.
    overtime: bool,
    /// Periods left, the current one included.
    periods_left: u32,
    /// The current period's remainder (before the overtime: what it will start with).
    period_rem: u64,
}

/// Parameters and both sides' clocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Byoyomi {
    periods: u32,
    period: u64,
    sides: [Side; 2],
}

impl Byoyomi {
    pub(crate) fn new(main: u64, periods: u32, period: u64) -> Byoyomi {
        let side = Side {
            main,
            // No main time (C8): both players are in byo-yomi from the start.
            overtime: main == 0,
            periods_left: periods,
            period_rem: period,
        };
        Byoyomi {
            periods,
            period,
            sides: [side, side],
        }
    }

    pub(crate) fn carry_same(&mut self, old: &Byoyomi, i: usize) {
        let (o, n) = (&old.sides[i], &mut self.sides[i]);
        n.main = o.main;
        n.overtime = o.overtime;
        if o.overtime {
            n.periods_left = o.periods_left.min(self.periods).max(1);
            n.period_rem = o.period_rem.min(self.period);
        }
    }

    fn running(&self, i: usize) -> u64 {
        let s = &self.sides[i];
        if s.overtime { s.period_rem } else { s.main }
    }
}

impl Method for Byoyomi {
    fn time_to_boundary(&self, i: usize) -> u64 {
        self.running(i)
    }

    fn consume(&mut self, i: usize, d: u64) {
        let s = &mut self.sides[i];
        let slot = if s.overtime {
            &mut s.period_rem
        } else {
            &mut s.main
        };
        *slot -= d.min(*slot);
    }

    fn at_boundary(&mut self, i: usize, _my_moves: u32) -> Boundary {
        let s = &mut self.sides[i];
        if !s.overtime {
            // Main time is over: the periods start, with any arbiter correction of
            // periods_left / period_ms made during main time (initially P and T).
            s.overtime = true;
            s.periods_left = s.periods_left.max(1);
            Boundary::Continue
        } else if s.periods_left > 1 {
            s.periods_left -= 1;
            s.period_rem = self.period;
            Boundary::Continue
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
            u64::from(s.periods_left.saturating_sub(1))
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
            periods_left: s.periods_left,
            period_ms: s.period_rem,
        }
    }

    fn zero(&mut self, i: usize) {
        let s = &mut self.sides[i];
        s.main = 0;
        s.period_rem = 0;
        s.periods_left = s.periods_left.min(1);
    }

    fn adjust(
        &mut self,
        i: usize,
        field: AdjustField,
        apply: Apply<'_>,
    ) -> Result<Unflag, InputError> {
        let s = &mut self.sides[i];
        match field {
            AdjustField::PeriodsLeft => {
                let n = apply(u64::from(s.periods_left), u64::from(MAX_COUNT))?;
                if n == 0 {
                    return Err(InputError::CountBelowOne(field));
                }
                s.periods_left = u32::try_from(n).unwrap_or(MAX_COUNT);
                // A spent period (a byo-yomi flag) is restarted: the player gets the periods.
                if s.overtime && s.period_rem == 0 {
                    s.period_rem = self.period;
                }
                Ok(Unflag::Yes)
            }
            AdjustField::MainMs => adjust_ms(&mut s.main, apply),
            AdjustField::PeriodMs => adjust_ms(&mut s.period_rem, apply),
            _ => Err(not_in_method(field)),
        }
    }

    fn remaining(&self, i: usize) -> u64 {
        self.running(i)
    }

    fn carry_remaining(&mut self, i: usize, r: u64, _moves: u32) {
        self.sides[i].main = r;
        self.sides[i].overtime = false;
    }
}
