//! Checked conversions of one setting's raw value (from the TOML file or an environment
//! string) into its typed form, each with a message a person can act on.
//!
//! Owns the per-type checks and their wording only; which key an error belongs to, and where
//! it was set, is added by the caller (`serde_path_to_error` and [`super::locate`]).

use std::path::PathBuf;

use serde::de::{Deserialize, Deserializer, Error as _};
use serde_json::Value;

use super::WhiteSide;

pub(super) use chessclock_engine::words::{QUOTE_MAX, quote};

/// `s` cut to about [`QUOTE_MAX`] characters, unquoted (for digits).
fn cut(s: &str) -> String {
    match s.char_indices().nth(QUOTE_MAX) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_owned(),
    }
}

/// What a value is, for "expected X, found Y".
pub(super) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "nothing".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {}", quote(s)),
        Value::Array(_) => "a list".to_owned(),
        Value::Object(_) => "a table".to_owned(),
    }
}

fn raw<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    Value::deserialize(d)
}

/// `true`/`false` (and, as written in the environment, `1`/`0`, `yes`/`no`, `on`/`off`).
pub(super) fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    match raw(d)? {
        Value::Bool(b) => Ok(b),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(true),
            "false" | "0" | "no" | "off" => Ok(false),
            _ => Err(D::Error::custom(format!(
                "{} is not a boolean; use true or false",
                quote(&s)
            ))),
        },
        other => Err(D::Error::custom(format!(
            "expected true or false, found {}",
            describe(&other)
        ))),
    }
}

/// A whole number in `MIN..=MAX`.
pub(super) fn whole<'de, D: Deserializer<'de>, const MIN: u64, const MAX: u64>(
    d: D,
) -> Result<u64, D::Error> {
    let value = raw(d)?;
    let n: Option<i128> = match &value {
        Value::Number(n) => n.as_i64().map(i128::from),
        Value::String(s) => match s.trim().parse::<i128>() {
            Ok(n) => Some(n),
            // Digits beyond even i128: out of range, not "not a number".
            Err(_) if is_digits(s.trim()) => {
                return Err(D::Error::custom(format!(
                    "{} is out of range; use a whole number from {MIN} to {MAX}",
                    cut(s.trim())
                )));
            }
            Err(_) => {
                return Err(D::Error::custom(format!(
                    "{} is not a whole number; use digits only, e.g. {MIN}",
                    quote(s)
                )));
            }
        },
        _ => None,
    };
    match n {
        Some(n) if (i128::from(MIN)..=i128::from(MAX)).contains(&n) => {
            Ok(u64::try_from(n).unwrap_or(MAX))
        }
        Some(n) => Err(D::Error::custom(format!(
            "{n} is out of range; use a whole number from {MIN} to {MAX}"
        ))),
        None => Err(D::Error::custom(format!(
            "expected a whole number from {MIN} to {MAX}, found {}",
            describe(&value)
        ))),
    }
}

/// An optional sign and only ASCII digits.
fn is_digits(s: &str) -> bool {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// [`whole`] for a `u32` setting.
pub(super) fn whole_u32<'de, D: Deserializer<'de>, const MIN: u64, const MAX: u64>(
    d: D,
) -> Result<u32, D::Error> {
    whole::<D, MIN, MAX>(d).map(|n| u32::try_from(n).unwrap_or(u32::MAX))
}

/// An optional board number, 1 to 9999.
pub(super) fn opt_board<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    whole_u32::<D, 1, 9999>(d).map(Some)
}

fn text_of<E: serde::de::Error>(value: Value) -> Result<String, E> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Ok(s),
        Value::String(_) => Err(E::custom("is empty; give a value or remove the line")),
        other => Err(E::custom(format!(
            "expected a quoted string, found {}",
            describe(&other)
        ))),
    }
}

/// A non-empty string.
pub(super) fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    text_of(raw(d)?)
}

/// An optional non-empty string.
pub(super) fn opt_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    text(d).map(Some)
}

fn abs_path_of<E: serde::de::Error>(value: Value) -> Result<PathBuf, E> {
    let text = text_of::<E>(value)?;
    if !text.starts_with('/') {
        return Err(E::custom(format!(
            "{} is a relative path; use an absolute path starting with /",
            quote(&text)
        )));
    }
    Ok(PathBuf::from(text))
}

