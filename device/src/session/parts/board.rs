//! The board's part: the game read from its pieces, the facts its PGN is built from (tags,
//! place, date), the board-watching flags (reconcile, memory, awaited pieces) and a press
//! without a move. It keeps its flags' invariants; it does not read pieces or publish.

use chessclock_game::BoardGame;
use chessclock_game::pgn::GameInfo;

use crate::link::driver::Instant;
use chessclock_engine::{BoardClaim, Side};

/// The game read from the board's pieces and what is derived from it for the published
/// state. Invariant: `stale` is set whenever `game` changes ([`BoardPart::changed`]), so the published view
/// (moves, position, last move, draws claimable) is rebuilt before it is next published.
#[derive(Debug, Default)]
pub(crate) struct BoardPart {
    /// Board messages in, the game with its clock times out.
    game: BoardGame,
    /// The tags every game carries unless its game information sets them (`Event`, `Site`:
    /// the daemon's settings).
    tag_defaults: GameInfo,
    /// The round and the board number the clock is (`Round "R.B"`, `Board "B"` unless the
    /// game information names them; the live file's place).
    place: Option<(u32, u32)>,
    /// The PGN `Date` of the game's start, passed in (the session reads no clock).
    date: Option<String>,
    /// A game rebuilt from the journal whose pieces have not been read since: the first
    /// board report is reconciled with it (moves made while the daemon was down are read
    /// as moves, and said).
    reconciling: bool,
    /// The link is new (a restart, a reopened port) while a game is under way: if its first
    /// board dump is unexplained, the board's own memory is asked (`board_log.rs`).
    memory_due: bool,
    /// The board on the port is not the one the game was played on (a spare swapped in):
    /// its pieces are not read until they show the game's position.
    awaiting: bool,
    /// The game (moves, information, result) changed since the live file last heard
    /// ([`LiveFeed`](super::LiveFeed)).
    pgn_changed: bool,
    /// The game changed since the published state's view of it was built.
    stale: bool,
    /// The draws the board's position lets the player to move claim, as of the last view.
    claimable: Vec<BoardClaim>,
    /// The last press that found no move of its side on the board to time (a press
    /// without a move, or one the board missed): said as the board's problem from `due` on,
    /// while it still waits for its move.
    unmoved_press: Option<UnmovedPress>,
}

/// A press without a move on the board ([`BoardPart::unmoved_press`]). Invariant: said once,
/// at `due` or later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UnmovedPress {
    /// Who pressed.
    side: Side,
    /// When it is said, unless the move is read first.
    due: Instant,
    /// It is due: the published view says it while it waits.
    said: bool,
}

impl UnmovedPress {
    /// `side` pressed without a move; said from `due` on.
    pub(crate) fn new(side: Side, due: Instant) -> UnmovedPress {
        UnmovedPress {
            side,
            due,
            said: false,
        }
    }

    /// When it is to be said, unless it was.
    pub(crate) fn due(&self) -> Option<Instant> {
        (!self.said).then_some(self.due)
    }

    /// Whether it is said from `now` on (once).
    pub(crate) fn take_due(&mut self, now: Instant) -> bool {
        let due = !self.said && self.due <= now;
        self.said |= due;
        due
    }

    /// Who pressed, once it is said.
    pub(crate) fn said_of(&self) -> Option<Side> {
        self.said.then_some(self.side)
    }
}

impl BoardPart {
    /// The board's game.
    pub(crate) fn game(&self) -> &BoardGame {
        &self.game
    }

    /// The board's game, to act on; what changes in it is journaled and said through its
    /// own changes (`poll_change`), and [`BoardPart::changed`] marks the PGN.
    pub(crate) fn game_mut(&mut self) -> &mut BoardGame {
        &mut self.game
    }

    /// A board part whose published view is still to be built.
    pub(crate) fn new() -> BoardPart {
        BoardPart {
            stale: true,
            ..BoardPart::default()
        }
    }

    /// The game (moves, information, result) changed: its PGN is rewritten and its
    /// published view rebuilt.
    pub(crate) fn changed(&mut self) {
        self.pgn_changed = true;
        self.stale = true;
    }

    /// What the published view says of the game changed, not the game (its PGN stays).
    pub(crate) fn view_changed(&mut self) {
        self.stale = true;
    }

    /// The rebuilt game is reconciled with the pieces at the next board dump.
    pub(crate) fn reconcile_at_next_dump(&mut self) {
        self.reconciling = true;
    }

