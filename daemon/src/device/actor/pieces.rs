//! The board's pieces in the actor: board messages from the driver fed to the
//! [`BoardGame`], its moves published (state, `Move` events), presses giving each move its
//! clock, game information and the PGN, and the live PGN file rewritten after each change.
//!
//! Owns the glue only: move recognition is the `game` crate's, the PGN text is its writer's;
//! the files are written off the actor's loop, by the live writer (`device::live`).

use chessclock_game::GameResult as BoardResult;
use chessclock_protocol::Message;
use tokio::time::Instant;

use super::Actor;
use crate::device::board_game::{BoardChange, PgnClocks};
use crate::device::driver;
use crate::device::handle::{BoardView, ClockEvent, DeviceError, Reply};
use crate::device::port::BoardIo;
use crate::engine::notation;
use crate::engine::{GameResult, Side, Time};

/// Where live PGN files go, below the state directory.
const LIVE_DIR: &str = "live";

fn board_result(r: GameResult) -> BoardResult {
    match r {
        GameResult::WhiteWins => BoardResult::WhiteWins,
        GameResult::BlackWins => BoardResult::BlackWins,
        GameResult::Draw => BoardResult::Draw,
    }
}

impl<P: BoardIo> Actor<P> {
    /// A board dump or field update read at `at`.
    pub(super) fn on_board_message(&mut self, at: driver::Instant, message: &Message) {
        let t = self.time_at(at);
        let values = [Side::White, Side::Black].map(|side| self.clock_value(side, t));
        self.board_game
            .on_message(t.as_ms(), message, |side| values[side_index(side)]);
        self.drain_board();
    }

    /// The tracker's settle deadline, as an instant.
    pub(super) fn board_deadline(&self) -> Option<Instant> {
        self.board_game
            .poll_timeout()
            .map(|ms| self.instant(Time::from_ms(ms)))
    }

    /// Time passed for the tracker.
    pub(super) fn board_timeout(&mut self, now: Instant) {
        let t = self.time(now);
        if self
            .board_game
            .poll_timeout()
            .is_some_and(|d| d <= t.as_ms())
        {
            let values = [Side::White, Side::Black].map(|side| self.clock_value(side, t));
            self.board_game
                .handle_timeout(t.as_ms(), |side| values[side_index(side)]);
            self.drain_board();
        }
    }

    /// The input for a press by `side`: with `move_source = "board"` and moves of `side` on
    /// the board, the press completes its move as the board counts them.
    pub(super) fn press_input(&self, side: Side) -> crate::engine::Input {
        let on_board = self
            .board_game
            .moves()
            .iter()
            .filter(|m| m.side == side)
            .count();
        match (self.options.move_source, u32::try_from(on_board)) {
            (crate::device::MoveSource::Board, Ok(n)) if n > 0 => crate::engine::Input::PressMove {
                side,
                move_number: n,
            },
            _ => crate::engine::Input::Press { side },
        }
    }

    /// A press by `side` leaving it `remaining_ms` after a move of `move_ms`.
    pub(super) fn board_press(&mut self, side: Side, remaining_ms: u64, move_ms: u64) {
        self.board_game.on_press(side, remaining_ms, move_ms);
        self.pgn_dirty = true;
    }

    fn drain_board(&mut self) {
        while let Some(change) = self.board_game.poll_change() {
            if let BoardChange::Move(m) = &change {
                self.emit(ClockEvent::Move {
                    ply: m.ply,
                    san: m.san.clone(),
                    uci: m.uci.clone(),
                    fen: m.fen.clone(),
                    mover_ms: m.clock_ms,
                });
            }
            if let BoardChange::Problem(Some(p)) = &change {
                tracing::warn!(clock = self.state.index, "{p}");
            }
            self.pgn_dirty = true;
        }
        self.state.board = self.board_view();
    }

    /// What the bus shows of the board's game.
    pub(super) fn board_view(&self) -> BoardView {
        BoardView {
            fen: self.board_game.fen().to_owned(),
            moves: self
                .board_game
                .moves()
                .iter()
                .map(|m| m.san.clone())
                .collect(),
            game_info: self.board_game.info().tags().to_vec(),
            problem: self.board_game.problem().unwrap_or_default().to_owned(),
        }
    }

    /// Set game information tags.
    pub(super) fn set_game_info(&mut self, tags: &[(String, String)]) -> Result<(), DeviceError> {
        self.board_game
            .set_info(tags)
            .map_err(|e| DeviceError::Invalid(e.to_string()))?;
        self.state.board = self.board_view();
        self.pgn_dirty = true;
        // Published with the next state refresh.
        self.publish = true;
        Ok(())
    }

    /// The game so far as PGN, clocks at `now`.
    pub(super) fn pgn(&self, now: Instant) -> String {
        let snap = self.snapshot(now);
        let result = snap.result.map(board_result);
        let termination = snap
            .result
            .and(snap.reason)
            .map(|r| crate::device::record::termination_of(r).to_owned());
        // Observed, the clock runs a control of its own that chessclockd does not know.
        let (time_control, control_notation) = if self.observing() {
            (None, "observe (the clock's own mode)".to_owned())
        } else {
            (
                notation::pgn_time_control(self.engine.control()),
                notation::canonical(self.engine.control()),
            )
        };
        chessclock_game::pgn::write(&self.board_game.pgn(PgnClocks {
            time_control,
            control_notation,
            white_ms: snap.white_ms,
            black_ms: snap.black_ms,
            result,
            termination,
        }))
    }

    /// Rewrite the live PGN files if the game changed (off the loop; errors are logged).
    pub(super) fn write_live_pgn(&mut self, now: Instant) {
        if !std::mem::take(&mut self.pgn_dirty) {
            return;
        }
        let Some(dir) = self.options.state_dir.as_ref().map(|d| d.join(LIVE_DIR)) else {
            return;
        };
        let text = self.pgn(now);
        crate::device::live::update(dir, live_file_name(&self.state.name), text);
    }

    /// Call the clock `name` from now on: its state, its game's record and its live PGN file
    /// (the old file is removed). The journal is not named after the clock (a tty's follows
    /// its port, `device::identity`), so it goes on as it is; the rename is noted in it.
    pub(super) fn rename(&mut self, now: Instant, name: String) -> Result<Reply, DeviceError> {
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
        if let Some(dir) = self.options.state_dir.as_ref().map(|d| d.join(LIVE_DIR)) {
            crate::device::live::remove(dir, live_file_name(&old));
        }
        self.pgn_dirty = true;
        self.state_changed();
        Ok(Reply::Done)
    }
}

fn side_index(side: Side) -> usize {
    match side {
        Side::White => 0,
        Side::Black => 1,
    }
}

/// The live file of a clock named `name` (`/` and leading dots are not kept).
fn live_file_name(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| if c == '/' || c == '\0' { '_' } else { c })
        .collect();
    format!("{}.pgn", safe.trim_start_matches('.'))
}