/// An absolute path.
pub(super) fn abs_path<'de, D: Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
    abs_path_of(raw(d)?)
}

/// An optional absolute path.
pub(super) fn opt_abs_path<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
    abs_path(d).map(Some)
}

/// An optional board serial number: printable text without spaces at its ends (as the board
/// reports it; DGT boards send a few digits).
pub(super) fn opt_serial<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let text = match raw(d)? {
        // A serial number written as a bare number is the same board.
        Value::Number(n) if n.is_u64() => n.to_string(),
        other => text_of::<D::Error>(other)?,
    };
    if text.chars().any(char::is_control) || text.trim() != text || text.chars().count() > 64 {
        return Err(D::Error::custom(format!(
            "{} is not a board serial number; write it as `chessclockctl status` shows it, \
             e.g. board_serial = \"12345\"",
            quote(&text)
        )));
    }
    Ok(Some(text))
}

/// `"fide"`, `"uscf"` or `"none"` (the one spelling of [`crate::device::DrawRules`]).
pub(super) fn draw_rules<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<crate::device::DrawRules>, D::Error> {
    match raw(d)? {
        Value::String(s) => s
            .parse()
            .map(Some)
            .map_err(|e| D::Error::custom(format!("{e}"))),
        other => Err(D::Error::custom(format!(
            "expected \"fide\", \"uscf\" or \"none\", found {}",
            describe(&other)
        ))),
    }
}

/// `"board"` or `"lever"`.
pub(super) fn move_source<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<crate::device::MoveSource, D::Error> {
    use crate::device::MoveSource;
    match raw(d)? {
        Value::String(s) if s == "board" => Ok(MoveSource::Board),
        Value::String(s) if s == "lever" => Ok(MoveSource::Lever),
        Value::String(s) => Err(D::Error::custom(format!(
            "{} is not a move source; use \"board\" (the moves on the pieces) or \"lever\" \
             (the presses)",
            quote(&s)
        ))),
        other => Err(D::Error::custom(format!(
            "expected \"board\" or \"lever\", found {}",
            describe(&other)
        ))),
    }
}

/// `"drive"` or `"observe"`.
pub(super) fn mode<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<crate::device::observe::Mode, D::Error> {
    use crate::device::observe::Mode;
    match raw(d)? {
        Value::String(s) => Mode::parse(&s).ok_or_else(|| {
            D::Error::custom(format!(
                "{} is not a mode; use \"drive\" (chessclockd runs the time control) or \
                 \"observe\" (the clock runs its own mode and is followed)",
                quote(&s)
            ))
        }),
        other => Err(D::Error::custom(format!(
            "expected \"drive\" or \"observe\", found {}",
            describe(&other)
        ))),
    }
}

/// `"left"` or `"right"`: [`WhiteSide`]'s own parser, as on D-Bus.
pub(super) fn white_side<'de, D: Deserializer<'de>>(d: D) -> Result<WhiteSide, D::Error> {
    match raw(d)? {
        Value::String(s) => chessclock_device::link::display::parse_board_side(&s)
            .map_err(|e| D::Error::custom(format!("{e}"))),
        other => Err(D::Error::custom(format!(
            "expected \"left\" or \"right\", found {}",
            describe(&other)
        ))),
    }
}

/// The scan's port patterns: absolute paths whose file name may hold one `*` (the environment
/// variable's comma-separated list is split before it gets here).
pub(super) fn scan_ports<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let items = match raw(d)? {
        Value::Array(items) => items,
        other => {
            return Err(D::Error::custom(format!(
                "expected a list of paths, found {}; e.g. scan_ports = [\"/dev/ttyACM*\"]",
                describe(&other)
            )));
        }
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let at = |why: String| D::Error::custom(format!("[{i}]: {why}"));
        let text = text_of::<D::Error>(item).map_err(|e| at(e.to_string()))?;
        if !text.starts_with('/') {
            return Err(at(format!(
                "{} is not an absolute path; write e.g. \"/dev/ttyACM*\"",
                quote(&text)
            )));
        }
        let name = text.rsplit('/').next().unwrap_or_default();
        if text.matches('*').count() > 1 || (text.contains('*') && !name.contains('*')) {
            return Err(at(format!(
                "{}: only one `*`, in the file name, is supported (e.g. \"/dev/ttyUSB*\")",
                quote(&text)
            )));
        }
        out.push(text);
    }
    Ok(out)
}
