//! chessclockd: runs chess time controls in software and drives DGT clocks.
//!
//! Layers, from the pure core outwards:
//! - [`engine`]: the time-control engine and the notation parser. Pure: no IO, no clock reads.
pub mod engine;
pub mod config;
pub mod store;
