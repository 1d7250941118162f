//! The IO layer: everything of a device that touches the outside world. The device
//! [`actor`] (the async shell of one session: the port, the journal, the record, the
//! published state) on the line it is given ([`transport`]: a tty, or the supervisor's
//! virtual board), opening ports ([`port`], [`identity`]), probing candidate ttys
//! ([`scan`]), the runtime actors run on ([`runtime`]), the journal ([`persist`]), the
//! live PGN files ([`live`]) and the search of who can still mate ([`search`]), whose
//! threads a supervisor hands to its clocks ([`sinks`]).
//!
//! The only layer that reads the clock, sleeps or does IO. The rules are not here: they are
//! in the session, which this layer drives and whose events it carries out.

pub(crate) mod actor;
pub(crate) mod identity;
pub(crate) mod live;
pub(crate) mod persist;
pub(crate) mod port;
pub mod runtime;
pub mod scan;
pub(crate) mod search;
pub(crate) mod sinks;
pub(crate) mod transport;
