//! The state of the board link as the bus shows it ([`DeviceState`]): the driver says which
//! it is, the session publishes it.
//!
//! Data only; it must not import the layers above.

use serde::Serialize;

/// Connection state of the board and its clock, as shown on D-Bus (`DeviceState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceState {
    /// The port is being opened.
    Opening,
    /// The board is being probed (mode, version, serial, clock).
    Probing,
    /// Board and clock answer; the clock is in PC mode and driven by the daemon.
    Ready,
    /// The board answers but reports no clock attached (or the clock is off).
    NoClock,
    /// The clock rejected a command: it is not in its PC mode (option 25 / 23).
    NotInPcMode,
    /// The clock stopped acknowledging commands after the retries.
    NotResponding,
    /// The port is gone (unplugged); the game goes on in the engine.
    Disconnected,
}

impl DeviceState {
    /// snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceState::Opening => "opening",
            DeviceState::Probing => "probing",
            DeviceState::Ready => "ready",
            DeviceState::NoClock => "no_clock",
            DeviceState::NotInPcMode => "not_in_pc_mode",
            DeviceState::NotResponding => "not_responding",
            DeviceState::Disconnected => "disconnected",
        }
    }
}
