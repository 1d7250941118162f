//! Lichess broadcast round ids: what one is, for the daemon (`NextRoundBroadcast` keeps one
//! per round) and the bridge (`[[lichess]] round`/`rounds`, and the round it pushes to).
//! Owns only the rule and its message; it knows neither Lichess nor the bus.

/// Whether `id` is a Lichess broadcast round id: 8 ASCII letters and digits.
pub fn round_id_ok(id: &str) -> bool {
    id.len() == 8 && id.chars().all(|c| c.is_ascii_alphanumeric())
}

/// What a round id is and where to find it, for the errors that refuse one.
pub const ROUND_ID_HELP: &str = "8 letters and digits, the last part of the round's URL (lichess.org/broadcast/<tour>/<round>/<id>)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_letters_and_digits_are_an_id() {
        assert!(round_id_ok("AbCd1234"));
        assert!(!round_id_ok("AbCd123"));
        assert!(!round_id_ok("AbCd12345"));
        assert!(!round_id_ok("AbCd-234"));
        assert!(!round_id_ok("AbCd123é"));
    }
}
