//! Game reconstruction: board contents in, moves out (sans-IO).
//!
//! Owns the game as the board tells it: the physical fields as last reported, the
//! orientation, the positions and moves since the start position, and the rules that turn a
//! changed board into a move, a corrected move, a takeback, a new game, a result or an
//! unexplained position (`docs/board-game.md`). It must not do IO or read a clock: every call
//! takes `now` (milliseconds of any monotonic clock), quinn-proto style; the caller wakes it
//! at [`Tracker::poll_timeout`]. It never guesses: a board that no legal sequence explains
//! changes nothing in the game and is reported once it has stood for the settle time; a new
//! game or takeback that only the side to move's pieces show (maybe its move half made) waits
//! for the settle time too. A Chess960 start is a new game as the standard start is. The
//! operator's corrections (undo, a forced move, a position set) are [`correct`]'s; rebuilding
//! the game from its steps after a restart is `replay`'s; recovering the moves a board's own
//! log saw while no host listened is `recover`'s.

use std::collections::VecDeque;

use chessclock_protocol::{Message, Orientation, Piece as DgtPiece};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{Board, Chess, Color, EnPassantMode, Move, Position, Role, Square};

use crate::event::{BoardState, Difference, GameEvent, GameResult, MoveEvent, ResultSignal};
use crate::placement::{RawFields, placement, signalled_result};

mod correct;
mod recover;
mod replay;
mod start;
pub use correct::{Correction, CorrectionError};
pub use recover::{Recovered, RecoveryError, recover};

/// How the tracker behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrackerConfig {
    /// How long a board nothing explains must stand unchanged before it is reported (and
    /// before two-ply sequences are considered, for a field update that was lost, and before a
    /// new game or takeback that only the side to move's pieces show is accepted).
    pub settle_ms: u64,
    /// Accept only this orientation (None: detect it from the start position).
    pub orientation: Option<Orientation>,
}

impl Default for TrackerConfig {
    fn default() -> Self {
        TrackerConfig {
            settle_ms: 1500,
            orientation: None,
        }
    }
}

/// A move of the game, as kept by the tracker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayedMove {
    /// The move as shakmaty sees it.
    pub mv: Move,
    /// What was reported for it.
    pub event: MoveEvent,
}

/// The game reconstruction state machine. See the module docs.
#[derive(Debug, Clone)]
pub struct Tracker {
    cfg: TrackerConfig,
    raw: RawFields,
    seen: bool,
    orientation: Option<Orientation>,
    /// positions[0] is the start, positions[i] the position after ply i. Empty: no game.
    positions: Vec<Chess>,
    moves: Vec<PlayedMove>,
    state: BoardState,
    events: VecDeque<GameEvent>,
    last_change: u64,
    /// An Unexplained event was sent for the current episode.
    reported: bool,
    /// The differences last reported (to report a changed problem again).
    reported_diff: Vec<Difference>,
    /// The board as it stood when the operator corrected the game: whenever the board shows
    /// it, it is not read as a move, takeback or new game (it is what the correction
    /// corrected), until the board is in step with the game again.
    held: Option<Board>,
    /// The board is not the one the game was played on (a spare swapped in mid-game): until
    /// it shows the game's position, nothing it shows is read (no move, takeback or new game).
    awaiting: bool,
}

impl Tracker {
    /// A tracker that has seen no board yet.
    pub fn new(cfg: TrackerConfig) -> Tracker {
        Tracker {
            cfg,
            raw: [None; 64],
            seen: false,
            orientation: None,
            positions: Vec::new(),
            moves: Vec::new(),
            state: BoardState::NoGame,
            events: VecDeque::new(),
            last_change: 0,
            reported: false,
            reported_diff: Vec::new(),
            held: None,
            awaiting: false,
        }
    }

    /// The board is another than the one the game was played on (a spare swapped in
    /// mid-game): nothing it shows is read as a move, a takeback or a new game until it shows
    /// the game's current position; until then it is reported as any board that does not.
    pub fn await_position(&mut self) {
        self.awaiting = true;
        self.held = None;
    }

    /// Whether the board has yet to show the game's position ([`Tracker::await_position`]).
    pub fn awaits_position(&self) -> bool {
        self.awaiting
    }

    /// A full board dump arrived at `now_ms` (fields in the board's own order). A dump is a
    /// settled view: two-ply sequences are considered at once (a new game or takeback that
    /// waits, waits for the settle time all the same).
    pub fn on_board_dump(&mut self, now_ms: u64, fields: &RawFields) {
        if self.seen && self.raw == *fields && self.state != BoardState::NoGame {
            self.settle(now_ms, false);
            return;
        }
        self.raw = *fields;
        self.seen = true;
        self.last_change = now_ms;
        self.evaluate(now_ms);
        self.settle(now_ms, false);
    }

