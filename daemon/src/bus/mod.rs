//! The D-Bus service: the Manager object, one Clock object per device, typed errors.
//!
//! The names, the proxies and the `a{sv}` conversions clients share live in the
//! `chessclock-api` crate; they are re-exported here for the daemon's own modules.
//!
//! Interface objects hold handles (to the supervisor or to a device actor), never locks or
//! game state; `objects` turns the supervisor's announcements into objects. Shape of the API:
//! `docs/dbus-api.md`.

pub mod clock;
pub mod error;
pub mod manager;
pub mod objects;

pub(crate) use chessclock_api::names;
