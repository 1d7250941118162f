//! The owned parts a [`Session`](super::Session) is built from, as quinn-proto's
//! `Connection` is built from its sub-states: each holds the fields of one concern with the
//! invariant that binds them, kept by the part's own methods (unit-tested in
//! `parts/tests.rs`). The session's methods (spread by role over its files) act on them; a
//! part never reaches into another.
//!
//! Data and invariants only: no IO, no clock reads, no rules of the game.

use std::collections::VecDeque;

use chessclock_game::pgn::GameInfo;
use chessclock_game::{BoardGame, GameLog};

use super::DeviceInfo;
use super::announce::Announcement;
use crate::link::driver::Instant;
use crate::session::interface::{ClockEvent, ClockState};
use chessclock_engine::{BoardClaim, Side, Time};

/// The session's time line: engine time is the driver's instant plus `offset_ms`.
/// Invariant: `now` is the latest instant passed in, and never goes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Timeline {
    /// Engine time at the driver's epoch (non-zero for a game resumed from the journal).
    offset_ms: u64,
    /// The latest `now` passed in.
    now: Instant,
}

impl Timeline {
    /// A time line whose driver epoch is engine time `offset_ms`.
    pub(crate) fn starting_at(offset_ms: u64) -> Timeline {
        Timeline {
            offset_ms,
            now: Instant::ZERO,
        }
    }

    /// A wake-up at `now`; an earlier instant than one passed before changes nothing.
    pub(crate) fn advance(&mut self, now: Instant) {
        self.now = self.now.max(now);
    }

    /// The latest instant passed in.
    pub(crate) fn now(&self) -> Instant {
        self.now
    }

    /// Engine time at `at`.
    pub(crate) fn engine_time(&self, at: Instant) -> Time {
        Time::from_ms(at.as_ms().saturating_add(self.offset_ms))
    }

    /// The instant of engine time `t` (the driver's epoch for a time before it).
    pub(crate) fn instant_of(&self, t: Time) -> Instant {
        Instant::from_epoch(std::time::Duration::from_millis(
            t.as_ms().saturating_sub(self.offset_ms),
        ))
    }
}

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
    /// ([`LiveFeed`]).
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

/// What the session knows of the clock's lever against the engine's player to move.
/// Invariant: at most one of `resumed` and `restarted` is set, and only until the first
/// clock report after the game came back from the journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Lever {
    /// The lever's raised end agreed with the engine's player to move at the last clock
    /// report of a running game, or after the last input that set a clock running (a press
    /// over the bus leaves the lever where it was): a disagreement at the first report after
    /// a reconnect or a restart is a press the host could not hear.
    agreed: bool,
    /// The next clock report is the first since the port was opened.
    unchecked: bool,
    /// A running game resumed from the journal, its lever not seen yet: whether it was in
    /// step before the daemon stopped is not known.
    resumed: bool,
    /// A running game resumed from the journal whose lever was in step: a disagreement at
    /// the first report is a press made while the daemon was not running.
    restarted: bool,
    /// What the journal last said of the lever ([`super::note::Note::Lever`]).
    journaled: Option<bool>,
}

/// What a clock report's lever means for a game in drive mode ([`Lever::verdict`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LeverVerdict {
    /// The lever shows the player whose time runs (or no clock runs).
    InStep,
    /// Out of step, and nothing to say: not the first report, or it was out of step before.
    OutOfStep,
    /// The first report after a replug (`restarted`: after a restart of the daemon) shows
    /// the other player to move while the lever was in step before: a press nobody heard,
    /// to be taken now.
    UnheardPress {
        /// After a restart of the daemon, not a replug.
        restarted: bool,
    },
    /// The first report of a game resumed from a journal that did not say the lever was in
    /// step: a press may have been made while the daemon was down; the operator decides.
    Unknown,
}

impl Lever {
    /// The lever of a game that is `resumed` from the journal running (its lever not seen
    /// yet), or not.
    pub(crate) fn resuming(resumed: bool) -> Lever {
        Lever {
            resumed,
            ..Lever::default()
        }
    }

