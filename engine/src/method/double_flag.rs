//! Double-flag clock (spec §4.10): main time in segments; a side whose main time runs out
//! goes on extra time (it can no longer win on time) and earns a bonus per move under one of
//! three schemes; both main times out is a draw.

use std::sync::Arc;

use super::{Adjusted, Apply, Boundary, Method, adjust_ms, not_in_method};
use crate::params::{Scheme, Segment, Transition};
use crate::rules::{bonus, boundary, catch_up, next_period, period_after, seg_at};
use crate::snapshot::MethodDetail;
use crate::types::{AdjustField, FlagReason, Phase};

/// One side's clock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Side {
    main: u64,
    /// Funded main-time period index.
    period: usize,
    /// Extra time left, once on extra time.
    extra: Option<u64>,
}

/// Parameters and both sides' clocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DoubleFlag {
    segs: Arc<[Segment]>,
    /// How main-time periods are added (spec §4.10 "as 4.5").
    transition: Transition,
    /// Initial extra batch = maximum extra, M.
    extra: u64,
    bonus: u64,
    scheme: Scheme,
    sides: [Side; 2],
}

impl DoubleFlag {
    pub(crate) fn new(
        segs: Vec<Segment>,
        transition: Transition,
        extra: u64,
        bonus: u64,
        scheme: Scheme,
    ) -> DoubleFlag {
        let side = Side {
            main: seg_at(&segs, 0).base_ms,
            ..Side::default()
        };
        DoubleFlag {
            segs: Arc::from(segs),
            transition,
            extra,
            bonus,
            scheme,
            sides: [side, side],
        }
    }

    pub(crate) fn on_extra(&self, i: usize) -> bool {
        self.sides[i].extra.is_some()
    }

    pub(crate) fn carry_same(&mut self, old: &DoubleFlag, i: usize, next: u32) {
        let o = old.sides[i];
        let n = &mut self.sides[i];
        n.main = o.main;
        n.extra = o.extra.map(|e| e.min(self.extra));
        self.sides[i].period = period_after(&self.segs, self.transition, next, o.period);
    }

    fn next_period(&mut self, i: usize) {
        let s = &mut self.sides[i];
        next_period(&self.segs, &mut s.main, &mut s.period);
    }
}

impl Method for DoubleFlag {
    fn time_to_boundary(&self, i: usize) -> u64 {
        let s = &self.sides[i];
        s.extra.unwrap_or(s.main)
    }

    fn consume(&mut self, i: usize, d: u64) {
        let s = &mut self.sides[i];
        let slot = match &mut s.extra {
            Some(e) => e,
            None => &mut s.main,
        };
        *slot -= d.min(*slot);
    }

    fn at_boundary(&mut self, i: usize, my_moves: u32) -> Boundary {
        if self.on_extra(i) {
            return Boundary::Flag(FlagReason::ExtraTimeExpired);
        }
        let opp_extra = self.on_extra(1 - i);
        if let Some(quota) = boundary(&self.segs, self.sides[i].period) {
            // tr/flag, tr/flagboth: the next main period is added when the time runs out
            // with the quota made (as segments, §4.5).
            if self.transition != Transition::Moves && u64::from(my_moves) >= quota {
                self.next_period(i);
                if self.transition == Transition::FlagBoth && !opp_extra {
                    self.next_period(1 - i);
                }
                return Boundary::Continue;
            }
            // Main ran out in a move-counted period: no mercy, unless the opponent can no
            // longer win (C6).
            if opp_extra {
                return Boundary::BothMainExpired;
            }
            return Boundary::Flag(FlagReason::ControlNotReached);
        }
        if opp_extra {
            return Boundary::BothMainExpired;
        }
        self.sides[i].extra = Some(self.extra);
        Boundary::Continue
    }

    fn press(&mut self, i: usize, _u: u64, m: u32, _moves: [u32; 2]) {
        if let Some(e) = self.sides[i].extra {
            self.sides[i].extra = Some(bonus(self.scheme, e, self.bonus, self.extra));
        } else if self.transition == Transition::Moves
            && let Some(c) = boundary(&self.segs, self.sides[i].period)
            && u64::from(m) >= c
        {
            self.next_period(i);
        }
    }

    fn value(&self, i: usize, _mover: bool, _next_move: u32, _flagged: bool) -> u64 {
        self.time_to_boundary(i)
    }

    fn phase(&self, i: usize) -> Phase {
        if self.on_extra(i) {
            Phase::Extra
        } else {
            Phase::Main
        }
    }

    fn detail(&self, i: usize) -> MethodDetail {
        let s = &self.sides[i];
        MethodDetail::DoubleFlag {
            main_ms: s.main,
            extra_ms: s.extra,
            // False once the main time is exhausted (extra time, or a lost first period).
            can_win: s.extra.is_none() && s.main > 0,
        }
    }

    fn zero(&mut self, i: usize) {
        self.sides[i].main = 0;
    }

    fn set_moves(&mut self, i: usize, moves: u32) {
        let s = &mut self.sides[i];
        catch_up(
            &self.segs,
            self.transition,
            &mut s.main,
            &mut s.period,
            moves,
        );
    }

    fn adjust(&mut self, i: usize, field: AdjustField, apply: Apply<'_>) -> Adjusted {
        let s = &mut self.sides[i];
        match field {
            // Main time given back to a side on extra time puts it back on main time: it can
            // win again, and its next first flag starts the extra time afresh at M. (Its
            // main time is 0 while on extra, so only a real gift leaves extra time.)
            AdjustField::MainMs => {
                let unflag = adjust_ms(&mut s.main, apply)?;
                if s.main > 0 {
                    s.extra = None;
                }
                Ok(unflag)
            }
            // Before extra time there is none to change (the snapshot shows null): the
            // adjustment is checked and has no effect, extra time starts at its full amount.
            AdjustField::ExtraMs => match &mut s.extra {
                Some(e) => adjust_ms(e, apply),
                None => {
                    let mut unused = 0;
                    adjust_ms(&mut unused, apply)
                }
            },
            _ => Err(not_in_method(field)),
        }
    }

    fn remaining(&self, i: usize) -> u64 {
        self.time_to_boundary(i)
    }

    fn carry_remaining(&mut self, i: usize, r: u64, moves: u32) {
        self.sides[i].main = r;
        self.sides[i].period =
            period_after(&self.segs, self.transition, moves.saturating_add(1), 0);
    }
}
