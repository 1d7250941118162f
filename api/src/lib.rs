//! The D-Bus API of chessclockd as clients see it: the published clock, declared once
//! ([`clock`]), the fixed names and paths ([`names`]), the
//! zbus proxies ([`proxy`]), the error names ([`error`]), the conversions between `a{sv}` and
//! JSON ([`variant`]), typed values straight to `a{sv}` ([`to_variant`]) and one typed [`ClockStatus`] built from a clock's properties, read for
//! every clock in one round trip ([`read`]), what a Lichess round id is ([`broadcast`]), the bridge's push problems ([`push`]), how a clock is named ([`select`]), what needs
//! the operator at a board ([`attention`]) and its last move ([`last_move`]).
//!
//! Shared by the daemon's bus service (names, variant conversions), `chessclockctl` and
//! `chessclock-bridge`, so that every client prints the same JSON. Owns no behaviour of the
//! daemon and links nothing device-side (no serial ports); of the engine it uses only the
//! shared value types and rules ([`Side`], how a running clock's values move, clock text),
//! never an engine. The CLOCK_MONOTONIC time base of `as_of_us` is [`monotonic`]'s.

pub mod attention;
pub mod broadcast;
pub mod clock;
pub mod error;
pub mod event;
pub mod extrapolate;
pub mod fleet;
pub mod last_move;
pub mod monotonic;
pub mod names;
pub mod proxy;
pub mod push;
pub mod read;
pub mod round_check;
pub mod schema;
pub mod select;
pub mod status;
pub mod to_variant;
pub mod variant;

pub use attention::{Problem, problems};
pub use clock::{DeviceState, Mode, PublishedClock};
pub use event::{ClockEvent, Signal};
pub use last_move::LastMove;
pub use select::{SelectError, select};
pub use status::{ClockStatus, Side, Sides, StatusError};
