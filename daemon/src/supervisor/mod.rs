//! The supervisor: the registry of attached clocks.
//!
//! One task; everything else talks to it through a [`SupervisorHandle`]. It spawns a device
//! actor per board (a tty, or an emulated board), keeps the boards attached at run time in
//! [`crate::remembered`], and announces every clock that comes and goes as a [`Change`] for
//! whoever serves them (the bus layer, `bus::objects`). It knows no bus: clocks are numbered,
//! refusals are [`SupervisorError`]s, and it runs and is tested without a D-Bus connection. It
//! does no serial IO itself and holds no game state. It also owns the clocks' board numbers
//! (`known.rs`: each board's number and name by its identity, persisted; `numbering.rs`: the
//! numbers applied to the clocks, and a board's game following it to another port) and the
//! current round (`round.rs`: persisted, and a round's pairings applied to the boards;
//! `reload.rs`: what loading pairings again would change; `replace.rs`: a board swapped
//! mid-game; `round_boards.rs`: the current
//! round's boards, its paper boards and their results; `pending.rs`: the next round's
//! pairings kept for the roll-over; `next_round.rs`: the roll-over to the next round;
//! `broadcast.rs`: the Lichess round id given per round).

mod broadcast;
#[cfg(test)]
mod identity_tests;
mod known;
mod next_round;
mod numbering;
mod pending;
mod registry;
mod reload;
mod replace;
#[cfg(test)]
mod replace_tests;
pub mod round;
pub mod round_boards;
mod table;
#[cfg(test)]
mod table_tests;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tokio::sync::{mpsc, oneshot, watch};

use crate::device::DeviceOptions;
use crate::device::{BoardSide, DeviceHandle};

pub use registry::{MAX_NAME_CHARS, MAX_VIRTUAL_CLOCKS};

/// What the supervisor needs to know to start a clock.
#[derive(Debug, Clone, Default)]
pub struct ClockSpec {
    /// Port to open.
    pub port: PathBuf,
    /// Name; defaults to the port's file name.
    pub name: Option<String>,
    /// Which half is White.
    pub white_side: BoardSide,
    /// The time control; defaults to the daemon's default.
    pub time_control: Option<crate::engine::params::TimeControl>,
    /// Game information (PGN tags) for the clock's games.
    pub game_info: Vec<(String, String)>,
    /// The board number (`[[clock]] board`); `None`: the clock's number + 1.
    pub board: Option<u32>,
    /// What counts the moves of a multi-period control.
    pub move_source: crate::device::MoveSource,
    /// Drive the clock or observe it.
    pub mode: crate::device::observe::Mode,
    /// The board's draw rules (`None`: by the time control).
    pub draw_rules: Option<crate::device::DrawRules>,
    /// Attached at run time (not configured): remembered across restarts.
    pub remember: bool,
    /// A port that does not exist (yet) still gets its clock, `disconnected`, resuming its
    /// journaled game and opened when the port appears (configured and remembered boards).
    /// Otherwise a missing port is refused.
    pub wait_for_port: bool,
    /// Attached from a `[[clock]]` table by its port: the clock has its settings, and a board
    /// serial number it reports does not replace them with another table's.
    pub configured: bool,
    /// The `board_serial` of that table, if it has one: the table's clock is this one, so no
    /// other clock gets the table when the board is attached elsewhere.
    pub board_serial: Option<String>,
}

/// A `[[clock]]` table with a `board_serial`: a clock whose board reports that serial number,
/// however it was attached, gets the table's name, side, game information, mode and (before
/// its game starts) time control (`table.rs`).
#[derive(Debug, Clone, Default)]
pub struct BoardTable {
    /// The board's serial number, as the clock's state shows it.
    pub board_serial: String,
    /// The table's settings (its port, if any, is not used to match).
    pub spec: ClockSpec,
    /// Where the table is, for messages (`clock[2]`).
    pub key: String,
}

