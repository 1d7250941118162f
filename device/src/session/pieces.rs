//! The board's pieces in the session: board messages from the driver fed to the board's
//! game ([`BoardGame`](chessclock_game::BoardGame)) with both clocks, its moves turned
//! into `Move` events, presses giving each move its clock, the operator's corrections
//! (journaled, a notice, the live PGN), every change of the board's game journaled as a step
//! and the game rebuilt from them after a restart (then reconciled with the pieces, from the
//! board's own memory if need be: `board_log.rs`); the board's problem (the pieces'), the
//! clock's problem (an observed clock against its declared control) and what the published
//! state shows of the board; and [`MoveSource`], whether those moves or the presses count a player's moves.
//! The game as PGN and its tags are `game_pgn.rs`'s.
//!
//! Owns the glue only: move recognition and the record are the `game` crate's; writing the
//! live file is the actor's.

use chessclock_game::shakmaty::Color;
use chessclock_game::{Clocks, Correction, CorrectionError, RecordChange};
use chessclock_protocol::Message;

use super::{Note, Session, SessionOutput};
use crate::link::driver::Instant;
use crate::session::interface::{ClockEvent, DeviceError, Reply};
use chessclock_engine::{Side, Status, Time};

/// What counts a player's moves (the periods of a `40/90 ...` control).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveSource {
    /// The moves on the e-board's pieces, once the board has recorded a move of the player;
    /// the presses before that.
    #[default]
    Board,
    /// The lever presses.
    Lever,
}

/// How long a press may wait for its move on the board before the board's problem says
/// so: a move read a moment after its press (a slow board, a press made just before the
/// piece was set down) is no news.
const UNMOVED_PRESS_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// The end of a correction's notice while the pieces do not show the corrected game; the
/// notice goes once they do.
const PIECES_PENDING: &str = "; the pieces do not show it yet: set them as the game's position";

/// The bus event of a move read from the pieces.
pub fn move_event(m: &chessclock_game::RecordedMove) -> ClockEvent {
    ClockEvent::Move {
        ply: m.event.ply,
        san: m.event.san.clone(),
        uci: m.event.uci.clone(),
        fen: m.event.fen.clone(),
        mover_ms: m.clock_ms.unwrap_or_default(),
    }
}

/// The board's colour of a clock side.
fn color(side: Side) -> Color {
    match side {
        Side::White => Color::White,
        Side::Black => Color::Black,
    }
}

/// How many moves `color` made before the position `fen` (by its move number and side to
/// move).
fn moves_before(fen: &str, color: Color) -> usize {
    let Ok(fen) = fen.parse::<chessclock_game::shakmaty::fen::Fen>() else {
        return 0;
    };
    let setup = fen.as_setup();
    let full = usize::try_from(setup.fullmoves.get()).unwrap_or(1) - 1;
    full + usize::from(color == Color::White && setup.turn == Color::Black)
}

impl Session {
    /// Both clocks at `t`, for the board's game.
    fn clocks(&self, t: Time) -> Clocks {
        Clocks {
            white_ms: self.clock_value(Side::White, t),
            black_ms: self.clock_value(Side::Black, t),
        }
    }

    /// A board dump or field update read at `at`. The first dump after a game was rebuilt
    /// from the journal reconciles the two: the same position goes on, a legal continuation
    /// is read as the moves made while the daemon was down (and said), anything else is the
    /// board problem any misread board gets.
    pub(super) fn on_board_message(&mut self, at: Instant, message: &Message) {
        let t = self.time_at(at);
        let clocks = self.clocks(t);
        let plies = self.board.game().moves().len();
        self.board
            .game_mut()
            .on_message(t.as_ms(), message, Some(clocks));
        if self.status() == Status::Ready && self.board.game().moves().is_empty() {
            // A board being set up: what it lacks is shown as it changes.
            self.board.view_changed();
            self.published.mark_changed();
        }
        self.drain_board(at);
        if matches!(message, Message::BoardDump(_)) && self.board.take_memory_due() {
            // A new link's first dump that nothing explains: the board's own memory may
            // (board_log.rs).
            self.ask_board_memory(at);
        }
        if matches!(message, Message::BoardDump(_)) && self.board.take_reconciling() {
            let read: Vec<String> = self
                .board
                .game()
                .moves()
                .iter()
                .skip(plies)
                .map(|m| m.event.san.clone())
                .collect();
            let now_plies = self.board.game().moves().len();
            if !read.is_empty() {
                self.notify(format!(
                    "clock {}: the pieces show {} played while chessclockd was not running: \
                     read as the game's next moves ({}); if that is wrong, `chessclockctl move \
                     {} undo {}` takes them back",
                    self.cfg.clock,
                    if read.len() == 1 { "a move" } else { "moves" },
                    read.join(" "),
                    self.cfg.clock,
                    read.len()
                ));
            } else if now_plies < plies {
                self.notify(format!(
                    "clock {}: the pieces show the game's position after ply {now_plies}, not \
                     after ply {plies} as when chessclockd stopped: read as a takeback; if \
                     that is wrong, set the pieces back (or `chessclockctl move {} force UCI` \
                     plays the moves again)",
                    self.cfg.clock, self.cfg.clock
                ));
            }
        }
    }

