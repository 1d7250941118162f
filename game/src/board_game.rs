//! The board's game, once for every caller: board messages in, a game record out (moves with
//! their clock times, result, problems), plus the game information and what changed.
//!
//! Owns combining the [`Tracker`]'s events with clock times into [`GameRecord`]s. Clock
//! times come from one of two places. A caller that runs the clock (the daemon's engine)
//! passes both clocks with each board message ([`Clocks`]: a move gets the mover's clock
//! when it is seen) and each press ([`BoardGame::on_press`]). A recording has only the
//! clock's reports: the [`ClockObserver`] finds the lever presses in them, and a move without
//! a press gets the mover's time when the next move is made or the input ends. Either way the
//! press that ended a move gives it the mover's clock and the turn's length. White's half (in
//! reports) is the half whose press ended White's move (else the half that ran first). The
//! operator's corrections go to the tracker and come back as its events
//! ([`BoardGame::correct`]); a game set up from a position keeps it for its PGN. It must
//! not do IO or read a clock: `now` is passed in. A caller that keeps the game across a
//! restart turns on its steps ([`BoardGame::set_journaling`]): every change of the game
//! comes out as a [`Step`] ([`BoardGame::poll_step`]), and folding the steps over a fresh
//! board game ([`BoardGame::replay`]) rebuilds the same game.

use std::collections::VecDeque;

use chessclock_protocol::{Message, Orientation};
use shakmaty::Color;

use crate::event::{GameEvent, GameResult, ResultSignal};
use crate::observe::{ClockObserver, Half, LeverPress};
use crate::pgn::{GameInfo, PgnGame, TagError};
use crate::record::{GameRecord, PgnClocks, Problem, RecordChange, RecordedMove, START_FEN};
use crate::step::{Step, StepError};
use crate::tracker::{Correction, CorrectionError, Tracker, TrackerConfig};

/// Both players' clocks at an input, ms, from a caller that runs the clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clocks {
    /// White's clock.
    pub white_ms: u64,
    /// Black's clock.
    pub black_ms: u64,
}

impl Clocks {
    fn of(self, color: Color) -> u64 {
        match color {
            Color::White => self.white_ms,
            Color::Black => self.black_ms,
        }
    }
}

/// Builds game records from board messages and clock times. See the module docs.
#[derive(Debug, Clone)]
pub struct BoardGame {
    tracker: Tracker,
    observer: ClockObserver,
    white_half: Option<Half>,
    current: GameRecord,
    /// The last earlier game with moves, and how many there were.
    earlier: Option<GameRecord>,
    earlier_count: usize,
    games: u32,
    info: GameInfo,
    changes: VecDeque<RecordChange>,
    /// Whether each change of the game is said as a [`Step`].
    journaling: bool,
    steps: VecDeque<Step>,
    /// The held board as the last [`Step::Held`] said it.
    held_said: Option<shakmaty::Board>,
    /// A press that found no move of its side to time (the move comes after it: a move
    /// forced by the arbiter, one the board missed): its clock and elapsed time, for that
    /// side's next move.
    unclaimed: [Option<(u64, Option<u64>)>; 2],
}

/// The index of `color` in [`BoardGame::unclaimed`].
fn side_index(color: Color) -> usize {
    usize::from(color == Color::Black)
}

impl Default for BoardGame {
    fn default() -> Self {
        BoardGame::new(TrackerConfig::default())
    }
}

impl BoardGame {
    /// A board game with this tracker configuration.
    pub fn new(cfg: TrackerConfig) -> BoardGame {
        BoardGame {
            tracker: Tracker::new(cfg),
            observer: ClockObserver::new(),
            white_half: None,
            current: GameRecord::default(),
            earlier: None,
            earlier_count: 0,
            games: 0,
            info: GameInfo::new(),
            unclaimed: [None, None],
            changes: VecDeque::new(),
            journaling: false,
            steps: VecDeque::new(),
            held_said: None,
        }
    }

    /// Say every change of the game from now on as a [`Step`] ([`BoardGame::poll_step`]).
    pub fn set_journaling(&mut self, on: bool) {
        self.journaling = on;
    }

