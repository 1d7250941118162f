//! Device actors: one task per attached board, the only code that touches a tty (or the
//! in-memory line of a virtual clock).
//!
//! Three layers, each a folder, each importing only the layers below it:
//! - `link`: the board link as a pure state machine (the `driver`: probe, clock command
//!   queue, keep-alive, lever decoding) and the display's halves. Pure (no IO, no clock); it
//!   must not import `session` or `io`.
//! - `session`: the game over the link, one pure state machine (quinn-proto's
//!   `Connection`): the game's [`Engine`](crate::engine::Engine), lever presses into engine
//!   presses, engine state into set-and-run pushes and announcements, observe mode, the
//!   board's pieces, the operators' requests and their refusals, and the published
//!   [`ClockState`]. Pure; it must not import `io`.
//! - `io`: the IO shell (async quinn): the `actor` owns the port, the journal and the
//!   game's record, forwards bytes, requests and wake-ups to the session, and writes,
//!   journals and publishes what the session says; ports, scanning, the runtime, journal
//!   and live files. An actor runs on the line (`Transport`) its supervisor chose and writes
//!   to the writers (`Sinks`) it was given, no global. Nothing in an actor blocks: reads, writes and timers are awaited in one
//!   `select!`. It holds no game, link or request rule.
//!
//! The files at this level are what the rest of the daemon sees: the [`client`] (the
//! [`DeviceHandle`] to an actor), the [`options`] of a device and `spawn`; the requests,
//! replies, events and published state are the session's `session::interface`, re-exported
//! here with the few domain types the rest of the daemon names. The rest of the daemon uses
//! these re-exports; code inside this folder imports from the defining module, and
//! `layers_tests` checks that no layer imports a layer above it and that the layers have no
//! cycle.

pub mod client;
pub(crate) mod io;
#[cfg(test)]
mod layers_tests;
pub(crate) mod link;
pub mod options;
pub(crate) mod session;

pub use client::DeviceHandle;
pub(crate) use io::actor::Started;
pub(crate) use io::actor::output::{game_file, round_dir};
pub(crate) use io::identity::stable_port;
pub use io::sinks::Sinks;
pub(crate) use io::transport::Transport;
pub use io::{runtime, scan};
pub use link::display::BoardSide;
pub use link::state::DeviceState;
pub use options::{DeviceOptions, PortSpec, SpawnError, check_game_info};
pub use session::interface::{
    ClockEvent, ClockState, DeviceError, EngineAt, PublishedClock, ReloadSettings, Reply, Request,
};
pub use session::observe::{self, Mode};
pub use session::{DrawRules, MoveSource};

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