    /// The port opened: the next clock report is the first since.
    pub(crate) fn connected(&mut self) {
        self.unchecked = true;
    }

    /// An input set a clock running with the lever `agreed` with it or not, journaled now.
    pub(crate) fn noted(&mut self, agreed: bool) {
        self.agreed = agreed;
        self.journaled = Some(agreed);
    }

    /// A press the lever showed was taken: the lever is in step.
    pub(crate) fn press_taken(&mut self) {
        self.agreed = true;
    }

    /// A new journal (a new game): it has said nothing of the lever yet.
    pub(crate) fn new_journal(&mut self) {
        self.journaled = None;
    }

    /// The halves now mean other players: in step again only once a report says, and the
    /// journal must say it anew.
    pub(crate) fn sides_swapped(&mut self) {
        self.agreed = false;
        self.journaled = None;
    }

    /// Judge the lever of a clock report: `shown`, the player the raised end says is to
    /// move; `runner`, the player whose time runs (`None` when no clock runs). The first
    /// report since the port opened, or since a resume, is judged once.
    pub(crate) fn verdict(&mut self, shown: Side, runner: Option<Side>) -> LeverVerdict {
        let first = std::mem::take(&mut self.unchecked);
        let restarted = std::mem::take(&mut self.restarted);
        let resumed = std::mem::take(&mut self.resumed);
        let Some(turn) = runner else {
            self.agreed = false;
            return LeverVerdict::InStep;
        };
        if shown == turn {
            self.agreed = true;
            return LeverVerdict::InStep;
        }
        let was_in_step = std::mem::replace(&mut self.agreed, false);
        match (first, resumed, was_in_step) {
            (false, _, _) => LeverVerdict::OutOfStep,
            (true, true, _) => LeverVerdict::Unknown,
            (true, false, false) => LeverVerdict::OutOfStep,
            (true, false, true) => LeverVerdict::UnheardPress { restarted },
        }
    }

    /// The agreement to journal, when it changed since it was last journaled.
    pub(crate) fn journal_due(&mut self) -> Option<bool> {
        (self.journaled != Some(self.agreed)).then(|| {
            self.journaled = Some(self.agreed);
            self.agreed
        })
    }

    /// The lever is a new board's, not the one the game was played on: whatever its first
    /// report shows, no press is taken and nothing is said (out of step until it agrees).
    pub(crate) fn new_board(&mut self) {
        self.resumed = false;
        self.restarted = false;
        self.agreed = false;
    }

    /// A running game resumed from a journal that says the lever was in step: its first
    /// report is judged as after a replug.
    pub(crate) fn resume_in_step(&mut self) {
        if self.resumed {
            self.resumed = false;
            self.restarted = true;
            self.agreed = true;
            self.journaled = Some(true);
        }
    }
}

/// What the clock's display still has to be given. Invariant: `refresh` implies a push
/// although the shown values did not change; `dirty` that they did; one push answers both
/// ([`DisplayWork::take_push`]); at most [`MAX_ANNOUNCEMENTS`] wait.
#[derive(Debug, Default)]
pub(crate) struct DisplayWork {
    /// Game events to show as text, one after another, once the times have been pushed.
    announcements: VecDeque<Announcement>,
    /// The display must be pushed (the game changed).
    dirty: bool,
    /// The display must be pushed again although nothing changed (a re-sync instant, the
    /// clock became usable, text ended).
    refresh: bool,
}

/// Game events waiting to be shown as text, at most.
const MAX_ANNOUNCEMENTS: usize = 3;

impl DisplayWork {
    /// The game changed: push the display.
    pub(crate) fn changed(&mut self) {
        self.dirty = true;
    }

    /// Push the display again although nothing changed.
    pub(crate) fn refresh(&mut self) {
        self.refresh = true;
    }

    /// Whether the game changed since the last push.
    pub(crate) fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// The next game event to show as text.
    pub(crate) fn next_announcement(&mut self) -> Option<Announcement> {
        self.announcements.pop_front()
    }

    /// Forget the game events waiting (nothing can show them).
    pub(crate) fn clear_announcements(&mut self) {
        self.announcements.clear();
    }