/// Settings that apply to every clock.
#[derive(Debug, Clone)]
pub struct Defaults {
    /// Actor options shared by every clock (latency, timeouts, default control...).
    pub device: DeviceOptions,
    /// The runtime device actors run on (`device::runtime`); `None`: the supervisor's own.
    pub devices: Option<tokio::runtime::Handle>,
    /// The `[[clock]]` tables with a `board_serial`, matched to the boards as they report it.
    pub tables: Vec<BoardTable>,
    /// The board numbers the `[[clock]]` tables give (`board = N`): no other board is given
    /// one of them by default.
    pub configured_boards: std::collections::BTreeSet<u32>,
}

/// A board attached at run time before a restart, to attach again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Remembered {
    /// A tty, as it was given.
    Port(PathBuf),
    /// A virtual clock, by its name.
    Virtual(String),
}

/// What a detach does with the clock's game and its board number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DetachHow {
    /// The game is kept (its journal stays in the state directory) and so is the board's
    /// number: the board attached again gets both back.
    #[default]
    Keep,
    /// The game is written to `games/` as it stands and its journal removed; the board keeps
    /// its number.
    Archive,
    /// As `Archive`, and the board's number is forgotten (free for another board).
    Forget,
}

/// Why the supervisor refused a request. The messages say what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SupervisorError {
    /// An argument is malformed (an empty or over-long name).
    #[error("{0}")]
    InvalidArgument(String),
    /// Not allowed now (too many virtual clocks).
    #[error("{0}")]
    NotAllowed(String),
    /// No clock with that number.
    #[error("{0}")]
    NoSuchClock(String),
    /// The port, or the virtual clock's name, is attached already.
    #[error("{0}")]
    AlreadyAttached(String),
    /// The port could not be opened or its clock not started.
    #[error("{0}")]
    PortFailed(String),
    /// The supervisor is stopping.
    #[error("the daemon is shutting down")]
    Gone,
}

/// A clock came or went. The receiver answers `done` once it has served (or stopped
/// serving) the clock, so that an `Attach` returns only when the clock can be reached; a
/// dropped receiver (no bus) lets the supervisor go on at once.
#[derive(Debug)]
pub enum Change {
    /// Clock `index` was attached.
    Attached {
        /// Its number (the last part of its object path).
        index: u32,
        /// Its actor.
        handle: DeviceHandle,
        /// Answered when it is served.
        done: oneshot::Sender<()>,
    },
    /// Clock `index` was detached (its actor has stopped).
    Detached {
        /// Its number.
        index: u32,
        /// Answered when it is no longer served.
        done: oneshot::Sender<()>,
    },
}

pub(crate) enum Msg {
    Attach {
        spec: Box<ClockSpec>,
        reply: oneshot::Sender<Result<u32, SupervisorError>>,
    },
    AddVirtual {
        name: String,
        reply: oneshot::Sender<Result<u32, SupervisorError>>,
    },
    Detach {
        index: u32,
        how: DetachHow,
        reply: oneshot::Sender<Result<(), SupervisorError>>,
    },
    SetBoard {
        index: u32,
        board: u32,
        reply: oneshot::Sender<Result<String, SupervisorError>>,
    },
    MoveGame {
        from: u32,
        to: u32,
        reply: oneshot::Sender<Result<(), SupervisorError>>,
    },
    Handles {
        reply: oneshot::Sender<Vec<DeviceHandle>>,
    },
    Remembered {
        reply: oneshot::Sender<Vec<Remembered>>,
    },
    SetDefaults {
        defaults: Box<Defaults>,
        reply: oneshot::Sender<()>,
    },
    Shutdown {
        reply: oneshot::Sender<()>,
    },
    SetRound {
        round: u32,
        reply: oneshot::Sender<()>,
    },
    TagDefaults {
        reply: oneshot::Sender<Vec<(String, String)>>,
    },
    WriteLive {
        round: u32,
        board: u32,
        text: String,
        reply: oneshot::Sender<()>,
    },
}

