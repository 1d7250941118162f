//! The game over the board link, as one pure state machine: the board [`Driver`] (the link)
//! and above it the game: lever → engine, engine → display pushes and announcements, the
//! clock's buttons, observe mode, and the board's pieces (the `game` crate's `BoardGame`).
//!
//! Same sans-IO interface as quinn-proto's `Connection`, and the whole of it for the IO
//! shell: it is built by [`Session::resume`] (the config and what the journal restored); the
//! shell passes `now` in, feeds bytes to [`Session::handle_input`], operators' requests to
//! [`Session::handle_request`], what happened to the port, a search's answer and the wall
//! time to [`Session::handle_event`], wakes it at [`Session::poll_timeout`] with
//! [`Session::handle_timeout`], then writes what [`Session::poll_transmit`] returns, acts on
//! [`Session::poll_output`] and publishes with [`Session::publish`]. Every `handle_*`
//! finishes its work (the engine's events drained, the display decided) before it returns.
//!
//! Owns every rule of the clock and its game: what a press, a button or a request means,
//! what the clock shows and when it is pushed, the published state, the game's record's
//! life ([`SessionOutput::RecordDue`]), the live file's name and timing
//! ([`SessionOutput::LiveFile`]) and a resumed game's lever. It must not do IO or read a
//! clock: it says what to journal, write and publish, and the shell does it. Its time line is
//! the driver's [`Instant`]; the engine's time is that plus the offset of a resumed game.
//! Built from owned parts ([`parts`]), each keeping its invariant in its own methods; the
//! session's methods are spread by role over this folder's files.

mod announce;
mod board_log;
mod identify;
pub mod interface;
mod judging;
pub mod note;
pub mod observe;
mod parts;
mod pieces;
mod publish;
mod record;
mod reports;
mod requests;
mod resume;
mod show;
mod verdicts;

pub use judging::DrawRules;
pub use pieces::MoveSource;
pub use pieces::move_event;
pub use resume::Restored;
pub use show::clock_event;
pub use verdicts::SearchRequest;

#[cfg(any(test, feature = "testing"))]
pub mod testing;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::time::Duration;

use chessclock_game::pgn::GameInfo;

use crate::link::display::BoardSide;

use crate::link::state::DeviceState;

use crate::link::driver::{Driver, DriverConfig, Instant};
use crate::session::interface::{ClockEvent, ReloadSettings};
use chessclock_engine::{Engine, Input, InputError, Side, Snapshot, Status, Time};
use note::Note;
use observe::{Mode, Observed};
use parts::{BoardPart, DisplayWork, GameRecordPart, Lever, LiveFeed, Published, Timeline};

/// How the game half is set up (the device options it reads).
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// The clock's index, for log lines and messages.
    pub clock: u32,
    /// The clock's name when it starts (a rename changes the session's).
    pub name: String,
    /// The port's label (a tty's path, `virtual:NAME`), for messages.
    pub port: String,
    /// CLOCK_MONOTONIC microseconds at the session's epoch: the published state's
    /// `as_of_us` is this plus `now`.
    pub epoch_us: u64,
    pub white_side: BoardSide,
    pub move_source: MoveSource,
    /// The clock's run/pause button pauses and resumes the game.
    pub pause_button: bool,
    pub mode: Mode,
    /// The board's draw rules (`None`: FIDE's, except under a double-flag control).
    pub draw_rules: Option<DrawRules>,
    /// The shell keeps a live PGN feed: the session says when to write it
    /// ([`SessionOutput::LiveFile`]).
    pub live: bool,
}

