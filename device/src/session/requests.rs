//! Operators' requests (the bus's methods) in the session: what each [`Request`] means and
//! when it is refused (observe mode, a game already started, a text too long, a bad name),
//! turned into engine inputs, text, settings, a new game or control (`Identify`'s rules are
//! in `identify`).
//!
//! Owns every rule of a request; it must not do IO: what the IO shell must do about it (the
//! journal's new game, the record's name or control, the old live file) it says through
//! [`SessionOutput`]s, and the answer goes back through the actor once the journal has it.

use std::time::Duration;

use super::{Note, Session, SessionOutput};
use crate::link::driver::{Instant, MAX_TEXT};
use crate::session::interface::{ClockEvent, DeviceError, Reply, Request};
use crate::session::observe::Mode;
use chessclock_engine::notation;
use chessclock_engine::params::TimeControl;
use chessclock_engine::{ClaimKind, Engine, Input, Status, StatusCause};

impl Session {
    /// An operator's request at `now`: its answer. The session has finished its work when it
    /// returns (the engine's events drained, the display decided): the caller polls the
    /// transmits and events.
    pub fn handle_request(&mut self, now: Instant, req: Request) -> Result<Reply, DeviceError> {
        // The clock is detached: its game is due as it stood; the shell stops after this.
        if matches!(req, Request::Detach) {
            self.detach(now);
            return Ok(Reply::Done);
        }
        let answer = self.request(now, req);
        self.finish(now);
        answer
    }

    fn request(&mut self, now: Instant, req: Request) -> Result<Reply, DeviceError> {
        self.advance(now);
        if self.observing()
            && let Some(reply) = self.observe_request(now, &req)
        {
            return reply;
        }
        let input = match req {
            Request::SetMode(mode) => return self.switch_mode(now, mode),
            Request::Rename(name) => return self.rename(now, name),
            Request::Notice(text) => {
                self.published.notice(text);
                return Ok(Reply::Done);
            }
            Request::Live => return Ok(Reply::State(Box::new(self.published(now)))),
            Request::Shutdown | Request::Detach => return Ok(Reply::Done),
            Request::Pgn => return Ok(Reply::Pgn(self.pgn(now))),
            Request::SetGameInfo(tags) => {
                self.set_game_info(&tags).map_err(DeviceError::Invalid)?;
                return Ok(Reply::Done);
            }
            Request::Place { round, board } => {
                self.set_place(round, board);
                return Ok(Reply::Done);
            }
            Request::NextRound { round, board } => {
                self.request(now, Request::NewGame)?;
                self.set_game_info(&chessclock_game::pairings::cleared_tags())
                    .map_err(DeviceError::Invalid)?;
                self.set_place(round, board);
                return Ok(Reply::Done);
            }
            Request::Correct(correction) => return self.correct_board(now, &correction),
            Request::Settings(s) => {
                self.apply_reload(&s);
                return Ok(Reply::Done);
            }
            Request::SetControlBeforeStart(control) => {
                let status = self.status();
                if status != Status::Ready {
                    return Err(DeviceError::NotAllowed(format!(
                        "clock {}'s game is {status}: its time control is kept",
                        self.cfg.clock
                    )));
                }
                return self.request(now, Request::SetTimeControl(control));
            }
            Request::SetTimeControl(control) => {
                if self.status() != Status::Ready {
                    Input::Reconfigure { control }
                } else {
                    let engine = self.engine_for(*control)?;
                    self.new_game(now, engine);
                    return Ok(Reply::Done);
                }
            }
            Request::Start(side) => Input::Start {
                side: self.side_to_start(side),
            },
            Request::Pause => Input::Pause,
            Request::Resume => Input::Resume,
            Request::Press(side) => self.press_input(side),
            Request::Adjust {
                side,
                field,
                op,
                ms,
            } => Input::Adjust {
                side,
                field,
                op,
                ms,
            },
            Request::SetMoves { side, moves } => Input::SetMoves { side, moves },
            Request::Claim { side, kind } => match kind {
                ClaimKind::DoubleFlag => Input::ClaimDraw { side },
                ClaimKind::LosingChances => Input::ClaimLosingChances { side },
                ClaimKind::Board(claim) => self.board_claim(side, claim)?,
            },
            Request::Rule(ruling) => Input::Ruling { ruling },
            Request::SetResult(result) => Input::BoardResult { result },
            Request::NewGame => {
                let engine = self.engine_for(self.engine.control().clone())?;
                let old = self.status();
                self.new_game(now, engine);
                self.outputs
                    .push_back(SessionOutput::Signal(ClockEvent::StateChanged {
                        old,
                        new: Status::Ready,
                        reason: StatusCause::NewGame,
                    }));
                return Ok(Reply::Done);
            }
            Request::ShowText { text, ms } => {
                let duration = Duration::from_millis(u64::from(ms));
                if duration > MAX_TEXT {
                    return Err(DeviceError::Invalid(format!(
                        "text for {ms} ms: text stays on the clock at most {} ms, so that the \
                         times come back; show it again for longer",
                        MAX_TEXT.as_millis()
                    )));
                }
                self.show_text(now, &text, duration);
                return Ok(Reply::Done);
            }
            Request::Beep(ms) => {
                self.beep(ms);
                return Ok(Reply::Done);
            }
            Request::Identify { seconds } => return self.identify(now, seconds),
            Request::SetWhiteSide(side) => {
                self.set_white_side(now, side);
                return Ok(Reply::Done);
            }
        };
        self.apply(now, input).map_err(DeviceError::Refused)?;
        // A reconfiguration, or a ruling that put a delay on the clock.
        let time_control = notation::canonical(self.engine.control());
        if time_control != self.published.state().time_control {
            self.published.state_mut().time_control = time_control;
        }
        Ok(Reply::Done)
    }

