//! The time-control engine and the notation parser.
//!
//! Owns every timing method of `docs/timecontrols.md`, exact to the millisecond. It must not
//! do IO, spawn tasks or read a clock: `now` is always passed in.
pub mod notation;
pub mod params;
