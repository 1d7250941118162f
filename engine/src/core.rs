//! The game state machine: turns, running time, expiries in order, flags, results, pause,
//! arbiter actions, reconfiguration; and the event queue.
//!
//! Time only moves through [`Engine::advance`], which walks from the last update to `now`
//! boundary by boundary (phase changes and expiries at their exact instants), so every value
//! is a closed-form function of the last event and the elapsed time.

use std::sync::Arc;

use std::collections::VecDeque;

use crate::params::{OnFlag, TimeControl};

use super::method::{Boundary, Method, Timing};
use super::rules::Rules;
use super::types::{
    ConfigError, Event, FlagReason, FlagRecord, GameResult, Input, InputError, Phase, ResultReason,
    Side, Status, StatusCause, Time,
};

/// The time-control engine for one game.
#[derive(Debug, Clone)]
pub struct Engine {
    /// Shared, never changed in place: a clone of the engine (a snapshot at some instant,
    /// the state published to the bus) copies no periods.
    pub(crate) control: Arc<TimeControl>,
    pub(crate) rules: Arc<Rules>,
    pub(crate) status: Status,
    /// Side to move (kept while paused and after a flag).
    pub(crate) turn: Option<Side>,
    /// Time up to which the state is advanced.
    pub(crate) last: Time,
    /// Running time of the current turn (pauses excluded).
    pub(crate) turn_u: u64,
    /// The method and both sides' clocks.
    pub(crate) timing: Timing,
    /// Own running time per side (independent cap).
    pub(crate) cap_used: [u64; 2],
    /// flag/continue: the side has flagged.
    pub(crate) flagged: [bool; 2],
    pub(crate) moves: [u32; 2],
    pub(crate) flags: Vec<FlagRecord>,
    pub(crate) result: Option<GameResult>,
    pub(crate) reason: Option<ResultReason>,
    /// Armageddon: how the game was drawn, when the draw was scored for Black.
    pub(crate) drawn_by: Option<ResultReason>,
    /// Which sides win on the opponent's flag ([`Input::MatingMaterial`]; `None`: not known
    /// yet for the board's position).
    pub(crate) can_mate: [Option<bool>; 2],
    /// A flag (its side and reason) whose result waits for the verdict on the position.
    pub(crate) awaiting: Option<(Side, FlagReason)>,
    /// A USCF 14H claim waiting for the director's ruling.
    pub(crate) pending: Option<crate::verdict::PendingClaim>,
    /// The claimant the director watches after a `watch` ruling.
    pub(crate) watched: Option<Side>,
    events: VecDeque<Event>,
}

