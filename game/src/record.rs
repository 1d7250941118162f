//! A game record from a board stream: moves with their clock times, result and problems.
//!
//! Owns combining the [`Tracker`]'s events with the [`ClockObserver`]'s lever presses into
//! the record a PGN or a replay prints: each move gets the mover's time from the first report
//! after the press that ended it (or, without a press, the mover's time when the next move
//! was made or the input ended) and the turn's length by the clock. White's half is the half
//! whose press ended White's move (else the half that ran first). It must not do IO or read a
//! clock: `now` is passed in.

use chessclock_protocol::{Message, Orientation};
use shakmaty::Color;

use crate::event::{GameEvent, GameResult, MoveEvent, ResultSignal};
use crate::observe::{ClockObserver, Half};
use crate::tracker::{Tracker, TrackerConfig};

/// One move of the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedMove {
    /// The move as the tracker reported it.
    pub event: MoveEvent,
    /// The mover's clock after the move, ms (from the clock's reports), if known.
    pub clock_ms: Option<u64>,
    /// How long the move took by the clock, ms, if known.
    pub elapsed_ms: Option<u64>,
    /// The clock time came from the press that ended this move (not a later reading).
    pub from_press: bool,
}

/// Something the operator should know about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// When (ms of the caller's clock).
    pub at_ms: u64,
    /// The ply the game was at.
    pub ply: u32,
    /// What happened, in words.
    pub message: String,
    /// The board was explained again later.
    pub resolved: bool,
}

/// One game's record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameRecord {
    /// The moves.
    pub moves: Vec<RecordedMove>,
    /// The result set on the board, and how.
    pub signalled: Option<(GameResult, ResultSignal)>,
    /// The result the position after the last move has (mate, stalemate, dead position).
    pub outcome: Option<GameResult>,
    /// The colour whose flag fell (final flag in a clock report), if any.
    pub flag: Option<Color>,
    /// Problems seen during the game.
    pub problems: Vec<Problem>,
}

impl GameRecord {
    /// The result: set on the board, else from the final position.
    pub fn result(&self) -> Option<GameResult> {
        self.signalled.map(|(r, _)| r).or(self.outcome)
    }
}

/// Builds a game record from board messages and clock reports. See the module docs.
#[derive(Debug, Clone)]
pub struct GameRecorder {
    tracker: Tracker,
    observer: ClockObserver,
    white_half: Option<Half>,
    current: GameRecord,
    earlier: Vec<GameRecord>,
    moves: Vec<RecordedMove>,
    games: u32,
}

impl GameRecorder {
    /// A recorder with this tracker configuration.
    pub fn new(cfg: TrackerConfig) -> GameRecorder {
        GameRecorder {
            tracker: Tracker::new(cfg),
            observer: ClockObserver::new(),
            white_half: None,
            current: GameRecord::default(),
            earlier: Vec::new(),
            moves: Vec::new(),
            games: 0,
        }
    }

