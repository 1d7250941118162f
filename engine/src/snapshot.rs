//! Read-outs of the engine at an instant: the [`Snapshot`] of spec §1.1 (with [`Run`], how its
//! values move until the next change of state: the rule clients redraw by) and the Display a
//! count-down-only clock needs (spec §3). Pure: computed on a copy advanced to `now`, or on
//! the engine itself when it already stands there.
//!
//! The snapshot is typed; it derives `Serialize` to exactly the JSON shape of spec §1.1
//! (keys in alphabetical order, as the vectors and `status --json` print them). Turning it into
//! JSON or D-Bus values is the callers' business, never the engine's.

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::core::Engine;
use super::method::Method;
use super::text::clock_text;
use super::types::{
    Display, FlagRecord, GameResult, PendingClaim, PerSide, ResultReason, Side, SidePhase, Status,
    Time,
};

/// The state at an instant (spec §1.1). Fields are in the serialised (alphabetical) order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Snapshot {
    /// Black's displayed value (ms).
    pub black_ms: u64,
    /// A USCF 14H claim waiting for the director (absent when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim: Option<PendingClaim>,
    /// Count-up: the runner's value rises with the time it uses instead of falling (absent
    /// when false). See [`Snapshot::value_after`].
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub counts_up: bool,
    /// Each side's method detail fields (spec §1.4).
    pub detail: PerSide<Detail>,
    /// Armageddon: how the game was drawn when the draw was scored `0-1` with reason
    /// `armageddon` (a result reason: `stalemate`, `board`, ...); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drawn_by: Option<ResultReason>,
    /// Time events so far (absent when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<FlagRecord>,
    /// While the clock runs, the most the waiting side gains, one millisecond for each the
    /// runner uses: the runner's value under hourglass, its swing balance under phased swing
    /// (absent when the waiting side's value stands). See [`Snapshot::value_after`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flows_ms: Option<u64>,
    /// Completed moves (presses) per side.
    pub moves: PerSide<u32>,
    /// Each side's phase.
    pub phase: PerSide<SidePhase>,
    /// Why the game has its result (or why both flags fell); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ResultReason>,
    /// The result, if any (`null` otherwise).
    pub result: Option<GameResult>,
    /// The side whose clock runs (`null` if none).
    pub running: Option<Side>,
    /// The game's status.
    pub status: Status,
    /// Engine time of the snapshot.
    pub t_ms: u64,
    /// The displayed values as `M:SS` / `H:MM:SS`.
    pub text: PerSide<String>,
    /// The claimant the director watches after a 14H `watch` ruling (absent when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watched: Option<Side>,
    /// White's displayed value (ms).
    pub white_ms: u64,
}

impl Snapshot {
    /// Whether the two snapshots differ only in what ticks while a clock runs: the time, the
    /// displayed values and texts, and the detail fields. Everything else (status, running
    /// side, phases, moves, result, reason, flags) is compared.
    pub fn same_except_time(&self, other: &Snapshot) -> bool {
        // Destructured so that a new field must be placed on one side or the other.
        let Snapshot {
            black_ms: _,
            claim,
            counts_up,
            detail: _,
            drawn_by,
            flags,
            flows_ms: _,
            moves,
            phase,
            reason,
            result,
            running,
            status,
            t_ms: _,
            text: _,
            watched,
            white_ms: _,
        } = self;
        *flags == other.flags
            && *drawn_by == other.drawn_by
            && *moves == other.moves
            && *phase == other.phase
            && *reason == other.reason
            && *result == other.result
            && *running == other.running
            && *status == other.status
            && *claim == other.claim
            && *counts_up == other.counts_up
            && *watched == other.watched
    }

    /// `side`'s displayed value (ms).
    pub fn value(&self, side: Side) -> u64 {
        match side {
            Side::White => self.white_ms,
            Side::Black => self.black_ms,
        }
    }

    /// How the values move after this snapshot while nothing changes state, if a clock runs.
    pub fn run(&self) -> Option<Run> {
        let runner = self.running.filter(|_| self.status == Status::Running)?;
        Some(Run {
            runner,
            delay_left_ms: self.detail.get(runner).delay_left_ms.unwrap_or(0),
            flows_ms: self.flows_ms.unwrap_or(0),
            counts_up: self.counts_up,
        })
    }

    /// `side`'s value `elapsed_ms` after this snapshot, until the next change of state (a
    /// press, a phase, a flag: those come as new snapshots).
    pub fn value_after(&self, side: Side, elapsed_ms: u64) -> u64 {
        let value = self.value(side);
        self.run()
            .map_or(value, |run| run.value_after(side, value, elapsed_ms))
    }
}

