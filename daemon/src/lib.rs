//! chessclockd: runs chess time controls in software and drives DGT clocks.
//!
//! Layers, from the pure core outwards:
//! - [`engine`]: re-export of the `chessclock-engine` crate (time-control engine and notation
//!   parser; pure: no IO, no clock reads).
//! - [`device`]: per board, the pure driver (the link) and session (the game over the link),
//!   and the actor, the thin IO shell and the only code that touches a tty.
//! - [`store`]: the crash-safe journal and snapshots in the state directory.
//! - [`config`]: settings from defaults, `/etc/chessclockd/chessclockd.toml` and the environment.
//! - [`supervisor`]: the registry of attached clocks; it knows no bus and announces each clock
//!   that comes or goes.
//! - [`bus`]: the D-Bus service, serving an object per announced clock (objects hold handles,
//!   never locks); the names and proxies clients share are the `chessclock-api` crate's.
//! - [`remembered`]: the boards attached at run time, attached again after a restart.
//! - [`monotonic`]: the CLOCK_MONOTONIC stamp clients extrapolate snapshots from.
//! - [`logging`]: the log filter, where logs go, and org.freedesktop.LogControl1.
//! - [`service`], `demo`: process lifetime, systemd notification, signals; the demo.
//! - `virtual_board`: the emulated board behind virtual clocks and the demo (cargo feature
//!   `virtual-board`, on by default).
pub mod bus;
pub mod config;
#[cfg(feature = "virtual-board")]
pub mod demo;
pub mod device;
pub use chessclock_engine as engine;
pub mod logging;
pub use chessclock_api::monotonic;
pub mod remembered;
pub mod service;
pub mod store;
pub mod supervisor;
#[cfg(any(test, feature = "virtual-board"))]
pub mod virtual_board;