    /// The next step of the game since journaling was turned on, oldest first.
    pub fn poll_step(&mut self) -> Option<Step> {
        self.steps.pop_front()
    }

    fn step(&mut self, step: Step) {
        if self.journaling {
            self.steps.push_back(step);
        }
    }

    /// The steps that rebuild the current game as it stands (its orientation, start, moves
    /// with their times, result, held board and information), for a journal that starts
    /// anew while the board's game goes on. Earlier games are not in them.
    pub fn steps_of_game(&self) -> Vec<Step> {
        let mut steps = Vec::new();
        if let Some(o) = self.tracker.orientation() {
            steps.push(Step::Orientation {
                rotated: o == Orientation::Rotated,
            });
        }
        if !self.tracker.positions().is_empty() {
            steps.push(Step::NewGame);
            if let Some((fen, chess960)) = &self.current.setup {
                steps.push(Step::SetUp {
                    fen: fen.clone(),
                    chess960: *chess960,
                });
            }
            steps.extend(self.current.moves.iter().map(|m| Step::Move {
                uci: m.event.uci.clone(),
                corrects: false,
                clock_ms: m.clock_ms,
                elapsed_ms: m.elapsed_ms,
                from_press: m.from_press,
            }));
            if let Some((result, signal)) = self.current.signalled {
                steps.push(Step::Result { result, signal });
            }
        }
        if let Some(board) = self.tracker.held() {
            steps.push(Step::Held { board });
        }
        if !self.info.tags().is_empty() {
            steps.push(Step::Info {
                tags: self.info.tags().to_vec(),
            });
        }
        steps
    }

    /// Apply a step the game made earlier, at `now_ms` (a fold over a journal's steps
    /// rebuilds the game: the same moves, clocks, result and information); the step is not
    /// said again. A step that does not fit the game is an error and changes nothing.
    pub fn replay(&mut self, now_ms: u64, step: &Step) -> Result<(), StepError> {
        let journaling = std::mem::replace(&mut self.journaling, false);
        let done = self.replay_step(now_ms, step);
        self.journaling = journaling;
        self.held_said = self.tracker.held_board().cloned();
        done
    }

    fn replay_step(&mut self, now_ms: u64, step: &Step) -> Result<(), StepError> {
        match step {
            Step::Press {
                white,
                clock_ms,
                elapsed_ms,
            } => {
                let color = if *white { Color::White } else { Color::Black };
                self.on_press(color, *clock_ms, *elapsed_ms);
            }
            Step::Info { tags } => self
                .info
                .set_all(tags)
                .map_err(|e| StepError::Info(e.to_string()))?,
            _ => {
                self.tracker.replay(now_ms, step)?;
                let clocks = match step {
                    Step::Move {
                        clock_ms: Some(ms), ..
                    } => Some(Clocks {
                        white_ms: *ms,
                        black_ms: *ms,
                    }),
                    _ => None,
                };
                self.drain(clocks);
                // The move's times as they were recorded (a press before it included).
                if let (
                    Step::Move {
                        clock_ms,
                        elapsed_ms,
                        from_press,
                        ..
                    },
                    Some(m),
                ) = (step, self.current.moves.last_mut())
                {
                    m.clock_ms = *clock_ms;
                    m.elapsed_ms = *elapsed_ms;
                    m.from_press = *from_press;
                }
            }
        }
        Ok(())
    }

    /// Feed one decoded message that arrived at `now_ms`; `clocks` are both clocks now when
    /// the caller runs the clock (`None`: times come from the clock's reports).
    pub fn on_message(&mut self, now_ms: u64, message: &Message, clocks: Option<Clocks>) {
        match message {
            Message::ClockReport(r) => {
                if let Some(press) = self.observer.on_report(r) {
                    self.on_lever(press);
                }
                let fallen = [
                    (Half::Left, r.left.final_flag),
                    (Half::Right, r.right.final_flag),
                ]
                .into_iter()
                .find_map(|(h, f)| f.then_some(h));
                if let (Some(half), None) = (fallen, self.current.flag)
                    && r.clock_connected
                    && let Some(white) = self.white_half()
                {
                    self.current.flag = Some(if half == white {
                        Color::White
                    } else {
                        Color::Black
                    });
                }
            }
            _ => self.tracker.on_message(now_ms, message),
        }
        self.drain(clocks);
    }

