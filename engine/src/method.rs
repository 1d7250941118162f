//! Per-method behaviour of one side's clock: how running time is consumed, where the next
//! boundary (phase change or expiry) lies, what a press credits, what is displayed, and the
//! phase and detail fields.
//!
//! Each function works on a side's state plus (for hourglass and swing) the opponent's.
//! No notion of wall time: the core passes running-time amounts in.

use crate::params::{Credit, DelayKind, Segment, Transition};

use super::snapshot::MethodDetail;
use super::types::{FlagReason, Phase};
use super::rules::{
    Kind, bases_between, boundary, delay_for_move, inc_for_move, period_of_move, seg_at,
};

/// One side's clock state. Fields are used according to the method.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SideState {
    /// Main / remaining time (segments, hourglass, byo-yomi, Canadian, double-flag main,
    /// phased-countdown clock 0).
    pub main: u64,
    /// Funded period index (segments, double-flag main).
    pub period: usize,
    /// Byo-yomi / Canadian: in overtime.
    pub overtime: bool,
    /// Byo-yomi periods left (incl. the current one).
    pub periods_left: u32,
    /// Byo-yomi / Canadian current period remainder.
    pub period_rem: u64,
    /// Canadian stones still owed in the period.
    pub stones_left: u32,
    /// Double flag: on extra time.
    pub extra_phase: bool,
    /// Double flag: extra time left.
    pub extra: u64,
    /// Phased countdown reserve clocks (1 and 2) and the active index.
    pub reserve: [u64; 2],
    pub active: usize,
    /// Swing balance (phased swing; `reserve[0]` is its reserve).
    pub swing: u64,
    /// Delay window left in the current turn.
    pub delay_left: u64,
    /// Own running time (independent cap).
    pub cap_used: u64,
    /// flag/continue: this side has flagged.
    pub flagged: bool,
}

/// Initial state for a side.
pub(crate) fn initial(kind: &Kind, side: usize) -> SideState {
    let mut s = SideState::default();
    match kind {
        Kind::Segments { segs, credit, .. } => {
            s.main = segs[side][0].base_ms;
            if *credit == Credit::Fide {
                s.main = s.main.saturating_add(segs[side][0].inc());
            }
        }
        Kind::Hourglass { per_side } => s.main = *per_side,
        Kind::Byoyomi {
            main,
            periods,
            period,
        } => {
            s.main = *main;
            s.periods_left = *periods;
            s.period_rem = *period;
            // No main time (C8): both players are in byo-yomi from the start.
            s.overtime = *main == 0;
        }
        Kind::Canadian {
            main,
            stones,
            period,
        } => {
            s.main = *main;
            s.stones_left = *stones;
            s.period_rem = *period;
            s.overtime = *main == 0;
        }
        Kind::DoubleFlag { segs, .. } => s.main = segs[0].base_ms,
        Kind::PhasedCountdown { main, .. } => s.main = *main,
        Kind::Swing { reserve, swing, .. } => {
            s.reserve[0] = *reserve;
            s.swing = *swing;
        }
    }
    s
}

/// The component of a side's clock that runs now: the one that reaches 0 at its next
/// boundary (main, extra, the byo-yomi/Canadian period, the active phased clock, swing).
fn running_component(kind: &Kind, s: &SideState, post_cutoff: bool) -> u64 {
    match kind {
        Kind::Segments { .. } | Kind::Hourglass { .. } => s.main,
        Kind::DoubleFlag { .. } if s.extra_phase => s.extra,
        Kind::DoubleFlag { .. } => s.main,
        Kind::Byoyomi { .. } | Kind::Canadian { .. } if s.overtime => s.period_rem,
        Kind::Byoyomi { .. } | Kind::Canadian { .. } => s.main,
        Kind::PhasedCountdown { .. } if s.active > 0 => s.reserve[s.active - 1],
        Kind::PhasedCountdown { .. } => s.main,
        Kind::Swing { .. } if s.swing > 0 && !post_cutoff => s.swing,
        Kind::Swing { .. } => s.reserve[0],
    }
}

