//! Japanese byo-yomi (spec §4.8): main time, then periods of fixed length; a move inside a
//! period restarts it, running one out uses the next.

use super::Boundary;
use super::Unflag;
use super::overtime::{Overtime, Periods, Rule};
use crate::snapshot::MethodDetail;
use crate::types::{AdjustField, FlagReason, Phase};

/// Parameters (periods, period length) and both sides' clocks.
pub(crate) type Byoyomi = Periods<Japanese>;

/// The byo-yomi rule: the count is the periods left, the current one included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Japanese;

impl Rule for Japanese {
    const PHASE: Phase = Phase::Byoyomi;
    const COUNT_FIELD: AdjustField = AdjustField::PeriodsLeft;

    fn period_over(s: &mut Overtime, period: u64) -> Boundary {
        if s.count > 1 {
            s.count -= 1;
            s.period_rem = period;
            Boundary::NextPeriod {
                periods_left: s.count,
            }
        } else {
            Boundary::Flag(FlagReason::Time)
        }
    }

    fn press(s: &mut Overtime, _count: u32, period: u64) {
        s.period_rem = period;
    }

    fn value(s: &Overtime, period: u64) -> u64 {
        if s.overtime {
            u64::from(s.count.saturating_sub(1))
                .saturating_mul(period)
                .saturating_add(s.period_rem)
        } else {
            s.main
        }
    }

    fn detail(s: &Overtime) -> MethodDetail {
        MethodDetail::Byoyomi {
            main_ms: s.main,
            periods_left: s.count,
            period_ms: s.period_rem,
        }
    }

    fn zero_count(s: &mut Overtime) {
        s.count = s.count.min(1);
    }

    fn count_set(s: &mut Overtime, period: u64) -> Unflag {
        // A spent period (a byo-yomi flag) is restarted: the player gets the periods.
        if s.overtime && s.period_rem == 0 {
            s.period_rem = period;
        }
        Unflag::Yes
    }
}
