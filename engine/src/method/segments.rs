//! Segment-based methods: sudden death, Fischer, US and Bronstein delays, multi-period
//! controls and phased increment (spec §4.1-§4.6, §4.13). Each side has its own schedule
//! (time odds), its main time, the funded period and the delay window of the current turn.

use std::sync::Arc;

use super::{Adjusted, Apply, Boundary, Method, adjust_ms, not_in_method};
use crate::params::{Credit, DelayKind, Segment, Transition};
use crate::rules::{
    boundary, catch_up, delay_for_move, inc_for_move, next_period, period_after, seg_at,
};
use crate::snapshot::MethodDetail;
use crate::types::{AdjustField, FlagReason, Phase};

/// One side's clock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Side {
    /// Main time left.
    main: u64,
    /// Funded period index.
    period: usize,
    /// Delay window left in the current turn.
    delay_left: u64,
}

/// Segment schedules and both sides' clocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Segments {
    segs: [Arc<[Segment]>; 2],
    credit: Credit,
    transition: Transition,
    cap_ms: Option<u64>,
    /// `sd` phase naming: a single sudden-death segment.
    single_sd: [bool; 2],
    sides: [Side; 2],
}

impl Segments {
    pub(crate) fn new(
        segs: [Vec<Segment>; 2],
        credit: Credit,
        transition: Transition,
        cap_ms: Option<u64>,
        single_sd: [bool; 2],
    ) -> Segments {
        let start = |s: &[Segment]| {
            let first = seg_at(s, 0);
            let mut main = first.base_ms;
            if credit == Credit::Fide {
                main = main.saturating_add(first.inc());
            }
            Side {
                main,
                ..Side::default()
            }
        };
        let sides = [start(&segs[0]), start(&segs[1])];
        Segments {
            segs: segs.map(Arc::from),
            credit,
            transition,
            cap_ms,
            single_sd,
            sides,
        }
    }

    /// Whether side `i`'s move `m` has a delay window.
    fn has_window(&self, i: usize, m: u32) -> bool {
        match delay_for_move(&self.segs[i], m) {
            Some((_, DelayKind::Us)) => true,
            Some((_, DelayKind::Bronstein)) => self.credit != Credit::After,
            None => false,
        }
    }

    fn capped(&self, main: u64) -> u64 {
        self.cap_ms.map_or(main, |cap| main.min(cap))
    }

    pub(crate) fn carry_same(&mut self, old: &Segments, i: usize, next: u32) {
        self.sides[i].main = old.sides[i].main;
        self.sides[i].period =
            period_after(&self.segs[i], self.transition, next, old.sides[i].period);
    }

    pub(crate) fn delay_left_now(&self, i: usize) -> u64 {
        self.sides[i].delay_left
    }

    /// Mid-turn reconfiguration: keep what is left of the window (`left`), never restart it.
    pub(crate) fn keep_delay(&mut self, i: usize, next: u32, left: u64) {
        self.sides[i].delay_left = if self.has_window(i, next) {
            delay_for_move(&self.segs[i], next).map_or(0, |(d, _)| left.min(d))
        } else {
            0
        };
    }

    /// The next period starts: its base time is added.
    fn next_period(&mut self, i: usize) {
        let s = &mut self.sides[i];
        next_period(&self.segs[i], &mut s.main, &mut s.period);
    }
}

impl Method for Segments {
    fn time_to_boundary(&self, i: usize) -> u64 {
        let s = &self.sides[i];
        if s.delay_left > 0 {
            s.delay_left
        } else {
            s.main
        }
    }

    fn consume(&mut self, i: usize, d: u64) {
        let s = &mut self.sides[i];
        if s.delay_left > 0 {
            s.delay_left -= d.min(s.delay_left);
        } else {
            s.main -= d.min(s.main);
        }
    }

    fn at_boundary(&mut self, i: usize, my_moves: u32) -> Boundary {
        if self.time_to_boundary(i) > 0 {
            return Boundary::Continue; // the end of a delay window
        }
        let Some(quota) = boundary(&self.segs[i], self.sides[i].period) else {
            return Boundary::Flag(FlagReason::Time);
        };
        match self.transition {
            Transition::Moves => Boundary::Flag(FlagReason::ControlNotReached),
            Transition::Flag | Transition::FlagBoth => {
                if u64::from(my_moves) < quota {
                    return Boundary::Flag(FlagReason::ControlNotReached);
                }
                self.next_period(i);
                if self.transition == Transition::FlagBoth {
                    self.next_period(1 - i);
                }
                Boundary::Continue
            }
        }
    }

