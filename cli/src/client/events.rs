//! What `monitor` prints of the daemon's signals: each signal as a JSON event, and the same
//! event in words. No bus IO here: the caller reads the signals.

use serde_json::{Value, json};
use zbus::OwnedObjectPath;

/// A signal as a JSON event, or `None` for signals monitor does not show.
pub(super) fn describe(msg: &zbus::Message) -> Option<Value> {
    let header = msg.header();
    let member = header.member()?.as_str().to_owned();
    let path = header.path()?.as_str().to_owned();
    let body = msg.body();
    let ev = match member.as_str() {
        "StateChanged" => {
            let (old, new, reason): (String, String, String) = body.deserialize().ok()?;
            json!({"event": "state_changed", "old": old, "new": new, "reason": reason})
        }
        "Pressed" => {
            let (side, mv, move_ms, white_ms, black_ms): (String, u32, u64, u64, u64) =
                body.deserialize().ok()?;
            json!({"event": "pressed", "side": side, "move": mv, "move_ms": move_ms,
                   "white_ms": white_ms, "black_ms": black_ms})
        }
        "Move" => {
            let (ply, san, uci, fen, mover_ms): (u32, String, String, String, u64) =
                body.deserialize().ok()?;
            json!({"event": "move", "ply": ply, "san": san, "uci": uci, "fen": fen,
                   "mover_ms": mover_ms})
        }
        "Flag" => {
            let (side, reason): (String, String) = body.deserialize().ok()?;
            json!({"event": "flag", "side": side, "reason": reason})
        }
        "Result" => {
            let (result, reason): (String, String) = body.deserialize().ok()?;
            json!({"event": "result", "result": result, "reason": reason})
        }
        "ClockAdded" | "ClockRemoved" => {
            let (clock,): (OwnedObjectPath,) = body.deserialize().ok()?;
            let event = if member == "ClockAdded" {
                "clock_added"
            } else {
                "clock_removed"
            };
            return Some(json!({"event": event, "clock": clock.as_str()}));
        }
        "PropertiesChanged" => {
            type Changed = (
                String,
                std::collections::HashMap<String, zbus::OwnedVariant>,
                Vec<String>,
            );
            let (_iface, changed, _inv): Changed = body.deserialize().ok()?;
            let mut shown = serde_json::Map::new();
            for key in [
                "DeviceState",
                "BoardProblem",
                "Connected",
                "Model",
                "TimeControl",
                "WhiteSide",
            ] {
                if let Some(v) = changed.get(key) {
                    shown.insert(key.into(), chessclock_api::variant::variant_to_json(v));
                }
            }
            if shown.is_empty() {
                return None;
            }
            json!({"event": "properties_changed", "changed": shown})
        }
        _ => return None,
    };
    let mut ev = ev;
    if let Some(o) = ev.as_object_mut() {
        o.insert("clock".into(), json!(path));
    }
    Some(ev)
}

pub(super) fn human_event(ev: &Value) -> String {
    let g = |k: &str| match ev.get(k) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    };
    let clock = g("clock");
    let short =
        chessclock_api::names::clock_index(&clock).map_or(clock.clone(), |i| format!("clock {i}"));
    let ms = |k: &str| {
        ev.get(k)
            .and_then(Value::as_u64)
            .map_or_else(String::new, super::render::clock_text)
    };
    match g("event").as_str() {
        "state_changed" => format!("{short}: {} -> {} ({})", g("old"), g("new"), g("reason")),
        "pressed" => format!(
            "{short}: {} pressed, move {} took {} ms; white {} black {}",
            g("side"),
            g("move"),
            g("move_ms"),
            ms("white_ms"),
            ms("black_ms")
        ),
        "move" => {
            let ply = ev.get("ply").and_then(Value::as_u64).unwrap_or(0);
            let number = ply.div_ceil(2);
            let dots = if ply % 2 == 1 { "." } else { "..." };
            format!(
                "{short}: {number}{dots} {} ({}) {}",
                g("san"),
                g("uci"),
                ms("mover_ms")
            )
        }
        "flag" => format!("{short}: {} flag ({})", g("side"), g("reason")),
        "result" => format!("{short}: result {} ({})", g("result"), g("reason")),
        "clock_added" => format!("{} attached", g("clock")),
        "clock_removed" => format!("{} detached", g("clock")),
        _ => format!(
            "{short}: {}",
            ev.get("changed").map(Value::to_string).unwrap_or_default()
        ),
    }
}
