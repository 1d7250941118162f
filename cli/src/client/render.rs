//! Output of the reading commands: a clock's properties and snapshot as one JSON object
//! (stable schema for scripts) and as text for people.

use chessclockd::bus::proxy::ClockProxy;
use chessclockd::bus::variant::dict_to_object;
use serde_json::{Map, Value, json};
use zbus::OwnedObjectPath;

use super::{BusArgs, Result, bus_failure};

/// Keys of the spec's Snapshot that are `null` rather than absent when empty.
const NULLABLE: [&str; 2] = ["running", "result"];

/// One clock as JSON: the Snapshot fields (spec §1.1, with `text`) plus the device fields.
/// `live` asks the daemon for the snapshot computed now rather than the last published one.
pub(crate) async fn clock_json(
    args: &BusArgs,
    path: &OwnedObjectPath,
    clock: &ClockProxy<'_>,
    live: bool,
) -> Result<Value> {
    let f = |e| bus_failure(args, e);
    let dict = if live {
        clock.get_snapshot().await.map_err(f)?
    } else {
        clock.snapshot().await.map_err(f)?
    };
    let mut obj: Map<String, Value> = dict_to_object(&dict);
    for key in NULLABLE {
        obj.entry(key).or_insert(Value::Null);
    }
    obj.insert("clock".into(), json!(path.as_str()));
    obj.insert("index".into(), json!(clock.index().await.map_err(f)?));
    obj.insert("name".into(), json!(clock.name().await.map_err(f)?));
    obj.insert("port".into(), json!(clock.port().await.map_err(f)?));
    obj.insert("model".into(), json!(clock.model().await.map_err(f)?));
    obj.insert("firmware".into(), json!(clock.firmware().await.map_err(f)?));
    obj.insert(
        "board_serial".into(),
        json!(clock.board_serial().await.map_err(f)?),
    );
    obj.insert(
        "connected".into(),
        json!(clock.connected().await.map_err(f)?),
    );
    obj.insert(
        "device_state".into(),
        json!(clock.device_state().await.map_err(f)?),
    );
    // The game state is the snapshot's status: taken from the snapshot read above, not from
    // the GameState property read later, so the two never disagree when the game changes
    // between the reads.
    let game_state = match obj.get("status") {
        Some(Value::String(s)) => json!(s),
        _ => json!(clock.game_state().await.map_err(f)?),
    };
    obj.insert("game_state".into(), game_state);
    obj.insert(
        "time_control".into(),
        json!(clock.time_control().await.map_err(f)?),
    );
    obj.insert(
        "white_side".into(),
        json!(clock.white_side().await.map_err(f)?),
    );
    Ok(Value::Object(obj))
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn side_field<'a>(v: &'a Value, key: &str, side: &str) -> Option<&'a Value> {
    v.get(key).and_then(|o| o.get(side))
}

fn side_str(v: &Value, key: &str, side: &str) -> String {
    match side_field(v, key, side) {
        Some(Value::String(x)) => x.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => "-".into(),
    }
}

/// Secondary information for one side: the detail fields that matter to a person.
fn side_notes(v: &Value, side: &str) -> String {
    let Some(Value::Object(d)) = side_field(v, "detail", side) else {
        return String::new();
    };
    let mut notes = Vec::new();
    if let Some(p) = d.get("periods_left").and_then(Value::as_u64) {
        notes.push(format!("{p} periods left"));
    }
    if let Some(st) = d.get("stones_left").and_then(Value::as_u64) {
        notes.push(format!("{st} stones left"));
    }
    if d.get("can_win") == Some(&Value::Bool(false)) {
        notes.push("cannot win".into());
    }
    if let Some(r) = d.get("reserve_ms").and_then(Value::as_u64) {
        notes.push(format!("reserve {}", crate::client::render::clock_text(r)));
    }
    if let Some(c) = d.get("cap_left_ms").and_then(Value::as_u64) {
        notes.push(format!("cap {}", clock_text(c)));
    }
    notes.join(", ")
}

