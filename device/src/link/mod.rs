//! The link layer: the DGT board as a pure state machine ([`driver`]: probe, clock command
//! queue, keep-alive, lever and piece reports) and the mapping of a clock face onto the
//! display's halves ([`display`], which half is White), the link's [`state`] as the bus
//! shows it, and the pure layers' time ([`instant`]).
//!
//! Pure: it does no IO and reads no clock (time is passed in). It knows the link, not the
//! game: it must not import the session (the game above it) or the IO layer.

pub mod display;
pub mod driver;
pub mod instant;
pub mod state;
#[cfg(any(test, feature = "testing"))]
pub(crate) mod virtual_time;