    /// When to call [`BoardGame::handle_timeout`] (the settle time of a problem).
    pub fn poll_timeout(&self) -> Option<u64> {
        self.tracker.poll_timeout()
    }

    /// Time passed; `clocks` as for [`BoardGame::on_message`].
    pub fn handle_timeout(&mut self, now_ms: u64, clocks: Option<Clocks>) {
        self.tracker.handle_timeout(now_ms);
        self.drain(clocks);
    }

    /// The operator's correction at `now_ms` (see [`Tracker::correct`]); `clocks` give a
    /// forced move its mover's clock. Refused, it changes nothing.
    pub fn correct(
        &mut self,
        now_ms: u64,
        correction: &Correction,
        clocks: Option<Clocks>,
    ) -> Result<(), CorrectionError> {
        self.tracker.correct(now_ms, correction)?;
        self.drain(clocks);
        Ok(())
    }

    /// The input ended: settle the board and give the last moves the clock's final times.
    pub fn finish(&mut self, now_ms: u64) {
        self.tracker.finish(now_ms);
        self.drain(None);
        let n = self.current.moves.len();
        for i in n.saturating_sub(2)..n {
            self.fill_from_reading(i);
        }
    }

    /// `color` pressed, leaving it `clock_ms` after a move of `elapsed_ms`: its last move
    /// (of the last two plies) gets these times, if no press gave it times yet; else they
    /// wait for its next move read. Said as a step either way, so that a restart keeps a
    /// press whose move is not read yet.
    pub fn on_press(&mut self, color: Color, clock_ms: u64, elapsed_ms: Option<u64>) {
        let n = self.current.moves.len();
        if let Some(m) = self.current.moves[n.saturating_sub(2)..]
            .iter_mut()
            .rev()
            .find(|m| m.event.color == color)
            .filter(|m| !m.from_press)
        {
            m.clock_ms = Some(clock_ms);
            m.elapsed_ms = elapsed_ms;
            m.from_press = true;
        } else {
            self.unclaimed[side_index(color)] = Some((clock_ms, elapsed_ms));
        }
        self.step(Step::Press {
            white: color == Color::White,
            clock_ms,
            elapsed_ms,
        });
    }

    /// Whether a press of `color` waits for its move: it found no move of `color` to time
    /// (a press without a move on the board: one the board missed, one forced later, or
    /// none made), until `color`'s next move is read.
    pub fn press_waiting(&self, color: Color) -> bool {
        self.unclaimed[side_index(color)].is_some()
    }

    /// The next change of the current game, if any (a caller that does not publish changes
    /// may leave them: they are as many as the input's events).
    pub fn poll_change(&mut self) -> Option<RecordChange> {
        self.changes.pop_front()
    }

    /// The moves of the current game.
    pub fn moves(&self) -> &[RecordedMove] {
        &self.current.moves
    }

    /// The position now with the side to move (FEN); the start position before any game.
    pub fn fen(&self) -> String {
        self.tracker.fen().unwrap_or_else(|| START_FEN.to_owned())
    }

    /// The result set on the board, or mate / stalemate on the board.
    pub fn result(&self) -> Option<GameResult> {
        self.current.result()
    }

    /// How the result was signalled on the board (None for mate/stalemate or no result).
    pub fn result_signal(&self) -> Option<ResultSignal> {
        self.current.signalled.map(|(_, s)| s)
    }

    /// The current game's record.
    pub fn record(&self) -> &GameRecord {
        &self.current
    }

    /// How many earlier games (ended by a new game) had moves.
    pub fn earlier_with_moves(&self) -> usize {
        self.earlier_count
    }