/// `M:SS` / `H:MM:SS` with seconds rounded up, as the clock shows it.
pub(crate) fn clock_text(ms: u64) -> String {
    let secs = ms.div_ceil(1000);
    let (h, m, s) = (secs / 3600, (secs / 60) % 60, secs % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// The human form of `status`.
pub(crate) fn status_text(v: &Value) -> String {
    let mut out = String::new();
    let idx = v.get("index").and_then(Value::as_u64).unwrap_or(0);
    out.push_str(&format!(
        "Clock {idx}  {:?}  {}\n",
        s(v, "name"),
        s(v, "port")
    ));
    let model = if s(v, "model").is_empty() {
        "clock model unknown".to_owned()
    } else {
        format!("{} {}", s(v, "model"), s(v, "firmware"))
    };
    let serial = if s(v, "board_serial").is_empty() {
        String::new()
    } else {
        format!(", board {}", s(v, "board_serial"))
    };
    out.push_str(&format!(
        "  device   {} ({model}{serial}), white on the {} half\n",
        s(v, "device_state"),
        s(v, "white_side")
    ));
    if let Some(advice) = device_advice(s(v, "device_state"), s(v, "model")) {
        out.push_str(&format!("           {advice}\n"));
    }
    out.push_str(&format!("  control  {}\n", s(v, "time_control")));
    let running = v.get("running").and_then(Value::as_str);
    out.push_str(&format!(
        "  game     {}{}\n",
        s(v, "game_state"),
        running
            .map(|r| format!(", {r} to move"))
            .unwrap_or_default()
    ));
    for side in ["white", "black"] {
        let text = v
            .get("text")
            .and_then(|t| t.get(side))
            .and_then(Value::as_str)
            .unwrap_or("-");
        let marker = if running == Some(side) { "*" } else { " " };
        let notes = side_notes(v, side);
        out.push_str(&format!(
            "  {marker}{:<6} {:>8}  {:<10} moves {:<4} {}\n",
            side,
            text,
            side_str(v, "phase", side),
            side_str(v, "moves", side),
            notes
        ));
    }
    if let Some(r) = v.get("result").and_then(Value::as_str) {
        out.push_str(&format!("  result   {r} ({})\n", s(v, "reason")));
    }
    out
}

/// One line of `list` / `watch`.
pub(crate) fn list_line(v: &Value) -> String {
    let idx = v.get("index").and_then(Value::as_u64).unwrap_or(0);
    let text = |side: &str| {
        v.get("text")
            .and_then(|t| t.get(side))
            .and_then(Value::as_str)
            .unwrap_or("-")
            .to_owned()
    };
    let running = v.get("running").and_then(Value::as_str);
    let mark = |side: &str| if running == Some(side) { "*" } else { " " };
    format!(
        "{idx:>3}  {:<14} {:<16} {:<9} {:<14} {:<8} {}{:>8} {}{:>8}  {}",
        truncate(s(v, "name"), 14),
        truncate(s(v, "port"), 16),
        truncate(s(v, "model"), 9),
        s(v, "device_state"),
        s(v, "game_state"),
        mark("white"),
        text("white"),
        mark("black"),
        text("black"),
        s(v, "time_control"),
    )
}

/// What the operator should do about a device state, if anything (docs/dbus-api.md).
pub(crate) fn device_advice(state: &str, model: &str) -> Option<String> {
    Some(match state {
        "not_in_pc_mode" => format!(
            "the clock refuses remote control: select option {} on the clock",
            match model {
                "DGT XL" => "23",
                "DGT 3000" => "25",
                _ => "25 (DGT 3000) or 23 (DGT XL)",
            }
        ),
        "no_clock" => "no clock on the board's cable: plug it in and switch it on".into(),
        "not_responding" => "the clock does not answer: check its cable and batteries".into(),
        "disconnected" => {
            "the board is gone: reconnect it (the game goes on; it is reopened every 2 s)".into()
        }
        _ => return None,
    })
}

/// Header of `list` / `watch`.
pub(crate) fn list_header() -> String {
    format!(
        "{:>3}  {:<14} {:<16} {:<9} {:<14} {:<8} {:>9} {:>9}  {}",
        "#", "NAME", "PORT", "MODEL", "DEVICE", "GAME", "WHITE", "BLACK", "CONTROL"
    )
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_states_that_need_the_operator_say_what_to_do() {
        let pc = device_advice("not_in_pc_mode", "DGT XL").expect("advice");
        assert!(pc.contains("option 23"), "{pc}");
        let pc = device_advice("not_in_pc_mode", "DGT 3000").expect("advice");
        assert!(pc.contains("option 25"), "{pc}");
        assert!(device_advice("no_clock", "").is_some());
        assert_eq!(device_advice("ready", "DGT 3000"), None);
    }

    #[test]
    fn clock_text_rounds_up_and_switches_to_hours() {
        assert_eq!(clock_text(0), "0:00");
        assert_eq!(clock_text(1), "0:01");
        assert_eq!(clock_text(59_001), "1:00");
        assert_eq!(clock_text(3_599_001), "1:00:00");
    }

    #[test]
    fn status_text_marks_running_side_and_notes() {
        let v = json!({"index": 2, "name": "b1", "port": "/dev/x", "model": "DGT 3000",
            "firmware": "2.0", "board_serial": "", "device_state": "ready", "white_side": "left",
            "time_control": "G/15 df/60:10:hybrid", "game_state": "running", "running": "black",
            "text": {"white": "0:59", "black": "14:00"},
            "phase": {"white": "extra", "black": "main"}, "moves": {"white": 3, "black": 2},
            "detail": {"white": {"can_win": false}, "black": {"can_win": true}}, "result": null});
        let t = status_text(&v);
        assert!(t.contains("*black"), "{t}");
        assert!(t.contains("cannot win"), "{t}");
        assert!(t.contains("black to move"), "{t}");
    }
}
