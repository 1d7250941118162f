//! The board's game as PGN in the session: the tags it carries (its game information, the
//! `Event`/`Site` defaults, `Round`/`Board` of the clock's place, the `Date` passed in, its
//! `GameId`) and the game written with its clocks (observed: with time the clock added
//! outside a press on the player's last `[%clk]`).
//!
//! Builds the PGN only: the record and the PGN text are the `game` crate's, writing the live
//! file is the actor's.

use chessclock_game::PgnClocks;
use chessclock_game::pgn::{self, GameInfo, PgnGame};

use super::Session;
use crate::link::driver::Instant;
use chessclock_engine::Side;
use chessclock_engine::notation;

impl Session {
    /// Set game information tags; a bad tag changes nothing.
    pub(crate) fn set_game_info(&mut self, tags: &[(String, String)]) -> Result<(), String> {
        self.board
            .game_mut()
            .set_info(tags)
            .map_err(|e| e.to_string())?;
        self.say_steps(self.time_at(self.time.now()));
        self.board.changed();
        self.published.mark_changed();
        Ok(())
    }

    /// Set tags every game carries unless its information sets them (`Event`, `Site`),
    /// replacing those named; a bad tag changes nothing.
    pub(crate) fn set_tag_defaults(&mut self, tags: &[(String, String)]) -> Result<(), String> {
        let mut defaults = self.board.tag_defaults().clone();
        defaults.set_all(tags).map_err(|e| e.to_string())?;
        if self.board.set_tag_defaults(defaults) {
            self.published.mark_changed();
        }
        Ok(())
    }

    /// The clock is board `board` of round `round` (the default `Round`/`Board` tags).
    pub(crate) fn set_place(&mut self, round: u32, board: u32) {
        if self.board.set_place(round, board) {
            self.published.mark_changed();
        }
    }

    /// The round and the board number the clock is, if the supervisor said so.
    pub fn place(&self) -> Option<(u32, u32)> {
        self.board.place()
    }

    /// The PGN `Date` of the game's start (`None`: not started, `????.??.??`).
    pub(crate) fn set_date(&mut self, date: Option<String>) {
        self.board.set_date(date);
    }

    /// The tags the game's PGN carries: its information, then the defaults and the date, and
    /// its `GameId` (`record.rs`).
    pub fn pgn_info(&self) -> GameInfo {
        let mut defaults = self.board.tag_defaults().clone();
        // A date is one line of digits and dots, Round/Board numbers: none can be refused.
        if let Some(date) = self.board.date() {
            let _ = defaults.set("Date", date);
        }
        if let Some((round, board)) = self.board.place() {
            let _ = defaults.set_all(&chessclock_game::pairings::board_tags(round, board));
        }
        let mut info = self.board.game().info().or(&defaults);
        info.set_game_id(&self.game_id());
        info
    }

    /// Whether moves were read from the pieces.
    pub fn has_board_moves(&self) -> bool {
        !self.board.game().moves().is_empty()
    }

    /// The board's game so far as a PGN game, clocks at `now`.
    pub fn pgn_game(&self, now: Instant) -> PgnGame {
        let snap = self.snapshot(now);
        let termination = snap
            .result
            .and(snap.reason)
            .map(|r| pgn::termination(r).to_owned());
        // Observed, the clock runs a control of its own: the one the operator declared, if any.
        let (time_control, control_notation) = if self.observing() {
            match &self.declared {
                Some(c) => (
                    notation::pgn_time_control(c),
                    format!(
                        "{} (declared; the clock runs its own mode)",
                        notation::canonical(c)
                    ),
                ),
                None => (None, "observe (the clock's own mode)".to_owned()),
            }
        } else {
            (
                notation::pgn_time_control(self.engine.control()),
                notation::canonical(self.engine.control()),
            )
        };
        let mut game = self.board.game().pgn(Some(PgnClocks {
            time_control,
            control_notation,
            white_ms: snap.white_ms,
            black_ms: snap.black_ms,
            result: snap.result,
            termination,
        }));
        if self.observing() {
            self.with_added_time(&mut game);
        }
        game.info = self.pgn_info();
        game.result_comment = snap
            .reason
            .and_then(|r| pgn::result_comment(r, snap.drawn_by));
        game
    }

    /// Observe mode: time the clock added to a side outside its press (a period on the flag,
    /// a correction) goes on that side's last `[%clk]` at once, where lila reads it
    /// (`docs/relay.md`), until its next press gives the clock anew.
    fn with_added_time(&self, game: &mut PgnGame) {
        let first_black = game.black_first
            || game
                .setup
                .as_ref()
                .is_some_and(|(fen, _)| fen.split_whitespace().nth(1) == Some("b"));
        let n = game.moves.len();
        for side in [Side::White, Side::Black] {
            let added = self.observed.check.added_since_press(side);
            if added == 0 {
                continue;
            }
            let black_at = |i: usize| (i % 2 == 1) != first_black;
            let last = (0..n)
                .rev()
                .take(2)
                .find(|i| black_at(*i) == (side == Side::Black));
            if let Some(m) = last.and_then(|i| game.moves.get_mut(i))
                && let Some(clock) = m.clock_ms.as_mut()
            {
                *clock = clock.saturating_add_signed(added);
            }
        }
    }

    /// The game so far as PGN, clocks at `now`.
    pub fn pgn(&self, now: Instant) -> String {
        pgn::write(&self.pgn_game(now))
    }
}