/// Running time until the mover's next method boundary (after any delay window), or `None`
/// if nothing happens however long it runs.
pub(crate) fn time_to_boundary(kind: &Kind, s: &SideState, post_cutoff: bool) -> Option<u64> {
    (!s.flagged).then(|| running_component(kind, s, post_cutoff))
}

/// Consume `d` ms of the mover's running time (`d` never crosses a boundary).
pub(crate) fn consume(
    kind: &Kind,
    me: &mut SideState,
    opp: &mut SideState,
    d: u64,
    post_cutoff: bool,
) {
    if me.flagged {
        return;
    }
    match kind {
        Kind::Segments { .. } => me.main -= d.min(me.main),
        Kind::Hourglass { .. } => {
            me.main -= d.min(me.main);
            opp.main = opp.main.saturating_add(d);
        }
        Kind::Byoyomi { .. } | Kind::Canadian { .. } => {
            if me.overtime {
                me.period_rem -= d.min(me.period_rem);
            } else {
                me.main -= d.min(me.main);
            }
        }
        Kind::DoubleFlag { .. } => {
            if me.extra_phase {
                me.extra -= d.min(me.extra);
            } else {
                me.main -= d.min(me.main);
            }
        }
        Kind::PhasedCountdown { .. } => {
            if me.active == 0 {
                me.main -= d.min(me.main);
            } else {
                let r = &mut me.reserve[me.active - 1];
                *r -= d.min(*r);
            }
        }
        Kind::Swing { .. } => {
            if me.swing > 0 && !post_cutoff {
                let t = d.min(me.swing);
                me.swing -= t;
                opp.swing = opp.swing.saturating_add(t);
            } else {
                me.reserve[0] -= d.min(me.reserve[0]);
            }
        }
    }
}

/// What a boundary reached by the mover means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Boundary {
    /// Play goes on (a phase changed inside the turn).
    Continue,
    /// The mover's time is up: flag with this reason.
    Flag(FlagReason),
    /// Double flag: the mover's main time ran out while the opponent is on extra: draw.
    BothMainExpired,
}

/// Handle the mover reaching a boundary (its current value is 0). Segment-based methods
/// go through [`segments_at_boundary`], which needs both schedules.
pub(crate) fn at_boundary(
    kind: &Kind,
    me: &mut SideState,
    opp: &mut SideState,
    my_moves: u32,
) -> Boundary {
    match kind {
        Kind::Segments { .. } => Boundary::Flag(FlagReason::Time),
        Kind::Hourglass { .. } => Boundary::Flag(FlagReason::Time),
        Kind::Byoyomi { period, .. } => {
            if !me.overtime {
                // Main time is over: the periods start, with any arbiter correction of
                // periods_left / period_ms made during main time (initially P and T).
                me.overtime = true;
                me.periods_left = me.periods_left.max(1);
                Boundary::Continue
            } else if me.periods_left > 1 {
                me.periods_left -= 1;
                me.period_rem = *period;
                Boundary::Continue
            } else {
                Boundary::Flag(FlagReason::Time)
            }
        }
        Kind::Canadian { .. } => {
            if !me.overtime {
                me.overtime = true;
                me.stones_left = me.stones_left.max(1);
                Boundary::Continue
            } else {
                Boundary::Flag(FlagReason::Time)
            }
        }
        Kind::DoubleFlag {
            segs,
            extra,
            transition,
            ..
        } => {
            if me.extra_phase {
                return Boundary::Flag(FlagReason::ExtraTimeExpired);
            }
            if let Some(quota) = boundary(segs, me.period) {
                // tr/flag, tr/flagboth: the next main period is added when the time runs out
                // with the quota made (as segments, §4.5).
                if *transition != Transition::Moves && u64::from(my_moves) >= quota {
                    me.period += 1;
                    me.main = me.main.saturating_add(seg_at(segs, me.period).base_ms);
                    if *transition == Transition::FlagBoth && !opp.extra_phase {
                        opp.period += 1;
                        opp.main = opp.main.saturating_add(seg_at(segs, opp.period).base_ms);
                    }
                    return Boundary::Continue;
                }
                // Main ran out in a move-counted period: no mercy, unless the opponent
                // can no longer win (C6).
                if opp.extra_phase {
                    return Boundary::BothMainExpired;
                }
                return Boundary::Flag(FlagReason::ControlNotReached);
            }
            if opp.extra_phase {
                return Boundary::BothMainExpired;
            }
            me.extra_phase = true;
            me.extra = *extra;
            Boundary::Continue
        }
        Kind::PhasedCountdown { incs, .. } => {
            if me.active < incs.len() {
                me.active += 1;
                Boundary::Continue
            } else {
                Boundary::Flag(FlagReason::Time)
            }
        }
        Kind::Swing { .. } => {
            if me.swing == 0 && me.reserve[0] == 0 {
                Boundary::Flag(FlagReason::Time)
            } else {
                // The swing balance is spent: the reserve runs now.
                Boundary::Continue
            }
        }
    }
}

