//! What `monitor` prints of the daemon's signals: each signal as a JSON event (the daemon's
//! events decoded by `chessclock_api::event`, plus device property changes), and the same
//! event in words (device changes too, never raw JSON). No bus IO here: the caller reads the
//! signals and adds the time and the clock's name.

use serde_json::{Value, json};

/// A signal as a JSON event, or `None` for signals monitor does not show: the daemon's
/// events as `chessclock_api::event` decodes them, and the device property changes.
pub(super) fn describe(msg: &zbus::Message) -> Option<Value> {
    if let Some(signal) = chessclock_api::event::decode(msg) {
        return Some(signal.to_json());
    }
    let header = msg.header();
    if header.member()?.as_str() != "PropertiesChanged" {
        return None;
    }
    let path = header.path()?.as_str().to_owned();
    type Changed = (
        String,
        std::collections::HashMap<String, zbus::OwnedVariant>,
        Vec<String>,
    );
    let (_iface, changed, _inv): Changed = msg.body().deserialize().ok()?;
    let mut shown = serde_json::Map::new();
    for key in [
        "DeviceState",
        "BoardProblem",
        "Notices",
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
    Some(json!({"event": "properties_changed", "changed": shown, "clock": path}))
}

/// The event in words, after the time and the clock's label (`clock 0 (Board 1)`).
pub(super) fn human_event(ev: &Value) -> String {
    let g = |k: &str| match ev.get(k) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    };
    let clock = g("clock");
    let index =
        chessclock_api::names::clock_index(&clock).map_or(clock.clone(), |i| format!("clock {i}"));
    let who = match ev.get("name").and_then(Value::as_str) {
        Some(name) if !name.is_empty() => format!("{index} ({name})"),
        _ => index,
    };
    let ms = |k: &str| {
        ev.get(k)
            .and_then(Value::as_u64)
            .map_or_else(String::new, chessclock_engine::clock_text)
    };
    let what = match g("event").as_str() {
        "state_changed" => format!("game {} -> {} ({})", g("old"), g("new"), g("reason")),
        "pressed" => format!(
            "{} pressed, move {} took {} ms; white {} black {}",
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
                "{number}{dots} {} ({}) {}",
                g("san"),
                g("uci"),
                ms("mover_ms")
            )
        }
        "flag" => format!("{} flag ({})", g("side"), g("reason")),
        "result" => format!("result {} ({})", g("result"), g("reason")),
        "clock_added" => "attached".into(),
        "clock_removed" => "detached".into(),
        "daemon_gone" => return "chessclockd stopped (left the bus); waiting for it".into(),
        "daemon_back" => return "chessclockd is running again".into(),
        _ => match ev.get("changed").and_then(Value::as_object) {
            Some(changed) => changes_in_words(changed),
            None => g("event"),
        },
    };
    format!("{who}: {what}")
}

/// Device property changes as a sentence.
fn changes_in_words(changed: &serde_json::Map<String, Value>) -> String {
    let text = |k: &str| changed.get(k).and_then(Value::as_str).unwrap_or_default();
    let mut parts = Vec::new();
    if let Some(state) = changed.get("DeviceState").and_then(Value::as_str) {
        let model = text("Model");
        parts.push(match super::render::device_advice(state, model) {
            Some(advice) => format!("device {state}: {advice}"),
            None => format!("device {state}"),
        });
    }
    match changed.get("Connected").and_then(Value::as_bool) {
        Some(true) => parts.push("port open".into()),
        Some(false) => parts.push("port closed".into()),
        None => {}
    }
    if changed.contains_key("Model") && !text("Model").is_empty() {
        parts.push(format!("clock is a {}", text("Model")));
    }
    if changed.contains_key("TimeControl") {
        parts.push(format!("time control now {}", text("TimeControl")));
    }
    if changed.contains_key("WhiteSide") {
        parts.push(format!("white on the {} half", text("WhiteSide")));
    }
    if let Some(notices) = changed.get("Notices").and_then(Value::as_array) {
        parts.push(match notices.last().and_then(Value::as_str) {
            Some(n) => format!("notice: {n}"),
            None => "notices cleared".into(),
        });
    }
    if changed.contains_key("BoardProblem") {
        parts.push(match text("BoardProblem") {
            "" => "the board's position is fine again".into(),
            p => format!("board problem: {p}"),
        });
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn device_changes_are_words_with_the_clock_name() {
        let ev = json!({"event": "properties_changed", "clock": "/org/chessclockd/ChessClock1/Clock/3",
            "name": "Board 4", "changed": {"DeviceState": "not_in_pc_mode", "Model": "DGT 3000"}});
        let line = human_event(&ev);
        assert!(
            line.starts_with("clock 3 (Board 4): device not_in_pc_mode: "),
            "{line}"
        );
        assert!(line.contains("option 25"), "{line}");
        assert!(line.contains("clock is a DGT 3000"), "{line}");
        let ev = json!({"event": "properties_changed", "clock": "/org/chessclockd/ChessClock1/Clock/0",
            "changed": {"Connected": false, "DeviceState": "disconnected"}});
        let line = human_event(&ev);
        assert!(
            line.contains("port closed") && line.contains("reconnect it"),
            "{line}"
        );
        assert!(!line.contains('{'), "no raw JSON: {line}");
    }

    #[test]
    fn the_daemon_going_and_coming_is_said() {
        assert!(human_event(&json!({"event": "daemon_gone"})).contains("stopped"));
        assert!(human_event(&json!({"event": "daemon_back"})).contains("running again"));
    }
}
