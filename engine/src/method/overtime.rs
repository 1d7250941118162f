//! One side's main time followed by overtime periods that carry a count: the state Japanese
//! byo-yomi (periods left) and Canadian byo-yomi (stones owed) share.
//!
//! Owns the main/period bookkeeping (which slot runs, consuming it, entering the overtime,
//! carrying it across a reconfiguration); what a press or a spent period means stays in each
//! method.

use super::{Adjusted, Apply, adjust_ms};
use crate::types::AdjustField;

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
    pub(crate) fn new(main: u64, count: u32, period: u64) -> Overtime {
        Overtime {
            main,
            overtime: main == 0,
            count,
            period_rem: period,
        }
    }

    /// Keep `old`'s progress under a control of the same method with `count` and `period`.
    pub(crate) fn carry_from(&mut self, old: &Overtime, count: u32, period: u64) {
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

    pub(crate) fn consume(&mut self, d: u64) {
        let slot = if self.overtime {
            &mut self.period_rem
        } else {
            &mut self.main
        };
        *slot -= d.min(*slot);
    }

    /// Main time is over: the overtime starts, with any arbiter correction of the count made
    /// during main time.
    pub(crate) fn enter(&mut self) {
        self.overtime = true;
        self.count = self.count.max(1);
    }

    /// The time adjustments both methods take (`main_ms`, `period_ms`); `None` for others.
    pub(crate) fn adjust_time(&mut self, field: AdjustField, apply: Apply<'_>) -> Option<Adjusted> {
        match field {
            AdjustField::MainMs => Some(adjust_ms(&mut self.main, apply)),
            AdjustField::PeriodMs => Some(adjust_ms(&mut self.period_rem, apply)),
            _ => None,
        }
    }

    /// Start over in main time with `r` (a reconfiguration to another method).
    pub(crate) fn carry_remaining(&mut self, r: u64) {
        self.main = r;
        self.overtime = false;
    }
}
