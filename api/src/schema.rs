//! The JSON Schemas of what clients print and serve (`docs/schema/`): one clock's status
//! (`status CLOCK --json`, the bridge's `/api/v1/clocks/N`, the MQTT `.../state` payload),
//! the list of clocks (`list --json`, `status --json`, `/api/v1/clocks`) and one event
//! (`monitor --json` lines, the bridge's SSE `data:`, the MQTT `.../event` payload).
//!
//! Generated from the types themselves (schemars), so a field added to [`ClockStatus`] or
//! [`ClockEvent`] is in the schema at once; a test checks the committed files are current
//! and the end-to-end tests validate real output against them. Each document carries
//! `version` ([`VERSION`]): it grows when a field is removed or changes meaning; added
//! fields keep it. Owns the documents only.

use schemars::{Schema, schema_for};
use serde_json::{Value, json};

use crate::ClockStatus;
use crate::event::ClockEvent;

/// The version of the documents.
pub const VERSION: u32 = 1;

/// Every document: its file name under `docs/schema/` and its JSON.
pub fn documents() -> Vec<(&'static str, Value)> {
    vec![
        (
            "clock-status.json",
            document(
                schema_for!(ClockStatus),
                "clock-status",
                "One clock: `chessclockctl status CLOCK --json`, the bridge's /api/v1/clocks/N \
                 and its MQTT state payload.",
            ),
        ),
        (
            "clock-list.json",
            document(
                schema_for!(Vec<ClockStatus>),
                "clock-list",
                "Every clock: `chessclockctl list --json` and `status --json`, the bridge's \
                 /api/v1/clocks.",
            ),
        ),
        ("event.json", event_document()),
    ]
}

fn document(schema: Schema, name: &str, description: &str) -> Value {
    let mut v = schema.to_value();
    if let Some(o) = v.as_object_mut() {
        o.insert(
            "$id".into(),
            json!(format!("urn:chessclockd:schema:{name}")),
        );
        o.insert("version".into(), json!(VERSION));
        o.insert("description".into(), json!(description));
    }
    v
}

/// An event: one of the daemon's signals with the clock's object path, or (from
/// `monitor`) a changed device property or the daemon leaving or coming back; `monitor` adds
/// the clock's `name` and the `time`.
fn event_document() -> Value {
    let mut v = document(
        schema_for!(ClockEvent),
        "event",
        "One event: a `chessclockctl monitor --json` line (with `name` and `time`), the \
         bridge's SSE data and its MQTT event payload.",
    );
    if let Some(o) = v.as_object_mut() {
        let daemon = |name: &str| {
            json!({"type": "object", "properties": {"event": {"const": name}},
                   "required": ["event"]})
        };
        if let Some(Value::Array(one_of)) = o.get_mut("oneOf") {
            for variant in one_of.iter_mut() {
                if let Some(props) = variant.get_mut("properties").and_then(Value::as_object_mut) {
                    props.insert("clock".into(), json!({"type": "string"}));
                    props.insert("name".into(), json!({"type": "string"}));
                    props.insert(
                        "time".into(),
                        json!({"type": "string", "format": "date-time"}),
                    );
                }
            }
            one_of.push(daemon("daemon_gone"));
            one_of.push(daemon("daemon_back"));
            // `monitor`'s line for a changed device property (`{"Model": "DGT 3000"}`).
            one_of.push(json!({"type": "object",
                "properties": {"event": {"const": "properties_changed"},
                    "changed": {"type": "object"}, "clock": {"type": "string"},
                    "name": {"type": "string"}, "time": {"type": "string"}},
                "required": ["event", "changed", "clock"]}));
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/schema/` holds the documents as generated; regenerate with
    /// `CHESSCLOCK_BLESS=1 cargo test -p chessclock-api schema`.
    #[test]
    fn the_committed_schemas_are_the_generated_ones() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/schema");
        for (file, doc) in documents() {
            let text = serde_json::to_string_pretty(&doc).expect("JSON") + "\n";
            let path = dir.join(file);
            if std::env::var_os("CHESSCLOCK_BLESS").is_some() {
                std::fs::create_dir_all(&dir).expect("docs/schema");
                std::fs::write(&path, &text).expect("write");
                continue;
            }
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            assert_eq!(
                committed,
                text,
                "{} is not what the types generate; regenerate it with CHESSCLOCK_BLESS=1 \
                 cargo test -p chessclock-api schema",
                path.display()
            );
        }
    }

    #[test]
    fn every_document_has_its_version_and_the_status_names_its_fields() {
        for (file, doc) in documents() {
            assert_eq!(doc["version"], VERSION, "{file}");
        }
        let status = &documents()[0].1;
        for field in ["white_ms", "draw_claimable", "board", "running", "detail"] {
            assert!(status["properties"].get(field).is_some(), "{field}");
        }
    }
}
