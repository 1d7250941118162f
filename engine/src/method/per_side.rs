//! A method per side (`W{..} B{..}` with two different kinds of method, e.g. an increment
//! for White and byo-yomi for Black): each side is timed by its own method, which keeps that
//! side's state only. Only methods whose sides do not interact can be mixed (not hourglass,
//! phased swing, double flag or count-up: `rules` refuses them).

use super::{Adjusted, Apply, Boundary, Method, Timing};
use crate::snapshot::MethodDetail;
use crate::types::{AdjustField, Phase};

/// White's method and Black's; side `i` is always asked of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PerSide {
    pub(crate) sides: Box<[Timing; 2]>,
}

impl Method for PerSide {
    fn time_to_boundary(&self, i: usize) -> u64 {
        self.sides[i].time_to_boundary(i)
    }
    fn consume(&mut self, i: usize, d: u64) {
        self.sides[i].consume(i, d);
    }
    fn at_boundary(&mut self, i: usize, my_moves: u32) -> Boundary {
        self.sides[i].at_boundary(i, my_moves)
    }
    fn press(&mut self, i: usize, u: u64, m: u32, moves: [u32; 2]) {
        self.sides[i].press(i, u, m, moves);
    }
    fn turn_start(&mut self, i: usize, m: u32) {
        self.sides[i].turn_start(i, m);
    }
    fn turn_end(&mut self, i: usize) {
        self.sides[i].turn_end(i);
    }
    fn delay_left(&self, i: usize, m: u32) -> Option<u64> {
        self.sides[i].delay_left(i, m)
    }
    fn value(&self, i: usize, mover: bool, next_move: u32, flagged: bool) -> u64 {
        self.sides[i].value(i, mover, next_move, flagged)
    }
    fn counts_down(&self, i: usize, value: u64) -> bool {
        self.sides[i].counts_down(i, value)
    }
    fn phase(&self, i: usize) -> Phase {
        self.sides[i].phase(i)
    }
    fn detail(&self, i: usize) -> MethodDetail {
        self.sides[i].detail(i)
    }
    fn zero(&mut self, i: usize) {
        self.sides[i].zero(i);
    }
    fn set_moves(&mut self, i: usize, moves: u32) {
        self.sides[i].set_moves(i, moves);
    }
    fn adjust(&mut self, i: usize, field: AdjustField, apply: Apply<'_>) -> Adjusted {
        self.sides[i].adjust(i, field, apply)
    }
    fn remaining(&self, i: usize) -> u64 {
        self.sides[i].remaining(i)
    }
    fn carry_remaining(&mut self, i: usize, r: u64, moves: u32) {
        self.sides[i].carry_remaining(i, r, moves);
    }
}