    /// The board on the port is another than the one this game was played on (a spare
    /// swapped in mid-game): its pieces and its lever say nothing of the game. Nothing it
    /// shows is read until its pieces show the game's position (a board problem until
    /// then); `journal`: the journal says so, so that a restart in between still waits.
    pub(crate) fn await_pieces(&mut self, now: Instant, journal: bool) {
        self.lever_of_a_new_board();
        if self.board_game_is_empty() {
            return;
        }
        self.board.await_pieces();
        self.published.mark_changed();
        if journal {
            self.note(now, Note::PiecesAwaited(true), false);
        }
    }

    /// The awaited pieces show the game's position now: the board is the game's.
    fn pieces_shown(&mut self, at: Instant) {
        if !self.board.take_pieces_shown() {
            return;
        }
        self.note(at, Note::PiecesAwaited(false), false);
        self.notify(format!(
            "clock {}: the pieces on {} show the game's position: its moves are read from now on",
            self.cfg.clock, self.cfg.port
        ));
    }

    /// Whether the board's game has no position yet (no start seen, no position set).
    pub(crate) fn board_game_is_empty(&self) -> bool {
        self.board.game().tracker().positions().is_empty()
    }

    /// How many plies the board's game has.
    pub(crate) fn board_plies(&self) -> usize {
        self.board.game().moves().len()
    }

    /// Say the board game's changes since the last call as journal events, at `t`.
    pub(super) fn say_steps(&mut self, t: Time) {
        while let Some(step) = self.board.game_mut().poll_step() {
            self.outputs.push_back(SessionOutput::Board {
                t_ms: t.as_ms(),
                step,
            });
        }
    }

    /// Rebuild the board's game from a journaled step at engine time `t_ms` (a restart's
    /// fold over the journal): applied as the game made it, nothing journaled or judged
    /// again (the engine's verdicts are in the journal as inputs; the game's record is
    /// folded from the journal). A step that does not fit is an error and changes nothing.
    fn replay_step(
        &mut self,
        t_ms: u64,
        step: &chessclock_game::Step,
    ) -> Result<(), chessclock_game::StepError> {
        self.board.game_mut().replay(t_ms, step)?;
        while self.board.game_mut().poll_change().is_some() {}
        self.board.changed();
        self.published.mark_changed();
        Ok(())
    }

    /// Rebuild the board's game from the journal's steps (engine time, step), in order; then
    /// the board's game is journaled from here on. A step that does not fit stops the
    /// rebuild there, and the operator is told: the game stays as far as it was rebuilt, and
    /// the pieces are reconciled with that.
    pub(crate) fn resume_board(&mut self, steps: Vec<(u64, chessclock_game::Step)>) {
        for (t_ms, step) in steps {
            if let Err(e) = self.replay_step(t_ms, &step) {
                self.add_notice(format!(
                    "on resuming the game: the board's game could not be rebuilt past ply {} \
                     ({e}); the pieces are read against that position: fix the game with \
                     `chessclockctl move {} ...` or `chessclockctl position`",
                    self.board_plies(),
                    self.clock()
                ));
                break;
            }
        }
        self.board_resumed();
    }

    /// The journal's steps are replayed (or there were none): from now on every change of
    /// the board's game is journaled, and a rebuilt game is reconciled with the pieces at
    /// the first board dump. The rebuilt position is judged as any change of the game is.
    fn board_resumed(&mut self) {
        self.board.game_mut().set_journaling(true);
        if !self.board_game_is_empty() {
            self.board.reconcile_at_next_dump();
            self.board.memory_at_next_dump();
            self.judge_board(self.time.now());
        }
    }

