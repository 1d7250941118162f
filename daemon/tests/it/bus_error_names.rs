//! The daemon's D-Bus errors carry exactly the names clients know from `chessclock-api`.

use chessclock_api::error::ErrorName;
use chessclockd::bus::error::BusError;
use zbus::DBusError;

#[test]
fn every_bus_error_has_a_name_the_api_knows() {
    let m = || "m".to_owned();
    let errors = [
        BusError::InvalidArgument(m()),
        BusError::NotAllowed(m()),
        BusError::NoSuchClock(m()),
        BusError::AlreadyAttached(m()),
        BusError::PortFailed(m()),
        BusError::DeviceFailed(m()),
        BusError::Gone(m()),
    ];
    let names: Vec<Option<ErrorName>> = errors
        .iter()
        .map(|e| ErrorName::parse(e.name().as_str()))
        .collect();
    let expected: Vec<Option<ErrorName>> = ErrorName::ALL.into_iter().map(Some).collect();
    assert_eq!(names, expected);
}
