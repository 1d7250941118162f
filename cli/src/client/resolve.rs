//! Naming a clock on the command line: an index (`0`), an object path, a tty path
//! (`/dev/ttyACM0`, symlinks followed) or a board serial number — as mmcli names modems.

use chessclock_api::ClockStatus;
use chessclock_api::names::{CLOCK_PATH_PREFIX, clock_path};
use chessclock_api::read;
use zbus::{Connection, OwnedObjectPath};

use super::{BusArgs, Failure, Result, read_failure};

/// Every attached clock, in index order, read in one round trip.
pub(crate) async fn all_clocks(conn: &Connection, args: &BusArgs) -> Result<Vec<ClockStatus>> {
    read::all_clocks(conn)
        .await
        .map_err(|e| read_failure(args, e))
}

/// Find the clock the user named; its path and its status as read.
///
/// In this order: an object path; a number that is the index of an attached clock; a tty
/// path (symlinks followed); a board serial number. A number that is no attached clock's
/// index is therefore tried as a serial (board serials are digits, e.g. `24680`). A serial
/// that several attached boards share is an error naming them.
pub(crate) async fn resolve(
    conn: &Connection,
    args: &BusArgs,
    name: &str,
) -> Result<(OwnedObjectPath, ClockStatus)> {
    let clocks = all_clocks(conn, args).await?;
    let found = pick(clocks, name)?;
    let path = OwnedObjectPath::try_from(found.clock.clone())
        .map_err(|e| Failure::Action(format!("the daemon named a clock {:?}: {e}", found.clock)))?;
    Ok((path, found))
}

/// The clock among `clocks` that `name` names.
fn pick(clocks: Vec<ClockStatus>, name: &str) -> Result<ClockStatus> {
    let not_found = || {
        Failure::Action(format!(
            "no clock matches {}; name a clock by index, object path, tty path or board \
             serial (`chessclockctl list` shows them)",
            chessclock_engine::words::quote(name)
        ))
    };
    if name.starts_with(CLOCK_PATH_PREFIX) {
        return clocks
            .into_iter()
            .find(|c| c.clock == name)
            .ok_or_else(not_found);
    }
    if let Ok(n) = name.parse::<u32>() {
        let want = clock_path(n);
        if let Some(i) = clocks.iter().position(|c| c.clock == want) {
            return clocks.into_iter().nth(i).ok_or_else(not_found);
        }
    }
    let wanted_port = std::fs::canonicalize(name).ok();
    let mut by_serial = Vec::new();
    for clock in clocks {
        let same_port = clock.port == name
            || wanted_port
                .as_ref()
                .is_some_and(|w| std::fs::canonicalize(&clock.port).ok().as_ref() == Some(w));
        if same_port {
            return Ok(clock);
        }
        if !clock.board_serial.is_empty() && clock.board_serial == name {
            by_serial.push(clock);
        }
    }
    match by_serial.len() {
        0 => Err(not_found()),
        1 => by_serial.pop().ok_or_else(not_found),
        _ => Err(Failure::Action(format!(
            "{} clocks have board serial {name}: {}; name one by index or tty path",
            by_serial.len(),
            by_serial
                .iter()
                .map(|c| c.index.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}
