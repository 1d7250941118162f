//! The game on a clock's board: the pieces (board dumps and field updates) turned into moves
//! by [`chessclock_game::Tracker`], each move with the mover's clock after the press that
//! ended it and the time it took, plus the game information, the FEN and the PGN.
//!
//! Pure: time and clock values are passed in; no IO. The session feeds it and publishes what it
//! reports; the PGN file is written elsewhere.

use std::collections::VecDeque;

use chessclock_engine::Side;
use chessclock_game::pgn::{GameInfo, PgnGame, PgnMove, TagError};
use chessclock_game::{GameEvent, GameResult, Tracker, TrackerConfig};
use chessclock_protocol::Message;

/// The FEN of the start position (shown before any board was seen).
pub(crate) const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Tag names whose standard spelling is used whatever the case they are given in.
const KNOWN_TAGS: [&str; 18] = [
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Board",
    "Annotator",
    "ECO",
    "Opening",
    "EventDate",
    "WhiteElo",
    "BlackElo",
    "WhiteTitle",
    "BlackTitle",
    "WhiteFideId",
    "BlackFideId",
    "Mode",
];

/// `name` in the PGN standard's spelling when it is a known tag (`white` is `White`).
pub(crate) fn canonical_tag(name: &str) -> String {
    let name = name.trim();
    KNOWN_TAGS
        .iter()
        .find(|k| k.eq_ignore_ascii_case(name))
        .map_or_else(|| name.to_owned(), |k| (*k).to_owned())
}

/// One move of the game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BoardMove {
    /// Half-move number, 1 = White's first.
    pub ply: u32,
    /// SAN, e.g. `Nf3`.
    pub san: String,
    /// UCI, e.g. `g1f3`.
    pub uci: String,
    /// The position after it.
    pub fen: String,
    /// Who moved.
    pub side: Side,
    /// The mover's clock after the move, ms: at the press that ended it, else when the move
    /// was seen on the board.
    pub clock_ms: u64,
    /// How long the move took by the clock (from its press), ms.
    pub elapsed_ms: Option<u64>,
    /// `clock_ms` and `elapsed_ms` come from the press that ended the move.
    pub pressed: bool,
}

/// What changed, for the bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BoardChange {
    /// A move was made (or replaced the last one: a correction before the reply).
    Move(BoardMove),
    /// Moves were taken back or a new game began: the list of moves changed otherwise.
    Rewound,
    /// The board shows what no legal sequence explains (the operator must restore it), or
    /// is explained again (`None`).
    Problem(Option<String>),
    /// A result was set on the board (kings in the centre).
    Result(GameResult),
}

/// The board's game for one clock. See the module docs.
#[derive(Debug, Clone)]
pub(crate) struct BoardGame {
    tracker: Tracker,
    moves: Vec<BoardMove>,
    fen: String,
    info: GameInfo,
    problem: Option<String>,
    result: Option<GameResult>,
    changes: VecDeque<BoardChange>,
}

impl Default for BoardGame {
    fn default() -> Self {
        BoardGame::new()
    }
}

fn side_of(c: chessclock_game::shakmaty::Color) -> Side {
    match c {
        chessclock_game::shakmaty::Color::White => Side::White,
        chessclock_game::shakmaty::Color::Black => Side::Black,
    }
}

impl BoardGame {
    /// No board seen yet.
    pub(crate) fn new() -> BoardGame {
        BoardGame {
            tracker: Tracker::new(TrackerConfig::default()),
            moves: Vec::new(),
            fen: START_FEN.to_owned(),
            info: GameInfo::new(),
            problem: None,
            result: None,
            changes: VecDeque::new(),
        }
    }

    /// A board message at `now_ms`; `clock_ms(side)` is that side's clock now.
    pub(crate) fn on_message(
        &mut self,
        now_ms: u64,
        message: &Message,
        clock_ms: impl Fn(Side) -> u64,
    ) {
        self.tracker.on_message(now_ms, message);
        self.drain(clock_ms);
    }

    /// When the tracker wants [`BoardGame::handle_timeout`] (the settle time of a problem).
    pub(crate) fn poll_timeout(&self) -> Option<u64> {
        self.tracker.poll_timeout()
    }