    /// Feed one decoded message that arrived at `now_ms`.
    pub fn on_message(&mut self, now_ms: u64, message: &Message) {
        match message {
            Message::ClockReport(r) => {
                if let Some(press) = self.observer.on_report(r) {
                    self.on_press(press);
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
        self.drain();
    }

    /// When to call [`GameRecorder::handle_timeout`].
    pub fn poll_timeout(&self) -> Option<u64> {
        self.tracker.poll_timeout()
    }

    /// Time passed.
    pub fn handle_timeout(&mut self, now_ms: u64) {
        self.tracker.handle_timeout(now_ms);
        self.drain();
    }

    /// The input ended: settle the board and give the last moves the clock's final times.
    pub fn finish(&mut self, now_ms: u64) {
        self.tracker.finish(now_ms);
        self.drain();
        let n = self.moves.len();
        for i in n.saturating_sub(2)..n {
            self.fill_from_reading(i);
        }
    }

    /// The moves of the current game.
    pub fn moves(&self) -> &[RecordedMove] {
        &self.moves
    }

    /// The result set on the board, or mate / stalemate on the board.
    pub fn result(&self) -> Option<GameResult> {
        self.current.result()
    }

    /// How the result was signalled on the board (None for mate/stalemate or no result).
    pub fn result_signal(&self) -> Option<ResultSignal> {
        self.current.signalled.map(|(_, s)| s)
    }

    /// The current game's record (moves are also in [`GameRecorder::moves`]).
    pub fn record(&self) -> GameRecord {
        GameRecord {
            moves: self.moves.clone(),
            ..self.current.clone()
        }
    }

    /// Games that ended with a new game after them and had moves, oldest first.
    pub fn earlier_games(&self) -> &[GameRecord] {
        &self.earlier
    }

    /// The game a replay shows: the current one if it has moves, else the last earlier game
    /// with moves (players reset the pieces after a game).
    pub fn main_game(&self) -> GameRecord {
        if self.moves.is_empty()
            && let Some(last) = self.earlier.last()
        {
            return last.clone();
        }
        self.record()
    }

    /// The board's orientation, once detected.
    pub fn orientation(&self) -> Option<Orientation> {
        self.tracker.orientation()
    }

    /// Problems seen during the current game.
    pub fn problems(&self) -> &[Problem] {
        &self.current.problems
    }

    /// How many games began (start positions seen with a game change).
    pub fn games(&self) -> u32 {
        self.games
    }

    /// The tracker (state, position, FEN).
    pub fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    /// The half White's clock is on, once known.
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

    fn on_press(&mut self, press: crate::observe::LeverPress) {
        if self.white_half.is_none() {
            // The first press after a move ends that move: it tells which half is whose.
            let Some(last) = self.moves.last().filter(|m| !m.from_press) else {
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
        let n = self.moves.len();
        if let Some(m) = self.moves[n.saturating_sub(2)..]
            .iter_mut()
            .rev()
            .find(|m| m.event.color == color)
            .filter(|m| !m.from_press)
        {
            m.clock_ms = Some(press.clock_ms);
            m.elapsed_ms = press.elapsed_ms;
            m.from_press = true;
        }
    }

    /// Give move `i` the mover's current time if it has none.
    fn fill_from_reading(&mut self, i: usize) {
        let Some(color) = self.moves.get(i).map(|m| m.event.color) else {
            return;
        };
        let reading = self.half_of(color).and_then(|h| self.observer.clock_ms(h));
        if let Some(m) = self.moves.get_mut(i)
            && m.clock_ms.is_none()
        {
            m.clock_ms = reading;
        }
    }

    fn drain(&mut self) {
        while let Some(e) = self.tracker.poll_event() {
            match e {
                GameEvent::NewGame { .. } => {
                    self.games += 1;
                    let moves = std::mem::take(&mut self.moves);
                    let record = std::mem::take(&mut self.current);
                    if !moves.is_empty() {
                        self.earlier.push(GameRecord { moves, ..record });
                    }
                }
                GameEvent::Move(event) => {
                    let kept = if event.corrects.is_some() {
                        self.moves.pop()
                    } else {
                        None
                    };
                    let (clock_ms, elapsed_ms, from_press) = kept
                        .map_or((None, None, false), |k| {
                            (k.clock_ms, k.elapsed_ms, k.from_press)
                        });
                    self.moves.push(RecordedMove {
                        event,
                        clock_ms,
                        elapsed_ms,
                        from_press,
                    });
                    let n = self.moves.len();
                    if n >= 2 {
                        self.fill_from_reading(n - 2);
                    }
                    self.current.outcome = self.moves.last().and_then(|m| outcome_of(&m.event.fen));
                }
                GameEvent::Takeback { to_ply, .. } => {
                    self.moves
                        .truncate(usize::try_from(to_ply).unwrap_or(usize::MAX));
                    self.current.outcome = self.moves.last().and_then(|m| outcome_of(&m.event.fen));
                }
                GameEvent::Result { result, signal, .. } => {
                    self.current.signalled = Some((result, signal))
                }
                GameEvent::Unexplained {
                    ply,
                    differences,
                    at_ms,
                } => {
                    let what: Vec<String> = differences.iter().map(ToString::to_string).collect();
                    self.current.problems.push(Problem {
                        at_ms,
                        ply,
                        message: format!(
                            "unexplained position after ply {ply}: {}",
                            what.join("; ")
                        ),
                        resolved: false,
                    });
                }
                GameEvent::Explained { .. } => {
                    for p in &mut self.current.problems {
                        p.resolved = true;
                    }
                }
                GameEvent::Orientation(_) => {}
            }
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
        .into_position(CastlingMode::Standard)
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
