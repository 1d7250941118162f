//! Canadian byo-yomi (spec §4.9): main time, then periods in which a number of stones
//! (moves) must be played; a new period starts when they are.

use super::Boundary;
use super::Unflag;
use super::overtime::{Overtime, Periods, Rule};
use crate::snapshot::MethodDetail;
use crate::types::{AdjustField, FlagReason, Phase};

/// Parameters (stones, period length) and both sides' clocks.
pub(crate) type Canadian = Periods<Stones>;

/// The Canadian rule: the count is the stones still owed in the period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stones;

impl Rule for Stones {
    const PHASE: Phase = Phase::Overtime;
    const COUNT_FIELD: AdjustField = AdjustField::StonesLeft;

    fn period_over(_s: &mut Overtime, _period: u64) -> Boundary {
        Boundary::Flag(FlagReason::Time)
    }

    fn press(s: &mut Overtime, stones: u32, period: u64) {
        s.count = s.count.saturating_sub(1);
        if s.count == 0 {
            s.count = stones;
            s.period_rem = period;
        }
    }

    fn value(s: &Overtime, _period: u64) -> u64 {
        s.running()
    }

    fn detail(s: &Overtime) -> MethodDetail {
        MethodDetail::Canadian {
            main_ms: s.main,
            period_ms: s.period_rem,
            stones_left: s.count,
        }
    }

    fn count_set(_s: &mut Overtime, _period: u64) -> Unflag {
        Unflag::No
    }
}
