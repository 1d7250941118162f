//! The owned parts a [`Session`](super::Session) is built from, as quinn-proto's
//! `Connection` is built from its sub-states: each holds the fields of one concern with the
//! invariant that binds them, kept by the part's own methods (unit-tested in the
//! part's file). The session's methods (spread by role over its files) act on them; a
//! part never reaches into another.
//!
//! Data and invariants only: no IO, no clock reads, no rules of the game.

mod board;
mod display;
mod lever;
mod live_feed;
mod published;
mod record;
mod timeline;

pub(crate) use board::BoardPart;
pub(crate) use display::DisplayWork;
pub(crate) use lever::{Lever, LeverVerdict};
pub(crate) use live_feed::LiveFeed;
pub(crate) use published::Published;
pub(crate) use record::GameRecordPart;
pub(crate) use timeline::Timeline;
