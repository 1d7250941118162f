//! Deterministic virtual-time tests of the whole [`Session`] (driver, engine, display,
//! announcements) against the sans-IO emulator of a DGT board and clock.
//!
//! [`Rig`] steps both machines at one virtual instant, then jumps to the earlier of their
//! deadlines (quinn-proto's `Pair`); a step budget turns a livelock into a failure. No ptys,
//! no sleeps, no tokio: minutes of games run in milliseconds, the same way every time.

mod claims;
mod controls;
mod corrections;
mod dead_positions;
mod display;
mod fidelity;
mod game;
mod identify;
mod judging;
mod observe_checks;
mod record;
mod reopen;
mod requests;
mod restart;
mod resume;
mod unmoved_press;

pub(crate) use super::testing::*;
