//! The game state machine: turns, running time, expiries in order, flags, results, pause,
//! arbiter actions, reconfiguration; and the event queue.
//!
//! Time only moves through [`Engine::advance`], which walks from the last update to `now`
//! boundary by boundary (phase changes and expiries at their exact instants), so every value
//! is a closed-form function of the last event and the elapsed time.

use std::collections::VecDeque;

use crate::params::{MAX_COUNT, MAX_DURATION_MS, OnFlag, TimeControl};

use super::method::{self, Boundary, SideState};
use super::rules::{Kind, Rules};
use super::types::{
    AdjustField, AdjustOp, ConfigError, Event, FlagReason, FlagRecord, GameResult, Input,
    InputError, Phase, ResultReason, Side, Status, StatusCause, Time,
};

/// The time-control engine for one game.
#[derive(Debug, Clone)]
pub struct Engine {
    pub(crate) control: TimeControl,
    pub(crate) rules: Rules,
    pub(crate) status: Status,
    /// Side to move (kept while paused and after a flag).
    pub(crate) turn: Option<Side>,
    /// Time up to which the state is advanced.
    pub(crate) last: Time,
    /// Running time of the current turn (pauses excluded).
    pub(crate) turn_u: u64,
    pub(crate) sides: [SideState; 2],
    pub(crate) moves: [u32; 2],
    pub(crate) post_cutoff: bool,
    pub(crate) flags: Vec<FlagRecord>,
    pub(crate) result: Option<GameResult>,
    pub(crate) reason: Option<ResultReason>,
    events: VecDeque<Event>,
}

impl Engine {
    /// A game set up under `control`, status ready.
    pub fn new(control: TimeControl) -> Result<Engine, ConfigError> {
        let rules = Rules::new(&control)?;
        let sides = [
            method::initial(&rules.kind, 0),
            method::initial(&rules.kind, 1),
        ];
        Ok(Engine {
            control,
            rules,
            status: Status::Ready,
            turn: None,
            last: Time::ZERO,
            turn_u: 0,
            sides,
            moves: [0, 0],
            post_cutoff: false,
            flags: Vec::new(),
            result: None,
            reason: None,
            events: VecDeque::new(),
        })
    }

    /// The control in force.
    pub fn control(&self) -> &TimeControl {
        &self.control
    }

    /// The game status.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The next event the engine has to report.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When the next expiry or phase change happens, if a clock runs.
    pub fn poll_timeout(&self) -> Option<Time> {
        let side = self.running_side()?;
        self.time_to_boundary(side).map(|d| self.last.plus(d))
    }

    /// Process every expiry at or before `now`. Spurious calls are harmless.
    pub fn handle_timeout(&mut self, now: Time) {
        self.advance(now);
    }

    pub(crate) fn running_side(&self) -> Option<Side> {
        if self.status == Status::Running {
            self.turn
        } else {
            None
        }
    }

    fn set_status(&mut self, new: Status, reason: StatusCause) {
        if self.status != new {
            self.events.push_back(Event::StatusChanged {
                old: self.status,
                new,
                reason,
            });
            self.status = new;
        }
    }

