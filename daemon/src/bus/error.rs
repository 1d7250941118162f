//! Typed D-Bus errors (`org.chessclockd.ChessClock1.Error.*`).
//!
//! Every message says what went wrong and what to do about it. Owns only the mapping from
//! daemon errors to D-Bus errors.

use zbus::DBusError;

/// Errors returned by the daemon's D-Bus methods.
#[derive(Debug, DBusError)]
#[zbus(prefix = "org.chessclockd.ChessClock1.Error")]
pub enum BusError {
    /// A transport-level zbus error.
    #[zbus(error)]
    ZBus(zbus::Error),
    /// An argument is malformed (bad side, bad notation, bad field name...).
    InvalidArgument(String),
    /// The action is not allowed in the current game state (e.g. adjust while running).
    NotAllowed(String),
    /// No clock with that path, index or port.
    NoSuchClock(String),
    /// The port is already attached.
    AlreadyAttached(String),
    /// The port could not be opened or is not a DGT board.
    PortFailed(String),
    /// The clock did not answer or refused the command (e.g. not in PC mode).
    DeviceFailed(String),
    /// The device actor is gone (the clock was detached meanwhile).
    Gone(String),
}