/// What the caller must act on.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionOutput {
    /// The engine took `input` at engine time `t_ms`: journal it.
    Input { t_ms: u64, input: Input },
    /// Something to keep in the journal at `t_ms` (a flag, the board's serial number, a
    /// connection); `record`: in the game's record too.
    Note { t_ms: u64, note: Note, record: bool },
    /// A change of the board's game at `t_ms` (a move read, a correction, a result, the
    /// times a press gave a move, game information): journal it, in order with the inputs,
    /// so that a restart rebuilds the game ([`Session::resume_board`]).
    Board {
        t_ms: u64,
        step: chessclock_game::Step,
    },
    /// A bus event at engine time `t_ms` (the game's record keeps it too).
    Clock { t_ms: u64, event: ClockEvent },
    /// A bus event the game's record does not keep (a new game's `StateChanged`).
    Signal(ClockEvent),
    /// Something the operator should know (already in the published `notices`; for the log).
    Notice(String),
    /// A new game on `control` started at engine time `t_ms`: the journal starts anew (the
    /// last game's record, if it was under way, is a [`SessionOutput::RecordDue`] just
    /// before; the notes the journal must keep follow as [`SessionOutput::Note`]s).
    NewGame {
        control: Box<chessclock_engine::params::TimeControl>,
        t_ms: u64,
        /// The id the new journal's start keeps.
        game_id: String,
    },
    /// The game's record is due ([`record`]): write it, folded from the journal so far.
    RecordDue(Box<RecordDue>),
    /// The board stopped answering: close the port, then say [`ShellEvent::PortLost`].
    LinkDead,
    /// Run this search off the device thread and hand its answer to
    /// [`ShellEvent::Verdict`] (nothing waits for it but a flag's result).
    Search(SearchRequest),
    /// Write the game's live PGN file: board `board`'s file in round `round`'s folder holds
    /// `pgn`; `replaces`: the board number of the same round's file it was written under
    /// before (remove that file: a folder watcher would upload the game twice).
    LiveFile {
        round: u32,
        board: u32,
        pgn: String,
        replaces: Option<u32>,
    },
}

/// What the IO shell tells the session besides bytes, requests and time.
#[derive(Debug)]
pub enum ShellEvent {
    /// The port of a session resumed without it is open, with nothing to note (a session
    /// rebuilt beside its board); a port that comes back is [`ShellEvent::PortBack`].
    PortOpen,
    /// The port is open again.
    PortBack,
    /// The port is gone, for this reason (noted in the journal and the record).
    PortLost(String),
    /// The answer to the search `id` ([`SessionOutput::Search`]).
    Verdict {
        id: u64,
        judgement: chessclock_game::winnable::Judgement,
    },
    /// The wall time (Unix ms) of this wake-up, for the game's record; `None`: a clock that
    /// keeps no record (not journaled).
    Wall(Option<u64>),
}

/// A game's record that is due, as the game stood at that moment: it is written from this,
/// not from the session, whose engine, tags and round may have moved on by then.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordDue {
    /// The clock's name and port when it was due.
    pub name: String,
    pub port: String,
    /// Its times and result.
    pub snapshot: Snapshot,
    /// The board's game, if the board recorded moves.
    pub board: Option<chessclock_game::pgn::PgnGame>,
    /// Its game information with the tags every game carries.
    pub info: GameInfo,
    /// The round it was played in.
    pub round: Option<u32>,
    /// Written only if the journal says it is under way (a game replaced or detached); an
    /// ended game's is written as it stands.
    pub under_way_only: bool,
}

/// The device as the link knows it, for the published state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct DeviceInfo {
    pub model: String,
    pub firmware: String,
    pub board_serial: String,
    pub battery_low: bool,
}

/// The game over one board link, from its owned parts ([`parts`]). See the module docs.
#[derive(Debug)]
pub struct Session {
    cfg: SessionConfig,
    driver: Driver,
    engine: Engine,
    time: Timeline,
    observed: Observed,
    board: BoardPart,
    lever: Lever,
    display: DisplayWork,
    published: Published,
    record: GameRecordPart,
    live: LiveFeed,
    /// Who can still mate: the search under way and the verdict in force.
    verdicts: verdicts::Verdicts,
    /// Observed, the control the operator says the clock runs (`set` in observe mode): the
    /// PGN's `TimeControl` and the published control.
    declared: Option<chessclock_engine::params::TimeControl>,
    outputs: VecDeque<SessionOutput>,
}