    /// A field update arrived at `now_ms`: raw `field` (0..=63, board order) now holds `piece`.
    /// Updates before the first dump only change the remembered fields.
    pub fn on_field_update(&mut self, now_ms: u64, field: u8, piece: Option<DgtPiece>) {
        let Some(slot) = self.raw.get_mut(usize::from(field)) else {
            return;
        };
        if *slot == piece {
            return;
        }
        *slot = piece;
        self.last_change = now_ms;
        if self.seen {
            self.evaluate(now_ms);
        }
    }

    /// Feed a decoded board message; messages other than dumps and field updates are ignored.
    pub fn on_message(&mut self, now_ms: u64, message: &Message) {
        match message {
            Message::BoardDump(b) => self.on_board_dump(now_ms, &b.fields),
            Message::FieldUpdate { square, piece } => {
                self.on_field_update(now_ms, square.field(), *piece)
            }
            _ => {}
        }
    }

    /// When to call [`Tracker::handle_timeout`] next (a board waiting to settle).
    pub fn poll_timeout(&self) -> Option<u64> {
        (matches!(self.state, BoardState::Unexplained { .. }) && !self.reported)
            .then(|| self.last_change.saturating_add(self.cfg.settle_ms))
    }

    /// Time passed: a board unexplained for the settle time is looked at once more and reported.
    pub fn handle_timeout(&mut self, now_ms: u64) {
        if now_ms >= self.last_change.saturating_add(self.cfg.settle_ms) {
            self.settle(now_ms, false);
        }
    }

    /// The input has ended (a replay's end): settle whatever the board shows now.
    pub fn finish(&mut self, now_ms: u64) {
        self.settle(now_ms, true);
    }

    /// The next event, oldest first.
    pub fn poll_event(&mut self) -> Option<GameEvent> {
        self.events.pop_front()
    }

    /// What the board shows relative to the game.
    pub fn state(&self) -> &BoardState {
        &self.state
    }

    /// The orientation, once detected.
    pub fn orientation(&self) -> Option<Orientation> {
        self.orientation
    }

    /// The moves of the current game.
    pub fn moves(&self) -> &[PlayedMove] {
        &self.moves
    }

    /// The game's positions since its start, oldest first (empty before a start position was
    /// seen): what the laws say ([`crate::laws`]).
    pub fn positions(&self) -> &[Chess] {
        &self.positions
    }

    /// The game's current position (`None` before a start position was seen).
    pub fn position(&self) -> Option<&Chess> {
        self.positions.last()
    }

    /// The game's current position as FEN.
    pub fn fen(&self) -> Option<String> {
        self.position().map(fen)
    }

    /// The raw fields as last reported.
    pub fn fields(&self) -> &RawFields {
        &self.raw
    }

    fn emit(&mut self, e: GameEvent) {
        self.events.push_back(e);
    }

    fn explained(&mut self, now: u64) {
        if self.reported {
            self.reported = false;
            self.reported_diff.clear();
            self.emit(GameEvent::Explained { at_ms: now });
        }
    }