/// Sent to the supervisor by a clock's watch (`table::watch_serial`): the serial number its
/// board reports, or the name the clock was given.
#[derive(Debug)]
pub(crate) enum Seen {
    /// The board reported a serial number.
    Serial { index: u32, serial: String },
    /// The clock was named.
    Name { index: u32, name: String },
}

/// Cloneable handle to the supervisor task.
#[derive(Debug, Clone)]
pub struct SupervisorHandle {
    tx: mpsc::Sender<Msg>,
    clocks: watch::Receiver<Vec<u32>>,
    boards: watch::Receiver<BTreeMap<u32, u32>>,
    round: watch::Receiver<u32>,
    pending: pending::Pending,
    broadcast: broadcast::Broadcast,
    sheet: round_boards::Sheet,
}

/// What the supervisor publishes for its handles to read without asking it.
pub(crate) struct Published {
    /// The numbers of the attached clocks.
    pub(crate) numbers: watch::Sender<Vec<u32>>,
    /// Board number by clock number.
    pub(crate) boards: watch::Sender<BTreeMap<u32, u32>>,
    /// The current round.
    pub(crate) round: watch::Sender<u32>,
}

/// Start the supervisor. The returned receiver gets every [`Change`]; serve it (or drop it).
pub fn start(defaults: Defaults) -> (SupervisorHandle, mpsc::Receiver<Change>) {
    let (tx, rx) = mpsc::channel(32);
    let (changes_tx, changes_rx) = mpsc::channel(32);
    let (clocks_tx, clocks_rx) = watch::channel(Vec::new());
    let (boards_tx, boards_rx) = watch::channel(BTreeMap::new());
    let sheet = round_boards::Sheet::load(defaults.device.state_dir.as_deref());
    let first_round = round::first_round(defaults.device.state_dir.as_deref(), &sheet);
    let (round_tx, round_rx) = watch::channel(first_round);
    let pending = pending::Pending::load(defaults.device.state_dir.as_deref());
    let broadcast = broadcast::Broadcast::load(defaults.device.state_dir.as_deref());
    let published = Published {
        numbers: clocks_tx,
        boards: boards_tx,
        round: round_tx,
    };
    tokio::spawn(registry::run(
        defaults,
        rx,
        changes_tx,
        published,
        sheet.clone(),
    ));
    (
        SupervisorHandle {
            tx,
            clocks: clocks_rx,
            boards: boards_rx,
            round: round_rx,
            pending,
            broadcast,
            sheet,
        },
        changes_rx,
    )
}

/// Whether two paths name the same port (symlinks such as `/dev/dgt/board-0` followed).
pub(crate) fn same_port(a: &Path, b: &Path) -> bool {
    let ca = std::fs::canonicalize(a).unwrap_or_else(|_| a.to_path_buf());
    let cb = std::fs::canonicalize(b).unwrap_or_else(|_| b.to_path_buf());
    ca == cb
}

impl SupervisorHandle {
    async fn ask<T>(&self, msg: impl FnOnce(oneshot::Sender<T>) -> Msg) -> Option<T> {
        let (reply, rx) = oneshot::channel();
        self.tx.send(msg(reply)).await.ok()?;
        rx.await.ok()
    }

    /// Numbers of the attached clocks.
    pub fn clocks(&self) -> Vec<u32> {
        self.clocks.borrow().clone()
    }

    /// Follow the numbers of the attached clocks as they change.
    pub fn watch_clocks(&self) -> watch::Receiver<Vec<u32>> {
        self.clocks.clone()
    }

    /// Board number by clock number (`[[clock]] board`, else the board's own, given once:
    /// `known.rs`).
    pub fn boards(&self) -> BTreeMap<u32, u32> {
        self.boards.borrow().clone()
    }

    /// Follow the board numbers as they change.
    pub fn watch_boards(&self) -> watch::Receiver<BTreeMap<u32, u32>> {
        self.boards.clone()
    }