    /// A fresh engine on `control`.
    fn engine_for(&self, control: TimeControl) -> Result<Engine, DeviceError> {
        let canonical = notation::canonical(&control);
        Engine::new(control).map_err(|e| DeviceError::Invalid(format!("{canonical:?}: {e}")))
    }

    /// A request in observe mode: answered here (refused, or the clock's game), or `None`
    /// for the requests that work as in drive mode.
    fn observe_request(
        &mut self,
        now: Instant,
        req: &Request,
    ) -> Option<Result<Reply, DeviceError>> {
        let clock = self.cfg.clock;
        let refuse = |what: &str| {
            Some(Err(DeviceError::NotAllowed(format!(
                "clock {clock} is in observe mode: the clock runs its own time control, so \
                 chessclockd does not {what}; `chessclockctl mode {clock} drive` lets it drive \
                 the clock"
            ))))
        };
        match req {
            Request::SetTimeControl(control) | Request::SetControlBeforeStart(control) => {
                // The clock runs its own control: the operator declares which, for the
                // record.
                self.published.state_mut().time_control = notation::canonical(control);
                self.declared = Some((**control).clone());
                self.note(
                    now,
                    Note::Declared(self.published.state().time_control.clone()),
                    true,
                );
                self.board.changed();
                self.published.mark_changed();
                Some(Ok(Reply::Done))
            }
            Request::Start(_) | Request::Pause | Request::Resume => {
                refuse("start, pause or resume it (use the clock's own buttons)")
            }
            Request::Press(_) => refuse("press for a player (use the lever)"),
            Request::Adjust { .. } | Request::SetMoves { .. } => {
                refuse("correct its times or moves (correct them on the clock)")
            }
            Request::Claim { .. } | Request::Rule(_) => {
                refuse("judge claims (the arbiter sets the result with `chessclockctl result`)")
            }
            Request::ShowText { .. } | Request::Beep(_) | Request::Identify { .. } => {
                refuse("write to its display or beep (it sends the clock nothing)")
            }
            Request::SetResult(result) => {
                if !self.observed_result(now, *result) {
                    return Some(Err(DeviceError::NotAllowed(
                        "the game has its result already; start a new game with \
                         `chessclockctl new-game`"
                            .into(),
                    )));
                }
                Some(Ok(Reply::Done))
            }
            Request::NewGame => {
                self.note(now, Note::NewObservedGame, true);
                None
            }
            _ => None,
        }
    }

