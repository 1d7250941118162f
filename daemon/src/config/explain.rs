//! Serde's errors on the merged configuration (and a checked value that does not hold, such
//! as a notation that does not parse) turned into [`ConfigError`]s a person can act
//! on: the key (or the environment variable) that set the value, the file and line of the
//! last layer that has it, a suggestion for an unknown key from the known ones.
//!
//! Part of `config`; owns the wording of configuration errors and the lists of known keys.
//! It reads no file: the layers are given.

use std::collections::BTreeMap;

use chessclock_system::conffile::{self, Layer};

use super::{CONFIG_PATH_ENV, ConfigError, ENV_PREFIX, invalid};

/// The environment variable that set `key` (a top-level key), if one did.
fn env_var_for<'a>(key: &str, env: &'a BTreeMap<String, String>) -> Option<&'a str> {
    env.keys().map(String::as_str).find(|name| {
        let rest = name[ENV_PREFIX.len()..].to_ascii_lowercase();
        rest == key || (key == "transport_latency_ms" && rest == "latency_ms")
    })
}

/// Turn serde's error at `path` into a message that names the key (or the environment
/// variable) and the file and line that set it (the last of the file and its drop-ins that
/// has the key), and says what to do.
pub(super) fn explain(
    err: &serde_path_to_error::Error<config::ConfigError>,
    layers: &[Layer],
    env: &BTreeMap<String, String>,
) -> ConfigError {
    let full = err.inner().to_string();
    // The config crate appends where it was reading; we say that ourselves.
    let inner = full
        .split(" for key `")
        .next()
        .unwrap_or_default()
        .to_owned();
    let mut path = err.path().to_string();
    if path == "." {
        path.clear();
    }
    let join = |path: &str, key: &str| match path {
        "" => key.to_owned(),
        p => format!("{p}.{key}"),
    };
    // A reader may name an entry of a list: "[1]: why".
    let (mut key, mut message) = match inner.split_once("]: ") {
        Some((index, why)) if index.starts_with('[') => (format!("{path}{index}]"), why.to_owned()),
        _ => (path.clone(), inner.clone()),
    };
    if let Some(field) = backticked(&inner, "unknown field `") {
        // The path may or may not already end with the unknown key.
        let parent = path
            .strip_suffix(field)
            .map_or(path.as_str(), |p| p.trim_end_matches('.'));
        key = join(parent, field);
        let known: &[&str] = if key.starts_with("clock[") {
            CLOCK_KEYS
        } else {
            TOP_KEYS
        };
        message = unknown_key(field, known);
    } else if let Some(field) = backticked(&inner, "missing field `")
        .or_else(|| quoted_tail(&inner, "missing configuration field \""))
    {
        key = join(&path, field);
        message = "is missing".to_owned();
    } else if key == "clock" {
        message = format!(
            "expected [[clock]] tables; write each board as a [[clock]] table with a port or a board_serial ({})",
            inner.trim_start_matches("invalid type: ")
        );
    }
    let top = key.split(['.', '[']).next().unwrap_or_default();
    if let Some(var) = env_var_for(top, env).filter(|_| !key.starts_with("clock")) {
        let message = if message.starts_with("is not a known setting") {
            format!(
                "is not a chessclockd setting; unset it or use one of {}, {CONFIG_PATH_ENV}",
                TOP_KEYS
                    .iter()
                    .map(|k| format!("{ENV_PREFIX}{}", k.to_ascii_uppercase()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        } else {
            message
        };
        return invalid(var, message);
    }
    match conffile::where_set(layers, &key) {
        Some(place) => invalid(key, format!("{message} ({place})")),
        None => invalid(key, message),
    }
}

/// A checked setting's error (`default_time_control: "x" is not a valid time control ...`)
/// with where the value came from: the environment variable that set it, else the file and
/// line of the last layer that has its key. Other errors are returned as they are.
pub(super) fn place(
    err: ConfigError,
    layers: &[Layer],
    env: &BTreeMap<String, String>,
) -> ConfigError {
    let ConfigError::Invalid { key, message } = err else {
        return err;
    };
    let top = key.split(['.', '[']).next().unwrap_or_default();
    if let Some(var) = env_var_for(top, env).filter(|_| !key.starts_with("clock")) {
        return invalid(var, message);
    }
    match conffile::where_set(layers, &key) {
        Some(place) => invalid(key, format!("{message} ({place})")),
        None => invalid(key, message),
    }
}

/// The name in `text` after `prefix` up to the next backtick.
fn backticked<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = text.split_once(prefix)?.1;
    Some(rest.split_once('`')?.0)
}

/// The last key of the quoted path in `text` after `prefix` (`"clock[0]port"` -> `port`).
fn quoted_tail<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let path = text.split_once(prefix)?.1.split_once('"')?.0;
    path.rsplit([']', '.']).next()
}

/// Top-level keys, for suggestions (serde refuses unknown ones).
const TOP_KEYS: &[&str] = &[
    "state_dir",
    "live_dir",
    "scan",
    "scan_ports",
    "transport_latency_ms",
    "pause_button",
    "command_timeout_ms",
    "command_retries",
    "default_time_control",
    "draw_rules",
    "event",
    "site",
    "clock",
];
/// Keys of a `[[clock]]` table.
const CLOCK_KEYS: &[&str] = &[
    "port",
    "board_serial",
    "name",
    "white_side",
    "time_control",
    "game_info",
    "board",
    "move_source",
    "mode",
    "draw_rules",
];

fn unknown_key(key: &str, known: &[&str]) -> String {
    let near = known
        .iter()
        .min_by_key(|k| strsim::levenshtein(key, k))
        .filter(|k| strsim::levenshtein(key, k) <= 3);
    let hint = match near {
        Some(k) => format!("did you mean {k:?}?"),
        None => format!("known keys here: {}", known.join(", ")),
    };
    format!("is not a known setting; {hint} (docs/configuration.md lists every key)")
}
