//! What the link reports, turned into the game's terms: a lever press into an engine press
//! (or, observed, a move timed by the clock; its reports also go to the checks against the
//! declared control, `observe/check.rs`), the run button into pause/resume, the clock's
//! identity and the board's serial number into the device info and notices.
//!
//! Part of the pure [`Session`]; it must not decode bytes or keep link timers (the driver's)
//! nor decide what the display shows (`show`).

use chessclock_protocol::Button;

use super::parts::LeverVerdict;
use super::{Note, Session, SessionOutput};
use crate::link::display::side_on;
use crate::link::driver::{DriverEvent, Instant};
use crate::session::interface::ClockEvent;
use chessclock_engine::{Input, Side, Status};

impl Session {
    /// Act on everything the driver reported since the last call.
    pub(super) fn drain_driver(&mut self, now: Instant) {
        // A report's lever is judged once the lever change it carries (the event after it)
        // is applied: the lever of a press agrees with the new runner, not the old one.
        let mut lever_check = None;
        while let Some(ev) = self.driver.poll_event() {
            match ev {
                DriverEvent::Lever { half, at } => {
                    let side = side_on(half, self.cfg.white_side);
                    if self.observing() {
                        self.observed_press(side, at);
                    } else {
                        let press = self.press_input(side);
                        if let Err(e) = self.apply(at, press) {
                            tracing::debug!(clock = self.cfg.clock, "lever ignored: {e}");
                        }
                    }
                }
                DriverEvent::ClockReport { report, at } => {
                    self.published.set_battery_low(report.battery_low);
                    if self.observing() {
                        if self.observed.check.is_fresh() && self.has_board_moves() {
                            // A game under way (a restart, observe mode after moves).
                            self.observed.check.start_unseen();
                        }
                        if self.observed.on_report(report, at, self.cfg.white_side) {
                            // Time added outside a press: the mover's last [%clk] shows it.
                            self.board.changed();
                        }
                        // The checks of the clock against the declared control may change.
                        self.board.view_changed();
                    } else if let Some((at, right_high)) =
                        lever_check.replace((at, report.right_high))
                    {
                        self.check_lever(at, right_high);
                    }
                }
                DriverEvent::Button(button) => self.on_button(now, button),
                DriverEvent::Board { message, at } => self.on_board_message(at, &message),
                DriverEvent::BoardSerial(serial) => self.board_identified(now, serial),
                DriverEvent::ClockIdentified {
                    model,
                    firmware,
                    changed,
                } => {
                    self.published.set_device(model.to_string(), firmware);
                    if changed {
                        self.state_changed();
                    }
                }
                DriverEvent::DeviceState { .. } => self.published.mark_changed(),
                DriverEvent::RefreshDisplay => self.display.refresh(),
                DriverEvent::LinkDead => self.outputs.push_back(SessionOutput::LinkDead),
                DriverEvent::BoardLog(payload) => self.board_memory(now, payload),
                DriverEvent::Acked(_) | DriverEvent::Refused(_) | DriverEvent::GaveUp(_) => {}
            }
        }
        if let Some((at, right_high)) = lever_check {
            self.check_lever(at, right_high);
        }
    }

    /// The input for a press by `side`: with `move_source = "board"` and moves of `side` on
    /// the board, the press completes its move as the board counts them.
    pub(crate) fn press_input(&self, side: Side) -> Input {
        let on_board = self.board_moves_of(side);
        match (self.cfg.move_source, u32::try_from(on_board)) {
            (crate::session::MoveSource::Board, Ok(n)) if n > 0 => Input::PressMove {
                side,
                move_number: n,
            },
            _ => Input::Press { side },
        }
    }

