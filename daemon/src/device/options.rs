//! The settings a device is started with ([`DeviceOptions`], [`PortSpec`]) and why a start
//! fails ([`SpawnError`]), as the configuration and the supervisor give them.
//!
//! Data and their checks only; it must not import the IO layer.

use std::path::PathBuf;
use std::time::Duration;

use crate::engine::params::TimeControl;
use chessclock_device::link::display::BoardSide;
use chessclock_device::session::interface::ReloadSettings;
use chessclock_device::session::observe;
use chessclock_device::session::{DrawRules, MoveSource};

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
    /// The time control of new games (parsed at the edge: the configuration, the bus).
    pub time_control: TimeControl,
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
    /// Where the live PGN feed goes (`None`: `live/` in the state directory).
    pub live_dir: Option<PathBuf>,
    /// Game information (PGN tags) the clock's games start with.
    pub game_info: Vec<(String, String)>,
    /// Tags every game of the clock carries unless its information sets them: `Event` and
    /// `Site` (the settings).
    pub tag_defaults: Vec<(String, String)>,
    /// The current round and the clock's board number (`None`: round 1, the clock's number
    /// + 1): `Round "R.B"`, `Board "B"`, and the live file `round-R/game-B.pgn`.
    pub place: Option<(u32, u32)>,
    /// What counts the moves of a multi-period control.
    pub move_source: MoveSource,
    /// Drive the clock, or observe it running its own mode.
    pub mode: observe::Mode,
    /// Which draw rules the board judges (`None`: by the time control, see [`DrawRules`]).
    pub draw_rules: Option<DrawRules>,
    /// A tty that does not exist (yet) starts the actor `disconnected` (its journaled game
    /// resumed), and is opened when it appears; otherwise a missing tty fails the spawn.
    pub wait_for_port: bool,
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
            // A fixed notation: it parses (the notation tests check it).
            time_control: crate::engine::notation::parse("G/5 d/0")
                .expect("G/5 d/0 is a time control")
                .control,
            white_side: BoardSide::Left,
            transport_latency: Duration::ZERO,
            command_timeout: Duration::from_millis(2500),
            command_retries: 2,
            pause_button: true,
            reopen_interval: Duration::from_secs(2),
            state_dir: None,
            live_dir: None,
            game_info: Vec::new(),
            tag_defaults: Vec::new(),
            place: None,
            move_source: MoveSource::Board,
            mode: observe::Mode::Drive,
            draw_rules: None,
            wait_for_port: false,
        }
    }
}

/// Where live PGN files go, below the state directory.
const LIVE_DIR: &str = "live";

impl DeviceOptions {
    /// The live feed's folder: `live_dir`, else `live/` in the state directory; `None` for
    /// clocks kept in memory only.
    pub(crate) fn live_folder(&self) -> Option<PathBuf> {
        let state = self.state_dir.as_ref()?;
        Some(
            self.live_dir
                .clone()
                .unwrap_or_else(|| state.join(LIVE_DIR)),
        )
    }

    /// The part of these options a configuration reload may change on a running clock.
    pub fn reload_settings(&self) -> ReloadSettings {
        ReloadSettings {
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
