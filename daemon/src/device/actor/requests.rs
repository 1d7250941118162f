//! Operator requests (the bus's methods) turned into engine inputs and clock commands.
//!
//! Owns the meaning of each [`Request`]; it must not do IO: answers go back through the run
//! loop, which replies once the journal has the input.

use std::time::Duration;

use tokio::time::Instant;

use super::Actor;
use crate::device::driver::MAX_TEXT;
use crate::device::handle::{ClockEvent, DeviceError, Reply, Request};
use crate::device::observe::Mode;
use crate::device::persist;
use crate::device::port::BoardIo;
use crate::engine::notation;
use crate::engine::{Engine, Input, Status};

impl<P: BoardIo> Actor<P> {
    pub(super) fn handle_request(
        &mut self,
        now: Instant,
        req: Request,
    ) -> Result<Reply, DeviceError> {
        let t = self.time(now);
        self.engine.handle_timeout(t);
        if self.observing()
            && let Some(reply) = self.observe_request(now, &req)
        {
            return reply;
        }
        let input = match req {
            Request::SetMode(mode) => return self.set_mode(now, mode),
            Request::Rename(name) => return self.rename(now, name),
            Request::Notice(text) => {
                self.state.notices.push(text);
                self.state_changed();
                return Ok(Reply::Done);
            }
            Request::Live => {
                self.refresh_state(now, false);
                return Ok(Reply::State(Box::new(self.state.clone())));
            }
            Request::Shutdown => return Ok(Reply::Done),
            Request::Pgn => return Ok(Reply::Pgn(self.pgn(now))),
            Request::SetGameInfo(tags) => {
                self.set_game_info(&tags)?;
                return Ok(Reply::Done);
            }
            Request::Settings(s) => {
                self.options.transport_latency = s.transport_latency;
                self.options.command_timeout = s.command_timeout;
                self.options.command_retries = s.command_retries;
                self.options.pause_button = s.pause_button;
                self.driver.set_limits(s.command_timeout, s.command_retries);
                self.driver.set_transport_latency(s.transport_latency);
                return Ok(Reply::Done);
            }
            Request::SetTimeControl(text) => {
                let parsed = notation::parse(&text)
                    .map_err(|e| DeviceError::Invalid(format!("{text:?}: {}", e.message)))?;
                let game_started = self.state.game_state != Status::Ready;
                if game_started {
                    Input::Reconfigure {
                        control: Box::new(parsed.control.clone()),
                    }
                } else {
                    self.engine = Engine::new(parsed.control.clone())
                        .map_err(|e| DeviceError::Invalid(format!("{text:?}: {e}")))?;
                    self.options.time_control = parsed.canonical.clone();
                    self.state.time_control = parsed.canonical;
                    self.started_new_game(now);
                    self.state_changed();
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
            Request::ClaimDraw(side) => Input::ClaimDraw { side },
            Request::SetResult(result) => Input::BoardResult { result },
            Request::NewGame => {
                let control = self.engine.control().clone();
                self.engine =
                    Engine::new(control).map_err(|e| DeviceError::Invalid(e.to_string()))?;
                self.started_new_game(now);
                self.emit(ClockEvent::StateChanged {
                    old: self.state.game_state.to_string(),
                    new: "ready".into(),
                    reason: "new_game".into(),
                });
                self.state_changed();
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
                let at = self.at(now);
                self.driver.show_text(at, &text, duration);
                return Ok(Reply::Done);
            }
            Request::Beep(ms) => {
                self.driver.beep(ms);
                return Ok(Reply::Done);
            }
            Request::SetWhiteSide(side) => {
                self.options.white_side = side;
                self.state.white_side = side;
                self.note(now, &persist::white_side_note(side));
                self.state_changed();
                return Ok(Reply::Done);
            }
        };
        let is_reconfigure = matches!(input, Input::Reconfigure { .. });
        self.apply(t, input).map_err(DeviceError::Refused)?;
        if is_reconfigure {
            self.state.time_control = notation::canonical(self.engine.control());
            if let Some(log) = &mut self.log {
                log.set_control(&self.state.time_control);
            }
        }
        self.state_changed();
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
                "clock {} is in observe mode: the clock runs its own time control, so                  chessclockd does not {what}; `chessclockctl mode {} drive` lets it drive the                  clock",
                self.state.index, self.state.index
            ))))
        };
        match req {
            Request::SetTimeControl(_) => refuse("set a time control"),
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
                if self.observed.result.is_some() {
                    return Some(Err(DeviceError::NotAllowed(
                        "the game has its result already; start a new game with                          `chessclockctl new-game`"
                            .into(),
                    )));
                }
                self.observed.result = Some(*result);
                self.emit(ClockEvent::Result {
                    result: *result,
                    reason: crate::engine::ResultReason::Board,
                });
                self.pgn_dirty = true;
                self.state_changed();
                Some(Ok(Reply::Done))
            }
            Request::NewGame => {
                self.observed.reset();
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
        if mode == Mode::Observe && self.state.game_state == Status::Running {
            return Err(DeviceError::NotAllowed(format!(
                "clock {}'s game is running under chessclockd; pause it or end it before                  observing the clock",
                self.state.index
            )));
        }
        tracing::info!(
            clock = self.state.index,
            "mode {} -> {}",
            self.state.mode.as_str(),
            mode.as_str()
        );
        self.observed.reset();
        self.state.mode = mode;
        self.options.mode = mode;
        self.driver.set_observe(mode == Mode::Observe);
        self.state.device_state = self.driver.device_state();
        self.note(now, &format!("mode {}", mode.as_str()));
        self.state_changed();
        Ok(Reply::Done)
    }

    /// The lever decides who moves first: a start for `asked` while the board's lever shows
    /// the other player to move (their end up) starts that player, as a chess clock does
    /// (the player not to move presses to start the opponent's time). With the lever not
    /// known yet (no clock report), `asked`.
    fn side_to_start(&self, asked: crate::engine::Side) -> crate::engine::Side {
        let lever = self
            .driver
            .lever_up()
            .map(|half| crate::device::display::side_on(half, self.options.white_side));
        match lever {
            Some(shown) if shown != asked => {
                tracing::info!(
                    clock = self.state.index,
                    "start: the lever shows {} to move, so {} starts (flip the lever to start {})",
                    shown.as_str(),
                    shown.as_str(),
                    asked.as_str()
                );
                shown
            }
            _ => asked,
        }
    }
}