    /// The current round (1 until a round's pairings are loaded; kept across restarts).
    pub fn round(&self) -> u32 {
        *self.round.borrow()
    }

    /// Make `round` the current round (written to the state directory).
    pub async fn set_round(&self, round: u32) -> Result<(), SupervisorError> {
        self.ask(|reply| Msg::SetRound { round, reply })
            .await
            .ok_or(SupervisorError::Gone)
    }

    /// The tags every game carries unless its information sets them (`Event`, `Site`).
    pub(crate) async fn tag_defaults(&self) -> Vec<(String, String)> {
        self.ask(|reply| Msg::TagDefaults { reply })
            .await
            .unwrap_or_default()
    }

    /// Hand `text` to the live folder as board `board`'s game of round `round`
    /// (`round-R/game-B.pgn`; nothing without a live folder).
    pub(crate) async fn write_live(&self, round: u32, board: u32, text: String) {
        let _ = self
            .ask(|reply| Msg::WriteLive {
                round,
                board,
                text,
                reply,
            })
            .await;
    }

    /// Attach a tty with default settings, at run time: it is remembered, and attached
    /// again after a restart.
    pub async fn attach(&self, port: &str) -> Result<u32, SupervisorError> {
        self.attach_spec(ClockSpec {
            port: PathBuf::from(port),
            remember: true,
            ..ClockSpec::default()
        })
        .await
    }

    /// Attach a tty with the given settings.
    pub async fn attach_spec(&self, spec: ClockSpec) -> Result<u32, SupervisorError> {
        self.ask(|reply| Msg::Attach {
            spec: Box::new(spec),
            reply,
        })
        .await
        .unwrap_or(Err(SupervisorError::Gone))
    }

    /// Add an emulated clock named `name`; with a state directory it is journaled under its
    /// name, remembered, and added again after a restart.
    pub async fn add_virtual(&self, name: &str) -> Result<u32, SupervisorError> {
        let name = name.to_owned();
        self.ask(|reply| Msg::AddVirtual { name, reply })
            .await
            .unwrap_or(Err(SupervisorError::Gone))
    }

    /// Detach clock `index`; `how` says what becomes of its game and its board number.
    pub async fn detach(&self, index: u32, how: DetachHow) -> Result<(), SupervisorError> {
        self.ask(|reply| Msg::Detach { index, how, reply })
            .await
            .unwrap_or(Err(SupervisorError::Gone))?;
        // A paper board's clock gone: the board is a paper board again.
        self.write_paper().await;
        Ok(())
    }

    /// Make clock `index`'s board board number `board`, kept for its board from now on;
    /// refused while another clock is that board. Returns what was done.
    pub async fn set_board(&self, index: u32, board: u32) -> Result<String, SupervisorError> {
        self.ask(|reply| Msg::SetBoard {
            index,
            board,
            reply,
        })
        .await
        .unwrap_or(Err(SupervisorError::Gone))
    }

    /// The boards attached at run time that are remembered (`attached.json`), in the order
    /// of their board numbers (those without one last), to attach again at the start.
    pub async fn remembered(&self) -> Vec<Remembered> {
        self.ask(|reply| Msg::Remembered { reply })
            .await
            .unwrap_or_default()
    }

    /// Handles of every attached clock.
    pub async fn handles(&self) -> Vec<DeviceHandle> {
        self.ask(|reply| Msg::Handles { reply })
            .await
            .unwrap_or_default()
    }

    /// Options for clocks attached from now on; running clocks take the operational part
    /// (latency, command timeout and retries, pause button) at once.
    pub async fn set_defaults(&self, defaults: Defaults) {
        let defaults = Box::new(defaults);
        let _ = self.ask(|reply| Msg::SetDefaults { defaults, reply }).await;
    }

    /// Stop every actor (they flush their journals) and wait for them.
    pub async fn shutdown(&self) {
        let _ = self.ask(|reply| Msg::Shutdown { reply }).await;
    }
}
