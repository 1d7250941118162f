//! Device actors: one task per attached board, the only code that touches a tty (or the
//! in-memory line of a virtual clock).
//!
//! Three layers, each a folder, each importing only the layers below it:
//! - [`link`]: the board link as a pure state machine (the `driver`: probe, clock command
//!   queue, keep-alive, lever decoding) and the display's halves. Pure (no IO, no clock); it
//!   must not import `session` or `io`.
//! - [`session`]: the game over the link, one pure state machine (quinn-proto's
//!   `Connection`): the game's [`Engine`](crate::engine::Engine), lever presses into engine
//!   presses, engine state into set-and-run pushes and announcements, observe mode, the
//!   board's pieces, the operators' requests and their refusals, and the published
//!   [`handle::ClockState`]. Pure; it must not import `io`.
//! - [`io`]: the IO shell (async quinn): the `actor` owns the port, the journal and the
//!   game's record, forwards bytes, requests and wake-ups to the session, and writes,
//!   journals and publishes what the session says; ports, scanning, the runtime, journal
//!   and live files. Nothing in an actor blocks: reads, writes and timers are awaited in one
//!   `select!`. It holds no game, link or request rule.
//!
//! The files at this level are what the rest of the daemon sees: the [`handle`] (requests,
//! replies, events, the published state), the options of a device and [`spawn`].
//! `layers_tests` checks the import graph of this folder.

pub mod handle;
pub mod io;
pub mod link;
pub mod session;

pub use io::{runtime, scan};
pub use session::observe;

use std::path::PathBuf;
use std::time::Duration;

use tokio::task::JoinHandle;

use handle::{BoardSide, DeviceHandle};

/// Where a device actor gets its bytes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortSpec {
    /// A tty path.
    Tty(PathBuf),
    /// A built-in emulated board with a DGT 3000, served in memory (`tokio::io::duplex`); its
    /// port is shown as `virtual:NAME`.
    Virtual,
}

/// Settings of one device actor.
#[derive(Debug, Clone)]
pub struct DeviceOptions {
    /// Time-control notation for new games.
    pub time_control: String,
    /// Which half of the display is White.
    pub white_side: BoardSide,
    /// Subtracted from the arrival time of a lever report.
    pub transport_latency: Duration,
    /// How long to wait for a clock ack.
    pub command_timeout: Duration,
    /// How often to resend an unacknowledged clock command.
    pub command_retries: u32,
    /// The clock's play/pause button pauses and resumes the game.
    pub pause_button: bool,
    /// Wait this long before reopening a vanished port.
    pub reopen_interval: Duration,
    /// Where games are journaled; `None` keeps them in memory only. A tty's game is
    /// journaled under its port, an emulated board's under its name.
    pub state_dir: Option<PathBuf>,
    /// Game information (PGN tags) the clock's games start with.
    pub game_info: Vec<(String, String)>,
    /// What counts the moves of a multi-period control.
    pub move_source: MoveSource,
    /// Drive the clock, or observe it running its own mode.
    pub mode: observe::Mode,
    /// A tty that does not exist (yet) starts the actor `disconnected` (its journaled game
    /// resumed), and is opened when it appears; otherwise a missing tty fails the spawn.
    pub wait_for_port: bool,
}

/// What counts a player's moves (the periods of a `40/90 ...` control).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveSource {
    /// The moves on the e-board's pieces, once the board has recorded a move of the player;
    /// the presses before that.
    #[default]
    Board,
    /// The lever presses.
    Lever,
}

/// Check game information tags as `SetGameInfo` would (for the configuration's check).
pub fn check_game_info(tags: &[(String, String)]) -> Result<(), String> {
    chessclock_game::pgn::GameInfo::new()
        .set_all(tags)
        .map_err(|e| e.to_string())
}

impl Default for DeviceOptions {
    fn default() -> Self {
        DeviceOptions {
            time_control: "G/5 d/0".into(),
            white_side: BoardSide::Left,
            transport_latency: Duration::ZERO,
            command_timeout: Duration::from_millis(2500),
            command_retries: 2,
            pause_button: true,
            reopen_interval: Duration::from_secs(2),
            state_dir: None,
            game_info: Vec::new(),
            move_source: MoveSource::Board,
            mode: observe::Mode::Drive,
            wait_for_port: false,
        }
    }
}

impl DeviceOptions {
    /// The part of these options a configuration reload may change on a running clock.
    pub fn live(&self) -> handle::LiveSettings {
        handle::LiveSettings {
            transport_latency: self.transport_latency,
            command_timeout: self.command_timeout,
            command_retries: self.command_retries,
            pause_button: self.pause_button,
        }
    }
}

/// Why a device could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// The port could not be opened.
    #[error("{0}")]
    Port(#[from] std::io::Error),
    /// The time control is invalid.
    #[error(
        "time control {}: {message}",
        chessclock_engine::words::quote(notation)
    )]
    TimeControl {
        /// The notation given.
        notation: String,
        /// What is wrong with it.
        message: String,
    },
}

/// Open the port and start an actor for it. Returns the handle, the task, and the tty path
/// the actor uses (for a virtual clock, its label `virtual:NAME`).
pub async fn spawn(
    index: u32,
    name: String,
    port: PortSpec,
    options: DeviceOptions,
) -> Result<(DeviceHandle, JoinHandle<()>, PathBuf), SpawnError> {
    io::actor::spawn(index, name, port, options).await
}