/// How a running clock's values move between snapshots: the one rule clients use to redraw
/// without asking again (`chessclock-api` reads it from the published snapshot fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// The side whose time runs.
    pub runner: Side,
    /// What is left of the runner's delay window: that much time costs nothing.
    pub delay_left_ms: u64,
    /// The most the waiting side gains ([`Snapshot::flows_ms`], 0 when it stands).
    pub flows_ms: u64,
    /// The runner's value rises instead of falling ([`Snapshot::counts_up`]).
    pub counts_up: bool,
}

impl Run {
    /// `side`'s value `elapsed_ms` after a snapshot in which it was `value`: the runner loses
    /// the time used after the delay window (down to 0), the waiting side gains as much of it
    /// as flows to it.
    pub fn value_after(&self, side: Side, value: u64, elapsed_ms: u64) -> u64 {
        let used = elapsed_ms.saturating_sub(self.delay_left_ms);
        if side == self.runner && self.counts_up {
            value.saturating_add(used)
        } else if side == self.runner {
            value.saturating_sub(used)
        } else {
            value.saturating_add(used.min(self.flows_ms))
        }
    }
}

/// A side's detail fields (spec §1.4): the method's own, plus the delay window left in the
/// current turn and the independent cap left, where they apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detail {
    /// The method's fields.
    pub method: MethodDetail,
    /// `delay_left_ms`: the mover's delay window left (segments with a delay, mid-turn).
    pub delay_left_ms: Option<u64>,
    /// `cap_left_ms`: the independent cap left (`cap/` controls).
    pub cap_left_ms: Option<u64>,
}

/// The detail fields of one method (spec §1.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodDetail {
    /// Sudden death, Fischer, delays, multi-period (segments).
    Segments {
        /// Main time left.
        main_ms: u64,
        /// The funded period, from 1.
        period: u64,
    },
    /// Hourglass: no detail.
    Hourglass,
    /// Count-up: no detail (the value is the time used).
    CountUp,
    /// Byo-yomi. Before the overtime, the period fields show what it will start with.
    Byoyomi {
        /// Main time left.
        main_ms: u64,
        /// Periods left, the current one included.
        periods_left: u32,
        /// The current period's remainder.
        period_ms: u64,
    },
    /// Canadian overtime.
    Canadian {
        /// Main time left.
        main_ms: u64,
        /// The current period's remainder.
        period_ms: u64,
        /// Stones still owed in the period.
        stones_left: u32,
    },
    /// Double flag.
    DoubleFlag {
        /// Main time left.
        main_ms: u64,
        /// Extra time left, once on extra time (`null` before).
        extra_ms: Option<u64>,
        /// Whether the side can still win on time.
        can_win: bool,
    },
    /// Phased countdown.
    PhasedCountdown {
        /// Main clock.
        main_ms: u64,
        /// Reserve clock.
        reserve_ms: u64,
        /// Secondary clock, when the control has one.
        secondary_ms: Option<u64>,
    },
    /// Phased swing.
    Swing {
        /// Swing balance.
        swing_ms: u64,
        /// Reserve.
        reserve_ms: u64,
    },
}

/// One detail value, for serialisation.
#[derive(Debug, Clone, Copy)]
enum Field {
    Num(u64),
    Bool(bool),
    Null,
}

impl Serialize for Field {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Num(n) => s.serialize_u64(*n),
            Field::Bool(b) => s.serialize_bool(*b),
            Field::Null => s.serialize_none(),
        }
    }
}

impl Detail {
    /// The fields as `(key, value)`, in alphabetical order.
    fn fields(&self) -> Vec<(&'static str, Field)> {
        use Field::{Bool, Num};
        let mut f = match self.method {
            MethodDetail::Segments { main_ms, period } => {
                vec![("main_ms", Num(main_ms)), ("period", Num(period))]
            }
            MethodDetail::Hourglass | MethodDetail::CountUp => vec![],
            MethodDetail::Byoyomi {
                main_ms,
                periods_left,
                period_ms,
            } => vec![
                ("main_ms", Num(main_ms)),
                ("period_ms", Num(period_ms)),
                ("periods_left", Num(u64::from(periods_left))),
            ],
            MethodDetail::Canadian {
                main_ms,
                period_ms,
                stones_left,
            } => vec![
                ("main_ms", Num(main_ms)),
                ("period_ms", Num(period_ms)),
                ("stones_left", Num(u64::from(stones_left))),
            ],
            MethodDetail::DoubleFlag {
                main_ms,
                extra_ms,
                can_win,
            } => vec![
                ("can_win", Bool(can_win)),
                ("extra_ms", extra_ms.map_or(Field::Null, Num)),
                ("main_ms", Num(main_ms)),
            ],
            MethodDetail::PhasedCountdown {
                main_ms,
                reserve_ms,
                secondary_ms,
            } => {
                let mut v = vec![("main_ms", Num(main_ms)), ("reserve_ms", Num(reserve_ms))];
                if let Some(s) = secondary_ms {
                    v.push(("secondary_ms", Num(s)));
                }
                v
            }
            MethodDetail::Swing {
                swing_ms,
                reserve_ms,
            } => vec![("reserve_ms", Num(reserve_ms)), ("swing_ms", Num(swing_ms))],
        };
        if let Some(d) = self.delay_left_ms {
            f.push(("delay_left_ms", Num(d)));
        }
        if let Some(c) = self.cap_left_ms {
            f.push(("cap_left_ms", Num(c)));
        }
        f.sort_by_key(|(k, _)| *k);
        f
    }
}

