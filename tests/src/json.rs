//! Reading fields of the JSON the binaries print (status, monitor events, emulator events)
//! by JSON pointer.

use serde_json::Value;

/// The string at `ptr`, or "" when there is none.
pub fn s<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

/// The number at `ptr`; panics (naming it) when there is none.
pub fn u(v: &Value, ptr: &str) -> u64 {
    v.pointer(ptr)
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("no number at {ptr} in {v}"))
}

/// The command of an emulator `host_command` event of subcommand `sub`.
pub fn host_command<'a>(v: &'a Value, sub: &str) -> Option<&'a Value> {
    (v.get("event").and_then(Value::as_str) == Some("host_command")
        && v.pointer("/command/sub").and_then(Value::as_str) == Some(sub))
    .then(|| v.get("command"))
    .flatten()
}
