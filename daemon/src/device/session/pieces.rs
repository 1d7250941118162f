//! The board's pieces in the session: board messages from the driver fed to the
//! [`BoardGame`](crate::device::board_game::BoardGame), its moves turned into `Move` events,
//! presses giving each move its clock, game information, and the game as PGN.
//!
//! Owns the glue only: move recognition is the `game` crate's, the PGN text its writer's;
//! writing the live file is the actor's.

use chessclock_game::GameResult as BoardResult;
use chessclock_protocol::Message;

use super::{Session, SessionEvent};
use crate::device::board_game::{BoardChange, PgnClocks};
use crate::device::driver::Instant;
use crate::device::handle::{BoardView, ClockEvent};
use crate::engine::notation;
use crate::engine::{GameResult, Side, Time};

fn board_result(r: GameResult) -> BoardResult {
    match r {
        GameResult::WhiteWins => BoardResult::WhiteWins,
        GameResult::BlackWins => BoardResult::BlackWins,
        GameResult::Draw => BoardResult::Draw,
    }
}

fn side_index(side: Side) -> usize {
    match side {
        Side::White => 0,
        Side::Black => 1,
    }
}

impl Session {
    /// A board dump or field update read at `at`.
    pub(super) fn on_board_message(&mut self, at: Instant, message: &Message) {
        let t = self.time_at(at);
        let values = [Side::White, Side::Black].map(|side| self.clock_value(side, t));
        self.board_game
            .on_message(t.as_ms(), message, |side| values[side_index(side)]);
        self.drain_board(t);
    }

    /// Time passed for the tracker (the settle time of a problem).
    pub(super) fn board_timeout(&mut self, now: Instant) {
        let t = self.time_at(now);
        if self
            .board_game
            .poll_timeout()
            .is_some_and(|d| d <= t.as_ms())
        {
            let values = [Side::White, Side::Black].map(|side| self.clock_value(side, t));
            self.board_game
                .handle_timeout(t.as_ms(), |side| values[side_index(side)]);
            self.drain_board(t);
        }
    }

    /// A press by `side` leaving it `remaining_ms` after a move of `move_ms`.
    pub(super) fn board_press(&mut self, side: Side, remaining_ms: u64, move_ms: u64) {
        self.board_game.on_press(side, remaining_ms, move_ms);
        self.game_record_changed();
    }

    fn drain_board(&mut self, t: Time) {
        while let Some(change) = self.board_game.poll_change() {
            if let BoardChange::Move(m) = &change {
                self.events.push_back(SessionEvent::Clock {
                    t_ms: t.as_ms(),
                    event: ClockEvent::Move {
                        ply: m.ply,
                        san: m.san.clone(),
                        uci: m.uci.clone(),
                        fen: m.fen.clone(),
                        mover_ms: m.clock_ms,
                    },
                });
            }
            if let BoardChange::Problem(Some(p)) = &change {
                tracing::warn!(clock = self.cfg.clock, "{p}");
            }
            self.game_record_changed();
            self.changed = true;
        }
    }

    /// What the bus shows of the board's game.
    pub(crate) fn board_view(&self) -> BoardView {
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

    /// Set game information tags; a bad tag changes nothing.
    pub(crate) fn set_game_info(&mut self, tags: &[(String, String)]) -> Result<(), String> {
        self.board_game.set_info(tags).map_err(|e| e.to_string())?;
        self.game_record_changed();
        self.changed = true;
        Ok(())
    }

    /// Whether moves were read from the pieces.
    pub(crate) fn has_board_moves(&self) -> bool {
        !self.board_game.moves().is_empty()
    }

    /// The game so far as PGN, clocks at `now`.
    pub(crate) fn pgn(&self, now: Instant) -> String {
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
}