    /// The board on the port is another than the game's (a spare): nothing it shows is
    /// read until its pieces show the game's position; no reconciling meanwhile.
    pub(crate) fn await_pieces(&mut self) {
        self.reconciling = false;
        self.memory_due = false;
        self.awaiting = true;
        self.game.await_position();
        self.changed();
    }

    /// Whether the board's pieces are awaited.
    pub(crate) fn awaiting(&self) -> bool {
        self.awaiting
    }

    /// Whether the awaited pieces show the game's position now (once): the board is the
    /// game's from then on.
    pub(crate) fn take_pieces_shown(&mut self) -> bool {
        let shown = self.awaiting && !self.game.tracker().awaits_position();
        if shown {
            self.awaiting = false;
        }
        shown
    }

    /// The next board dump is a new link's first: the board's memory may explain it.
    pub(crate) fn memory_at_next_dump(&mut self) {
        self.memory_due = true;
    }

    /// Whether a board dump now is a new link's first (once).
    pub(crate) fn take_memory_due(&mut self) -> bool {
        std::mem::take(&mut self.memory_due)
    }

    /// Whether a board dump now is the one to reconcile the rebuilt game with (once).
    pub(crate) fn take_reconciling(&mut self) -> bool {
        std::mem::take(&mut self.reconciling)
    }

    /// The draws the position lets the player to move claim, as of the last view.
    pub(crate) fn claimable(&self) -> &[BoardClaim] {
        &self.claimable
    }

    pub(crate) fn set_claimable(&mut self, claimable: Vec<BoardClaim>) {
        self.claimable = claimable;
    }

    /// The tags every game carries unless its information sets them.
    pub(crate) fn tag_defaults(&self) -> &GameInfo {
        &self.tag_defaults
    }

    /// New default tags; whether they changed (the game's PGN did then).
    pub(crate) fn set_tag_defaults(&mut self, defaults: GameInfo) -> bool {
        let changed = defaults != self.tag_defaults;
        if changed {
            self.tag_defaults = defaults;
            self.changed();
        }
        changed
    }

    /// The clock's round and board number, if the supervisor said.
    pub(crate) fn place(&self) -> Option<(u32, u32)> {
        self.place
    }

    /// The clock is board `board` of round `round`; whether that changed (the game's PGN
    /// did then).
    pub(crate) fn set_place(&mut self, round: u32, board: u32) -> bool {
        let changed = self.place != Some((round, board));
        if changed {
            self.place = Some((round, board));
            self.changed();
        }
        changed
    }

    /// The PGN `Date` of the game's start.
    pub(crate) fn date(&self) -> Option<&str> {
        self.date.as_deref()
    }

    /// The game's start's date (`None`: not started); the PGN changes with it.
    pub(crate) fn set_date(&mut self, date: Option<String>) {
        if self.date != date {
            self.date = date;
            self.changed();
        }
    }

    /// `side` pressed and no move of its is on the board: said from `due` on.
    pub(crate) fn press_unmoved(&mut self, side: Side, due: Instant) {
        self.unmoved_press = Some(UnmovedPress::new(side, due));
    }

    /// When a press without its move is to be said, if one waits.
    pub(crate) fn unmoved_due(&self) -> Option<Instant> {
        self.unmoved_press.and_then(|u| u.due())
    }

    /// Whether a press without its move is said from `now` on (once): the view says it.
    pub(crate) fn take_unmoved_due(&mut self, now: Instant) -> bool {
        let due = self.unmoved_press.as_mut().is_some_and(|u| u.take_due(now));
        if due {
            self.view_changed();
        }
        due
    }

    /// Who pressed without a move, once that is said.
    pub(crate) fn unmoved_said_of(&self) -> Option<Side> {
        self.unmoved_press?.said_of()
    }

    /// Whether the published view must be rebuilt (once).
    pub(crate) fn take_stale(&mut self) -> bool {
        std::mem::take(&mut self.stale)
    }

    /// Whether the PGN changed since the last call.
    pub(crate) fn take_pgn_changed(&mut self) -> bool {
        std::mem::take(&mut self.pgn_changed)
    }
}

#[cfg(test)]
mod tests {
    use super::BoardPart;

    #[test]
    fn a_change_of_the_board_s_game_marks_its_pgn_and_its_view_once_each() {
        let mut board = BoardPart::default();
        board.changed();
        assert!(board.take_stale());
        assert!(!board.take_stale(), "rebuilt once");
        assert!(board.take_pgn_changed());
        assert!(!board.take_pgn_changed(), "written once");
    }
}
