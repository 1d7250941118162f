//! What goes in and out of a device, as types: the operators' [`Request`]s, their
//! [`Reply`]s and [`DeviceError`]s, the published [`ClockState`] and the [`ClockEvent`]
//! stream (typed: words only on the bus), the [`ReloadSettings`] a reload changes.
//!
//! Data only: the session gives each request its meaning (`Session::handle_request`) and
//! the IO layer carries them (the daemon's device handle to
//! the actor). Requests carry parsed values: text (a time control's notation) is parsed
//! where it comes in. It must not hold channels, rules or IO.

use serde::Serialize;

use chessclock_engine::params::TimeControl;
use chessclock_engine::{
    AdjustField, AdjustOp, ClaimKind, GameResult, InputError, Ruling, Side, Snapshot,
};

pub use chessclock_api::PublishedClock;
use chessclock_protocol::Half as BoardSide;

/// Everything the bus shows about one clock. Published by the actor on every change of
/// state (not on every tick: `snapshot` holds for the monotonic instant `as_of_us`, and
/// clients extrapolate the running side).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClockState {
    /// What the bus publishes of the clock besides the snapshot: the one model
    /// ([`PublishedClock`]) every property, signal and client is derived from.
    pub clock: PublishedClock,
    /// The engine snapshot (spec §1.1) at `as_of_us`.
    pub snapshot: Snapshot,
    /// CLOCK_MONOTONIC microseconds the snapshot holds for.
    pub as_of_us: u64,
    /// The engine as of this state, for the live snapshot without asking the actor.
    #[serde(skip)]
    pub engine: EngineAt,
}

/// The published fields are read through the state (`state.device_state`).
impl std::ops::Deref for ClockState {
    type Target = PublishedClock;
    fn deref(&self) -> &PublishedClock {
        &self.clock
    }
}

impl std::ops::DerefMut for ClockState {
    fn deref_mut(&mut self) -> &mut PublishedClock {
        &mut self.clock
    }
}

/// The engine behind a published state (drive mode; `None` in observe mode, whose times are
/// the clock's reports). Derived data: it always compares equal, the snapshot says what
/// changed.
#[derive(Debug, Clone, Default)]
pub struct EngineAt(pub Option<std::sync::Arc<chessclock_engine::Engine>>);

impl PartialEq for EngineAt {
    fn eq(&self, _: &EngineAt) -> bool {
        true
    }
}

impl ClockState {
    /// The snapshot at `now_us` (CLOCK_MONOTONIC µs) computed from the published engine, as
    /// the actor would compute it then, with the instant it holds for; `None` without an
    /// engine (observe mode). The engine's own timeouts (a flag) are the actor's: until it
    /// publishes them, a side shows 0:00 still running.
    pub fn live_at(&self, now_us: u64) -> Option<(Snapshot, u64)> {
        let engine = self.engine.0.as_ref()?;
        let elapsed_ms = now_us.saturating_sub(self.as_of_us) / 1000;
        let t = chessclock_engine::Time::from_ms(self.snapshot.t_ms.saturating_add(elapsed_ms));
        Some((
            engine.snapshot(t),
            self.as_of_us.saturating_add(elapsed_ms * 1000),
        ))
    }
}

/// Something that happened on a clock, for D-Bus signals and `chessclockctl monitor`: the
/// game crate's one event type.
pub use chessclock_game::ClockEvent;

/// The settings a configuration reload changes on a running clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReloadSettings {
    /// Subtracted from the arrival time of a lever report.
    pub transport_latency: std::time::Duration,
    /// How long to wait for a clock ack.
    pub command_timeout: std::time::Duration,
    /// How often to resend an unacknowledged clock command.
    pub command_retries: u32,
    /// The clock's play/pause button pauses and resumes the game.
    pub pause_button: bool,
}