impl Engine {
    /// A game set up under `control`, status ready.
    pub fn new(control: TimeControl) -> Result<Engine, ConfigError> {
        let rules = Rules::new(&control)?;
        let timing = Timing::new(&rules.kind);
        Ok(Engine {
            control: Arc::new(control),
            rules: Arc::new(rules),
            status: Status::Ready,
            turn: None,
            last: Time::ZERO,
            turn_u: 0,
            timing,
            cap_used: [0, 0],
            flagged: [false, false],
            moves: [0, 0],
            flags: Vec::new(),
            result: None,
            reason: None,
            drawn_by: None,
            can_mate: [Some(true), Some(true)],
            awaiting: None,
            pending: None,
            watched: None,
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

    /// The player to move (kept while paused and after a flag), once the game has started.
    pub fn to_move(&self) -> Option<Side> {
        self.turn
    }

    /// Which sides win on the opponent's flag, as last told ([`Input::MatingMaterial`]; both
    /// until then; `None`: not known yet): `(white, black)`.
    pub fn mating_material(&self) -> (Option<bool>, Option<bool>) {
        (self.can_mate[0], self.can_mate[1])
    }

    /// The side whose flag fell while the verdict on the position was not known: its
    /// result waits for the next [`Input::MatingMaterial`] that tells its opponent.
    pub fn awaiting_verdict(&self) -> Option<Side> {
        self.awaiting.map(|(side, _)| side)
    }

    /// The time up to which the state is advanced (the latest input's or timeout's).
    pub fn now(&self) -> Time {
        self.last
    }

    /// Moves completed by both players together.
    pub fn moves_made(&self) -> u32 {
        self.moves[0].saturating_add(self.moves[1])
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

    pub(crate) fn set_status(&mut self, new: Status, reason: StatusCause) {
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
        let i = side.idx();
        if self.flagged[i] {
            return None;
        }
        let method = self.timing.time_to_boundary(i);
        Some(match self.rules.overall_cap {
            Some(a) => a.saturating_sub(self.cap_used[i]).min(method),
            None => method,
        })
    }

    fn consume(&mut self, side: Side, d: u64) {
        let i = side.idx();
        self.turn_u = self.turn_u.saturating_add(d);
        self.cap_used[i] = self.cap_used[i].saturating_add(d);
        if !self.flagged[i] {
            self.timing.consume(i, d);
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
                self.phase_changed(side, before);
            }
        }
    }

    /// Announce `side`'s phase if it is no longer `before`.
    fn phase_changed(&mut self, side: Side, before: Phase) {
        let after = self.phase(side);
        if after != before {
            self.events.push_back(Event::PhaseChanged {
                side,
                old: before,
                new: after,
            });
        }
    }

    /// The mover is exactly at a boundary.
    fn boundary(&mut self, side: Side) {
        let t = self.last;
        let i = side.idx();
        if self
            .rules
            .overall_cap
            .is_some_and(|a| self.cap_used[i] >= a)
        {
            self.flag(side, FlagReason::OverallCap, t);
            return;
        }
        if self.flagged[i] || self.timing.time_to_boundary(i) != 0 {
            return; // the end of a delay window: nothing changes but the display
        }
        let before = self.phase(side);
        let outcome = self.timing.at_boundary(i, self.moves[i]);
        match outcome {
            Boundary::Continue => self.phase_changed(side, before),
            Boundary::NextPeriod { periods_left } => {
                self.events
                    .push_back(Event::PeriodChanged { side, periods_left });
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

    /// End the game (or stop it, for a flag) with `result` for `reason`. Under Armageddon
    /// every draw scores as a win for Black, with reason `armageddon` (`drawn_by` keeps how
    /// the game was drawn).
    pub(crate) fn finish(&mut self, result: GameResult, reason: ResultReason, status: Status) {
        let (result, reason) = if self.rules.armageddon && result == GameResult::Draw {
            self.drawn_by = Some(reason);
            (GameResult::BlackWins, ResultReason::Armageddon)
        } else {
            self.drawn_by = None;
            (result, reason)
        };
        self.awaiting = None;
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
            self.flagged[side.idx()] = true;
            self.timing.zero(side.idx());
            if self.flagged.iter().all(|f| *f) {
                self.reason = Some(ResultReason::Flag(reason));
                self.set_status(Status::Flagged, StatusCause::Flag);
            }
            return;
        }
        if self.watched == Some(side) {
            self.pause_for_ruling(side);
            return;
        }
        self.flag_result(side, reason);
    }

    pub(crate) fn phase(&self, side: Side) -> Phase {
        if self.flagged[side.idx()] {
            // flag/continue: a side that has flagged stays at 0 (D16).
            return Phase::Flagged;
        }
        self.timing.phase(side.idx())
    }

    /// Apply an input at `now`. An input that is not allowed now returns an error that says
    /// why and changes nothing (expiries up to `now` are still processed).
    pub fn handle_input(&mut self, now: Time, input: Input) -> Result<(), InputError> {
        self.advance(now);
        match input {
            Input::Start { side } => self.start(now, side),
            Input::Press { side } => self.press(side, None),
            Input::PressMove { side, move_number } => self.press(side, Some(move_number)),
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
            Input::SetMoves { side, moves } => self.set_moves(side, moves),
            Input::ClaimDraw { side } => self.claim(side),
            Input::BoardResult { result } => self.board_result(result),
            Input::Reconfigure { control } => self.reconfigure(*control),
            Input::BoardEnd { end } => self.board_end(end),
            Input::MatingMaterial { white, black } => {
                self.set_mating_material(white, black);
                Ok(())
            }
            Input::BoardClaim { side, claim, valid } => self.board_claim(side, claim, valid),
            Input::ClaimLosingChances { side } => self.claim_losing_chances(side),
            Input::Ruling { ruling } => self.rule(ruling),
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
        self.timing.turn_start(side.idx(), m);
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

    /// `numbered`: the move number the press completes as the board counts (else the next
    /// press count).
    fn press(&mut self, side: Side, numbered: Option<u32>) -> Result<(), InputError> {
        if self.status != Status::Running {
            return Err(InputError::PressNotRunning(self.status));
        }
        if self.turn != Some(side) {
            return Err(InputError::NotYourTurn(side));
        }
        let i = side.idx();
        let u = self.turn_u;
        let m = numbered.map_or(self.moves[i].saturating_add(1), |n| {
            n.clamp(1, crate::params::MAX_COUNT)
        });
        let before = self.phase(side);
        self.moves[i] = m;
        if !self.flagged[i] {
            self.timing.press(i, u, m, self.moves);
        }
        self.timing.turn_end(i);
        self.phase_changed(side, before);
        let next = side.other();
        self.turn = Some(next);
        self.turn_u = 0;
        let mn = self.moves[next.idx()].saturating_add(1);
        self.timing.turn_start(next.idx(), mn);
        let (white_ms, black_ms) = (self.value(Side::White), self.value(Side::Black));
        self.events.push_back(Event::Pressed(crate::types::Press {
            side,
            move_number: m,
            move_ms: u,
            white_ms,
            black_ms,
        }));
        self.advance_boundaries_at_now();
        Ok(())
    }

    fn resume(&mut self) -> Result<(), InputError> {
        if self.pending.is_some() {
            return Err(InputError::ClaimPending);
        }
        match self.status {
            Status::Paused => {
                self.set_status(Status::Running, StatusCause::Resume);
                Ok(())
            }
            Status::Flagged => {
                let Some(side) = self.turn else {
                    return Err(InputError::NothingToResume(self.status));
                };
                let i = side.idx();
                let has_time = self.timing.time_to_boundary(i) > 0
                    && self.rules.overall_cap.is_none_or(|a| self.cap_used[i] < a);
                if !has_time {
                    return Err(InputError::NoTimeToResume);
                }
                self.flagged = [false, false];
                self.awaiting = None;
                self.result = None;
                self.reason = None;
                self.drawn_by = None;
                self.set_status(Status::Running, StatusCause::Resume);
                Ok(())
            }
            other => Err(InputError::NothingToResume(other)),
        }
    }

    /// The displayed value of a side, with the independent cap applied.
    pub(crate) fn value(&self, side: Side) -> u64 {
        let v = self.method_value(side);
        match self.cap_left(side) {
            // Count-up shows the time used, whatever the cap left.
            Some(c) if c < v && !self.timing.counts_up() => c,
            _ => v,
        }
    }

    pub(crate) fn method_value(&self, side: Side) -> u64 {
        let i = side.idx();
        self.timing.value(
            i,
            self.turn == Some(side) && self.status != Status::Ready,
            self.moves[i].saturating_add(1),
            self.flagged[i],
        )
    }

    pub(crate) fn cap_left(&self, side: Side) -> Option<u64> {
        self.rules
            .overall_cap
            .map(|a| a.saturating_sub(self.cap_used[side.idx()]))
    }
}