/// Segment-based boundary: the mover's `main` reached 0 in period `me.period`.
pub(crate) fn segments_at_boundary(
    segs_me: &[crate::params::Segment],
    segs_opp: &[crate::params::Segment],
    transition: Transition,
    me: &mut SideState,
    opp: &mut SideState,
    my_moves: u32,
) -> Boundary {
    let Some(quota) = boundary(segs_me, me.period) else {
        return Boundary::Flag(FlagReason::Time);
    };
    match transition {
        Transition::Moves => Boundary::Flag(FlagReason::ControlNotReached),
        Transition::Flag | Transition::FlagBoth => {
            if u64::from(my_moves) < quota {
                return Boundary::Flag(FlagReason::ControlNotReached);
            }
            me.period += 1;
            me.main = me.main.saturating_add(seg_at(segs_me, me.period).base_ms);
            if transition == Transition::FlagBoth {
                opp.period += 1;
                opp.main = opp
                    .main
                    .saturating_add(seg_at(segs_opp, opp.period).base_ms);
            }
            Boundary::Continue
        }
    }
}

/// The press effect for the mover's move `m` (already charged up to turn time `u`):
/// credits, refunds, resets, and move-counted period transitions (spec §2.3 steps 3-5).
pub(crate) fn press(kind: &Kind, side: usize, me: &mut SideState, u: u64, m: u32) {
    match kind {
        Kind::Segments {
            segs,
            credit,
            transition,
            cap_ms,
            ..
        } => {
            let segs = &segs[side];
            // Bronstein "after": refund the used part of the delay at the press.
            if let Some((d, DelayKind::Bronstein)) = delay_for_move(segs, m)
                && *credit == Credit::After
            {
                me.main = me.main.saturating_add(u.min(d));
            }
            let inc = match credit {
                Credit::Fide => inc_for_move(segs, m + 1),
                Credit::After => inc_for_move(segs, m),
                Credit::Before => 0,
            };
            if inc > 0 {
                me.main = me.main.saturating_add(inc);
                if let Some(cap) = cap_ms {
                    me.main = me.main.min(*cap);
                }
            }
            if *transition == Transition::Moves
                && let Some(c) = boundary(segs, me.period)
                && u64::from(m) >= c
            {
                me.period += 1;
                me.main = me.main.saturating_add(seg_at(segs, me.period).base_ms);
            }
        }
        Kind::Hourglass { .. } => {}
        Kind::Byoyomi { period, .. } => {
            if me.overtime {
                me.period_rem = *period;
            }
        }
        Kind::Canadian { stones, period, .. } => {
            if me.overtime {
                me.stones_left = me.stones_left.saturating_sub(1);
                if me.stones_left == 0 {
                    me.stones_left = *stones;
                    me.period_rem = *period;
                }
            }
        }
        Kind::DoubleFlag {
            segs,
            extra,
            bonus,
            scheme,
            transition,
        } => {
            if me.extra_phase {
                me.extra = super::rules::bonus(*scheme, me.extra, *bonus, *extra);
            } else if *transition == Transition::Moves
                && let Some(c) = boundary(segs, me.period)
                && u64::from(m) >= c
            {
                me.period += 1;
                me.main = me.main.saturating_add(seg_at(segs, me.period).base_ms);
            }
        }
        Kind::PhasedCountdown { incs, .. } => {
            if me.active < incs.len() {
                me.reserve[me.active] = me.reserve[me.active].saturating_add(incs[me.active]);
            }
        }
        Kind::Swing { .. } => {}
    }
}