    /// Queue `a` to be shown; only the latest few are kept (a backlog of stale news helps
    /// nobody).
    pub(crate) fn announce(&mut self, a: Announcement) {
        if self.announcements.len() == MAX_ANNOUNCEMENTS {
            self.announcements.pop_front();
        }
        self.announcements.push_back(a);
    }

    /// Whether the times are to be pushed now (`differs`: the device would show other
    /// times by its own countdown); a push answers both the change and the refresh.
    pub(crate) fn take_push(&mut self, differs: bool) -> bool {
        let push = self.dirty || self.refresh || differs;
        if push {
            self.dirty = false;
            self.refresh = false;
        }
        push
    }
}

/// The published state and the facts of the clock the game does not hold. Invariant:
/// `changed` is set by every change that is not the running time, so the next publish
/// sends it.
#[derive(Debug)]
pub(crate) struct Published {
    /// As of the latest publish; it holds the clock's facts the game does not (name,
    /// control, notices, connection). No engine in it.
    state: ClockState,
    /// Something besides the running time changed since the last publish.
    changed: bool,
    /// The device as the link knows it.
    info: DeviceInfo,
    /// The serial number of the board this game is played on, as the journal knows it.
    journal_serial: Option<String>,
}

/// The life of the game's record: when it started, the round it was played in, and whether
/// it is due. Invariant: a record starts only with the wall time passed in (a clock that
/// keeps no record is given none), `played_round` is the clock's round at that start, and a
/// result makes the record due once.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct GameRecordPart {
    /// Wall time (Unix ms) of the latest wake-up, passed in by a caller that keeps the
    /// game's record (a journaled clock); `None`: no record is kept.
    wall_ms: Option<u64>,
    /// When the game's clock started (wall time, its PGN `Date`).
    started_wall_ms: Option<u64>,
    /// The round the game was played in: the clock's round when its record started (a
    /// roll-over moves the clock on before the last game's record is written).
    played_round: Option<u32>,
    /// The game ended (a result, an observed game's too): its record is due once the
    /// events said with the result are out.
    ended: bool,
    /// The game's id (its PGN `GameId`) and how the next is made (`record.rs`).
    ids: super::record::GameIds,
}

impl GameRecordPart {
    /// Wall time (Unix ms) of the wake-up about to be handled; `None`: no record is kept.
    pub(crate) fn set_wall_ms(&mut self, wall_ms: Option<u64>) {
        self.wall_ms = wall_ms;
    }

    /// When the game's clock started (wall time), if it did.
    pub(crate) fn started_wall_ms(&self) -> Option<u64> {
        self.started_wall_ms
    }

    /// The game's ids.
    pub(crate) fn ids(&self) -> &super::record::GameIds {
        &self.ids
    }

    pub(crate) fn ids_mut(&mut self) -> &mut super::record::GameIds {
        &mut self.ids
    }

    /// The round the game was played in, if its record started.
    pub(crate) fn played_round(&self) -> Option<u32> {
        self.played_round
    }

    /// A bus event was said while the clock was in `round`: a start begins the record (at
    /// the wake-up's wall time), a result makes it due. Whether the start's date changed.
    pub(crate) fn said(&mut self, event: &ClockEvent, round: Option<u32>) -> bool {
        let Some(wall_ms) = self.wall_ms else {
            return false;
        };
        self.ended |= matches!(event, ClockEvent::Result { .. });
        if self.started_wall_ms.is_some() || !GameLog::starts(event) {
            return false;
        }
        self.started_wall_ms = Some(wall_ms);
        self.played_round = round;
        true
    }

    /// A game resumed from the journal, started at `started_wall_ms` in `round`.
    pub(crate) fn resume(&mut self, started_wall_ms: u64, round: Option<u32>) {
        self.started_wall_ms = Some(started_wall_ms);
        self.played_round = round;
    }

    /// A new game: the last one's record is done; the next starts with its clock.
    pub(crate) fn clear(&mut self) {
        self.started_wall_ms = None;
        self.played_round = None;
    }

    /// Whether the ended game's record is due now (once).
    pub(crate) fn take_ended(&mut self) -> bool {
        std::mem::take(&mut self.ended)
    }
}

