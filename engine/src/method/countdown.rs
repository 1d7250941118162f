//! Phased countdown, standard and triple (spec §4.11): every move on a clock credits the
//! next clock (main → reserve → secondary), which runs when the previous one is spent.

use super::{Adjusted, Apply, Boundary, Method, adjust_ms, not_in_method};
use crate::snapshot::MethodDetail;
use crate::types::{AdjustField, FlagReason, Phase};
use std::sync::Arc;

/// One side's clocks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Side {
    main: u64,
    /// Reserve (1) and secondary (2) clocks.
    reserve: [u64; 2],
    /// The running clock: 0 main, 1 reserve, 2 secondary.
    active: usize,
}

/// Parameters and both sides' clocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Countdown {
    /// Reserve increments (`[r1]` or `[r1, r2]`).
    incs: Arc<[u64]>,
    sides: [Side; 2],
}

impl Countdown {
    pub(crate) fn new(main: u64, incs: Vec<u64>) -> Countdown {
        let side = Side {
            main,
            ..Side::default()
        };
        Countdown {
            incs: Arc::from(incs),
            sides: [side, side],
        }
    }

    pub(crate) fn carry_same(&mut self, old: &Countdown, i: usize) {
        let o = old.sides[i];
        let n = &mut self.sides[i];
        n.main = o.main;
        n.reserve = o.reserve;
        n.active = o.active.min(self.incs.len());
        if self.incs.len() < 2 {
            // The secondary clock no longer exists: its time joins the reserve.
            n.reserve[0] = n.reserve[0].saturating_add(n.reserve[1]);
            n.reserve[1] = 0;
        }
    }

    fn running_slot(&mut self, i: usize) -> &mut u64 {
        let s = &mut self.sides[i];
        match s.active {
            0 => &mut s.main,
            a => &mut s.reserve[a - 1],
        }
    }
}

impl Method for Countdown {
    fn time_to_boundary(&self, i: usize) -> u64 {
        let s = &self.sides[i];
        match s.active {
            0 => s.main,
            a => s.reserve[a - 1],
        }
    }

    fn consume(&mut self, i: usize, d: u64) {
        let slot = self.running_slot(i);
        *slot -= d.min(*slot);
    }

    fn at_boundary(&mut self, i: usize, _my_moves: u32) -> Boundary {
        let s = &mut self.sides[i];
        if s.active < self.incs.len() {
            s.active += 1;
            Boundary::Continue
        } else {
            Boundary::Flag(FlagReason::Time)
        }
    }

    fn press(&mut self, i: usize, _u: u64, _m: u32, _moves: [u32; 2]) {
        let s = &mut self.sides[i];
        if let Some(inc) = self.incs.get(s.active) {
            s.reserve[s.active] = s.reserve[s.active].saturating_add(*inc);
        }
    }

    fn value(&self, i: usize, _mover: bool, _next_move: u32, _flagged: bool) -> u64 {
        self.time_to_boundary(i)
    }

    fn phase(&self, i: usize) -> Phase {
        [Phase::Main, Phase::Reserve, Phase::Secondary][self.sides[i].active.min(2)]
    }

    fn detail(&self, i: usize) -> MethodDetail {
        let s = &self.sides[i];
        MethodDetail::PhasedCountdown {
            main_ms: s.main,
            reserve_ms: s.reserve[0],
            secondary_ms: (self.incs.len() > 1).then_some(s.reserve[1]),
        }
    }

    fn zero(&mut self, i: usize) {
        let s = &mut self.sides[i];
        s.main = 0;
        s.reserve = [0, 0];
    }

    fn adjust(&mut self, i: usize, field: AdjustField, apply: Apply<'_>) -> Adjusted {
        let s = &mut self.sides[i];
        match field {
            AdjustField::MainMs => adjust_ms(&mut s.main, apply),
            AdjustField::ReserveMs => adjust_ms(&mut s.reserve[0], apply),
            AdjustField::SecondaryMs => adjust_ms(&mut s.reserve[1], apply),
            _ => Err(not_in_method(field)),
        }
    }

    /// The running clock plus the clocks still to come.
    fn remaining(&self, i: usize) -> u64 {
        let s = &self.sides[i];
        let main = if s.active == 0 { s.main } else { 0 };
        let later: u64 = s.reserve.iter().skip(s.active.saturating_sub(1)).sum();
        main.saturating_add(later)
    }

    fn carry_remaining(&mut self, i: usize, r: u64, _moves: u32) {
        self.sides[i].main = r;
    }
}
