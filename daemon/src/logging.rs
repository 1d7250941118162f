//! The daemon's logging: [`chessclock_system::logging`] (the filter, journald or stderr,
//! `org.freedesktop.LogControl1`), shared with the bridge, set up for chessclockd. Only the
//! daemon's names live here.

pub use chessclock_system::logging::*;

/// chessclockd as the logging module knows it: its journal identifier, its variable
/// `CHESSCLOCKD_LOG`, and the example directives its messages give.
pub const PROGRAM: Program = Program {
    identifier: "chessclockd",
    env: crate::config::LOG_ENV,
    example: "info,chessclockd::device=debug",
};
