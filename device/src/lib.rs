//! The device core of chessclockd: one DGT board and the game played on it, as pure state
//! machines (quinn-proto's split of a protocol from its IO).
//!
//! - [`link`]: the board link (the [`link::driver::Driver`]: probe, clock command queue,
//!   keep-alive, lever and piece reports) and the display's halves.
//! - [`session`]: the game over the link (the [`session::Session`]): lever presses into
//!   engine presses, the engine into set-and-run pushes and announcements, the board's
//!   pieces, the operators' requests, the published state.
//!
//! Deterministic: no IO, no threads, no clock reads; time is passed in. The daemon's device
//! actor is its IO shell.

pub mod link;
pub mod session;
