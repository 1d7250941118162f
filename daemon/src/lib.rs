//! chessclockd: runs chess time controls in software and drives DGT clocks.
//!
//! Layers, from the pure core outwards:
//! - [`engine`]: re-export of the `chessclock-engine` crate (time-control engine and notation
//!   parser; pure: no IO, no clock reads).
//! - [`store`]: the crash-safe journal and snapshots in the state directory.
//! - [`config`]: settings from defaults, `/etc/chessclockd/chessclockd.toml` and the environment.
//! - [`device`]: one actor per board, the only code that touches a tty.
//! - [`supervisor`]: the set of attached clocks and their D-Bus objects.
//! - [`bus`]: the D-Bus service (objects hold handles, never locks) and client proxies.
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
