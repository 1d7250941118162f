//! Device actors: one task per attached board, the only code that touches a tty (or the
//! in-memory line of a virtual clock).
//!
//! The pure device core is the `chessclock-device` crate (the board link and the session
//! over it; cargo keeps it free of tokio and files). This folder is its IO shell: the
//! `io::actor` owns the port, the journal and the live files, feeds the session bytes,
//! requests and wake-ups, and writes, journals and publishes what it says. The files at this
//! level are what the rest of the daemon sees: the [`client`], the [`options`] and `spawn`,
//! with the core's interface types re-exported.

pub mod client;
pub(crate) mod io;
pub mod options;

pub use chessclock_device::link::display::BoardSide;
pub use chessclock_device::link::state::DeviceState;
pub use chessclock_device::session::interface::{
    ClockEvent, ClockState, DeviceError, EngineAt, PublishedClock, ReloadSettings, Reply, Request,
};
pub use chessclock_device::session::observe::{self, Mode};
pub use chessclock_device::session::{DrawRules, MoveSource};
pub use client::DeviceHandle;
pub(crate) use io::actor::Started;
pub(crate) use io::actor::output::{game_file, round_dir};
pub(crate) use io::identity::stable_port;
pub use io::sinks::Sinks;
pub(crate) use io::transport::Transport;
pub use io::{runtime, scan};
pub use options::{DeviceOptions, PortSpec, SpawnError, check_game_info};

/// Start an actor on the line `attach` opens once the options are known good (the caller
/// chooses a tty, [`Transport::tty`], or a virtual board), writing its files to `sinks`.
pub(crate) async fn spawn<P: io::port::BoardIo>(
    index: u32,
    name: String,
    options: DeviceOptions,
    sinks: Sinks,
    attach: impl FnOnce(&DeviceOptions) -> Result<Transport<P>, SpawnError>,
) -> Result<Started, SpawnError> {
    io::actor::spawn(index, name, options, sinks, attach).await
}
