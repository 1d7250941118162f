//! Naming a clock on the command line: an index (`0`), an object path, a tty path
//! (`/dev/ttyACM0`, symlinks followed) or a board serial number — as mmcli names modems.

use chessclockd::bus::names::{CLOCK_PATH_PREFIX, clock_index, clock_path};
use chessclockd::bus::proxy::{ClockProxy, ManagerProxy};
use zbus::{Connection, OwnedObjectPath};

use super::{BusArgs, Failure, Result, bus_failure};

/// Every attached clock's path, in index order.
pub(crate) async fn all_clocks(conn: &Connection, args: &BusArgs) -> Result<Vec<OwnedObjectPath>> {
    let mgr = ManagerProxy::new(conn)
        .await
        .map_err(|e| bus_failure(args, e))?;
    let mut clocks = mgr.clocks().await.map_err(|e| bus_failure(args, e))?;
    clocks.sort_by_key(|p| clock_index(p.as_str()).unwrap_or(u32::MAX));
    Ok(clocks)
}

/// A proxy for one clock object.
pub(crate) async fn proxy<'a>(
    conn: &'a Connection,
    args: &BusArgs,
    path: &OwnedObjectPath,
) -> Result<ClockProxy<'a>> {
    ClockProxy::builder(conn)
        .path(path.clone())
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .map_err(|e| bus_failure(args, e))
}

/// Find the clock the user named.
///
/// In this order: an object path; a number that is the index of an attached clock; a tty
/// path (symlinks followed); a board serial number. A number that is no attached clock's
/// index is therefore tried as a serial (board serials are digits, e.g. `24680`). A serial
/// that several attached boards share is an error naming them.
pub(crate) async fn resolve(
    conn: &Connection,
    args: &BusArgs,
    name: &str,
) -> Result<OwnedObjectPath> {
    let clocks = all_clocks(conn, args).await?;
    let not_found = || {
        Failure::Action(format!(
            "no clock matches {name:?}; name a clock by index, object path, tty path or board \
             serial (`chessclockctl list` shows them)"
        ))
    };
    if name.starts_with(CLOCK_PATH_PREFIX) {
        return clocks
            .into_iter()
            .find(|p| p.as_str() == name)
            .ok_or_else(not_found);
    }
    if let Ok(n) = name.parse::<u32>() {
        let want = clock_path(n);
        if let Some(p) = clocks.iter().find(|p| p.as_str() == want) {
            return Ok(p.clone());
        }
    }
    let wanted_port = std::fs::canonicalize(name).ok();
    let mut by_serial = Vec::new();
    for path in clocks {
        let clock = proxy(conn, args, &path).await?;
        let port = match clock.port().await {
            Ok(port) => port,
            // Detached meanwhile: it matches nothing.
            Err(zbus::Error::FDO(e)) if matches!(*e, zbus::fdo::Error::UnknownObject(_)) => {
                continue;
            }
            Err(e) => return Err(bus_failure(args, e)),
        };
        let same_port = port == name
            || wanted_port
                .as_ref()
                .is_some_and(|w| std::fs::canonicalize(&port).ok().as_ref() == Some(w));
        if same_port {
            return Ok(path);
        }
        let serial = clock
            .board_serial()
            .await
            .map_err(|e| bus_failure(args, e))?;
        if !serial.is_empty() && serial == name {
            by_serial.push(path);
        }
    }
    match by_serial.len() {
        0 => Err(not_found()),
        1 => Ok(by_serial.remove(0)),
        _ => Err(Failure::Action(format!(
            "{} clocks have board serial {name}: {}; name one by index or tty path",
            by_serial.len(),
            by_serial
                .iter()
                .filter_map(|p| clock_index(p.as_str()))
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}
