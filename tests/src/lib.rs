//! Shared harness for the end-to-end tests: private D-Bus daemons (session-like and
//! system-like with the project's real policy), unprivileged test users, temp dirs and
//! paths into the checkout.
//!
//! Owns test scaffolding only. It must not contain product logic; tests drive the real
//! binaries and a real `dbus-daemon` through it.

pub mod bridge;
pub mod bus;
pub mod bus_client;
pub mod chromium;
pub mod clock_fields;
pub mod e2e;
pub mod json;
pub mod lichess;
pub mod notify;
pub mod paths;
pub mod pgn;
pub mod rig;
pub mod tempdir;
pub mod tmux;
pub mod udev;
pub mod udev_eval;
pub mod users;

pub use bus::PrivateBus;
pub use clock_fields::ClockFields;
pub use notify::NotifySocket;
pub use tempdir::TempDir;
pub use users::{PolicyUsers, TestUser, ensure_test_user, is_root, policy_users};
