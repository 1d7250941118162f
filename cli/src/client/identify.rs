//! `chessclockctl identify CLOCK|--all`: find a board in the hall. Each clock named shows its
//! board number and beeps for a few seconds (the daemon's `Identify`), then its times again;
//! one line per clock says which was identified, and a clock the daemon refused (its game
//! runs, no clock on the board) is named with the daemon's reason.
//!
//! The daemon decides the words on the display and when it is allowed; this module only asks
//! each clock in turn and reports. It must not write to a display itself.

use chessclock_api::ClockStatus;
use chessclock_api::proxy::ClockProxy;
use zbus::Connection;

use super::commands::{ClockName, out_line, to_json};
use super::resolve::{all_clocks, resolve};
use super::said::{self, Voice};
use super::{BusArgs, Failure, Result, bus_failure};

/// Identify `clock` (every clock with `None`) for `seconds`; exit 1 if any was refused.
pub(crate) async fn run(
    conn: &Connection,
    bus: &BusArgs,
    clock: Option<ClockName>,
    seconds: u32,
    voice: Voice,
) -> Result<()> {
    let clocks = match &clock {
        Some(name) => vec![resolve(conn, bus, name).await?.1],
        None => all_clocks(conn, bus).await?,
    };
    if clocks.is_empty() {
        return Err(Failure::Action(
            "no clocks attached (attach one with `chessclockctl attach /dev/ttyACM0`)".into(),
        ));
    }
    let mut refused = Vec::new();
    let mut results = Vec::new();
    for c in &clocks {
        let error = match identify(conn, bus, c, seconds).await {
            Ok(()) => None,
            Err(Failure::Action(why)) => Some(why),
            Err(not_running) => return Err(not_running),
        };
        if voice.says() && error.is_none() {
            out_line(&said::identified(c, seconds))?;
        }
        if let Some(why) = &error {
            refused.push(format!("{}, board {}: {why}", said::who(c), c.board));
        }
        results.push(serde_json::json!({
            "clock": c.clock,
            "index": c.index,
            "board": c.board,
            "identified": error.is_none(),
            "error": error,
        }));
    }
    if voice.json {
        out_line(&to_json(
            &serde_json::json!({ "seconds": seconds, "clocks": results }),
        )?)?;
    }
    match (refused.len(), clock.is_some()) {
        (0, _) => Ok(()),
        (_, true) => Err(Failure::Action(refused.remove(0))),
        (n, false) => Err(Failure::Action(format!(
            "{n} of {} clocks not identified:\n  {}",
            clocks.len(),
            refused.join("\n  ")
        ))),
    }
}

/// Ask clock `c` to identify itself for `seconds`.
async fn identify(conn: &Connection, bus: &BusArgs, c: &ClockStatus, seconds: u32) -> Result<()> {
    let f = |e| bus_failure(bus, e);
    let clock = ClockProxy::builder(conn)
        .path(c.clock.as_str())
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .map_err(f)?;
    clock.identify(seconds).await.map_err(f)
}
