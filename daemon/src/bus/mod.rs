//! The D-Bus service: the Manager object, one Clock object per device, typed errors, and
//! the proxies and names clients reuse.
//!
//! Interface objects hold handles (to the supervisor or to a device actor), never locks or
//! game state. Shape of the API: `docs/dbus-api.md`.

pub mod clock;
pub mod error;
pub mod manager;
pub mod names;
pub mod proxy;
pub mod variant;
