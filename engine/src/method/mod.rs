//! The timing methods, one file each behind the [`Method`] trait (quinn-proto's congestion
//! controllers are the model): each method owns its parameters and both sides' clock state,
//! so no method can hold another's fields (the two byo-yomis are one, `overtime::Periods`,
//! with a rule each). [`Timing`] is the closed set the engine runs.
//!
//! A method knows how running time is consumed, where the next boundary (delay-window end,
//! phase change, expiry) lies, what a press credits, what is displayed, and its phase and
//! detail fields. It has no notion of wall time (the core passes running-time amounts in), of
//! the game's status, of flags already recorded, or of the independent cap: those are the
//! core's.

mod byoyomi;
mod canadian;
mod count_up;
mod countdown;
mod double_flag;
mod hourglass;
mod overtime;
mod per_side;
mod segments;
mod swing;

use super::rules::Kind;
use super::snapshot::MethodDetail;
use super::types::{AdjustField, FlagReason, InputError, Phase};

/// What a boundary reached by the mover means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Boundary {
    /// Play goes on (a delay window ended, or a phase changed inside the turn).
    Continue,
    /// Play goes on in the next period (byo-yomi): `periods_left` with it.
    NextPeriod { periods_left: u32 },
    /// The mover's time is up: flag with this reason.
    Flag(FlagReason),
    /// Double flag: the mover's main time ran out while the opponent is on extra: draw.
    BothMainExpired,
}

/// What an arbiter adjustment did to the flag of a flag/continue side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unflag {
    /// The side is no longer flagged.
    Yes,
    /// Only if the new value is above 0.
    IfPositive(u64),
    /// The flag stays.
    No,
}

/// Applies an adjustment to a current value under a limit (the core's `set`/`add` rule).
pub(crate) type Apply<'a> = &'a dyn Fn(u64, u64) -> Result<u64, InputError>;

/// What an arbiter adjustment of one field did: its effect on a flag, or the refusal.
pub(crate) type Adjusted = Result<Unflag, InputError>;

