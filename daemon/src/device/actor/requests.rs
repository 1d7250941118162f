//! Operator requests (the bus's methods) turned into session calls: engine inputs, text,
//! settings, a new game or control.
//!
//! Owns the meaning of each [`Request`] and its refusals; it must not do IO: answers go back
//! through the run loop, which replies once the journal has what the request did.

use std::time::Duration;

use tokio::time::Instant;

use super::Actor;
use crate::device::driver::MAX_TEXT;
use crate::device::handle::{ClockEvent, DeviceError, Reply, Request};
use crate::device::observe::Mode;
use crate::device::port::BoardIo;
use crate::engine::notation;
use crate::engine::{Engine, Input, Status};

impl<P: BoardIo> Actor<P> {
    pub(super) fn handle_request(
        &mut self,
        now: Instant,
        req: Request,
    ) -> Result<Reply, DeviceError> {
        let at = self.at(now);
        self.session.advance(at);
        if self.session.observing()
            && let Some(reply) = self.observe_request(now, &req)
        {
            return reply;
        }
        let input = match req {
            Request::SetMode(mode) => return self.set_mode(now, mode),
            Request::Rename(name) => return self.rename(now, name),
            Request::Notice(text) => {
                self.state.notices.push(text);
                self.publish = true;
                return Ok(Reply::Done);
            }
            Request::Live => {
                self.refresh_state(now);
                return Ok(Reply::State(Box::new(self.state.clone())));
            }
            Request::Shutdown => return Ok(Reply::Done),
            Request::Pgn => return Ok(Reply::Pgn(self.session.pgn(at))),
            Request::SetGameInfo(tags) => {
                self.session
                    .set_game_info(&tags)
                    .map_err(DeviceError::Invalid)?;
                return Ok(Reply::Done);
            }
            Request::Settings(s) => {
                self.session.set_link(&s);
                return Ok(Reply::Done);
            }
            Request::SetControlBeforeStart(text) => {
                let status = self.session.status();
                if status != Status::Ready {
                    return Err(DeviceError::NotAllowed(format!(
                        "clock {}'s game is {status}: its time control is kept",
                        self.state.index
                    )));
                }
                return self.handle_request(now, Request::SetTimeControl(text));
            }
            Request::SetTimeControl(text) => {
                let parsed = notation::parse(&text).map_err(|e| {
                    DeviceError::Invalid(format!(
                        "{}: {}",
                        crate::engine::words::quote(&text),
                        e.message
                    ))
                })?;
                let game_started = self.session.status() != Status::Ready;
                if game_started {
                    Input::Reconfigure {
                        control: Box::new(parsed.control.clone()),
                    }
                } else {
                    let engine = Engine::new(parsed.control.clone())
                        .map_err(|e| DeviceError::Invalid(format!("{text:?}: {e}")))?;
                    self.session.new_game(at, engine);
                    self.state.time_control = parsed.canonical;
                    self.started_new_game(now);
                    return Ok(Reply::Done);
                }
            }
            Request::Start(side) => Input::Start {
                side: self.session.side_to_start(side),
            },
            Request::Pause => Input::Pause,
            Request::Resume => Input::Resume,
            Request::Press(side) => self.session.press_input(side),
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
            Request::ClaimDraw(side) => Input::ClaimDraw { side },
            Request::SetResult(result) => Input::BoardResult { result },
            Request::NewGame => {
                let control = self.session.engine().control().clone();
                let engine =
                    Engine::new(control).map_err(|e| DeviceError::Invalid(e.to_string()))?;
                let old = self.session.status();
                self.session.new_game(at, engine);
                self.started_new_game(now);
                self.emit(ClockEvent::StateChanged {
                    old: old.to_string(),
                    new: "ready".into(),
                    reason: "new_game".into(),
                });
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
                self.session.show_text(at, &text, duration);
                return Ok(Reply::Done);
            }
            Request::Beep(ms) => {
                self.session.beep(ms);
                return Ok(Reply::Done);
            }
            Request::SetWhiteSide(side) => {
                self.session.set_white_side(at, side);
                return Ok(Reply::Done);
            }
        };
        let is_reconfigure = matches!(input, Input::Reconfigure { .. });
        self.session
            .apply(at, input)
            .map_err(DeviceError::Refused)?;
        if is_reconfigure {
            self.state.time_control = notation::canonical(self.session.engine().control());
            if let Some(log) = &mut self.log {
                log.set_control(&self.state.time_control);
            }
        }
        Ok(Reply::Done)
    }