/// Set up the mover's turn for move `m` (delay window, `cr/before` credit).
pub(crate) fn turn_start(kind: &Kind, side: usize, me: &mut SideState, m: u32) {
    me.delay_left = 0;
    if let Kind::Segments {
        segs,
        credit,
        cap_ms,
        ..
    } = kind
    {
        let segs = &segs[side];
        if let Some((d, dk)) = delay_for_move(segs, m)
            && (dk == DelayKind::Us || *credit != Credit::After)
        {
            me.delay_left = d;
        }
        if *credit == Credit::Before {
            me.main = me.main.saturating_add(inc_for_move(segs, m));
            if let Some(cap) = cap_ms {
                me.main = me.main.min(*cap);
            }
        }
    }
}

/// Whether the side's move `m` has a delay window (for `delay_left_ms`).
pub(crate) fn has_window(kind: &Kind, side: usize, m: u32) -> bool {
    match kind {
        Kind::Segments { segs, credit, .. } => match delay_for_move(&segs[side], m) {
            Some((_, DelayKind::Us)) => true,
            Some((_, DelayKind::Bronstein)) => *credit != Credit::After,
            None => false,
        },
        _ => false,
    }
}

/// The method's primary displayed value (spec §3) for a side; `mover` is whether it is
/// that side's turn (Bronstein shows main + unused delay for the mover, main + d otherwise).
pub(crate) fn value(kind: &Kind, side: usize, s: &SideState, mover: bool, next_move: u32) -> u64 {
    match kind {
        Kind::Segments { segs, credit, .. } => {
            let mut v = s.main;
            if *credit != Credit::After
                && let Some((d, DelayKind::Bronstein)) = delay_for_move(&segs[side], next_move)
            {
                v = v.saturating_add(if mover { s.delay_left } else { d });
            }
            if s.flagged { 0 } else { v }
        }
        Kind::Byoyomi { period, .. } if s.overtime => u64::from(s.periods_left.saturating_sub(1))
            .saturating_mul(*period)
            .saturating_add(s.period_rem),
        Kind::Swing { .. } => s.swing.saturating_add(s.reserve[0]),
        _ => running_component(kind, s, false),
    }
}

/// A side's phase (spec §1.4), without the cap.
pub(crate) fn phase(kind: &Kind, side: usize, s: &SideState, post_cutoff: bool) -> Phase {
    match kind {
        // flag/continue: a side that has flagged stays at 0 (D16).
        _ if s.flagged => Phase::Flagged,
        Kind::Segments {
            segs, single_sd, ..
        } => {
            if *single_sd {
                return Phase::Sd;
            }
            let n = u32::try_from(s.period)
                .unwrap_or(u32::MAX)
                .saturating_add(1);
            if seg_at(&segs[side], s.period).moves.is_none() {
                Phase::PeriodSd(n)
            } else {
                Phase::Period(n)
            }
        }
        Kind::Hourglass { .. } => Phase::Hourglass,
        Kind::Byoyomi { .. } => if s.overtime { Phase::Byoyomi } else { Phase::Main },
        Kind::Canadian { .. } => if s.overtime { Phase::Overtime } else { Phase::Main },
        Kind::DoubleFlag { .. } => if s.extra_phase { Phase::Extra } else { Phase::Main },
        Kind::PhasedCountdown { .. } => {
            [Phase::Main, Phase::Reserve, Phase::Secondary][s.active.min(2)]
        }
        Kind::Swing { .. } => {
            if post_cutoff {
                Phase::PostCutoff
            } else if s.swing > 0 {
                Phase::Swing
            } else {
                Phase::Reserve
            }
        }
    }
}