    /// Running time until the mover's next boundary: delay-window end, cap, or method.
    pub(crate) fn time_to_boundary(&self, side: Side) -> Option<u64> {
        let st = &self.sides[side.idx()];
        if st.flagged {
            return None;
        }
        let cap = self
            .rules
            .overall_cap
            .map(|a| a.saturating_sub(st.cap_used));
        let method = if st.delay_left > 0 {
            Some(st.delay_left)
        } else {
            method::time_to_boundary(&self.rules.kind, st, self.post_cutoff)
        };
        match (cap, method) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn consume(&mut self, side: Side, d: u64) {
        self.turn_u = self.turn_u.saturating_add(d);
        let (me, opp) = pair(&mut self.sides, side);
        me.cap_used = me.cap_used.saturating_add(d);
        if me.delay_left > 0 {
            me.delay_left -= d.min(me.delay_left);
        } else {
            method::consume(&self.rules.kind, me, opp, d, self.post_cutoff);
        }
    }

    /// Move the state forward to `now` (never backwards).
    pub(crate) fn advance(&mut self, now: Time) {
        if now <= self.last {
            return;
        }
        let Some(side) = self.running_side() else {
            self.last = now;
            return;
        };
        let mut left = now.since(self.last);
        // Some phase changes happen inside the evolution, not at a boundary (main time
        // running into byo-yomi, swing into reserve): they are events too.
        let before = self.phase(side);
        let queued = self.events.len();
        for _ in 0..10_000 {
            match self.time_to_boundary(side) {
                Some(b) if b <= left => {
                    self.consume(side, b);
                    left -= b;
                    self.last = self.last.plus(b);
                    self.boundary(side);
                    if self.running_side() != Some(side) {
                        break;
                    }
                }
                _ => {
                    self.consume(side, left);
                    break;
                }
            }
        }
        self.last = now;
        let after = self.phase(side);
        if after != before && self.status == Status::Running {
            let announced = self.events.iter().skip(queued).rev().find_map(|e| match e {
                Event::PhaseChanged { side: s, new, .. } if *s == side => Some(*new),
                _ => None,
            });
            if announced != Some(after) {
                self.events.push_back(Event::PhaseChanged {
                    side,
                    old: before,
                    new: after,
                });
            }
        }
    }

    /// The mover is exactly at a boundary.
    fn boundary(&mut self, side: Side) {
        let t = self.last;
        let st = &self.sides[side.idx()];
        if self.rules.overall_cap.is_some_and(|a| st.cap_used >= a) {
            self.flag(side, FlagReason::OverallCap, t);
            return;
        }
        if st.delay_left > 0
            || method::time_to_boundary(&self.rules.kind, st, self.post_cutoff) != Some(0)
        {
            return; // the end of a delay window: nothing changes but the display
        }
        let before = self.phase(side);
        let my_moves = self.moves[side.idx()];
        let kind = &self.rules.kind;
        let (me, opp) = pair(&mut self.sides, side);
        let outcome = match kind {
            Kind::Segments {
                segs, transition, ..
            } => method::segments_at_boundary(
                &segs[side.idx()],
                &segs[side.other().idx()],
                *transition,
                me,
                opp,
                my_moves,
            ),
            other => method::at_boundary(other, me, opp, my_moves),
        };
        match outcome {
            Boundary::Continue => {
                let after = self.phase(side);
                if after != before {
                    self.events.push_back(Event::PhaseChanged {
                        side,
                        old: before,
                        new: after,
                    });
                }
            }
            Boundary::Flag(reason) => self.flag(side, reason, t),
            Boundary::BothMainExpired => {
                self.flags.push(FlagRecord {
                    side,
                    t_ms: t.as_ms(),
                    reason: FlagReason::MainTimeExpired,
                });
                self.events.push_back(Event::Flag {
                    side,
                    reason: FlagReason::MainTimeExpired,
                });
                self.finish(
                    GameResult::Draw,
                    ResultReason::BothMainTimesExpired,
                    Status::Ended,
                );
            }
        }
    }

    fn finish(&mut self, result: GameResult, reason: ResultReason, status: Status) {
        self.result = Some(result);
        self.reason = Some(reason);
        self.events.push_back(Event::Result { result, reason });
        self.set_status(status, StatusCause::Result(reason));
    }

    fn flag(&mut self, side: Side, reason: FlagReason, t: Time) {
        self.flags.push(FlagRecord {
            side,
            t_ms: t.as_ms(),
            reason,
        });
        self.events.push_back(Event::Flag { side, reason });
        // Rules refuse flag/continue for the methods that define their own flag
        // consequences (hourglass, swing, double flag).
        if self.rules.on_flag == OnFlag::Continue {
            let st = &mut self.sides[side.idx()];
            st.flagged = true;
            st.main = 0;
            st.period_rem = 0;
            st.periods_left = st.periods_left.min(1);
            st.reserve = [0, 0];
            if self.sides.iter().all(|s| s.flagged) {
                self.reason = Some(ResultReason::Flag(reason));
                self.set_status(Status::Flagged, StatusCause::Flag);
            }
            return;
        }
        self.finish(
            GameResult::win_for(side.other()),
            ResultReason::Flag(reason),
            Status::Flagged,
        );
    }

    pub(crate) fn phase(&self, side: Side) -> Phase {
        method::phase(
            &self.rules.kind,
            side.idx(),
            &self.sides[side.idx()],
            self.post_cutoff,
        )
    }

    /// Apply an input at `now`. An input that is not allowed now returns an error that says
    /// why and changes nothing (expiries up to `now` are still processed).
    pub fn handle_input(&mut self, now: Time, input: Input) -> Result<(), InputError> {
        self.advance(now);
        match input {
            Input::Start { side } => self.start(now, side),
            Input::Press { side } => self.press(side),
            Input::Pause => {
                if self.status != Status::Running {
                    return Err(InputError::NothingToPause(self.status));
                }
                self.set_status(Status::Paused, StatusCause::Pause);
                Ok(())
            }
            Input::Resume => self.resume(),
            Input::Adjust {
                side,
                field,
                op,
                ms,
            } => self.adjust(side, field, op, ms),
            Input::SetMoves { side, moves } => {
                self.arbiter_allowed("set_moves")?;
                if moves > MAX_COUNT {
                    return Err(InputError::TooManyMoves(moves));
                }
                let i = side.idx();
                if moves > self.moves[i] {
                    method::catch_up_periods(&self.rules.kind, i, &mut self.sides[i], moves);
                }
                self.moves[i] = moves;
                Ok(())
            }
            Input::ClaimDraw { side } => self.claim(side),
            Input::BoardResult { result } => self.board_result(result),
            Input::Reconfigure { control } => self.reconfigure(*control),
        }
    }

    fn start(&mut self, now: Time, side: Side) -> Result<(), InputError> {
        if self.status != Status::Ready {
            return Err(InputError::AlreadyStarted(self.status));
        }
        self.last = now;
        self.turn = Some(side);
        self.turn_u = 0;
        let m = self.moves[side.idx()].saturating_add(1);
        method::turn_start(&self.rules.kind, side.idx(), &mut self.sides[side.idx()], m);
        self.set_status(Status::Running, StatusCause::Start);
        // A zero main time (pure byo-yomi) starts the overtime at once.
        self.advance_boundaries_at_now();
        Ok(())
    }

    /// Handle boundaries that are due right now (a clock that starts at 0).
    fn advance_boundaries_at_now(&mut self) {
        for _ in 0..100 {
            let Some(side) = self.running_side() else {
                return;
            };
            if self.time_to_boundary(side) == Some(0) {
                self.boundary(side);
            } else {
                return;
            }
        }
    }

    fn press(&mut self, side: Side) -> Result<(), InputError> {
        if self.status != Status::Running {
            return Err(InputError::PressNotRunning(self.status));
        }
        if self.turn != Some(side) {
            return Err(InputError::NotYourTurn(side));
        }
        let i = side.idx();
        let u = self.turn_u;
        let m = self.moves[i].saturating_add(1);
        let before = self.phase(side);
        if !self.sides[i].flagged {
            method::press(&self.rules.kind, i, &mut self.sides[i], u, m);
        }
        self.sides[i].delay_left = 0;
        self.moves[i] = m;
        if let Kind::Swing {
            cutoff: Some(n), ..
        } = self.rules.kind
            && !self.post_cutoff
            && self.moves.iter().all(|&k| k >= n)
        {
            self.post_cutoff = true;
            for s in &mut self.sides {
                s.reserve[0] = s.reserve[0].saturating_add(s.swing);
                s.swing = 0;
            }
        }
        let after = self.phase(side);
        if after != before {
            self.events.push_back(Event::PhaseChanged {
                side,
                old: before,
                new: after,
            });
        }
        let next = side.other();
        self.turn = Some(next);
        self.turn_u = 0;
        let mn = self.moves[next.idx()].saturating_add(1);
        method::turn_start(
            &self.rules.kind,
            next.idx(),
            &mut self.sides[next.idx()],
            mn,
        );
        let (white_ms, black_ms) = (self.value(Side::White), self.value(Side::Black));
        self.events.push_back(Event::Pressed {
            side,
            move_number: m,
            move_ms: u,
            white_ms,
            black_ms,
        });
        self.advance_boundaries_at_now();
        Ok(())
    }

    fn resume(&mut self) -> Result<(), InputError> {
        match self.status {
            Status::Paused => {
                self.set_status(Status::Running, StatusCause::Resume);
                Ok(())
            }
            Status::Flagged => {
                let Some(side) = self.turn else {
                    return Err(InputError::NothingToResume(self.status));
                };
                let st = &self.sides[side.idx()];
                let has_time = method::time_to_boundary(&self.rules.kind, st, self.post_cutoff)
                    .is_some_and(|t| t > 0)
                    && self.rules.overall_cap.is_none_or(|a| st.cap_used < a);
                if !has_time {
                    return Err(InputError::NoTimeToResume);
                }
                for s in &mut self.sides {
                    s.flagged = false;
                }
                self.result = None;
                self.reason = None;
                self.set_status(Status::Running, StatusCause::Resume);
                Ok(())
            }
            other => Err(InputError::NothingToResume(other)),
        }
    }

    fn arbiter_allowed(&self, action: &'static str) -> Result<(), InputError> {
        match self.status {
            Status::Ready | Status::Paused | Status::Flagged => Ok(()),
            status => Err(InputError::NeedsPause { action, status }),
        }
    }

    /// Arbiter change of one detail field (spec §2.6). Times are in ms; `periods_left` and
    /// `stones_left` are counts (the `ms` value is the count); `cap_left_ms` corrects the
    /// independent cap (what the player may still use of it).
    fn adjust(
        &mut self,
        side: Side,
        field: AdjustField,
        op: AdjustOp,
        ms: i64,
    ) -> Result<(), InputError> {
        self.arbiter_allowed("adjust")?;
        let kind = &self.rules.kind;
        let cap = self.rules.overall_cap;
        let st = &mut self.sides[side.idx()];
        let apply = |current: u64, max: u64| -> Result<u64, InputError> {
            let new = match op {
                AdjustOp::Set => ms,
                AdjustOp::Add => i64::try_from(current)
                    .unwrap_or(i64::MAX)
                    .saturating_add(ms),
            };
            let Ok(value) = u64::try_from(new) else {
                return Err(InputError::Negative { field, value: new });
            };
            if value > max {
                return Err(InputError::OverLimit { field, value, max });
            }
            let new = value;
            Ok(new)
        };
        match (field, kind) {
            (AdjustField::CapLeftMs, _) => {
                let Some(a) = cap else {
                    return Err(InputError::NoCap);
                };
                let left = apply(a.saturating_sub(st.cap_used), a)?;
                st.cap_used = a - left;
                return Ok(());
            }
            (AdjustField::PeriodsLeft, Kind::Byoyomi { period, .. }) => {
                let n = apply(u64::from(st.periods_left), u64::from(MAX_COUNT))?;
                if n == 0 {
                    return Err(InputError::CountBelowOne(field));
                }
                st.periods_left = u32::try_from(n).unwrap_or(MAX_COUNT);
                // A spent period (a byo-yomi flag) is restarted: the player gets the periods.
                if st.overtime && st.period_rem == 0 {
                    st.period_rem = *period;
                }
                st.flagged = false;
                return Ok(());
            }
            (AdjustField::StonesLeft, Kind::Canadian { .. }) => {
                let n = apply(u64::from(st.stones_left), u64::from(MAX_COUNT))?;
                if n == 0 {
                    return Err(InputError::CountBelowOne(field));
                }
                st.stones_left = u32::try_from(n).unwrap_or(MAX_COUNT);
                return Ok(());
            }
            _ => {}
        }
        let slot: &mut u64 = match (field, kind) {
            (AdjustField::MainMs, Kind::Swing { .. }) => {
                return Err(InputError::NoMainInSwing);
            }
            (AdjustField::MainMs, _) => &mut st.main,
            (AdjustField::ExtraMs, Kind::DoubleFlag { .. }) => &mut st.extra,
            (AdjustField::ReserveMs, Kind::PhasedCountdown { .. } | Kind::Swing { .. }) => {
                &mut st.reserve[0]
            }
            (AdjustField::SecondaryMs, Kind::PhasedCountdown { .. }) => &mut st.reserve[1],
            (AdjustField::SwingMs, Kind::Swing { .. }) => &mut st.swing,
            (AdjustField::PeriodMs, Kind::Byoyomi { .. } | Kind::Canadian { .. }) => {
                &mut st.period_rem
            }
            _ => {
                return Err(InputError::NotInMethod {
                    field,
                    method: self.control.method,
                });
            }
        };
        let new = apply(*slot, MAX_DURATION_MS)?;
        *slot = new;
        if new > 0 {
            st.flagged = false;
        }
        Ok(())
    }

    fn claim(&mut self, side: Side) -> Result<(), InputError> {
        if !matches!(self.rules.kind, Kind::DoubleFlag { .. }) {
            return Err(InputError::ClaimNeedsDoubleFlag);
        }
        if !matches!(self.status, Status::Running | Status::Paused) {
            return Err(InputError::ClaimNotNow(self.status));
        }
        let me = &self.sides[side.idx()];
        let opp = &self.sides[side.other().idx()];
        if me.extra_phase || !opp.extra_phase {
            return Err(InputError::ClaimNotYours);
        }
        self.finish(
            GameResult::Draw,
            ResultReason::DrawClaimOpponentInExtra,
            Status::Ended,
        );
        Ok(())
    }

    fn board_result(&mut self, result: GameResult) -> Result<(), InputError> {
        if self.status == Status::Ready {
            return Err(InputError::NotStarted);
        }
        if self.status == Status::Ended {
            return Err(InputError::AlreadyEnded);
        }
        let mut reason = ResultReason::Board;
        let mut result = result;
        if let (Kind::DoubleFlag { .. }, Some(winner)) = (&self.rules.kind, result.winner())
            && self.sides[winner.idx()].extra_phase
        {
            result = GameResult::Draw;
            reason = ResultReason::WinnerInExtraTime;
        }
        self.finish(result, reason, Status::Ended);
        Ok(())
    }

    /// Replace the control for the rest of the game (spec §2.6), keeping each side's real
    /// remaining time (the method state, never the displayed value: no Bronstein `+d`, no
    /// independent-cap minimum, no byo-yomi total), the counters and the cap already used.
    /// Not while a clock runs. Mid-turn, the side to move keeps what is left of
    /// its delay window and gets no second `cr/before` credit.
    fn reconfigure(&mut self, tc: TimeControl) -> Result<(), InputError> {
        // Never while a clock runs (§2.6: pause first). An ended game may take a new
        // control (nothing runs; the daemon sets the next game's control this way).
        if self.status == Status::Running {
            return Err(InputError::ReconfigureRunning);
        }
        let rules = Rules::new(&tc).map_err(InputError::InvalidControl)?;
        let untouched = self.status == Status::Ready
            && self.moves == [0, 0]
            && Side::BOTH
                .iter()
                .all(|s| self.sides[s.idx()] == method::initial(&self.rules.kind, s.idx()));
        let mut sides = [
            method::initial(&rules.kind, 0),
            method::initial(&rules.kind, 1),
        ];
        if !untouched {
            for side in Side::BOTH {
                let i = side.idx();
                let mid_turn = self.turn == Some(side) && self.status != Status::Ready;
                sides[i] = method::carry_over(
                    &self.rules.kind,
                    &self.sides[i],
                    &rules.kind,
                    i,
                    self.moves[i],
                    mid_turn,
                );
            }
        }
        if !matches!(
            (&self.rules.kind, &rules.kind),
            (Kind::Swing { .. }, Kind::Swing { .. })
        ) {
            self.post_cutoff = false;
        }
        self.rules = rules;
        self.sides = sides;
        self.control = tc;
        Ok(())
    }

    /// The displayed value of a side, with the independent cap applied.
    pub(crate) fn value(&self, side: Side) -> u64 {
        let v = self.method_value(side);
        match self.cap_left(side) {
            Some(c) if c < v => c,
            _ => v,
        }
    }

    pub(crate) fn method_value(&self, side: Side) -> u64 {
        let i = side.idx();
        method::value(
            &self.rules.kind,
            i,
            &self.sides[i],
            self.turn == Some(side) && self.status != Status::Ready,
            self.moves[i].saturating_add(1),
        )
    }

    pub(crate) fn cap_left(&self, side: Side) -> Option<u64> {
        self.rules
            .overall_cap
            .map(|a| a.saturating_sub(self.sides[side.idx()].cap_used))
    }
}

fn pair(sides: &mut [SideState; 2], side: Side) -> (&mut SideState, &mut SideState) {
    let [w, b] = sides;
    match side {
        Side::White => (w, b),
        Side::Black => (b, w),
    }
}
