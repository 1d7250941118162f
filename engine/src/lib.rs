//! chessclock-engine: the time-control engine and the notation parser.
//!
//! The pure core of chessclockd, as quinn-proto is to quinn: it depends on serde, nom and
//! thiserror only, does no IO and reads no clock. The daemon drives it from its device actors;
//! `chessclockctl simulate` and `timecontrol parse` use it offline. The optional `vectors`
//! feature adds the conformance-vector runner ([`vectors`], JSON via serde_json).
//!
//! Owns every timing method of `docs/timecontrols.md` (spec `timecontrols.md` §2-§4), exact
//! to the millisecond, as a pure state machine in the quinn-proto style: `now` is always
//! passed in; no IO, no clock reads, no tasks. Drive it with [`Engine::handle_input`] and
//! [`Engine::handle_timeout`], arm a timer for [`Engine::poll_timeout`], drain
//! [`Engine::poll_event`], read [`Engine::snapshot`] and [`Engine::display`].

/// `Display` of each type as its `as_str` name (padded as the format asks: `{:<8}`).
macro_rules! display_as_str {
    ($($t:ty),+) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.as_str())
            }
        }
    )+};
}

/// `Serialize` of each type as its `Display` text.
macro_rules! serialize_as_text {
    ($($t:ty),+) => {$(
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    )+};
}

mod arbiter;
mod core;
mod judge;
mod method;
pub mod notation;
mod outcome;
pub mod params;
pub mod rating;
mod refusal;
mod rules;
mod snapshot;
mod text;
mod types;
#[cfg(feature = "vectors")]
pub mod vectors;
mod verdict;
pub mod words;

pub use core::Engine;
pub use snapshot::{Detail, MethodDetail, Run, Snapshot};
pub use text::{clock_text, hms_text};
pub use types::{
    AdjustField, AdjustOp, BoardClaim, BoardEnd, ConfigError, Display, Event, FlagReason,
    FlagRecord, GameResult, Input, InputError, PendingClaim, PerSide, Phase, Press, ResultReason,
    Ruling, Side, SidePhase, Status, StatusCause, Time,
};
pub use verdict::{
    ClaimKind, DEFAULT_RULING_DELAY_MS, DENIED_CLAIM_PENALTY_MS, LOSING_CHANCES_MAX_MS, Mating,
    WRONG_CLAIM_BONUS_MS, WhoCanMate,
};