    /// A request in observe mode: answered here (refused, or the clock's game), or `None`
    /// for the requests that work as in drive mode.
    fn observe_request(
        &mut self,
        now: Instant,
        req: &Request,
    ) -> Option<Result<Reply, DeviceError>> {
        let refuse = |what: &str| {
            Some(Err(DeviceError::NotAllowed(format!(
                "clock {} is in observe mode: the clock runs its own time control, so \
                 chessclockd does not {what}; `chessclockctl mode {} drive` lets it drive the \
                 clock",
                self.state.index, self.state.index
            ))))
        };
        match req {
            Request::SetTimeControl(_) | Request::SetControlBeforeStart(_) => {
                refuse("set a time control")
            }
            Request::Start(_) | Request::Pause | Request::Resume => {
                refuse("start, pause or resume it (use the clock's own buttons)")
            }
            Request::Press(_) => refuse("press for a player (use the lever)"),
            Request::Adjust { .. } | Request::SetMoves { .. } => {
                refuse("correct its times or moves (correct them on the clock)")
            }
            Request::ClaimDraw(_) => refuse("take double-flag claims"),
            Request::ShowText { .. } | Request::Beep(_) => {
                refuse("write to its display or beep (it sends the clock nothing)")
            }
            Request::SetResult(result) => {
                if !self.session.observed_result(self.at(now), *result) {
                    return Some(Err(DeviceError::NotAllowed(
                        "the game has its result already; start a new game with \
                         `chessclockctl new-game`"
                            .into(),
                    )));
                }
                Some(Ok(Reply::Done))
            }
            Request::NewGame => {
                self.note(now, "new game (observe mode)");
                None
            }
            _ => None,
        }
    }

    /// Switch between driving the clock and observing it. Observe mode is refused while
    /// chessclockd runs a game (pause it or finish it first: the clock would keep counting
    /// the pushed times as its own).
    fn set_mode(&mut self, now: Instant, mode: Mode) -> Result<Reply, DeviceError> {
        if mode == self.state.mode {
            return Ok(Reply::Done);
        }
        if mode == Mode::Observe && self.session.status() == Status::Running {
            return Err(DeviceError::NotAllowed(format!(
                "clock {}'s game is running under chessclockd; pause it or end it before \
                 observing the clock",
                self.state.index
            )));
        }
        tracing::info!(
            clock = self.state.index,
            "mode {} -> {}",
            self.state.mode.as_str(),
            mode.as_str()
        );
        self.session.set_mode(self.at(now), mode);
        Ok(Reply::Done)
    }

    /// Call the clock `name` from now on: its state, its game's record and its live PGN file
    /// (the old file is removed). The journal is not named after the clock (a tty's follows
    /// its port, `device::identity`), so it goes on as it is; the rename is noted in it.
    fn rename(&mut self, now: Instant, name: String) -> Result<Reply, DeviceError> {
        if name.trim().is_empty() || name.chars().any(char::is_control) {
            return Err(DeviceError::Invalid(format!(
                "{}: a clock name is not empty and has no control characters",
                crate::engine::words::quote(&name)
            )));
        }
        if name == self.state.name {
            return Ok(Reply::Done);
        }
        let old = std::mem::replace(&mut self.state.name, name);
        tracing::info!(
            clock = self.state.index,
            "renamed {old:?} to {:?}",
            self.state.name
        );
        if let Some(log) = &mut self.log {
            log.set_name(&self.state.name);
        }
        self.note(now, &format!("renamed {old:?} to {:?}", self.state.name));
        self.remove_live_pgn(&old);
        self.pgn_dirty = true;
        self.publish = true;
        Ok(Reply::Done)
    }
}