    /// The game a replay shows: the current one if it has moves, else the last earlier game
    /// with moves (players reset the pieces after a game).
    pub fn main_game(&self) -> &GameRecord {
        match &self.earlier {
            Some(last) if self.current.moves.is_empty() => last,
            _ => &self.current,
        }
    }

    /// The board's orientation, once detected.
    pub fn orientation(&self) -> Option<Orientation> {
        self.tracker.orientation()
    }

    /// Problems seen during the current game.
    pub fn problems(&self) -> &[Problem] {
        &self.current.problems
    }

    /// What is wrong with the board now, if anything.
    pub fn problem(&self) -> Option<&str> {
        self.current
            .problems
            .last()
            .filter(|p| !p.resolved)
            .map(|p| p.message.as_str())
    }

    /// How many games began (start positions seen with a game change).
    pub fn games(&self) -> u32 {
        self.games
    }

    /// The tracker (state, position, FEN).
    pub fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    /// The board is a spare swapped in mid-game: nothing it shows is read until it shows the
    /// game's position ([`Tracker::await_position`]).
    pub fn await_position(&mut self) {
        self.tracker.await_position();
    }

    /// The game information (tags); it stays from game to game.
    pub fn info(&self) -> &GameInfo {
        &self.info
    }

    /// Set game information tags; all or nothing (the first bad tag is the error).
    pub fn set_info(&mut self, tags: &[(String, String)]) -> Result<(), TagError> {
        self.info.set_all(tags)?;
        self.step(Step::Info {
            tags: tags.to_vec(),
        });
        Ok(())
    }

    /// The current game as a PGN game with the game information (see [`GameRecord::pgn`]).
    pub fn pgn(&self, clocks: Option<PgnClocks>) -> PgnGame {
        self.current.pgn(&self.info, clocks)
    }

    /// The half White's clock is on (in the clock's reports), once known.
    pub fn white_half(&self) -> Option<Half> {
        self.white_half.or(self.observer.first_runner())
    }

    fn half_of(&self, color: Color) -> Option<Half> {
        let white = self.white_half()?;
        Some(if color == Color::White {
            white
        } else {
            white.other()
        })
    }

    fn on_lever(&mut self, press: LeverPress) {
        if self.white_half.is_none() {
            // The first press after a move ends that move: it tells which half is whose.
            let Some(last) = self.current.moves.last().filter(|m| !m.from_press) else {
                return;
            };
            self.white_half = Some(match last.event.color {
                Color::White => press.half,
                Color::Black => press.half.other(),
            });
        }
        let Some(white) = self.white_half else { return };
        let color = if press.half == white {
            Color::White
        } else {
            Color::Black
        };
        self.on_press(color, press.clock_ms, press.elapsed_ms);
    }

    /// Give move `i` the mover's current time by the clock's reports if it has none.
    fn fill_from_reading(&mut self, i: usize) {
        let Some(color) = self.current.moves.get(i).map(|m| m.event.color) else {
            return;
        };
        let reading = self.half_of(color).and_then(|h| self.observer.clock_ms(h));
        if let Some(m) = self.current.moves.get_mut(i)
            && m.clock_ms.is_none()
        {
            m.clock_ms = reading;
        }
    }