    /// Time passed for the tracker (the settle time of a problem), and for a press that
    /// waits for its move.
    pub(super) fn board_timeout(&mut self, now: Instant) {
        if self.board.take_unmoved_due(now) {
            self.published.mark_changed();
        }
        let t = self.time_at(now);
        if self
            .board
            .game()
            .poll_timeout()
            .is_some_and(|d| d <= t.as_ms())
        {
            let clocks = self.clocks(t);
            self.board
                .game_mut()
                .handle_timeout(t.as_ms(), Some(clocks));
            self.drain_board(now);
        }
    }

    /// A press by `side` leaving it `remaining_ms` after a move of `move_ms`. A press that
    /// finds no move of `side` on the board to time waits for it; if the move is not read
    /// within [`UNMOVED_PRESS_GRACE`], the board's problem says so (a move the board missed,
    /// or a press without a move).
    pub(super) fn board_press(&mut self, t: Time, side: Side, remaining_ms: u64, move_ms: u64) {
        self.board
            .game_mut()
            .on_press(color(side), remaining_ms, Some(move_ms));
        if self.board.game().press_waiting(color(side)) {
            let due = self.time.instant_of(t) + UNMOVED_PRESS_GRACE;
            self.board.press_unmoved(side, due);
        }
        self.say_steps(t);
        self.board.changed();
    }

    /// When a press without its move on the board is to be said (`None`: none waits).
    pub(super) fn unmoved_press_due(&self) -> Option<Instant> {
        self.board.unmoved_due()
    }

    /// The board's problem of a press without its move, once it is due, while the game runs
    /// on an e-board whose moves are read (a board used as a clock only reads none) and the
    /// press still waits for its move.
    fn unmoved_press_problem(&self, me: &str) -> Option<String> {
        let pressed = self.board.unmoved_said_of()?;
        let waiting = self.board.game().press_waiting(color(pressed))
            && self.has_board_moves()
            && self.status() == Status::Running;
        let side = pressed.as_str();
        waiting.then(|| {
            format!(
                "{side} pressed the clock, but no move of {side}'s is on the board since: a \
                 move the board did not read, or a press without a move (FIDE 7.5.3: the \
                 arbiter rules); fix: enter the move the board missed, chessclockctl move {me} \
                 force UCI (this goes once {side}'s move is on the board)"
            )
        })
    }

    /// The operator's correction of the board's game at `now`: applied (a forced move gets
    /// the mover's clock now), journaled and told in the notices; refused, nothing changes.
    pub(super) fn correct_board(
        &mut self,
        now: Instant,
        correction: &Correction,
    ) -> Result<Reply, DeviceError> {
        let t = self.time_at(now);
        let clocks = self.clocks(t);
        let clock = self.cfg.clock;
        self.board
            .game_mut()
            .correct(t.as_ms(), correction, Some(clocks))
            .map_err(|e| {
                let text = format!("clock {clock}: {e}");
                match e {
                    CorrectionError::UndoNothing
                    | CorrectionError::UndoPastStart { .. }
                    | CorrectionError::BadUci { .. }
                    | CorrectionError::Illegal { .. }
                    | CorrectionError::BadFen { .. } => DeviceError::Invalid(text),
                    _ => DeviceError::NotAllowed(text),
                }
            })?;
        self.drain_board(now);
        let fen = self.board.game().fen();
        self.note(
            now,
            Note::Correction {
                what: correction.to_string(),
                fen: fen.clone(),
            },
            true,
        );
        let problem = match self.board.game().tracker().state() {
            chessclock_game::BoardState::Synced => String::new(),
            _ => PIECES_PENDING.to_owned(),
        };
        self.notify(format!(
            "the board's game was corrected ({correction}): now {fen}{problem}"
        ));
        self.board.changed();
        self.published.mark_changed();
        Ok(Reply::Done)
    }

    /// How many moves `side` has made on the board in this game (0 until the board recorded
    /// one). A game set up from a position (a correction, a Chess960 start) counts on from
    /// the moves its FEN's move number says were made before it.
    pub(super) fn board_moves_of(&self, side: Side) -> usize {
        let recorded = self
            .board
            .game()
            .moves()
            .iter()
            .filter(|m| m.event.color == color(side))
            .count();
        let before = match &self.board.game().record().setup {
            Some((fen, _)) if recorded > 0 => moves_before(fen, color(side)),
            _ => 0,
        };
        recorded + before
    }