impl Session {
    /// A session on `engine`, whose time at the driver's epoch is `offset_ms`; the link is
    /// not open yet ([`Session::connect`]). `journal_serial`: the board the journaled game
    /// was played on.
    pub(crate) fn new(
        cfg: SessionConfig,
        link: DriverConfig,
        engine: Engine,
        offset_ms: u64,
        journal_serial: Option<String>,
    ) -> Session {
        let lever_resumed = engine.status() == Status::Running && engine.moves_made() > 0;
        let state = publish::first_state(&cfg, &engine, offset_ms);
        let mut display = DisplayWork::default();
        display.changed();
        let mut driver = Driver::new(link);
        // Until [`Session::connect_first`]: no port.
        driver.disconnect();
        driver.set_observe(cfg.mode == Mode::Observe);
        Session {
            cfg,
            driver,
            engine,
            time: Timeline::starting_at(offset_ms),
            observed: Observed::default(),
            board: BoardPart::new(),
            lever: Lever::resuming(lever_resumed),
            display,
            published: Published::new(state, journal_serial),
            record: GameRecordPart::default(),
            live: LiveFeed::default(),
            verdicts: verdicts::Verdicts::default(),
            declared: None,
            outputs: VecDeque::new(),
        }
    }

    // ---- time ----------------------------------------------------------------------------

    /// Engine time at `at`.
    pub fn time_at(&self, at: Instant) -> Time {
        self.time.engine_time(at)
    }

    // ---- the sans-IO interface -----------------------------------------------------------

    /// Bytes read from the board at `now`.
    pub fn handle_input(&mut self, now: Instant, bytes: &[u8]) {
        self.time.advance(now);
        self.driver.handle_input(now, bytes);
        self.drain_driver(now);
        self.finish(now);
    }

