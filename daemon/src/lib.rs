//! chessclockd: runs chess time controls in software and drives DGT clocks.
//!
//! Layers, from the pure core outwards:
//! - [`engine`]: the time-control engine and the notation parser. Pure: no IO, no clock reads.
//! - [`store`]: the crash-safe journal and snapshots in the state directory.
//! - [`config`]: settings from defaults, `/etc/chessclockd/chessclockd.toml` and the environment.
pub mod config;
pub mod engine;
pub mod store;
pub mod virtual_board;
