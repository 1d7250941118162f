//! The names of the errors the daemon returns (`org.chessclockd.ChessClock1.Error.*`), for
//! clients that react to one of them. The daemon's own error type (daemon `bus::error`)
//! produces exactly these names; a test in the daemon keeps the two in step.

use crate::names::ERROR_PREFIX;

/// One of the daemon's typed errors (docs/dbus-api.md, "Errors").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorName {
    /// A side, result, half, field, op or notation is malformed.
    InvalidArgument,
    /// Not allowed in the game state now.
    NotAllowed,
    /// No clock at that path.
    NoSuchClock,
    /// The port is attached already.
    AlreadyAttached,
    /// The port cannot be opened.
    PortFailed,
    /// The clock did not answer in time.
    DeviceFailed,
    /// The clock was detached meanwhile.
    Gone,
}

impl ErrorName {
    /// Every error name, in the order of docs/dbus-api.md.
    pub const ALL: [ErrorName; 7] = [
        ErrorName::InvalidArgument,
        ErrorName::NotAllowed,
        ErrorName::NoSuchClock,
        ErrorName::AlreadyAttached,
        ErrorName::PortFailed,
        ErrorName::DeviceFailed,
        ErrorName::Gone,
    ];

    /// The last element of the name.
    pub fn short(self) -> &'static str {
        match self {
            ErrorName::InvalidArgument => "InvalidArgument",
            ErrorName::NotAllowed => "NotAllowed",
            ErrorName::NoSuchClock => "NoSuchClock",
            ErrorName::AlreadyAttached => "AlreadyAttached",
            ErrorName::PortFailed => "PortFailed",
            ErrorName::DeviceFailed => "DeviceFailed",
            ErrorName::Gone => "Gone",
        }
    }

    /// The full D-Bus error name.
    pub fn full(self) -> String {
        format!("{ERROR_PREFIX}.{}", self.short())
    }

    /// The error a D-Bus error name stands for, if it is one of the daemon's.
    pub fn parse(name: &str) -> Option<ErrorName> {
        let short = name.strip_prefix(ERROR_PREFIX)?.strip_prefix('.')?;
        ErrorName::ALL.into_iter().find(|e| e.short() == short)
    }

    /// The daemon's error carried by a zbus error, if it is one.
    pub fn of(e: &zbus::Error) -> Option<ErrorName> {
        match e {
            zbus::Error::MethodError(name, _, _) => ErrorName::parse(name.as_str()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_foreign_names_are_none() {
        for e in ErrorName::ALL {
            assert_eq!(ErrorName::parse(&e.full()), Some(e));
        }
        assert_eq!(
            ErrorName::AlreadyAttached.full(),
            "org.chessclockd.ChessClock1.Error.AlreadyAttached"
        );
        assert_eq!(
            ErrorName::parse("org.freedesktop.DBus.Error.AccessDenied"),
            None
        );
        assert_eq!(
            ErrorName::parse("org.chessclockd.ChessClock1.ErrorGone"),
            None
        );
    }
}