impl Serialize for Detail {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let fields = self.fields();
        let mut m = s.serialize_map(Some(fields.len()))?;
        for (k, v) in &fields {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl Engine {
    /// The engine as it stands at `now`: itself when it is already there (the session advances
    /// it at every wake-up, so a read-out then copies nothing), else a copy advanced to `now`.
    fn at(&self, now: Time) -> Cow<'_, Engine> {
        if now <= self.last {
            return Cow::Borrowed(self);
        }
        let mut e = self.clone();
        e.advance(now);
        Cow::Owned(e)
    }

    /// The state at `now` (pure: the engine itself does not change).
    pub fn snapshot(&self, now: Time) -> Snapshot {
        self.at(now).snapshot_here(now)
    }

    /// [`Snapshot::flows_ms`]: what the waiting side can gain while the runner runs.
    fn flows_to_waiting(&self) -> Option<u64> {
        let runner = self
            .running_side()
            .filter(|s| self.status == Status::Running && !self.flagged[s.idx()])?;
        if !self.timing.waiting_side_moves(runner.idx()) {
            return None;
        }
        match self.timing.detail(runner.idx()) {
            MethodDetail::Hourglass => Some(self.value(runner)),
            MethodDetail::Swing { swing_ms, .. } => Some(swing_ms),
            _ => None,
        }
    }

    fn side_phase(&self, side: Side) -> SidePhase {
        SidePhase {
            phase: self.phase(side),
            // Under count-up the clock shows the time used; the cap is a limit, never the
            // value shown.
            capped: !self.timing.counts_up()
                && self
                    .cap_left(side)
                    .is_some_and(|cap| cap < self.method_value(side)),
        }
    }

    fn detail(&self, side: Side) -> Detail {
        let i = side.idx();
        let mid_turn =
            self.turn == Some(side) && matches!(self.status, Status::Running | Status::Paused);
        let m = &self.timing;
        Detail {
            method: m.detail(i),
            delay_left_ms: if mid_turn && !self.flagged[i] {
                m.delay_left(i, self.moves[i].saturating_add(1))
            } else {
                None
            },
            cap_left_ms: self.cap_left(side),
        }
    }

    fn snapshot_here(&self, now: Time) -> Snapshot {
        let w = self.value(Side::White);
        let b = self.value(Side::Black);
        Snapshot {
            black_ms: b,
            claim: self.pending,
            counts_up: self.timing.counts_up(),
            detail: PerSide::from_fn(|s| self.detail(s)),
            drawn_by: self.drawn_by,
            flags: self.flags.clone(),
            flows_ms: self.flows_to_waiting(),
            moves: PerSide::from_fn(|s| self.moves[s.idx()]),
            phase: PerSide::from_fn(|s| self.side_phase(s)),
            reason: self.reason,
            result: self.result,
            running: self.running_side(),
            status: self.status,
            t_ms: now.as_ms(),
            text: PerSide {
                black: clock_text(b),
                white: clock_text(w),
            },
            watched: self.watched,
            white_ms: w,
        }
    }

    /// What a count-down-only clock should show at `now`, and when to push again.
    pub fn display(&self, now: Time) -> Display {
        let e = self.at(now);
        let w = e.value(Side::White);
        let b = e.value(Side::Black);
        let mover = e.running_side();
        let counting = mover.filter(|s| {
            let i = s.idx();
            !e.flagged[i] && e.timing.counts_down(i, e.method_value(*s))
        });
        let mut next: Option<u64> = mover.and_then(|s| e.time_to_boundary(s));
        if let Some(s) = mover {
            let opp = s.other();
            // A value that rises (the waiting side's, or the runner's under count-up) is
            // pushed again when it shows its next second: the device only counts down.
            let rising = if e.timing.counts_up() {
                Some(s)
            } else {
                e.timing.waiting_side_moves(s.idx()).then_some(opp)
            };
            if let Some(r) = rising.filter(|r| !e.flagged[r.idx()]) {
                let v = e.value(r);
                let r = v % 1000;
                let step = if r == 0 { 1 } else { 1000 - r + 1 };
                next = Some(next.map_or(step, |n| n.min(step)));
            }
        }
        let ms_to_next_second = counting.map(|s| {
            let r = e.value(s) % 1000;
            if r == 0 { 1000 } else { r }
        });
        Display {
            white_s: w.div_ceil(1000),
            black_s: b.div_ceil(1000),
            counting,
            next_refresh: next.map(|d| now.plus(d)),
            ms_to_next_second,
        }
    }
}
