//! Error and warning texts of the notation: the spec §6 codes with their details, and a
//! sentence saying what is wrong and how to fix it.
//!
//! Owns wording only; it decides nothing about validity.

use super::NotationError;
use super::lexer::DurError;

/// Build an error.
pub(crate) fn err(
    code: impl Into<String>,
    position: usize,
    message: impl Into<String>,
) -> NotationError {
    NotationError {
        code: code.into(),
        position,
        message: message.into(),
    }
}

/// A token that is no item of the grammar.
pub(crate) fn unknown_item(tok: &str, pos: usize) -> NotationError {
    let tok = crate::words::cut(tok);
    err(
        format!("unknown_item:{tok}"),
        pos,
        format!(
            "`{tok}` is not a time-control item; write periods like `G/30` or `40/120`, \
             `inc/30`, `d/5` or `br/5`, a method like `byo/5x30`, or an option like `cr/after`"
        ),
    )
}

/// A number standing alone.
pub(crate) fn lone_number(tok: &str, pos: usize) -> NotationError {
    let tok = crate::words::cut(tok);
    err(
        format!("unknown_item:{tok}"),
        pos,
        format!(
            "the number `{tok}` needs a form: `40/{tok}` (moves in minutes), `G/{tok}` \
             (sudden death) or `{tok}+2` (minutes plus seconds per move)"
        ),
    )
}

/// An option with a value it does not know.
pub(crate) fn bad_option_value(kw: &str, word: &str, pos: usize) -> NotationError {
    let word = crate::words::cut(word);
    let allowed = match kw {
        "cr" => "`cr/fide`, `cr/after` or `cr/before`",
        "tr" => "`tr/moves`, `tr/flag` or `tr/flagboth`",
        "flag" => "`flag/freeze` or `flag/continue`",
        _ => "`hybrid`, `linear` or `truncated` as the double-flag scheme",
    };
    err(
        format!("unknown_item:{kw}/{word}"),
        pos,
        format!("`{kw}/{word}` is not a known setting; use {allowed}"),
    )
}

fn method_form(kw: &str) -> &'static str {
    match kw {
        "byo" => "`byo/5x30` (periods x seconds)",
        "can" => "`can/25/5` (stones / minutes)",
        "df" => "`df/60:10:hybrid` (extra seconds : bonus seconds : scheme)",
        "rsv" => "`rsv/60` or `rsv/60:30` (reserve increment seconds)",
        "pinc" => "`pinc/60:40:60` (increment seconds : cut-off moves : final minutes)",
        _ => "`swing/30` or `swing/30:40` (swing seconds : cut-off moves)",
    }
}

/// A method item with a field missing.
pub(crate) fn missing_field(kw: &str, what: &str, tok: &str, pos: usize) -> NotationError {
    let tok = crate::words::cut(tok);
    err(
        format!("unknown_item:{kw}/{tok}"),
        pos,
        format!(
            "`{kw}/{tok}` lacks the {what}; write it like {}",
            method_form(kw)
        ),
    )
}

/// A method item with too many fields.
pub(crate) fn extra_field(kw: &str, tok: &str, pos: usize) -> NotationError {
    let tok = crate::words::cut(tok);
    err(
        format!("unknown_item:{kw}/{tok}"),
        pos,
        format!(
            "`{kw}/{tok}` has too many fields; write it like {}",
            method_form(kw)
        ),
    )
}

/// A count (moves, periods, stones) that is not a positive integer.
pub(crate) fn bad_number(tok: &str, pos: usize, what: &str) -> NotationError {
    let tok = crate::words::cut(tok);
    err(
        format!("unknown_item:{tok}"),
        pos,
        format!(
            "`{tok}` is not a valid number of {what}: write a whole number from 1 to {}",
            crate::params::MAX_COUNT
        ),
    )
}

/// A duration token that could not be read.
pub(crate) fn duration(e: DurError, tok: &str, pos: usize) -> NotationError {
    let tok = crate::words::cut(tok);
    match e {
        DurError::Malformed if tok.is_empty() => err(
            "bad_duration:",
            pos,
            "a time value is missing here; write a number like `30`, `90s` or `1h30m`",
        ),
        DurError::Malformed => err(
            format!("bad_duration:{tok}"),
            pos,
            format!(
                "`{tok}` is not a time; write a number with an optional unit (h, m, min, s, sec, ms), \
                 a compound like `1h30m`, or `H:MM:SS` outside method fields"
            ),
        ),
        DurError::SubMs => err(
            format!("sub_ms_duration:{tok}"),
            pos,
            format!("`{tok}` is finer than a millisecond; round it to whole milliseconds"),
        ),
        DurError::TooLarge => err(
            format!("bad_duration:{tok}"),
            pos,
            format!("`{tok}` is too long for a clock; the limit is 1000 hours"),
        ),
    }
}

/// D8 warning.
pub(crate) fn legacy_hours_warning(text: &str, hours: u64) -> String {
    let text = crate::words::cut(text);
    format!(
        "legacy_hours:{text} (read as {hours} hour(s), the old US Chess form, because as minutes it \
         would give under 10 s per move; write {text}h, or {text}m for minutes)"
    )
}

/// §6.1 casual warning.
pub(crate) fn casual_warning(text: &str) -> String {
    let text = crate::words::cut(text);
    format!("casual_minutes_over_180:{text} (PGN seconds need the pgn: prefix)")
}

/// C9 warning; `side` names the side in `W{..} B{..}` forms.
pub(crate) fn no_modifier_warning(side: Option<&str>) -> String {
    let who = side.map(|s| format!(" for {s}")).unwrap_or_default();
    format!(
        "no_increment_or_delay_specified{who} (US Chess 5A8a would apply the 5A5 recommended \
         delay; write d/0 to be explicit)"
    )
}

/// How a method keyword is written in messages: `byo/`, `hg/`, ..., and `UP` (a word).
pub(crate) fn method_word(kw: &str) -> String {
    match kw {
        "up" => "UP".to_owned(),
        "per_side" => "W{..} B{..}".to_owned(),
        k => format!("{k}/"),
    }
}