    /// Time passed (or something else happened): act on everything due by `now`, then
    /// decide what the clock must show. Call it after every wake-up, last.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.time.advance(now);
        let t = self.time_at(now);
        self.hold_flag_for_search(t);
        self.engine.handle_timeout(t);
        self.drain_engine(now);
        self.driver.handle_timeout(now);
        self.drain_driver(now);
        self.board_timeout(now);
        self.verdict_timeout(now);
        self.finish(now);
    }

    /// The end of every `handle_*`: the events of what it did (a lever press, a request)
    /// drained, then one push for all, then the text the game deserves.
    fn finish(&mut self, now: Instant) {
        self.drain_engine(now);
        self.update_display(now);
        self.show_announcement(now);
    }

    /// Bytes to write to the port, one chunk per call.
    #[must_use]
    pub fn poll_transmit(&mut self, now: Instant) -> Option<Vec<u8>> {
        self.driver.poll_transmit(now)
    }

    /// The earliest instant [`Session::handle_timeout`] has something to do, as seen at the
    /// latest `now`: the engine's (a flag, a phase), the display's (the engine's next value
    /// the device would not show by itself), the link's and the pieces' deadlines.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        let engine = self.engine.poll_timeout().map(|t| self.time.instant_of(t));
        let display = self
            .driver
            .clock_usable()
            .then(|| {
                self.engine
                    .display(self.time_at(self.time.now()))
                    .next_refresh
            })
            .flatten()
            .map(|t| self.time.instant_of(t));
        let board = self
            .board
            .game()
            .poll_timeout()
            .map(|ms| self.time.instant_of(Time::from_ms(ms)));
        let verdict = self.verdict_deadline();
        let unmoved = self.unmoved_press_due();
        [
            engine,
            display,
            self.driver.poll_timeout(),
            board,
            verdict,
            unmoved,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// The next event, if any; an ended game's record is due after the events said with
    /// its result.
    #[must_use]
    pub fn poll_output(&mut self) -> Option<SessionOutput> {
        let next = self.outputs.pop_front().or_else(|| {
            self.record
                .take_ended()
                .then(|| self.record_due(self.time.now(), false))
        });
        if let Some(SessionOutput::Search(request)) = &next {
            self.search_handed_out(request.id);
        }
        next
    }

    /// What the shell says besides bytes and requests, at `now`.
    pub fn handle_event(&mut self, now: Instant, event: ShellEvent) {
        match event {
            ShellEvent::PortOpen => self.connect_first(now),
            ShellEvent::PortBack => self.connect(now),
            ShellEvent::PortLost(why) => self.disconnect(now, &why),
            ShellEvent::Verdict { id, judgement } => self.handle_verdict(now, id, judgement),
            ShellEvent::Wall(wall_ms) => self.set_wall_ms(wall_ms),
        }
    }

    // ---- the link's lifetime -------------------------------------------------------------

    /// The port is open (first time or again) at `now`.
    pub(crate) fn connect(&mut self, now: Instant) {
        self.time.advance(now);
        self.driver.connect(now);
        self.lever.connected();
        self.published.state_mut().connected = true;
        self.note(now, Note::Reconnected, true);
        // Pieces moved while the link was down (a USB drop, a Bluetooth gap) that the first
        // dump cannot explain may be in the board's memory.
        if !self.board_game_is_empty() && !self.board.awaiting() {
            self.board.memory_at_next_dump();
        }
        self.state_changed();
    }

    /// The port is open at the start (nothing to note).
    pub(crate) fn connect_first(&mut self, now: Instant) {
        self.time.advance(now);
        self.driver.connect(now);
        self.lever.connected();
        self.published.state_mut().connected = true;
    }

    /// The port is gone: `why`, noted in the journal and the record.
    pub(crate) fn disconnect(&mut self, now: Instant, why: &str) {
        self.time.advance(now);
        self.note(now, Note::Disconnected(why.to_owned()), true);
        self.driver.disconnect();
        self.published.state_mut().connected = false;
        self.published.mark_changed();
    }

    // ---- what the caller reads -----------------------------------------------------------

    /// The game's engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Board/clock state.
    pub fn device_state(&self) -> DeviceState {
        self.driver.device_state()
    }

    /// Whether the clock runs its own mode and is only followed.
    pub(crate) fn observing(&self) -> bool {
        self.cfg.mode == Mode::Observe
    }

    /// The mode.
    pub(crate) fn mode(&self) -> Mode {
        self.cfg.mode
    }

    /// The snapshot at `now`: the engine's, or in observe mode the clock's values over it.
    pub fn snapshot(&self, now: Instant) -> Snapshot {
        let mut snap = self.engine.snapshot(self.time_at(now));
        if self.observing() {
            self.observed.overlay(&mut snap, self.cfg.white_side);
        }
        snap
    }

    /// The game's status (the clock's, in observe mode).
    pub(crate) fn status(&self) -> Status {
        if self.observing() {
            self.observed.status()
        } else {
            self.engine.status()
        }
    }

    /// `side`'s clock at `t`: the engine's value, or in observe mode the clock's report.
    fn clock_value(&self, side: Side, t: Time) -> u64 {
        match self.observed.value(side, self.cfg.white_side) {
            Some(v) if self.observing() => v,
            _ => self.engine.snapshot(t).value(side),
        }
    }

    // ---- operators -----------------------------------------------------------------------

    /// Bring the engine up to `now` (before a request: a flag due by now falls first).
    pub(crate) fn advance(&mut self, now: Instant) {
        self.time.advance(now);
        self.hold_flag_for_search(self.time_at(now));
        self.engine.handle_timeout(self.time_at(now));
    }

    /// Give the engine an input at `now`; journaled (an [`SessionOutput::Input`]) if taken.
    /// Operators' inputs come through [`Session::handle_request`].
    fn apply(&mut self, now: Instant, input: Input) -> Result<(), InputError> {
        let t = self.time_at(now);
        self.hold_flag_for_search(t);
        self.engine.handle_input(t, input.clone())?;
        let lever = note::lever_noted_after(&input);
        self.outputs.push_back(SessionOutput::Input {
            t_ms: t.as_ms(),
            input,
        });
        if lever {
            self.lever_after_input(now);
        }
        self.state_changed();
        Ok(())
    }

    /// A new game on `engine` (a new control, or the same one afresh) at `now`; observe
    /// mode forgets the clock's game too, and what was said about the last game is no
    /// longer news. The journal starts anew ([`SessionOutput::NewGame`]) and must still say
    /// which half is White's, and on which board.
    fn new_game(&mut self, now: Instant, engine: Engine) {
        self.time.advance(now);
        let replaced = self.under_way(now).then(|| self.record_due(now, true));
        let begun = self.status() != Status::Ready || self.has_board_moves();
        self.engine = engine;
        self.observed.reset();
        self.published.state_mut().time_control =
            chessclock_engine::notation::canonical(self.engine.control());
        self.published.state_mut().notices.clear();
        self.state_changed();
        self.outputs.extend(replaced);
        self.renew_game_id(begun);
        self.outputs.push_back(SessionOutput::NewGame {
            control: Box::new(self.engine.control().clone()),
            t_ms: self.time_at(now).as_ms(),
            game_id: self.journal_game_id().to_owned(),
        });
        self.clear_record();
        self.lever.new_journal();
        self.note(now, Note::WhiteSide(self.cfg.white_side), true);
        if let Some(serial) = self.published.journal_serial().map(str::to_owned) {
            self.note(now, Note::BoardSerial(serial), false);
        }
        // The board's game goes on across the engine's new game: the new journal starts with
        // the steps that rebuild it as it stands.
        let t_ms = self.time_at(now).as_ms();
        for step in self.board.game().steps_of_game() {
            self.outputs.push_back(SessionOutput::Board { t_ms, step });
        }
    }

    /// Show `text` for `duration` (the caller caps it) at `now`.
    fn show_text(&mut self, now: Instant, text: &str, duration: Duration) {
        self.driver.show_text(now, text, duration);
    }

    /// Beep for about `ms` milliseconds.
    fn beep(&mut self, ms: u32) {
        self.driver.beep(ms);
    }

    /// New ack timeout, resend count and transport latency, and the pause button's meaning
    /// (a configuration reload).
    fn apply_reload(&mut self, s: &ReloadSettings) {
        self.driver.set_limits(s.command_timeout, s.command_retries);
        self.driver.set_transport_latency(s.transport_latency);
        self.cfg.pause_button = s.pause_button;
    }

    /// White plays on `side` of the clock from `now` on (noted in the journal).
    fn set_white_side(&mut self, now: Instant, side: BoardSide) {
        self.cfg.white_side = side;
        // The lever's halves now mean other players: in step again only once a report says.
        self.lever.sides_swapped();
        self.note(now, Note::WhiteSide(side), true);
        self.state_changed();
    }

    /// Which half White plays on.
    pub(crate) fn white_side(&self) -> BoardSide {
        self.cfg.white_side
    }

    /// The game changed: push the display and publish the state.
    fn state_changed(&mut self) {
        self.display.changed();
        self.published.mark_changed();
    }

    /// Something the operator should know: in the published `notices`, and logged.
    fn notify(&mut self, notice: String) {
        tracing::warn!(clock = self.cfg.clock, "{notice}");
        self.published.notice(notice.clone());
        self.outputs.push_back(SessionOutput::Notice(notice));
    }

    /// Journal `note` at `now` (and keep it in the record if `record`).
    fn note(&mut self, now: Instant, note: Note, record: bool) {
        self.outputs.push_back(SessionOutput::Note {
            t_ms: self.time_at(now).as_ms(),
            note,
            record,
        });
    }
}
