//! Naming a clock on the command line: an index (`0`), `board:N` (board N of the round),
//! its name, an object path, a tty path (`/dev/ttyACM0`, symlinks followed) or a board serial
//! number — the rule every client shares ([`chessclock_api::select`]).

use chessclock_api::ClockStatus;
use chessclock_api::{read, select};
use zbus::{Connection, OwnedObjectPath};

use super::{BusArgs, Failure, Result, read_failure};

/// Every clock, in board order (`render::board_order`), read in one round trip, with the
/// bridge's Lichess push problems of their boards (none without a bridge on this bus).
pub(crate) async fn all_clocks(conn: &Connection, args: &BusArgs) -> Result<Vec<ClockStatus>> {
    let mut clocks = read::all_clocks(conn)
        .await
        .map_err(|e| read_failure(args, e))?;
    chessclock_api::push::merge(&mut clocks, &chessclock_api::push::read(conn).await);
    clocks.sort_by_key(super::render::board_order);
    Ok(clocks)
}

/// Find the clock the user named; its path and its status as read. The forms are
/// [`chessclock_api::select`]'s: object path, `board:N`, index, name, tty path, board serial.
pub(crate) async fn resolve(
    conn: &Connection,
    args: &BusArgs,
    name: &str,
) -> Result<(OwnedObjectPath, ClockStatus)> {
    let mut clocks = all_clocks(conn, args).await?;
    let i = select(&clocks, name).map_err(|e| Failure::Action(e.0))?;
    let found = clocks.swap_remove(i);
    let path = OwnedObjectPath::try_from(found.clock.clone())
        .map_err(|e| Failure::Action(format!("the daemon named a clock {:?}: {e}", found.clock)))?;
    Ok((path, found))
}