/// Detail fields (spec §1.4) without `delay_left_ms` / `cap_left_ms`.
pub(crate) fn detail(kind: &Kind, s: &SideState) -> MethodDetail {
    match kind {
        Kind::Segments { .. } => MethodDetail::Segments {
            main_ms: s.main,
            period: u64::try_from(s.period).unwrap_or(u64::MAX).saturating_add(1),
        },
        Kind::Hourglass { .. } => MethodDetail::Hourglass,
        // Before the overtime, period_ms / periods_left / stones_left show what the overtime
        // will start with (T, P, S unless an arbiter corrected them).
        Kind::Byoyomi { .. } => MethodDetail::Byoyomi {
            main_ms: s.main,
            periods_left: s.periods_left,
            period_ms: s.period_rem,
        },
        Kind::Canadian { .. } => MethodDetail::Canadian {
            main_ms: s.main,
            period_ms: s.period_rem,
            stones_left: s.stones_left,
        },
        Kind::DoubleFlag { .. } => MethodDetail::DoubleFlag {
            main_ms: s.main,
            extra_ms: s.extra_phase.then_some(s.extra),
            // False once the main time is exhausted (extra time, or a lost first period).
            can_win: !s.extra_phase && s.main > 0,
        },
        Kind::PhasedCountdown { incs, .. } => MethodDetail::PhasedCountdown {
            main_ms: s.main,
            reserve_ms: s.reserve[0],
            secondary_ms: (incs.len() > 1).then_some(s.reserve[1]),
        },
        Kind::Swing { .. } => MethodDetail::Swing {
            swing_ms: s.swing,
            reserve_ms: s.reserve[0],
        },
    }
}

/// Period index for a set_moves correction: apply pending move-counted transitions.
pub(crate) fn catch_up_periods(kind: &Kind, side: usize, s: &mut SideState, moves: u32) {
    let segs = match kind {
        Kind::Segments {
            segs, transition, ..
        } if *transition == Transition::Moves => &segs[side],
        Kind::DoubleFlag {
            segs, transition, ..
        } if *transition == Transition::Moves => segs,
        _ => return,
    };
    // Closed form: the period that governs the next move, and every base time up to it.
    let target = period_of_move(segs, moves.saturating_add(1));
    if target > s.period {
        s.main = s.main.saturating_add(bases_between(segs, s.period, target));
        s.period = target;
    }
}

/// The period after a reconfiguration: the one that governs the next move under `tr/moves`;
/// under `tr/flag`/`tr/flagboth` periods are reached by running out of time, so the period
/// already reached (`kept`) stays, never beyond the moves.
fn period_after(segs: &[Segment], transition: Transition, next: u32, kept: usize) -> usize {
    let derived = period_of_move(segs, next);
    if transition == Transition::Moves {
        derived
    } else {
        kept.min(derived)
    }
}

/// The time a side really has left for play under `kind`, to carry into another method:
/// the running component plus clocks still to come that belong to the player (phased
/// reserves, swing reserve). Not the displayed value.
fn remaining(kind: &Kind, s: &SideState) -> u64 {
    match kind {
        Kind::Segments { .. } | Kind::Hourglass { .. } => s.main,
        Kind::Byoyomi { .. } | Kind::Canadian { .. } if s.overtime => s.period_rem,
        Kind::Byoyomi { .. } | Kind::Canadian { .. } => s.main,
        Kind::DoubleFlag { .. } if s.extra_phase => s.extra,
        Kind::DoubleFlag { .. } => s.main,
        Kind::PhasedCountdown { .. } => {
            let main = if s.active == 0 { s.main } else { 0 };
            let later: u64 = s.reserve.iter().skip(s.active.saturating_sub(1)).sum();
            main.saturating_add(later)
        }
        Kind::Swing { .. } => s.swing.saturating_add(s.reserve[0]),
    }
}

