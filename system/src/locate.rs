//! Where in the TOML file a setting or a syntax error is: line numbers for messages.
//!
//! Owns reading positions out of the file text only (with the `toml` crate's spanned
//! parser); it must not decide what is valid. Both programs' settings use it (the daemon's
//! `config`, the bridge's `settings`).

use chessclock_engine::words::quote;
use toml::de::{DeTable, DeValue};

/// A syntax error of the file, as one line: position, the offending line's text (cut), and
/// the parser's words. `None` if the text parses.
pub fn syntax_error(text: &str) -> Option<String> {
    let err = toml::from_str::<toml::Table>(text).err()?;
    let mut message = err.message().trim().to_owned();
    if is_too_large(&message) {
        // The parser's words for an integer outside TOML's 64-bit range.
        message = "the number is too large; TOML integers go up to 9223372036854775807".to_owned();
    }
    Some(match err.span() {
        Some(span) => {
            let (line, column) = line_column(text, span.start);
            let source = text.lines().nth(line - 1).unwrap_or_default().trim();
            format!(
                "line {line}, column {column} ({}): {message}",
                quote(source)
            )
        }
        None => message,
    })
}

/// Where the integer literal is that TOML cannot hold (beyond 64 bits), if that is why the
/// text does not parse: the caller reads it again as a string to say which range the key
/// allows.
pub fn too_large_number(text: &str) -> Option<std::ops::Range<usize>> {
    let err = toml::from_str::<toml::Table>(text).err()?;
    if !is_too_large(err.message()) {
        return None;
    }
    let span = err.span()?;
    let literal = text.get(span.clone())?;
    let digits = literal.trim_start_matches(['+', '-']).replace('_', "");
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(span)
}

/// The parser's words for an integer beyond 64 bits (from 2^63, and far beyond).
fn is_too_large(message: &str) -> bool {
    message.contains(" as i128") || message.contains("integer number overflowed")
}

/// The 1-based line of the value of `path` (`scan`, `clock[1].white_side`, `scan_ports[0]`),
/// or of the nearest enclosing item that is in the file.
pub fn line_of(text: &str, path: &str) -> Option<usize> {
    let root = DeTable::parse(text).ok()?;
    let mut table = root.get_ref();
    let mut best = None;
    let mut segments = segments(path).into_iter().peekable();
    while let Some((key, index)) = segments.next() {
        let Some((_, mut value)) = table.iter().find(|(k, _)| k.get_ref().as_ref() == key) else {
            break;
        };
        if let Some(i) = index {
            let DeValue::Array(items) = value.get_ref() else {
                break;
            };
            best = Some(value.span().start);
            let Some(item) = items.get(i) else { break };
            value = item;
        }
        best = Some(value.span().start);
        match value.get_ref() {
            DeValue::Table(t) if segments.peek().is_some() => table = t,
            _ => break,
        }
    }
    best.map(|offset| line_column(text, offset).0)
}

/// `clock[1].white_side` -> [("clock", Some(1)), ("white_side", None)].
fn segments(path: &str) -> Vec<(&str, Option<usize>)> {
    path.split('.')
        .map(|seg| match seg.split_once('[') {
            Some((key, rest)) => (key, rest.trim_end_matches(']').parse().ok()),
            None => (seg, None),
        })
        .collect()
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "scan = true\n\n[[clock]]\nport = \"/dev/a\"\n[[clock]]\nport = \"/dev/b\"\nwhite_side = \"middle\"\n";

    #[test]
    fn finds_top_level_and_nested_keys() {
        assert_eq!(line_of(TEXT, "scan"), Some(1));
        assert_eq!(line_of(TEXT, "clock[1].white_side"), Some(7));
        assert_eq!(line_of(TEXT, "clock[0].port"), Some(4));
    }

    #[test]
    fn a_missing_key_falls_back_to_its_table_or_nothing() {
        assert_eq!(line_of(TEXT, "state_dir"), None);
        let table = line_of(TEXT, "clock[1].name").expect("the table's line");
        assert!((5..=6).contains(&table), "{table}");
    }

    #[test]
    fn syntax_errors_say_line_and_column() {
        let e = syntax_error("scan = true\ncommand_timeout_ms = 99999999999999999999\n")
            .expect("too large");
        assert!(e.starts_with("line 2, column "), "{e}");
        assert!(e.contains("command_timeout_ms"), "{e}");
        assert!(syntax_error(TEXT).is_none());
    }

    #[test]
    fn a_number_too_large_is_found_by_its_span() {
        let text = "scan = true\ncommand_retries = 99999999999999999999\n";
        let span = too_large_number(text).expect("too large");
        assert_eq!(&text[span], "99999999999999999999");
        assert!(too_large_number(TEXT).is_none());
        assert!(too_large_number("scan = \"x\n").is_none());
    }
}
