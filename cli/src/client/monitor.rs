//! `chessclockctl monitor`: the daemon's events as they happen, each with the wall time and
//! the clock's name, in words or as JSON lines. It says when the daemon stops and starts
//! again, and goes on; only a lost bus ends it.
//!
//! Owns the loop and the clock names it prints; the wording is [`super::events`]'.

use std::collections::HashMap;

use chessclock_api::read;
use serde_json::{Value, json};
use zbus::{Connection, OwnedObjectPath};

use super::commands::out_line;
use super::events::{describe, human_event};
use super::feed::{Feed, Happening};
use super::{BusArgs, Failure, Result, bus_failure, bus_label, connect, read_failure};

/// Run `monitor` until Ctrl-C or a lost bus.
pub(crate) async fn run(bus: &BusArgs, json: bool) -> Result<()> {
    let conn = connect(bus).await?;
    let (mut feed, present) = Feed::open(&conn).await.map_err(|e| bus_failure(bus, e))?;
    // Fail early and clearly if the daemon is not there.
    let mut names = HashMap::new();
    if present {
        names = clock_names(&conn, bus).await?;
    } else {
        read::all_clocks(&conn)
            .await
            .map_err(|e| read_failure(bus, e))?;
    }
    loop {
        let happening = tokio::select! {
            h = feed.next() => h,
            _ = tokio::signal::ctrl_c() => return Ok(()),
        };
        let ev = match happening {
            Happening::Push => continue,
            Happening::Signal(msg) => {
                let Some(ev) = describe(&msg) else { continue };
                name_event(&conn, &mut names, ev).await
            }
            Happening::Gone => json!({"event": "daemon_gone"}),
            Happening::Back => {
                // The clocks may be others now; a failed read leaves the names empty.
                names = clock_names(&conn, bus).await.unwrap_or_default();
                json!({"event": "daemon_back"})
            }
            Happening::Lost(e) => {
                return Err(Failure::NotRunning(format!(
                    "lost the connection to {} ({e})",
                    bus_label(bus)
                )));
            }
        };
        print(ev, json)?;
    }
}

/// Add the clock's name (kept up to date as clocks come and go).
async fn name_event(
    conn: &Connection,
    names: &mut HashMap<String, String>,
    mut ev: Value,
) -> Value {
    let Some(path) = ev.get("clock").and_then(Value::as_str).map(str::to_owned) else {
        return ev;
    };
    let name = match ev.get("event").and_then(Value::as_str) {
        Some("clock_added") => {
            let name = match OwnedObjectPath::try_from(path.as_str()) {
                Ok(p) => read::clock(conn, &p).await.map(|c| c.published.name).ok(),
                Err(_) => None,
            };
            let name = name.unwrap_or_default();
            names.insert(path.clone(), name.clone());
            Some(name)
        }
        Some("clock_removed") => names.remove(&path),
        _ => names.get(&path).cloned(),
    };
    if let (Some(name), Some(o)) = (name, ev.as_object_mut()) {
        o.insert("name".into(), json!(name));
    }
    ev
}

async fn clock_names(conn: &Connection, bus: &BusArgs) -> Result<HashMap<String, String>> {
    let clocks = read::all_clocks(conn)
        .await
        .map_err(|e| read_failure(bus, e))?;
    Ok(clocks
        .into_iter()
        .map(|c| (c.clock, c.published.name))
        .collect())
}

fn print(mut ev: Value, json: bool) -> Result<()> {
    let now = jiff::ZonedDateTime::now();
    if json {
        if let Some(o) = ev.as_object_mut() {
            let time = now.strftime("%Y-%m-%dT%H:%M:%S%.3f%:z").to_string();
            o.insert("time".into(), json!(time));
        }
        return out_line(&ev.to_string());
    }
    let time = now.strftime("%H:%M:%S");
    out_line(&format!("{time} {}", human_event(&ev)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_time_format_is_rfc3339_with_milliseconds() {
        let t = jiff::ZonedDateTime::now()
            .strftime("%Y-%m-%dT%H:%M:%S%.3f%:z")
            .to_string();
        // e.g. 2026-11-24T12:03:04.123+01:00
        assert_eq!(t.len(), 29, "{t}");
        assert_eq!(&t[10..11], "T");
        assert!(t[23..].starts_with('+') || t[23..].starts_with('-'), "{t}");
    }
}