    fn press(&mut self, i: usize, u: u64, m: u32, _moves: [u32; 2]) {
        let segs = &self.segs[i];
        let mut main = self.sides[i].main;
        // Bronstein "after": refund the used part of the delay at the press.
        if let Some((d, DelayKind::Bronstein)) = delay_for_move(segs, m)
            && self.credit == Credit::After
        {
            main = main.saturating_add(u.min(d));
        }
        let inc = match self.credit {
            Credit::Fide => inc_for_move(segs, m + 1),
            Credit::After => inc_for_move(segs, m),
            Credit::Before => 0,
        };
        if inc > 0 {
            main = self.capped(main.saturating_add(inc));
        }
        self.sides[i].main = main;
        if self.transition == Transition::Moves
            && let Some(c) = boundary(&self.segs[i], self.sides[i].period)
            && u64::from(m) >= c
        {
            self.next_period(i);
        }
    }

    fn turn_start(&mut self, i: usize, m: u32) {
        let mut delay = 0;
        if let Some((d, dk)) = delay_for_move(&self.segs[i], m)
            && (dk == DelayKind::Us || self.credit != Credit::After)
        {
            delay = d;
        }
        self.sides[i].delay_left = delay;
        if self.credit == Credit::Before {
            let main = self.sides[i]
                .main
                .saturating_add(inc_for_move(&self.segs[i], m));
            self.sides[i].main = self.capped(main);
        }
    }

    fn turn_end(&mut self, i: usize) {
        self.sides[i].delay_left = 0;
    }

    fn delay_left(&self, i: usize, m: u32) -> Option<u64> {
        self.has_window(i, m).then_some(self.sides[i].delay_left)
    }

    fn value(&self, i: usize, mover: bool, next_move: u32, flagged: bool) -> u64 {
        if flagged {
            return 0;
        }
        let s = &self.sides[i];
        let mut v = s.main;
        if self.credit != Credit::After
            && let Some((d, DelayKind::Bronstein)) = delay_for_move(&self.segs[i], next_move)
        {
            v = v.saturating_add(if mover { s.delay_left } else { d });
        }
        v
    }

    fn counts_down(&self, i: usize, value: u64) -> bool {
        let s = &self.sides[i];
        !(s.delay_left > 0 && value == s.main)
    }

    fn phase(&self, i: usize) -> Phase {
        if self.single_sd[i] {
            return Phase::Sd;
        }
        let p = self.sides[i].period;
        let n = u32::try_from(p).unwrap_or(u32::MAX).saturating_add(1);
        if seg_at(&self.segs[i], p).moves.is_none() {
            Phase::PeriodSd(n)
        } else {
            Phase::Period(n)
        }
    }

    fn detail(&self, i: usize) -> MethodDetail {
        MethodDetail::Segments {
            main_ms: self.sides[i].main,
            period: u64::try_from(self.sides[i].period)
                .unwrap_or(u64::MAX)
                .saturating_add(1),
        }
    }

    fn zero(&mut self, i: usize) {
        self.sides[i].main = 0;
    }

    fn set_moves(&mut self, i: usize, moves: u32) {
        let s = &mut self.sides[i];
        catch_up(
            &self.segs[i],
            self.transition,
            &mut s.main,
            &mut s.period,
            moves,
        );
    }

    fn adjust(&mut self, i: usize, field: AdjustField, apply: Apply<'_>) -> Adjusted {
        match field {
            AdjustField::MainMs => adjust_ms(&mut self.sides[i].main, apply),
            _ => Err(not_in_method(field)),
        }
    }

    fn remaining(&self, i: usize) -> u64 {
        self.sides[i].main
    }

    fn carry_remaining(&mut self, i: usize, r: u64, moves: u32) {
        self.sides[i].main = r;
        self.sides[i].period =
            period_after(&self.segs[i], self.transition, moves.saturating_add(1), 0);
    }
}