/// An operator or script request to a device actor.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Set the time control (parsed from its notation where the text came in); mid-game it
    /// keeps times and counters.
    SetTimeControl(Box<TimeControl>),
    /// Set the time control for a game that has not started; refused (`NotAllowed`, and
    /// nothing changes) once it has, checked in the same step as the change.
    SetControlBeforeStart(Box<TimeControl>),
    /// Start the game with `side` to move.
    Start(Side),
    /// Pause the running clock.
    Pause,
    /// Resume after a pause.
    Resume,
    /// Press for `side` (as if its lever was pressed).
    Press(Side),
    /// Arbiter adjustment.
    Adjust {
        /// Side adjusted.
        side: Side,
        /// Detail field.
        field: AdjustField,
        /// Set or add.
        op: AdjustOp,
        /// Amount.
        ms: i64,
    },
    /// Arbiter move-counter correction.
    SetMoves {
        /// Side corrected.
        side: Side,
        /// New counter value.
        moves: u32,
    },
    /// A player's claim: the double-flag draw, a draw from the board's history (judged at
    /// once) or USCF 14H (the clock pauses for the director).
    Claim {
        /// The claimant.
        side: Side,
        /// What is claimed.
        kind: ClaimKind,
    },
    /// The director's ruling on a pending USCF 14H claim.
    Rule(Ruling),
    /// Result on the board.
    SetResult(GameResult),
    /// Discard the current game (explicit operator command) and set up a fresh one.
    NewGame,
    /// Show text on the clock for `ms` milliseconds.
    ShowText {
        /// Text (ASCII; cut to the display width).
        text: String,
        /// How long.
        ms: u32,
    },
    /// Beep for `ms` milliseconds.
    Beep(u32),
    /// Show the clock's board number and beep, for `seconds` (0: five), then the times
    /// again: to find the board in the hall. Refused while the game runs.
    Identify {
        /// How long (at most ten).
        seconds: u32,
    },
    /// Which display half is White.
    SetWhiteSide(BoardSide),
    /// New operational settings from a configuration reload (latency, clock command timeout
    /// and retries, pause button). The game and the time control are not touched.
    Settings(ReloadSettings),
    /// Set game information tags (an empty value removes a tag).
    SetGameInfo(Vec<(String, String)>),
    /// The clock is board `board` of round `round`: its games carry `Round "R.B"` and
    /// `Board "B"` unless their information names them, and its live file is the round's.
    Place {
        /// The current round.
        round: u32,
        /// The clock's board number.
        board: u32,
    },
    /// The round rolled over: in one step (one live-file write), a new game on the clock's
    /// control, the tags a pairing set cleared, and the clock board `board` of `round`.
    NextRound {
        /// The new round.
        round: u32,
        /// The clock's board number.
        board: u32,
    },
    /// Correct the game read from the board's pieces: undo plies, force a move, set the
    /// position (from a FEN or from the pieces as they stand).
    Correct(chessclock_game::Correction),
    /// Drive the clock, or observe it running its own mode.
    SetMode(super::observe::Mode),
    /// Give the clock another name (its journal stays where it is: a tty's by its port).
    Rename(String),
    /// Tell the operator something about this clock (added to its `notices`).
    Notice(String),
    /// The game so far as PGN.
    Pgn,
    /// Report the live state (the snapshot computed now).
    Live,
    /// Stop the actor, keeping its journal (the daemon stops: the game comes back).
    Shutdown,
    /// Stop the actor for good (the clock is detached): its game is written to `games/`
    /// (a game under way as it stood), then its journal and snapshot are removed.
    Detach,
}

impl Request {
    /// A read that changes nothing: answered at once, not after the journal's next fsync
    /// (there is nothing of it to make durable). `status` of every clock reads `Live` of each.
    pub fn is_read_only(&self) -> bool {
        matches!(self, Request::Live | Request::Pgn)
    }
}

/// A successful answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Done.
    Done,
    /// The live state, for [`Request::Live`].
    State(Box<ClockState>),
    /// The PGN, for [`Request::Pgn`].
    Pgn(String),
}

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    /// The request's arguments are wrong.
    #[error("{0}")]
    Invalid(String),
    /// Not allowed in the current state.
    #[error("{0}")]
    NotAllowed(String),
    /// The engine refused the input (typed: the bus maps each kind to its error name).
    #[error(transparent)]
    Refused(#[from] InputError),
    /// The clock hardware failed the request.
    #[error("{0}")]
    Device(String),
    /// The actor has stopped.
    #[error("the clock was detached; list the clocks again with `chessclockctl list`")]
    Gone,
}
