//! Times as people read them: what a clock's display shows ([`clock_text`], `M:SS` / `H:MM:SS`,
//! seconds rounded up, spec §1.1 C12) and the `h:mm:ss` of PGN clock tags ([`hms_text`]).
//!
//! The one home of these formatters for the workspace (snapshot texts, notation explanations,
//! the CLI, PGN). Pure string formatting; no rounding policy beyond what each names.

/// `M:SS` below one hour, `H:MM:SS` from one hour, seconds rounded up (C12).
pub fn clock_text(ms: u64) -> String {
    let secs = ms.div_ceil(1000);
    if secs >= 3600 {
        hms_text(secs)
    } else {
        format!("{}:{:02}", secs / 60, secs % 60)
    }
}

/// `h:mm:ss` of whole seconds, hours always shown and not limited (PGN `[%clk]`, `[%emt]`).
pub fn hms_text(secs: u64) -> String {
    format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_text_rounds_up_and_switches_to_hours() {
        assert_eq!(clock_text(0), "0:00");
        assert_eq!(clock_text(1), "0:01");
        assert_eq!(clock_text(59_001), "1:00");
        assert_eq!(clock_text(3_599_001), "1:00:00");
        assert_eq!(clock_text(36_000_000), "10:00:00");
    }

    #[test]
    fn hms_text_always_has_hours() {
        assert_eq!(hms_text(0), "0:00:00");
        assert_eq!(hms_text(61), "0:01:01");
        assert_eq!(hms_text(36_000), "10:00:00");
    }
}