    fn drain(&mut self, clocks: Option<Clocks>) {
        while let Some(e) = self.tracker.poll_event() {
            let change = match e {
                GameEvent::NewGame { .. } => {
                    self.step(Step::NewGame);
                    self.unclaimed = [None, None];
                    self.games += 1;
                    let record = std::mem::take(&mut self.current);
                    if !record.moves.is_empty() {
                        self.earlier = Some(record);
                        self.earlier_count += 1;
                    }
                    RecordChange::Rewound
                }
                GameEvent::SetUp { fen, chess960, .. } => {
                    self.step(Step::SetUp {
                        fen: fen.clone(),
                        chess960,
                    });
                    self.current.setup = Some((fen, chess960));
                    RecordChange::Rewound
                }
                GameEvent::Move(event) => {
                    let moves = &mut self.current.moves;
                    // A correction keeps the times of the press that ended the move.
                    let kept = match (&event.corrects, moves.last()) {
                        (Some(_), Some(last)) if last.event.ply == event.ply => moves.pop(),
                        _ => None,
                    }
                    .filter(|k| k.from_press);
                    // Else the press that came before the move, if one found none to time (a
                    // press after the move still replaces these times: from_press stays
                    // false, as a clock's start press is no move's).
                    let pressed = self.unclaimed[side_index(event.color)].take();
                    let (clock_ms, elapsed_ms, from_press) = match (&kept, pressed) {
                        (Some(k), _) => (k.clock_ms, k.elapsed_ms, true),
                        (None, Some((clock, elapsed))) => (Some(clock), elapsed, false),
                        (None, None) => (clocks.map(|c| c.of(event.color)), None, false),
                    };
                    let m = RecordedMove {
                        clock_ms,
                        elapsed_ms,
                        from_press,
                        event,
                    };
                    moves.push(m.clone());
                    let n = moves.len();
                    if n >= 2 {
                        self.fill_from_reading(n - 2);
                    }
                    self.current.outcome = outcome_of(&m.event.fen);
                    self.step(Step::Move {
                        uci: m.event.uci.clone(),
                        corrects: m.event.corrects.is_some(),
                        clock_ms: m.clock_ms,
                        elapsed_ms: m.elapsed_ms,
                        from_press: m.from_press,
                    });
                    RecordChange::Move(m)
                }
                GameEvent::Takeback { to_ply, .. } => {
                    self.step(Step::Takeback { to_ply });
                    self.unclaimed = [None, None];
                    let moves = &mut self.current.moves;
                    moves.truncate(usize::try_from(to_ply).unwrap_or(usize::MAX));
                    self.current.outcome = moves.last().and_then(|m| outcome_of(&m.event.fen));
                    RecordChange::Rewound
                }
                GameEvent::Result { result, signal, .. } => {
                    self.step(Step::Result { result, signal });
                    self.current.signalled = Some((result, signal));
                    RecordChange::Result(result)
                }
                GameEvent::Unexplained {
                    ply,
                    differences,
                    at_ms,
                } => {
                    let what: Vec<String> = differences.iter().map(ToString::to_string).collect();
                    let message = format!(
                        "the board does not show the game's position after ply {ply}: {}",
                        what.join("; ")
                    );
                    self.current.problems.push(Problem {
                        at_ms,
                        ply,
                        message: message.clone(),
                        resolved: false,
                    });
                    RecordChange::Problem(Some(message))
                }
                GameEvent::Explained { .. } => {
                    for p in &mut self.current.problems {
                        p.resolved = true;
                    }
                    RecordChange::Problem(None)
                }
                GameEvent::Orientation(o) => {
                    self.step(Step::Orientation {
                        rotated: o == Orientation::Rotated,
                    });
                    continue;
                }
            };
            self.changes.push_back(change);
        }
        // The board a correction held, whenever it changes (`Step::Held` with no board: none).
        if self.journaling && self.tracker.held_board() != self.held_said.as_ref() {
            self.held_said = self.tracker.held_board().cloned();
            self.step(Step::Held {
                board: self.tracker.held().unwrap_or_default(),
            });
        }
    }
}

/// The result a position (as FEN) has by the rules: mate, stalemate, insufficient material.
fn outcome_of(fen: &str) -> Option<GameResult> {
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, KnownOutcome, Outcome, Position};
    let pos: shakmaty::Chess = fen
        .parse::<Fen>()
        .ok()?
        .into_position(CastlingMode::Chess960)
        .ok()?;
    match pos.outcome() {
        Outcome::Known(KnownOutcome::Decisive {
            winner: Color::White,
        }) => Some(GameResult::WhiteWins),
        Outcome::Known(KnownOutcome::Decisive {
            winner: Color::Black,
        }) => Some(GameResult::BlackWins),
        Outcome::Known(KnownOutcome::Draw) => Some(GameResult::Draw),
        Outcome::Unknown => None,
    }
}

#[cfg(test)]
mod tests;