    fn evaluate(&mut self, now: u64) {
        let start = self.start();
        let (Some(o), Some(cur)) = (self.orientation, self.positions.last().cloned()) else {
            if let Some((o, pos)) = start {
                self.new_game(now, o, pos);
            }
            return;
        };
        if !self.awaiting
            && let Some((result, signal)) = signalled_result(&self.raw, o)
        {
            match (&self.state, signal) {
                (BoardState::Finished(shown), _) if *shown == result => {}
                // Both kings in the centre may also be a king set down on its way beside the
                // other: the signal must stand for the settle time (`settle`).
                (BoardState::Finished(_), _) | (_, ResultSignal::MagicPiece) => {
                    self.end_game(now, now, result, signal);
                }
                (_, ResultSignal::KingsInCentre) => {
                    let board = placement(&self.raw, o);
                    self.state = BoardState::Unexplained {
                        differences: differences(cur.board(), &board),
                    };
                }
            }
            return;
        }
        if matches!(self.state, BoardState::Finished(_)) {
            if let Some((o, pos)) = start {
                self.new_game(now, o, pos);
            }
            return;
        }
        let board = placement(&self.raw, o);
        if board == *cur.board() {
            self.held = None;
            self.awaiting = false;
            self.explained(now);
            self.state = BoardState::Synced;
            return;
        }
        if self.awaiting || self.held.as_ref() == Some(&board) {
            self.state = BoardState::Unexplained {
                differences: differences(cur.board(), &board),
            };
            return;
        }
        if let Some(m) = unique_child(&cur, &board, None) {
            self.explained(now);
            self.push_move(now, &cur, m, None);
            return;
        }
        let n = self.moves.len();
        if let (Some(last), Some(prev)) = (
            self.moves.last().cloned(),
            n.checked_sub(1)
                .and_then(|i| self.positions.get(i))
                .cloned(),
        ) && let Some(m) = unique_child(&prev, &board, Some(last.mv))
        {
            self.explained(now);
            self.moves.pop();
            self.positions.pop();
            self.push_move(now, &prev, m, Some(last.event.san));
            return;
        }
        // A jump out of the game's line that only the side to move's pieces made may be that
        // side's move half made (a piece set down on a wrong square that happens to be where it
        // stood earlier): it waits for the board to settle.
        if !only_pieces_of(cur.turn(), cur.board(), &board)
            && let Some(jump) = self.jump_target(start, &board)
        {
            self.jump(now, jump);
            return;
        }
        let cur_board = cur.board();
        let in_air = board.occupied().is_subset(cur_board.occupied())
            && board
                .iter()
                .all(|(sq, p)| cur_board.piece_at(sq) == Some(p));
        self.state = if in_air {
            BoardState::PiecesInAir {
                lifted: (cur_board.occupied() & !board.occupied())
                    .into_iter()
                    .collect(),
            }
        } else {
            BoardState::Unexplained {
                differences: differences(cur_board, &board),
            }
        };
    }

    /// The board has stood unchanged: try a new game or takeback that waited, then a two-ply
    /// sequence (one update lost), then report.
    /// `force`: the input has ended, a waiting new game or takeback is accepted now.
    fn settle(&mut self, now: u64, force: bool) {
        if let Some(o) = self.orientation
            && !self.awaiting
            && !matches!(self.state, BoardState::Finished(_))
            && let Some((result, signal)) = signalled_result(&self.raw, o)
        {
            if force || now >= self.last_change.saturating_add(self.cfg.settle_ms) {
                self.end_game(now, self.last_change, result, signal);
            }
            return;
        }
        let (BoardState::Unexplained { differences }, Some(o), Some(cur)) = (
            &self.state,
            self.orientation,
            self.positions.last().cloned(),
        ) else {
            return;
        };
        let differences = differences.clone();
        let board = placement(&self.raw, o);
        let start = self.start();
        // The board a correction left is reported, never read as a move or a jump; nor is a
        // board that has yet to show the game's position.
        let held = self.awaiting || self.held.as_ref() == Some(&board);
        if !held && let Some(jump) = self.jump_target(start, &board) {
            // Only time tells a jump from a move half made (a dump comes 0.25 s after a move).
            if force || now >= self.last_change.saturating_add(self.cfg.settle_ms) {
                self.jump(now, jump);
            }
            return;
        }
        let mut found = Vec::new();
        for m in cur.legal_moves().into_iter().filter(|_| !held) {
            let mut next = cur.clone();
            next.play_unchecked(m);
            if let Some(reply) = unique_child(&next, &board, None) {
                found.push((m, next, reply));
            }
        }
        if let [(m, next, reply)] = found.as_slice() {
            let (m, next, reply) = (*m, next.clone(), *reply);
            self.explained(now);
            self.push_move(now, &cur, m, None);
            self.push_move(now, &next, reply, None);
            return;
        }
        if !self.reported || self.reported_diff != differences {
            self.reported = true;
            self.reported_diff = differences.clone();
            self.emit(GameEvent::Unexplained {
                ply: u32::try_from(self.moves.len()).unwrap_or(u32::MAX),
                differences,
                at_ms: now,
            });
        }
    }

    /// Rules 4 and 5: the start position is a new game, a position earlier in the game a
    /// takeback to there.
    fn jump_target(&self, start: Option<(Orientation, Chess)>, board: &Board) -> Option<Jump> {
        if let Some((o, pos)) = start {
            return Some(Jump::NewGame(o, pos));
        }
        let n = self.moves.len();
        (1..=n)
            .find(|k| {
                self.positions
                    .get(n - k)
                    .is_some_and(|p| p.board() == board)
            })
            .map(Jump::Takeback)
    }