/// One timing method: its parameters and both sides' state. Sides are indexed 0 (White) and
/// 1 (Black); `i` is the side the call is about.
pub(crate) trait Method {
    /// Running time until side `i`'s next boundary (delay-window end, phase change, expiry).
    fn time_to_boundary(&self, i: usize) -> u64;
    /// Consume `d` ms of side `i`'s running time (`d` never crosses a boundary).
    fn consume(&mut self, i: usize, d: u64);
    /// Side `i` is exactly at a boundary (`time_to_boundary` is 0) with `my_moves` moves made.
    fn at_boundary(&mut self, i: usize, my_moves: u32) -> Boundary;
    /// Side `i` pressed for its move `m` after `u` ms of running time; `moves` are both
    /// counters after the press (spec §2.3 steps 3-5).
    fn press(&mut self, i: usize, u: u64, m: u32, moves: [u32; 2]);
    /// Side `i`'s turn for move `m` begins (delay window, `cr/before` credit).
    fn turn_start(&mut self, _i: usize, _m: u32) {}
    /// The end of side `i`'s turn: any delay window left is dropped.
    fn turn_end(&mut self, _i: usize) {}
    /// The delay window left of side `i`, when its move `m` has one (`delay_left_ms`).
    fn delay_left(&self, _i: usize, _m: u32) -> Option<u64> {
        None
    }
    /// The displayed value (spec §3) of side `i`; `mover` is whether it is its turn,
    /// `next_move` its next move number, `flagged` whether it has flagged (flag/continue).
    fn value(&self, i: usize, mover: bool, next_move: u32, flagged: bool) -> u64;
    /// Whether a count-down-only clock can count side `i` down now from `value` (no static
    /// delay window).
    fn counts_down(&self, _i: usize, _value: u64) -> bool {
        true
    }
    /// Whether the waiting side's value moves while side `i` runs (hourglass, swing).
    fn waiting_side_moves(&self, _i: usize) -> bool {
        false
    }
    /// Whether the runner's value rises instead of falling (count-up).
    fn counts_up(&self) -> bool {
        false
    }
    /// Side `i`'s phase (spec §1.4), without the cap.
    fn phase(&self, i: usize) -> Phase;
    /// Side `i`'s detail fields (spec §1.4), without `delay_left_ms` / `cap_left_ms`.
    fn detail(&self, i: usize) -> MethodDetail;
    /// flag/continue: side `i` has flagged and stays at 0.
    fn zero(&mut self, i: usize);
    /// An arbiter correction of side `i`'s move counter to `moves`.
    fn set_moves(&mut self, _i: usize, _moves: u32) {}
    /// An arbiter change of one of side `i`'s fields.
    fn adjust(&mut self, i: usize, field: AdjustField, apply: Apply<'_>) -> Adjusted;
    /// Side `i`'s real remaining time, to carry into another method (not the displayed
    /// value: no Bronstein `+d`, no byo-yomi total).
    fn remaining(&self, i: usize) -> u64;
    /// Start side `i` under this method with `r` ms left, after `moves` moves (spec §2.6).
    fn carry_remaining(&mut self, i: usize, r: u64, moves: u32);
}

/// Static dispatch over the [`Timing`] variants (no trait object: each method's code is
/// inlined into the engine's hot paths, which keeps a press at its benchmark figure):
/// `$call` on the method in force, whichever side it is about.
macro_rules! each {
    ($timing:expr, $_side:ident, $($call:tt)*) => {
        match $timing {
            Timing::Segments(t) => t.$($call)*,
            Timing::Hourglass(t) => t.$($call)*,
            Timing::Byoyomi(t) => t.$($call)*,
            Timing::Canadian(t) => t.$($call)*,
            Timing::DoubleFlag(t) => t.$($call)*,
            Timing::Countdown(t) => t.$($call)*,
            Timing::Swing(t) => t.$($call)*,
            Timing::CountUp(t) => t.$($call)*,
            Timing::PerSide(t) => t.$($call)*,
        }
    };
}

/// The calls about side `i` that a [`Method`] made of others passes on to the one that
/// `$via!(self, i, call)` names ([`Timing`]: the method in force; a method per side: side
/// `i`'s own).
macro_rules! forward {
    ($via:ident) => {
        fn time_to_boundary(&self, i: usize) -> u64 {
            $via!(self, i, time_to_boundary(i))
        }
        fn consume(&mut self, i: usize, d: u64) {
            $via!(self, i, consume(i, d))
        }
        fn at_boundary(&mut self, i: usize, my_moves: u32) -> Boundary {
            $via!(self, i, at_boundary(i, my_moves))
        }
        fn press(&mut self, i: usize, u: u64, m: u32, moves: [u32; 2]) {
            $via!(self, i, press(i, u, m, moves))
        }
        fn turn_start(&mut self, i: usize, m: u32) {
            $via!(self, i, turn_start(i, m))
        }
        fn turn_end(&mut self, i: usize) {
            $via!(self, i, turn_end(i))
        }
        fn delay_left(&self, i: usize, m: u32) -> Option<u64> {
            $via!(self, i, delay_left(i, m))
        }
        fn value(&self, i: usize, mover: bool, next_move: u32, flagged: bool) -> u64 {
            $via!(self, i, value(i, mover, next_move, flagged))
        }
        fn counts_down(&self, i: usize, value: u64) -> bool {
            $via!(self, i, counts_down(i, value))
        }
        fn phase(&self, i: usize) -> Phase {
            $via!(self, i, phase(i))
        }
        fn detail(&self, i: usize) -> MethodDetail {
            $via!(self, i, detail(i))
        }
        fn zero(&mut self, i: usize) {
            $via!(self, i, zero(i))
        }
        fn set_moves(&mut self, i: usize, moves: u32) {
            $via!(self, i, set_moves(i, moves))
        }
        fn adjust(&mut self, i: usize, field: AdjustField, apply: Apply<'_>) -> Adjusted {
            $via!(self, i, adjust(i, field, apply))
        }
        fn remaining(&self, i: usize) -> u64 {
            $via!(self, i, remaining(i))
        }
        fn carry_remaining(&mut self, i: usize, r: u64, moves: u32) {
            $via!(self, i, carry_remaining(i, r, moves))
        }
    };
}
pub(crate) use forward;

impl Method for Timing {
    forward!(each);
    fn waiting_side_moves(&self, i: usize) -> bool {
        each!(self, i, waiting_side_moves(i))
    }
    fn counts_up(&self) -> bool {
        each!(self, i, counts_up())
    }
}

/// The method in force, with its state: the closed set of [`Method`]s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Timing {
    Segments(segments::Segments),
    Hourglass(hourglass::Hourglass),
    Byoyomi(byoyomi::Byoyomi),
    Canadian(canadian::Canadian),
    DoubleFlag(double_flag::DoubleFlag),
    Countdown(countdown::Countdown),
    Swing(swing::Swing),
    CountUp(count_up::CountUp),
    /// A different method for each side.
    PerSide(per_side::PerSide),
}

