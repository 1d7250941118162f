//! The state of the board link as the bus shows it ([`DeviceState`], declared with the
//! published clock in the api crate): the driver says which it is, the session publishes it.
//!
//! Data only; it must not import the layers above.

pub use chessclock_api::DeviceState;
