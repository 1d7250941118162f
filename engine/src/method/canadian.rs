//! Canadian byo-yomi (spec §4.9): main time, then periods in which a number of stones
//! (moves) must be played; a new period starts when they are.

use super::{Apply, Boundary, Method, Unflag, adjust_ms, not_in_method};
use crate::params::MAX_COUNT;
use crate::snapshot::MethodDetail;
use crate::types::{AdjustField, FlagReason, InputError, Phase};

/// One side's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Side {
    main: u64,
    /// In the overtime.
    overtime: bool,
    /// Stones still owed in the period.
    stones_left: u32,
    /// The current period's remainder (before the overtime: what it will start with).
    period_rem: u64,
}

/// Parameters and both sides' clocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Canadian {
    stones: u32,
    period: u64,
    sides: [Side; 2],
}

impl Canadian {
    pub(crate) fn new(main: u64, stones: u32, period: u64) -> Canadian {
        let side = Side {
            main,
            overtime: main == 0,
            stones_left: stones,
            period_rem: period,
        };
        Canadian {
            stones,
            period,
            sides: [side, side],
        }
    }

    pub(crate) fn carry_same(&mut self, old: &Canadian, i: usize) {
        let (o, n) = (&old.sides[i], &mut self.sides[i]);
        n.main = o.main;
        n.overtime = o.overtime;
        if o.overtime {
            n.stones_left = o.stones_left.min(self.stones).max(1);
            n.period_rem = o.period_rem.min(self.period);
        }
    }

    fn running(&self, i: usize) -> u64 {
        let s = &self.sides[i];
        if s.overtime { s.period_rem } else { s.main }
    }
}

impl Method for Canadian {
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
        if s.overtime {
            return Boundary::Flag(FlagReason::Time);
        }
        s.overtime = true;
        s.stones_left = s.stones_left.max(1);
        Boundary::Continue
    }

    fn press(&mut self, i: usize, _u: u64, _m: u32, _moves: [u32; 2]) {
        let s = &mut self.sides[i];
        if s.overtime {
            s.stones_left = s.stones_left.saturating_sub(1);
            if s.stones_left == 0 {
                s.stones_left = self.stones;
                s.period_rem = self.period;
            }
        }
    }

    fn value(&self, i: usize, _mover: bool, _next_move: u32, _flagged: bool) -> u64 {
        self.running(i)
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
            stones_left: s.stones_left,
        }
    }

    fn zero(&mut self, i: usize) {
        let s = &mut self.sides[i];
        s.main = 0;
        s.period_rem = 0;
    }

    fn adjust(
        &mut self,
        i: usize,
        field: AdjustField,
        apply: Apply<'_>,
    ) -> Result<Unflag, InputError> {
        let s = &mut self.sides[i];
        match field {
            AdjustField::StonesLeft => {
                let n = apply(u64::from(s.stones_left), u64::from(MAX_COUNT))?;
                if n == 0 {
                    return Err(InputError::CountBelowOne(field));
                }
                s.stones_left = u32::try_from(n).unwrap_or(MAX_COUNT);
                Ok(Unflag::No)
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