impl Timing {
    /// A new game under `kind`.
    pub(crate) fn new(kind: &Kind) -> Timing {
        match kind {
            Kind::Segments {
                segs,
                credit,
                transition,
                cap_ms,
                single_sd,
            } => Timing::Segments(segments::Segments::new(
                segs.clone(),
                *credit,
                *transition,
                *cap_ms,
                *single_sd,
            )),
            Kind::Hourglass { per_side } => Timing::Hourglass(hourglass::Hourglass::new(*per_side)),
            Kind::Byoyomi {
                main,
                periods,
                period,
            } => Timing::Byoyomi(byoyomi::Byoyomi::new(*main, *periods, *period)),
            Kind::Canadian {
                main,
                stones,
                period,
            } => Timing::Canadian(canadian::Canadian::new(*main, *stones, *period)),
            Kind::DoubleFlag {
                segs,
                transition,
                extra,
                bonus,
                scheme,
            } => Timing::DoubleFlag(double_flag::DoubleFlag::new(
                segs.clone(),
                *transition,
                *extra,
                *bonus,
                *scheme,
            )),
            Kind::PhasedCountdown { main, incs } => {
                Timing::Countdown(countdown::Countdown::new(*main, incs.clone()))
            }
            Kind::Swing {
                reserve,
                swing,
                cutoff,
            } => Timing::Swing(swing::Swing::new(*reserve, *swing, *cutoff)),
            Kind::CountUp => Timing::CountUp(count_up::CountUp::new()),
            Kind::PerSide(kinds) => Timing::PerSide(per_side::PerSide {
                sides: Box::new([Timing::new(&kinds[0]), Timing::new(&kinds[1])]),
            }),
        }
    }

    /// Whether side `i` is on double-flag extra time (it can no longer win on time).
    pub(crate) fn on_extra_time(&self, i: usize) -> bool {
        match self {
            Timing::DoubleFlag(m) => m.on_extra(i),
            _ => false,
        }
    }

    /// The state after a reconfiguration to `new` (spec §2.6): the same kind of method
    /// keeps its whole state (clamped to the new limits), another kind gets the real
    /// remaining time as its main time. For the side to move mid-turn (`mid_turn`), what is
    /// left of the delay window is kept (never restarted) and no `cr/before` credit is given.
    pub(crate) fn carry_over(&self, new: &Kind, moves: [u32; 2], mid_turn: [bool; 2]) -> Timing {
        let mut n = Timing::new(new);
        for i in 0..2 {
            let next = moves[i].saturating_add(1);
            match (self, &mut n) {
                (Timing::Segments(o), Timing::Segments(m)) => m.carry_same(o, i, next),
                (Timing::Hourglass(o), Timing::Hourglass(m)) => m.carry_same(o, i),
                (Timing::Byoyomi(o), Timing::Byoyomi(m)) => m.carry_same(o, i),
                (Timing::Canadian(o), Timing::Canadian(m)) => m.carry_same(o, i),
                (Timing::DoubleFlag(o), Timing::DoubleFlag(m)) => m.carry_same(o, i, next),
                (Timing::Countdown(o), Timing::Countdown(m)) => m.carry_same(o, i),
                (Timing::Swing(o), Timing::Swing(m)) => m.carry_same(o, i),
                (Timing::CountUp(o), Timing::CountUp(m)) => m.carry_same(o, i),
                // A count-up has no time left to carry: the new method starts afresh (at
                // the period the moves made have reached).
                (Timing::CountUp(_), m) => {
                    let fresh = m.remaining(i);
                    m.carry_remaining(i, fresh, moves[i]);
                }
                (o, m) => m.carry_remaining(i, o.remaining(i), moves[i]),
            }
            if let Timing::Segments(m) = &mut n {
                let left = match self {
                    Timing::Segments(o) if mid_turn[i] => o.delay_left_now(i),
                    _ => 0,
                };
                m.keep_delay(i, next, left);
            }
        }
        n
    }
}

/// The refusal for a field the method has not. The core fills in the method's name.
pub(crate) fn not_in_method(field: AdjustField) -> InputError {
    InputError::NotInMethod {
        field,
        method: crate::params::Method::Unknown,
    }
}

/// Set or add to a plain millisecond field under the duration limit.
pub(crate) fn adjust_ms(slot: &mut u64, apply: Apply<'_>) -> Adjusted {
    *slot = apply(*slot, crate::params::MAX_DURATION_MS)?;
    Ok(Unflag::IfPositive(*slot))
}
