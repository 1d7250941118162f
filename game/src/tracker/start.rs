//! Where the tracker's game begins: a start position on the board (the standard one, or a
//! Chess960 one: a new game), or a position the operator set ([`super::correct`]).
//!
//! Owns the new game's events (`NewGame`, then `SetUp` unless it is the standard start); it
//! must not judge moves (the tracker's) nor do IO.

use chessclock_protocol::Orientation;
use shakmaty::{CastlingMode, Chess, Position};

use super::{Tracker, fen};
use crate::event::{BoardState, GameEvent};
use crate::placement::{chess960_start, start_orientation};

impl Tracker {
    pub(super) fn new_game(&mut self, now: u64, o: Orientation, start: Chess) {
        self.held = None;
        let fresh = self.positions.len() == 1
            && self.positions.first() == Some(&start)
            && !matches!(self.state, BoardState::Finished(_));
        if self.orientation != Some(o) {
            self.orientation = Some(o);
            self.emit(GameEvent::Orientation(o));
        } else if fresh {
            self.explained(now);
            self.state = BoardState::Synced;
            return;
        }
        self.explained(now);
        self.begin(now, start);
    }

    /// The game begins from `start` (a new game or a position set): `NewGame`, then `SetUp`
    /// unless it is the standard start.
    pub(super) fn begin(&mut self, now: u64, start: Chess) {
        let standard = start == Chess::default();
        let setup = (!standard).then(|| GameEvent::SetUp {
            fen: fen(&start),
            chess960: start.castles().mode() == CastlingMode::Chess960,
            at_ms: now,
        });
        self.positions = vec![start];
        self.moves.clear();
        self.state = BoardState::Synced;
        self.emit(GameEvent::NewGame { at_ms: now });
        if let Some(e) = setup {
            self.emit(e);
        }
    }

    /// The start position the raw fields show (standard or Chess960), in an orientation the
    /// configuration allows.
    pub(super) fn start(&self) -> Option<(Orientation, Chess)> {
        let allowed = |o: &Orientation| self.cfg.orientation.is_none_or(|f| f == *o);
        if let Some(o) = start_orientation(&self.raw).filter(allowed) {
            return Some((o, Chess::default()));
        }
        chess960_start(&self.raw).filter(|(o, _)| allowed(o))
    }
}