    /// The board shows `result` by `signal` since `since`: the game is finished at `now`.
    fn end_game(&mut self, now: u64, since: u64, result: GameResult, signal: ResultSignal) {
        if signal == ResultSignal::KingsInCentre {
            self.drop_trailing_king_move(since);
        }
        self.explained(now);
        self.state = BoardState::Finished(result);
        self.emit(GameEvent::Result {
            result,
            signal,
            at_ms: now,
        });
    }

    /// The kings-in-the-centre signal completed within the settle time of a king move to a
    /// centre square: that move was the first king set down for the signal, not a move of the
    /// game (lila #11783). It is taken back before the result.
    fn drop_trailing_king_move(&mut self, now: u64) {
        let centre = [Square::D4, Square::E4, Square::D5, Square::E5];
        let Some(last) = self.moves.last() else {
            return;
        };
        let trailing = last.mv.role() == Role::King
            && centre.contains(&last.mv.to())
            && now <= last.event.at_ms.saturating_add(self.cfg.settle_ms);
        if !trailing {
            return;
        }
        self.moves.pop();
        self.positions.pop();
        let fen = self.fen().unwrap_or_default();
        self.emit(GameEvent::Takeback {
            plies: 1,
            to_ply: u32::try_from(self.moves.len()).unwrap_or(u32::MAX),
            fen,
            at_ms: now,
        });
    }

    fn jump(&mut self, now: u64, jump: Jump) {
        let k = match jump {
            Jump::NewGame(o, pos) => return self.new_game(now, o, pos),
            Jump::Takeback(k) => k,
        };
        self.held = None;
        let n = self.moves.len();
        self.explained(now);
        self.positions.truncate(n - k + 1);
        self.moves.truncate(n - k);
        self.state = BoardState::Synced;
        let fen = self.fen().unwrap_or_default();
        self.emit(GameEvent::Takeback {
            plies: u32::try_from(k).unwrap_or(u32::MAX),
            to_ply: u32::try_from(n - k).unwrap_or(u32::MAX),
            fen,
            at_ms: now,
        });
    }

    fn push_move(&mut self, now: u64, before: &Chess, m: Move, corrects: Option<String>) {
        let san = SanPlus::from_move(before.clone(), m).to_string();
        let mut after = before.clone();
        after.play_unchecked(m);
        let event = MoveEvent {
            ply: u32::try_from(self.moves.len() + 1).unwrap_or(u32::MAX),
            san,
            uci: m.to_uci(before.castles().mode()).to_string(),
            fen: fen(&after),
            color: before.turn(),
            at_ms: now,
            corrects,
        };
        self.held = None;
        self.positions.push(after);
        self.moves.push(PlayedMove {
            mv: m,
            event: event.clone(),
        });
        self.state = BoardState::Synced;
        self.emit(GameEvent::Move(event));
    }
}

/// A board that leaves the game's line (rules 4 and 5).
#[derive(Debug, Clone)]
enum Jump {
    /// A start position (standard or Chess960), in this orientation: a new game.
    NewGame(Orientation, Chess),
    /// The position this many plies back: a takeback.
    Takeback(usize),
}

/// The position as FEN (en passant square only where a capture is legal).
pub fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// The one legal move from `pos` that leads to `board` (other than `except`), if exactly one.
fn unique_child(pos: &Chess, board: &Board, except: Option<Move>) -> Option<Move> {
    let mut found = None;
    for m in pos.legal_moves() {
        if Some(m) == except {
            continue;
        }
        let mut next = pos.clone();
        next.play_unchecked(m);
        if next.board() == board {
            if found.is_some() {
                return None;
            }
            found = Some(m);
        }
    }
    found
}

/// Whether every square where `found` differs from `expected` held and holds nothing but
/// pieces of `color` (the other side's pieces all stand as expected).
fn only_pieces_of(color: Color, expected: &Board, found: &Board) -> bool {
    shakmaty::Square::ALL.into_iter().all(|sq| {
        let (e, f) = (expected.piece_at(sq), found.piece_at(sq));
        e == f || [e, f].into_iter().flatten().all(|p| p.color == color)
    })
}

fn differences(expected: &Board, found: &Board) -> Vec<Difference> {
    shakmaty::Square::ALL
        .into_iter()
        .filter(|sq| expected.piece_at(*sq) != found.piece_at(*sq))
        .map(|square| Difference {
            square,
            expected: expected.piece_at(square),
            found: found.piece_at(square),
        })
        .collect()
}

/// Who moves in a position (re-exported for callers that keep colours).
pub fn side_to_move(pos: &Chess) -> Color {
    pos.turn()
}