    /// The lever decides who moves first: a start for `asked` while the board's lever shows
    /// the other player to move (their end up) starts that player, as a chess clock does
    /// (the player not to move presses to start the opponent's time). With the lever not
    /// known yet (no clock report), `asked`.
    pub(crate) fn side_to_start(&self, asked: Side) -> Side {
        let lever = self
            .driver
            .lever_up()
            .map(|half| side_on(half, self.cfg.white_side));
        match lever {
            Some(shown) if shown != asked => {
                tracing::info!(
                    clock = self.cfg.clock,
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

    /// Drive mode, a clock report read at `at`: does the lever's raised end (the player to
    /// move) agree with the engine? At the first report after a replug, a lever that was in
    /// step before the loss and now shows the other player to move means the running player
    /// pressed while nobody could hear it (the clock does not switch sides by itself): the
    /// press is taken now, the moment it is known, and the operator is told (the move is
    /// charged up to now; an arbiter can give time back). After a restart of the daemon the
    /// same holds when the journal last said the lever was in step
    /// ([`Session::resume_lever_in_step`]); otherwise it is not known (an operator's press
    /// over the bus, a board turned round): the operator is told, and takes the press with
    /// `chessclockctl press`. The agreement is journaled whenever it changes, and with every
    /// input ([`Session::lever_after_input`]).
    fn check_lever(&mut self, at: Instant, right_high: bool) {
        self.lever_step(at, right_high);
        // Journaled when it changes, so that a restart knows (docs/reliability.md).
        if self.engine.status() == Status::Running
            && let Some(agreed) = self.lever.journal_due()
        {
            self.note(at, Note::Lever(agreed), false);
        }
    }

    /// Drive mode, after an input the engine took at `now` (a press from the lever or over
    /// the bus, a start, a resume...): does the lever agree with the player whose time runs
    /// now? Journaled right after the input (the same batch of the journal), so that a
    /// restart trusts a lever note only when no input came after it (`persist::restore`): a
    /// press over the bus leaves the lever where it was, out of step, and a restart or a
    /// replug must not take the lever's disagreement for a press nobody made. A lever not
    /// seen on this link (unplugged, or no report since the port opened) has not moved as far
    /// as anyone knows while the runner changed, or may have: not in step.
    pub(super) fn lever_after_input(&mut self, now: Instant) {
        if self.observing() || self.engine.status() != Status::Running {
            return;
        }
        let shown = self
            .driver
            .lever_up()
            .map(|half| side_on(half, self.cfg.white_side));
        let agreed = shown.is_some() && shown == self.engine.to_move();
        self.lever.noted(agreed);
        self.note(now, Note::Lever(agreed), false);
    }

    /// A running game resumed from a journal that says the lever was in step: the first
    /// report's lever is judged as after a replug.
    pub(crate) fn resume_lever_in_step(&mut self) {
        self.lever.resume_in_step();
    }

    /// The board's lever is not the one the game was played on (a virtual clock's board,
    /// made anew with the daemon): its first report says nothing of a press made while the
    /// daemon was down, and is no news for the operator.
    pub(crate) fn lever_of_a_new_board(&mut self) {
        self.lever.new_board();
    }

    fn lever_step(&mut self, at: Instant, right_high: bool) {
        let half = if right_high {
            crate::link::display::BoardSide::Right
        } else {
            crate::link::display::BoardSide::Left
        };
        let shown = side_on(half, self.cfg.white_side);
        let running = self.engine.status() == Status::Running;
        let runner = self.engine.to_move().filter(|_| running);
        let verdict = self.lever.verdict(shown, runner);
        let (LeverVerdict::Unknown | LeverVerdict::UnheardPress { .. }, Some(turn)) =
            (verdict, runner)
        else {
            return;
        };
        let resumed = verdict == LeverVerdict::Unknown;
        let restarted = verdict == LeverVerdict::UnheardPress { restarted: true };
        let (clock, to_move, running) = (self.cfg.clock, shown.as_str(), turn.as_str());
        if resumed {
            let notice = format!(
                "the lever of clock {clock} shows {to_move} to move, but {running}'s time runs: \
                 if {running} pressed while chessclockd was not running, `chessclockctl press \
                 {clock} {running}` takes the press now"
            );
            self.notify(notice);
            return;
        }
        let press = self.press_input(turn);
        match self.apply(at, press) {
            Ok(()) => {
                self.lever.press_taken();
                let notice = if restarted {
                    format!(
                        "the lever of clock {clock} shows {to_move} to move, but {running}'s \
                         time was running when chessclockd stopped: {running}'s press while \
                         chessclockd was not running is taken now, and the move is charged up \
                         to now (pause, then `chessclockctl adjust {clock} {running} main_ms add \
                         MS` gives time back)"
                    )
                } else {
                    format!(
                        "the lever of clock {clock} shows {to_move} to move, but {running}'s time \
                     was running when the board came back: {running}'s press while the board \
                     could not be heard is taken now, and the move is charged up to now (pause, \
                     then `chessclockctl adjust {clock} {running} main_ms add MS` gives time \
                     back)"
                    )
                };
                self.notify(notice);
            }
            Err(e) => tracing::debug!(clock, "unheard press not taken: {e}"),
        }
    }

    /// Observe mode: `side` pressed at `at`; its move gets the clock's time.
    fn observed_press(&mut self, side: Side, at: Instant) {
        let Some(p) = self.observed.on_lever(side, at, self.cfg.white_side) else {
            return;
        };
        let remaining = if side == Side::White {
            p.white_ms
        } else {
            p.black_ms
        };
        self.board_press(self.time_at(at), side, remaining, p.move_ms);
        self.say(self.time_at(at).as_ms(), ClockEvent::Pressed(p));
        self.published.mark_changed();
    }

    /// The run button pauses a running game and resumes a paused one, where the options
    /// let it (drive mode only).
    fn on_button(&mut self, now: Instant, button: Button) {
        if button != Button::Run || !self.cfg.pause_button || self.observing() {
            return;
        }
        self.advance(now);
        let input = match self.engine.status() {
            Status::Running => Input::Pause,
            Status::Paused => Input::Resume,
            _ => return,
        };
        if let Err(e) = self.apply(now, input) {
            tracing::debug!(clock = self.cfg.clock, "run button ignored: {e}");
        }
    }

    /// The board on the port said its serial number. The journal records it with the game;
    /// a game under way that was played on another board goes on, but the operator is told
    /// (a notice): it may be another game, which only they can tell.
    fn board_identified(&mut self, now: Instant, serial: String) {
        self.published.set_board_serial(&serial);
        if serial.is_empty() || self.published.journal_serial() == Some(serial.as_str()) {
            return;
        }
        if let Some(before) = self.published.journal_serial()
            && self.status() != Status::Ready
        {
            // Other hardware: its pieces and lever are not the game's (a spare swapped in).
            let position = self
                .board
                .game()
                .tracker()
                .fen()
                .map_or_else(String::new, |fen| format!(" ({fen})"));
            let notice = format!(
                "board {serial} is on {}, but this game was played on board {before}: the game \
                 goes on here; nothing the board shows is read until its pieces show the \
                 game's position{position}, so set them so, and its clock's lever to the side \
                 whose time runs; if this is another game, end it and start anew \
                 (`chessclockctl new-game {}`)",
                self.cfg.port, self.cfg.clock
            );
            self.notify(notice);
            if !self.board.awaiting() {
                self.await_pieces(now, true);
            }
        }
        self.published.played_on(serial.clone());
        self.note(now, Note::BoardSerial(serial), false);
    }
}