impl Published {
    /// The state `state` of a game played on board `journal_serial` (as the journal says),
    /// to be published. Until the board says otherwise, the clock is that board (the
    /// supervisor knows it by that serial number).
    pub(crate) fn new(state: ClockState, journal_serial: Option<String>) -> Published {
        Published {
            state,
            changed: true,
            info: DeviceInfo {
                board_serial: journal_serial.clone().unwrap_or_default(),
                ..DeviceInfo::default()
            },
            journal_serial,
        }
    }

    /// The state as of the latest publish, with the facts kept since.
    pub(crate) fn state(&self) -> &ClockState {
        &self.state
    }

    /// The state to edit: whatever differs from the last publish besides the running
    /// times is published (the publish compares); [`Published::mark_changed`] publishes
    /// even what compares equal.
    pub(crate) fn state_mut(&mut self) -> &mut ClockState {
        &mut self.state
    }

    /// Publish the next state whatever it holds (an event happened).
    pub(crate) fn mark_changed(&mut self) {
        self.changed = true;
    }

    /// The clock's battery is low, or not.
    pub(crate) fn set_battery_low(&mut self, low: bool) {
        self.info.battery_low = low;
    }

    /// The clock's model and firmware, as the link read them.
    pub(crate) fn set_device(&mut self, model: String, firmware: String) {
        if self.info.model != model || self.info.firmware != firmware {
            self.info.model = model;
            self.info.firmware = firmware;
            self.changed = true;
        }
    }

    /// The board on the port said its serial number.
    pub(crate) fn set_board_serial(&mut self, serial: &str) {
        if self.info.board_serial != serial {
            self.info.board_serial = serial.to_owned();
            self.changed = true;
        }
    }

    /// The board this game is played on, as the journal knows it.
    pub(crate) fn journal_serial(&self) -> Option<&str> {
        self.journal_serial.as_deref()
    }

    /// The game is played on board `serial` from now on (the journal says so).
    pub(crate) fn played_on(&mut self, serial: String) {
        self.journal_serial = Some(serial);
    }

    /// The device's facts into the state, before a publish.
    pub(crate) fn sync_info(&mut self) {
        let (info, state) = (&self.info, &mut self.state);
        if state.model != info.model {
            state.model.clone_from(&info.model);
        }
        if state.firmware != info.firmware {
            state.firmware.clone_from(&info.firmware);
        }
        if state.board_serial != info.board_serial {
            state.board_serial.clone_from(&info.board_serial);
        }
        state.battery_low = info.battery_low;
    }

    /// Tell the operator `notice` (published with the next state).
    pub(crate) fn notice(&mut self, notice: String) {
        self.state.notices.push(notice);
        self.changed = true;
    }

    /// Whether something besides the running time changed since the last call.
    pub(crate) fn take_changed(&mut self) -> bool {
        std::mem::take(&mut self.changed)
    }
}

/// Where the game's live PGN file was last written, and whether it must be written again.
/// Invariant: a file is written once the game deserves one and then follows its game (a
/// board renumbered within its round leaves no file under the old number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct LiveFeed {
    /// The game's PGN changed since the file was last written.
    due: bool,
    /// The place (round, board) it was last written at.
    at: Option<(u32, u32)>,
}

impl LiveFeed {
    /// The game's PGN changed: the file is due.
    pub(crate) fn changed(&mut self) {
        self.due = true;
    }

    /// Whether the file is due (once).
    pub(crate) fn take_due(&mut self) -> bool {
        std::mem::take(&mut self.due)
    }

    /// Whether the file was written at `at` already.
    pub(crate) fn written_at(&self, at: (u32, u32)) -> bool {
        self.at == Some(at)
    }

    /// The file is written at `at` now: the board number of the same round's file it
    /// replaces, if the board was renumbered.
    pub(crate) fn write_at(&mut self, at: (u32, u32)) -> Option<u32> {
        let before = self.at.replace(at)?;
        (before.0 == at.0 && before.1 != at.1).then_some(before.1)
    }
}

#[cfg(test)]
mod tests;