    /// Act on the board game's changes: journal them (before anything the engine is told of
    /// them), judge the game after each (a move read, a takeback, a new game or a position
    /// set, a correction), and say each move.
    pub(super) fn drain_board(&mut self, at: Instant) {
        let t = self.time_at(at);
        self.say_steps(t);
        while let Some(change) = self.board.game_mut().poll_change() {
            match &change {
                RecordChange::Move(_) | RecordChange::Rewound => self.judge_board(at),
                RecordChange::Result(result) => self.board_signal(at, *result),
                RecordChange::Problem(_) => {}
            }
            if let RecordChange::Move(m) = &change {
                self.say(t.as_ms(), move_event(m));
            }
            if let RecordChange::Problem(Some(p)) = &change {
                tracing::warn!(clock = self.cfg.clock, "{p}");
            }
            self.board.changed();
            self.published.mark_changed();
        }
        self.pieces_shown(at);
        // A correction's "not shown yet" is true no longer once the pieces show the game.
        if self.board.game().tracker().state() == &chessclock_game::BoardState::Synced
            && self
                .published
                .state()
                .notices
                .iter()
                .any(|n| n.ends_with(PIECES_PENDING))
        {
            self.published
                .state_mut()
                .notices
                .retain(|n| !n.ends_with(PIECES_PENDING));
            self.published.mark_changed();
        }
    }

    /// The board as the operator names it in a command (api `ClockStatus::handle`):
    /// `board:N`, else the clock's number.
    fn handle(&self) -> String {
        match self.board.place() {
            Some((_, board)) if board > 0 => format!("board:{board}"),
            _ => self.cfg.clock.to_string(),
        }
    }

    /// What is wrong with the board's pieces (the clock against its control is
    /// [`Session::clock_problem`]'s).
    fn board_problem(&self) -> String {
        let me = self.handle();
        let pieces = self
            .board
            .game()
            .problem()
            .map(str::to_owned)
            .or_else(|| self.missing_before_start());
        let unmoved = self.unmoved_press_problem(&me);
        [pieces, unmoved]
            .into_iter()
            .flatten()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Before the game begins, pieces lifted from the start position and not put back (a
    /// piece missing at a board being set up): a problem then, as the round's check needs;
    /// in play a lifted piece is a move being made.
    fn missing_before_start(&self) -> Option<String> {
        if self.status() != Status::Ready || !self.board.game().moves().is_empty() {
            return None;
        }
        let chessclock_game::BoardState::PiecesInAir { lifted } =
            self.board.game().tracker().state()
        else {
            return None;
        };
        let squares: Vec<String> = lifted.iter().map(ToString::to_string).collect();
        Some(format!(
            "the start position lacks the pieces of {}: put them back",
            squares.join(", ")
        ))
    }

    /// Write what the bus shows of the board's game into the published state (the draws
    /// claimable are set with the game's status when the state is brought up to date). The FEN is
    /// empty while no position is known (no pieces read, no position set): a clock without
    /// an e-board does not show the start position as if it were read.
    pub(crate) fn set_board_fields(&mut self) {
        let problem = self.board_problem();
        let clock_problem = self.clock_problem();
        let moves = self.board.game().moves();
        let st = &mut self.published.state_mut().clock;
        st.fen = self.board.game().tracker().fen().unwrap_or_default();
        st.board_orientation = self.board.game().orientation();
        st.moves_san = moves.iter().map(|m| m.event.san.clone()).collect();
        st.last_move = moves.last().map(|m| last_move(&m.event));
        st.game_info = self.board.game().info().tags().iter().cloned().collect();
        st.board_problem = problem;
        st.clock_problem = clock_problem;
    }

    /// Observe mode: the clock against the declared control (`ClockProblem`), named as the
    /// operator names the board.
    fn clock_problem(&self) -> String {
        match &self.declared {
            Some(declared) if self.observing() => {
                self.observed.check.problem(declared, &self.handle())
            }
            _ => None,
        }
        .unwrap_or_default()
    }
}

/// A move as the published `last_move`: its number is the full move of the position before
/// it (read from the position after it: Black's move ends the full move).
fn last_move(m: &chessclock_game::MoveEvent) -> chessclock_api::LastMove {
    let fullmove_after = m
        .fen
        .split_whitespace()
        .nth(5)
        .and_then(|n| n.parse::<u32>().ok())
        .unwrap_or(1);
    let (number, side) = match m.color {
        chessclock_game::shakmaty::Color::White => (fullmove_after, chessclock_engine::Side::White),
        chessclock_game::shakmaty::Color::Black => (
            fullmove_after.saturating_sub(1).max(1),
            chessclock_engine::Side::Black,
        ),
    };
    chessclock_api::LastMove {
        number,
        side,
        san: m.san.clone(),
        uci: m.uci.clone(),
    }
}