    /// Time passed.
    pub(crate) fn handle_timeout(&mut self, now_ms: u64, clock_ms: impl Fn(Side) -> u64) {
        self.tracker.handle_timeout(now_ms);
        self.drain(clock_ms);
    }

    /// `side` pressed, leaving it `remaining_ms` after a move of `move_ms`: the time of its
    /// last move, if that move has no press yet.
    pub(crate) fn on_press(&mut self, side: Side, remaining_ms: u64, move_ms: u64) {
        if let Some(m) = self.moves.last_mut()
            && m.side == side
            && !m.pressed
        {
            m.clock_ms = remaining_ms;
            m.elapsed_ms = Some(move_ms);
            m.pressed = true;
        }
    }

    fn drain(&mut self, clock_ms: impl Fn(Side) -> u64) {
        while let Some(ev) = self.tracker.poll_event() {
            match ev {
                GameEvent::Move(m) => {
                    if m.corrects.is_some() && self.moves.last().is_some_and(|l| l.ply == m.ply) {
                        self.moves.pop();
                    }
                    let side = side_of(m.color);
                    let mv = BoardMove {
                        ply: m.ply,
                        san: m.san,
                        uci: m.uci,
                        fen: m.fen.clone(),
                        side,
                        clock_ms: clock_ms(side),
                        elapsed_ms: None,
                        pressed: false,
                    };
                    self.fen = m.fen;
                    self.moves.push(mv.clone());
                    self.changes.push_back(BoardChange::Move(mv));
                }
                GameEvent::Takeback { to_ply, fen, .. } => {
                    self.moves
                        .truncate(usize::try_from(to_ply).unwrap_or(usize::MAX));
                    self.fen = fen;
                    self.changes.push_back(BoardChange::Rewound);
                }
                GameEvent::NewGame { .. } => {
                    self.moves.clear();
                    self.fen = START_FEN.to_owned();
                    self.result = None;
                    self.changes.push_back(BoardChange::Rewound);
                }
                GameEvent::Result { result, .. } => {
                    self.result = Some(result);
                    self.changes.push_back(BoardChange::Result(result));
                }
                GameEvent::Unexplained { differences, .. } => {
                    let text = differences
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("; ");
                    let text = format!("the board does not show the game's position: {text}");
                    self.problem = Some(text.clone());
                    self.changes.push_back(BoardChange::Problem(Some(text)));
                }
                GameEvent::Explained { .. } => {
                    self.problem = None;
                    self.changes.push_back(BoardChange::Problem(None));
                }
                GameEvent::Orientation(_) => {}
            }
        }
    }

    /// The next change, if any.
    pub(crate) fn poll_change(&mut self) -> Option<BoardChange> {
        self.changes.pop_front()
    }

    /// The moves so far.
    pub(crate) fn moves(&self) -> &[BoardMove] {
        &self.moves
    }

    /// The position now (with side to move).
    pub(crate) fn fen(&self) -> &str {
        &self.fen
    }

    /// What is wrong with the board now, if anything.
    pub(crate) fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    /// The game information (tags).
    pub(crate) fn info(&self) -> &GameInfo {
        &self.info
    }

    /// Set game information tags; all or nothing (the first bad tag is the error).
    pub(crate) fn set_info(&mut self, tags: &[(String, String)]) -> Result<(), TagError> {
        let mut info = self.info.clone();
        for (k, v) in tags {
            info.set(&canonical_tag(k), v)?;
        }
        self.info = info;
        Ok(())
    }

    /// The game so far as a PGN game; the clocks, control and result come from the caller.
    pub(crate) fn pgn(&self, clocks: PgnClocks) -> PgnGame {
        PgnGame {
            info: self.info.clone(),
            time_control: clocks.time_control,
            control_notation: Some(clocks.control_notation),
            moves: self
                .moves
                .iter()
                .map(|m| PgnMove {
                    san: m.san.clone(),
                    clock_ms: Some(m.clock_ms),
                    elapsed_ms: m.elapsed_ms,
                })
                .collect(),
            white_clock_ms: Some(clocks.white_ms),
            black_clock_ms: Some(clocks.black_ms),
            result: clocks.result.or(self.result),
            termination: clocks.termination,
        }
    }
}