    /// Switch between driving the clock and observing it. Observe mode is refused while
    /// chessclockd runs a game (pause it or finish it first: the clock would keep counting
    /// the pushed times as its own).
    fn switch_mode(&mut self, now: Instant, mode: Mode) -> Result<Reply, DeviceError> {
        if mode == self.cfg.mode {
            return Ok(Reply::Done);
        }
        if mode == Mode::Observe && self.status() == Status::Running {
            return Err(DeviceError::NotAllowed(format!(
                "clock {}'s game is running under chessclockd; pause it or end it before \
                 observing the clock",
                self.cfg.clock
            )));
        }
        tracing::info!(
            clock = self.cfg.clock,
            "mode {} -> {}",
            self.cfg.mode.as_str(),
            mode.as_str()
        );
        self.set_mode(now, mode);
        Ok(Reply::Done)
    }

    /// Call the clock `name` from now on (noted in the journal). The journal is not named
    /// after the clock (a tty's follows its port, `device::identity`), so it goes on as it
    /// is; the record takes the new name when it is written, and the live file is the board's,
    /// not the name's: it stays where it is.
    fn rename(&mut self, now: Instant, name: String) -> Result<Reply, DeviceError> {
        if name.trim().is_empty() || name.chars().any(char::is_control) {
            return Err(DeviceError::Invalid(format!(
                "{}: a clock name is not empty and has no control characters",
                chessclock_engine::words::quote(&name)
            )));
        }
        if name == self.published.state().name {
            return Ok(Reply::Done);
        }
        let old = std::mem::replace(&mut self.published.state_mut().name, name);
        tracing::info!(
            clock = self.cfg.clock,
            "renamed {old:?} to {:?}",
            self.published.state().name
        );
        self.note(
            now,
            Note::Renamed {
                old,
                new: self.published.state().name.clone(),
            },
            true,
        );
        self.published.mark_changed();
        Ok(Reply::Done)
    }

    /// Observe mode: the arbiter records `result` at `now`; `false` if the game has one.
    pub(super) fn observed_result(
        &mut self,
        now: Instant,
        result: chessclock_engine::GameResult,
    ) -> bool {
        if self.observed.result.is_some() {
            return false;
        }
        self.observed.result = Some(result);
        let event = ClockEvent::Result {
            result,
            reason: chessclock_engine::ResultReason::Board,
        };
        self.say(self.time_at(now).as_ms(), event);
        self.board.changed();
        self.state_changed();
        true
    }

    /// The control an observed clock runs, as the operator declared it before a restart.
    pub(crate) fn declare(&mut self, control: TimeControl) {
        if self.observing() {
            self.published.state_mut().time_control = notation::canonical(&control);
        }
        self.declared = Some(control);
        self.board.changed();
    }

    /// Drive or observe the clock from `now` on ([`Session::handle_request`] checks that the
    /// switch is allowed).
    pub(super) fn set_mode(&mut self, now: Instant, mode: Mode) {
        self.observed.reset();
        self.cfg.mode = mode;
        let shown = match (&self.declared, mode) {
            (Some(declared), Mode::Observe) => declared,
            _ => self.engine.control(),
        };
        self.published.state_mut().time_control = chessclock_engine::notation::canonical(shown);
        self.board.changed();
        self.driver.set_observe(mode == Mode::Observe);
        self.note(now, Note::Mode(mode), true);
        self.state_changed();
        // Driven again, the board's game is judged as it stands (who can still mate).
        if mode == Mode::Drive && !self.board_game_is_empty() {
            self.judge_board(now);
        }
    }
}
