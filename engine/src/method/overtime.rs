//! Main time followed by overtime periods that carry a count: the method Japanese byo-yomi
//! (periods left) and Canadian byo-yomi (stones owed) share, [`Periods`], with each one's
//! [`Rule`] in its own file.
//!
//! Owns the main/period bookkeeping (which slot runs, consuming it, entering the overtime,
//! the time and count adjustments, carrying it across a reconfiguration); what a press, a
//! spent period or a corrected count means is the rule's.

use std::marker::PhantomData;

use super::{Adjusted, Apply, Boundary, Method, Unflag, adjust_ms, not_in_method};
use crate::params::MAX_COUNT;
use crate::snapshot::MethodDetail;
use crate::types::{AdjustField, InputError, Phase};

/// What one overtime method decides; `count` and `period` are its parameters (the periods
/// or the stones, and the period's length).
pub(crate) trait Rule {
    /// The phase in the overtime.
    const PHASE: Phase;
    /// The adjustment field of the count (`periods_left`, `stones_left`).
    const COUNT_FIELD: AdjustField;
    /// The running period is spent.
    fn period_over(s: &mut Overtime, period: u64) -> Boundary;
    /// A press in the overtime.
    fn press(s: &mut Overtime, count: u32, period: u64);
    /// The displayed value (spec §3).
    fn value(s: &Overtime, period: u64) -> u64;
    /// The detail fields (spec §1.4).
    fn detail(s: &Overtime) -> MethodDetail;
    /// flag/continue: what is left of the count once the times are 0.
    fn zero_count(_s: &mut Overtime) {}
    /// The count was corrected by the arbiter (to at least 1).
    fn count_set(s: &mut Overtime, period: u64) -> Unflag;
}

/// Parameters and both sides' clocks of an overtime method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Periods<R> {
    count: u32,
    period: u64,
    sides: [Overtime; 2],
    rule: PhantomData<R>,
}

impl<R> Periods<R> {
    pub(crate) fn new(main: u64, count: u32, period: u64) -> Periods<R> {
        Periods {
            count,
            period,
            sides: [Overtime::new(main, count, period); 2],
            rule: PhantomData,
        }
    }

    pub(crate) fn carry_same(&mut self, old: &Periods<R>, i: usize) {
        self.sides[i].carry_from(&old.sides[i], self.count, self.period);
    }
}

impl<R: Rule> Method for Periods<R> {
    fn time_to_boundary(&self, i: usize) -> u64 {
        self.sides[i].running()
    }

    fn consume(&mut self, i: usize, d: u64) {
        self.sides[i].consume(d);
    }

    fn at_boundary(&mut self, i: usize, _my_moves: u32) -> Boundary {
        let s = &mut self.sides[i];
        if s.overtime {
            return R::period_over(s, self.period);
        }
        // The periods start, with any arbiter correction of the count / period_ms made
        // during main time (initially the parameters).
        s.enter();
        Boundary::Continue
    }

    fn press(&mut self, i: usize, _u: u64, _m: u32, _moves: [u32; 2]) {
        if self.sides[i].overtime {
            R::press(&mut self.sides[i], self.count, self.period);
        }
    }

    fn value(&self, i: usize, _mover: bool, _next_move: u32, _flagged: bool) -> u64 {
        R::value(&self.sides[i], self.period)
    }

    fn phase(&self, i: usize) -> Phase {
        if self.sides[i].overtime {
            R::PHASE
        } else {
            Phase::Main
        }
    }

    fn detail(&self, i: usize) -> MethodDetail {
        R::detail(&self.sides[i])
    }

    fn zero(&mut self, i: usize) {
        let s = &mut self.sides[i];
        s.main = 0;
        s.period_rem = 0;
        R::zero_count(s);
    }

    fn adjust(&mut self, i: usize, field: AdjustField, apply: Apply<'_>) -> Adjusted {
        let s = &mut self.sides[i];
        if field != R::COUNT_FIELD {
            return s
                .adjust_time(field, apply)
                .unwrap_or_else(|| Err(not_in_method(field)));
        }
        let n = apply(u64::from(s.count), u64::from(MAX_COUNT))?;
        if n == 0 {
            return Err(InputError::CountBelowOne(field));
        }
        s.count = u32::try_from(n).unwrap_or(MAX_COUNT);
        Ok(R::count_set(s, self.period))
    }

    fn remaining(&self, i: usize) -> u64 {
        self.sides[i].running()
    }

    fn carry_remaining(&mut self, i: usize, r: u64, _moves: u32) {
        self.sides[i].carry_remaining(r);
    }
}

/// Main time, then periods of a fixed length with a count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Overtime {
    pub(crate) main: u64,
    /// In the periods.
    pub(crate) overtime: bool,
    /// Byo-yomi: periods left, the current one included. Canadian: stones still owed.
    pub(crate) count: u32,
    /// The current period's remainder (before the overtime: what it will start with).
    pub(crate) period_rem: u64,
}

impl Overtime {
    /// A fresh side; with no main time (C8) it is in the overtime from the start.
    fn new(main: u64, count: u32, period: u64) -> Overtime {
        Overtime {
            main,
            overtime: main == 0,
            count,
            period_rem: period,
        }
    }

    /// Keep `old`'s progress under a control of the same method with `count` and `period`.
    fn carry_from(&mut self, old: &Overtime, count: u32, period: u64) {
        self.main = old.main;
        self.overtime = old.overtime;
        if old.overtime {
            self.count = old.count.min(count).max(1);
            self.period_rem = old.period_rem.min(period);
        }
    }

    /// The time that runs now: the period's remainder in the overtime, else the main time.
    pub(crate) fn running(&self) -> u64 {
        if self.overtime {
            self.period_rem
        } else {
            self.main
        }
    }

    fn consume(&mut self, d: u64) {
        let slot = if self.overtime {
            &mut self.period_rem
        } else {
            &mut self.main
        };
        *slot -= d.min(*slot);
    }

    /// Main time is over: the overtime starts, with any arbiter correction of the count made
    /// during main time.
    fn enter(&mut self) {
        self.overtime = true;
        self.count = self.count.max(1);
    }

    /// The time adjustments both methods take (`main_ms`, `period_ms`); `None` for others.
    fn adjust_time(&mut self, field: AdjustField, apply: Apply<'_>) -> Option<Adjusted> {
        match field {
            AdjustField::MainMs => Some(adjust_ms(&mut self.main, apply)),
            AdjustField::PeriodMs => Some(adjust_ms(&mut self.period_rem, apply)),
            _ => None,
        }
    }

    /// Start over in main time with `r` (a reconfiguration to another method).
    fn carry_remaining(&mut self, r: u64) {
        self.main = r;
        self.overtime = false;
    }
}