/// A side's state under the new rules `new` after a reconfiguration (spec §2.6). The same
/// kind of method keeps its whole state (phases, periods left, extra time, reserves), clamped
/// to the new limits; another kind gets the real remaining time as its main time. The period
/// index is derived from the completed moves; no pending base time is added. For the side
/// to move mid-turn (`mid_turn`), what is left of the delay window is kept (never restarted)
/// and no `cr/before` credit is given again.
pub(crate) fn carry_over(
    old: &Kind,
    s: &SideState,
    new: &Kind,
    side: usize,
    moves: u32,
    mid_turn: bool,
) -> SideState {
    let mut n = initial(new, side);
    n.cap_used = s.cap_used;
    n.flagged = s.flagged;
    let next = moves.saturating_add(1);
    match (old, new) {
        (
            Kind::Segments { .. },
            Kind::Segments {
                segs, transition, ..
            },
        ) => {
            n.main = s.main;
            n.period = period_after(&segs[side], *transition, next, s.period);
        }
        (Kind::Hourglass { .. }, Kind::Hourglass { .. }) => n.main = s.main,
        (
            Kind::Byoyomi { .. },
            Kind::Byoyomi {
                periods, period, ..
            },
        ) => {
            n.main = s.main;
            n.overtime = s.overtime;
            if s.overtime {
                n.periods_left = s.periods_left.min(*periods).max(1);
                n.period_rem = s.period_rem.min(*period);
            }
        }
        (Kind::Canadian { .. }, Kind::Canadian { stones, period, .. }) => {
            n.main = s.main;
            n.overtime = s.overtime;
            if s.overtime {
                n.stones_left = s.stones_left.min(*stones).max(1);
                n.period_rem = s.period_rem.min(*period);
            }
        }
        (
            Kind::DoubleFlag { .. },
            Kind::DoubleFlag {
                segs,
                extra,
                transition,
                ..
            },
        ) => {
            n.main = s.main;
            n.period = period_after(segs, *transition, next, s.period);
            n.extra_phase = s.extra_phase;
            n.extra = s.extra.min(*extra);
        }
        (Kind::PhasedCountdown { .. }, Kind::PhasedCountdown { incs, .. }) => {
            n.main = s.main;
            n.reserve = s.reserve;
            n.active = s.active.min(incs.len());
            if incs.len() < 2 {
                // The secondary clock no longer exists: its time joins the reserve.
                n.reserve[0] = n.reserve[0].saturating_add(n.reserve[1]);
                n.reserve[1] = 0;
            }
        }
        (Kind::Swing { .. }, Kind::Swing { .. }) => {
            n.swing = s.swing;
            n.reserve = s.reserve;
        }
        (_, kind) => {
            let r = remaining(old, s);
            match kind {
                Kind::Segments {
                    segs, transition, ..
                } => {
                    n.main = r;
                    n.period = period_after(&segs[side], *transition, next, 0);
                }
                Kind::DoubleFlag {
                    segs, transition, ..
                } => {
                    n.main = r;
                    n.period = period_after(segs, *transition, next, 0);
                }
                Kind::Swing { .. } => {
                    n.reserve[0] = r;
                    n.swing = 0;
                }
                Kind::Byoyomi { .. } | Kind::Canadian { .. } => {
                    n.main = r;
                    n.overtime = false;
                }
                _ => n.main = r,
            }
        }
    }
    if mid_turn && has_window(new, side, next) {
        let d = match new {
            Kind::Segments { segs, .. } => delay_for_move(&segs[side], next).map_or(0, |x| x.0),
            _ => 0,
        };
        n.delay_left = s.delay_left.min(d);
    }
    n
}
