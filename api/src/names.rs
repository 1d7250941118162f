//! Fixed D-Bus names: bus name, object paths, interface names, error prefix.
//!
//! Shared by the service and by every client (the CLI, tests). Owns no behaviour.

/// Well-known bus name of the daemon.
pub const BUS_NAME: &str = "org.chessclockd.ChessClock1";
/// Object path of the manager (and of the ObjectManager).
pub const MANAGER_PATH: &str = "/org/chessclockd/ChessClock1";
/// Interface of the manager object.
pub const MANAGER_INTERFACE: &str = "org.chessclockd.ChessClock1.Manager";
/// Interface of each clock object.
pub const CLOCK_INTERFACE: &str = "org.chessclockd.ChessClock1.Clock";
/// Prefix of every error name the daemon returns.
pub const ERROR_PREFIX: &str = "org.chessclockd.ChessClock1.Error";
/// Prefix of clock object paths; the clock's index follows.
pub const CLOCK_PATH_PREFIX: &str = "/org/chessclockd/ChessClock1/Clock/";
/// Where the daemon and the bridge serve `org.freedesktop.LogControl1` (run-time log level).
pub const LOG_CONTROL_PATH: &str = "/org/freedesktop/LogControl1";
/// Well-known bus name of `chessclock-bridge` (its unit's `BusName=`): it serves only
/// `org.freedesktop.LogControl1`, so that `systemctl service-log-level chessclock-bridge`
/// works. The bridge is otherwise a client of [`BUS_NAME`].
pub const BRIDGE_BUS_NAME: &str = "org.chessclockd.Bridge1";

/// Object path of the clock with index `n`.
pub fn clock_path(n: u32) -> String {
    format!("{CLOCK_PATH_PREFIX}{n}")
}

/// Index of a clock from its object path, if the path is a clock path.
pub fn clock_index(path: &str) -> Option<u32> {
    let rest = path.strip_prefix(CLOCK_PATH_PREFIX)?;
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    rest.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_paths_round_trip_and_reject_others() {
        assert_eq!(clock_index(&clock_path(7)), Some(7));
        assert_eq!(clock_index("/org/chessclockd/ChessClock1/Clock/"), None);
        assert_eq!(clock_index("/org/chessclockd/ChessClock1/Clock/1x"), None);
        assert_eq!(clock_index("/org/chessclockd/ChessClock1"), None);
    }
}