/// What the clock side adds to a PGN.
#[derive(Debug, Clone)]
pub(crate) struct PgnClocks {
    /// `TimeControl` in PGN form, if the control has one.
    pub time_control: Option<String>,
    /// Our canonical notation.
    pub control_notation: String,
    /// White's clock now.
    pub white_ms: u64,
    /// Black's clock now.
    pub black_ms: u64,
    /// The clock's result, if the game ended on the clock.
    pub result: Option<GameResult>,
    /// `Termination`, if ended.
    pub termination: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessclock_game::placement::{field_of_square, raw_fields};
    use chessclock_game::shakmaty;
    use chessclock_protocol::{Board, Orientation, Square};

    fn start() -> Message {
        Message::BoardDump(Board {
            fields: raw_fields(&shakmaty::Board::default(), Orientation::Normal),
        })
    }

    /// The field updates of a plain move `from`-`to` of `piece` (lift, then place).
    fn slide(g: &mut BoardGame, now: &mut u64, from: &str, to: &str, clocks: (u64, u64)) {
        let board = raw_fields(&shakmaty::Board::default(), Orientation::Normal);
        let field = |s: &str| {
            let sq: shakmaty::Square = s.parse().expect("square");
            field_of_square(sq, Orientation::Normal)
        };
        let piece = board[usize::from(field(from))];
        for (f, p) in [(field(from), None), (field(to), piece)] {
            *now += 150;
            let m = Message::FieldUpdate {
                square: Square::from_field(f).expect("field"),
                piece: p,
            };
            g.on_message(
                *now,
                &m,
                |s| if s == Side::White { clocks.0 } else { clocks.1 },
            );
        }
    }

    #[test]
    fn a_move_gets_the_clock_of_the_press_that_ends_it() {
        let mut g = BoardGame::new();
        let mut now = 1_000;
        g.on_message(now, &start(), |_| 300_000);
        assert_eq!(g.fen(), START_FEN);
        assert_eq!(g.poll_change(), Some(BoardChange::Rewound), "a new game");
        assert_eq!(g.poll_change(), None);
        slide(&mut g, &mut now, "e2", "e4", (297_000, 300_000));
        let Some(BoardChange::Move(m)) = g.poll_change() else {
            panic!("a move");
        };
        assert_eq!((m.ply, m.san.as_str(), m.uci.as_str()), (1, "e4", "e2e4"));
        assert_eq!(m.side, Side::White);
        assert_eq!(
            (m.clock_ms, m.pressed),
            (297_000, false),
            "the clock when seen"
        );
        // White presses: the move gets the press's values; Black's press does not touch it.
        g.on_press(Side::Black, 1, 1);
        g.on_press(Side::White, 296_500, 3_500);
        g.on_press(Side::White, 1, 1);
        let m = &g.moves()[0];
        assert_eq!(
            (m.clock_ms, m.elapsed_ms, m.pressed),
            (296_500, Some(3_500), true)
        );
        assert!(
            g.fen()
                .starts_with("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b")
        );
    }

    #[test]
    fn game_info_is_all_or_nothing_and_reaches_the_pgn() {
        let mut g = BoardGame::new();
        let tags = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
                .collect()
        };
        g.set_info(&tags(&[("White", "Carlsen, Magnus"), ("Round", "7")]))
            .expect("good tags");
        let err = g
            .set_info(&tags(&[("Black", "Ding"), ("Result", "1-0")]))
            .expect_err("Result is generated");
        assert!(err.to_string().contains("Result"), "{err}");
        assert_eq!(
            g.info().get("Black"),
            None,
            "nothing of a refused set is kept"
        );
        let pgn = chessclock_game::pgn::write(&g.pgn(PgnClocks {
            time_control: Some("300+3".into()),
            control_notation: "G/5 inc/3".into(),
            white_ms: 300_000,
            black_ms: 300_000,
            result: None,
            termination: None,
        }));
        assert!(pgn.contains("[White \"Carlsen, Magnus\"]"), "{pgn}");
        assert!(pgn.contains("[TimeControl \"300+3\"]"), "{pgn}");
    }
}
