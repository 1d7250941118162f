//! The one parser of each word a person types for a type with a few spellings (a side, a
//! result, set/add), and the one way any input is quoted back in an error.
//!
//! Owns the accepted spellings (exact, lower case, no abbreviations: the same on D-Bus, in the
//! CLI and in the configuration) and the wording of a refusal. It must not grow synonyms
//! one caller accepts and another does not.

/// The longest piece of an input quoted back in a message, in characters.
pub const QUOTE_MAX: usize = 100;

/// `s` for a message: debug-quoted, cut to [`QUOTE_MAX`] characters followed by `…`.
pub fn quote(s: &str) -> String {
    match s.char_indices().nth(QUOTE_MAX) {
        Some((cut, _)) => format!("{:?}…", &s[..cut]),
        None => format!("{s:?}"),
    }
}

/// `s` cut to [`QUOTE_MAX`] characters followed by `…`, unquoted (for messages that quote
/// with backticks).
pub fn cut(s: &str) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(QUOTE_MAX) {
        Some((cut, _)) => format!("{}…", &s[..cut]).into(),
        None => s.into(),
    }
}

/// A word that is none of a type's spellings; says which are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} is not {what}; use {}", quote(input), list(accepted))]
pub struct WordError {
    /// What was expected, with its article ("a side").
    pub what: &'static str,
    /// The input, cut to about [`QUOTE_MAX`] characters.
    pub input: String,
    /// Every accepted spelling.
    pub accepted: &'static [&'static str],
}

fn list(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("{w:?}")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The value whose spelling is exactly `s`, from `table` (spelling, value); the error names
/// `what` was expected and every spelling.
pub fn parse_word<T: Copy>(
    s: &str,
    what: &'static str,
    accepted: &'static [&'static str],
    values: &[T],
) -> Result<T, WordError> {
    accepted
        .iter()
        .position(|w| *w == s)
        .and_then(|i| values.get(i).copied())
        .ok_or_else(|| WordError {
            what,
            input: s.chars().take(QUOTE_MAX + 1).collect(),
            accepted,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_input_is_quoted_only_in_part() {
        let long = "é".repeat(10_000);
        let q = quote(&long);
        assert_eq!(q.chars().count(), QUOTE_MAX + 3, "{q}");
        assert!(q.ends_with("\"…"));
        assert_eq!(quote("left"), "\"left\"");
    }

    #[test]
    fn a_bad_word_lists_every_spelling() {
        const NAMES: &[&str] = &["a", "b", "c"];
        assert_eq!(parse_word("b", "a letter", NAMES, &[1, 2, 3]), Ok(2));
        let e = parse_word("B", "a letter", NAMES, &[1, 2, 3]).expect_err("case matters");
        assert_eq!(e.to_string(), r#""B" is not a letter; use "a", "b" or "c""#);
        let e = parse_word(&"x".repeat(10_000), "a letter", NAMES, &[1, 2, 3]).expect_err("x");
        assert!(e.to_string().len() < 200, "{e}");
    }

    #[test]
    fn sides_results_and_operations_take_exactly_their_names() {
        use crate::{AdjustOp, GameResult, Side};
        for (i, name) in Side::NAMES.iter().enumerate() {
            assert_eq!(name.parse::<Side>(), Ok(Side::BOTH[i]));
            assert_eq!(Side::BOTH[i].as_str(), *name);
        }
        for name in GameResult::NAMES {
            let r: GameResult = name.parse().expect("a result");
            assert_eq!(r.to_string(), name);
        }
        assert_eq!("add".parse::<AdjustOp>(), Ok(AdjustOp::Add));
        for bad in ["White", "w", " white", "½-½", "1-0 ", "Add", ""] {
            assert!(bad.parse::<Side>().is_err(), "{bad:?}");
            assert!(bad.parse::<GameResult>().is_err(), "{bad:?}");
            assert!(bad.parse::<AdjustOp>().is_err(), "{bad:?}");
        }
        let e = "draw".parse::<GameResult>().expect_err("not a result");
        assert_eq!(
            e.to_string(),
            r#""draw" is not a result; use "1-0", "0-1" or "1/2-1/2""#
        );
    }
}
