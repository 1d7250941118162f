//! What a command that changes something says it did: one line, made from the clock's status
//! before the action and as the daemon has it after (`clock 1 ("Table 2"): 90/30 d/0 = 90
//! moves in 30 min, repeating, for this game`), and the hint for a notation that is likely a
//! slip. The commands print it unless `--quiet`; with `--json` they print what they always
//! have (nothing, or the new clock's object path).
//!
//! Owns this wording only; it must not decide anything: the daemon did the action, and the
//! status after it is the daemon's.

use chessclock_api::{ClockStatus, Mode, Side};
use chessclock_engine::notation;

use super::commands::Action;

/// How a command reports what it did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Voice {
    /// `--json`: the JSON answers, unchanged (a control verb prints none).
    pub json: bool,
    /// `--quiet`: nothing on success (errors still go to stderr).
    pub quiet: bool,
}

impl Voice {
    /// Whether to print the line of what was done.
    pub(crate) fn says(self) -> bool {
        !self.json && !self.quiet
    }
}

/// `clock 1 ("Table 2")`.
pub(crate) fn who(c: &ClockStatus) -> String {
    format!("clock {} ({:?})", c.index, c.name)
}

/// Both clocks as shown: `white 14:58, black 15:10`.
fn times(c: &ClockStatus) -> String {
    format!("white {}, black {}", c.text.white, c.text.black)
}

/// The game as it stands after the action, in words: whose clock runs, paused, the result.
fn state(c: &ClockStatus) -> String {
    if let Some(result) = &c.result {
        return match &c.reason {
            Some(reason) => format!("result {result} ({reason})"),
            None => format!("result {result}"),
        };
    }
    if let Some(claim) = &c.claim {
        return format!(
            "{}'s claim waits for the director (`chessclockctl ruling {} \
             draw|deny|delay|watch`); the clocks are paused",
            claim.side.as_str(),
            c.index
        );
    }
    match (c.status.as_str(), c.running) {
        ("running", Some(side)) => format!("{}'s clock runs ({})", side.as_str(), times(c)),
        ("paused", _) => format!("paused ({})", times(c)),
        ("ready", _) => format!("ready to start ({})", times(c)),
        (other, _) => format!("{other} ({})", times(c)),
    }
}

/// The line for the control verb `action` on the clock that was `before` it (`after`: as the
/// daemon has it now, when it could be read).
pub(crate) fn control(
    before: &ClockStatus,
    after: Option<&ClockStatus>,
    action: &Action,
) -> String {
    let now = after.unwrap_or(before);
    let who = who(before);
    let what = match action {
        Action::Set(_) => {
            let canonical = &now.time_control;
            let meaning = notation::parse(canonical)
                .map(|p| format!(" = {}", notation::summary(&p.control)))
                .unwrap_or_default();
            let when = match before.status.as_str() {
                "ready" => "for this game, ready to start",
                "running" | "paused" => "from now on: the game goes on with its times",
                _ => "set (the game is over: `new-game` starts the next with it)",
            };
            format!("{canonical}{meaning}, {when}")
        }
        Action::Start(_) => format!("started; {}", state(now)),
        Action::Pause => state(now),
        Action::Resume => format!("resumed; {}", state(now)),
        Action::Press(side) => format!("{side} pressed; {}", state(now)),
        Action::Adjust(side, field, op, ms) => {
            let change = match op.as_str() {
                "add" => format!("{field} {ms:+} ms"),
                _ => format!("{field} set to {ms} ms"),
            };
            let shown = match side.as_str() {
                "black" => &now.text.black,
                _ => &now.text.white,
            };
            format!("{side}'s {change}: {side} now shows {shown}")
        }
        Action::Moves(side, n) => format!("{side}'s move count set to {n}"),
        Action::Claim(side, kind) => format!("{side} claims ({kind}): {}", state(now)),
        Action::Ruling(ruling, _) => format!("ruling {ruling}: {}", state(now)),
        Action::Result(result) => match (&now.result, &now.reason) {
            (Some(r), Some(reason)) => format!("result {r} recorded ({reason}); the game is over"),
            (Some(r), None) => format!("result {r} recorded; the game is over"),
            (None, _) => format!("result {result} given; {}", state(now)),
        },
        Action::NewGame => format!("a new game under {}; {}", now.time_control, state(now)),
        Action::Text(text, ms) => format!("shows {text:?} for {}", seconds(*ms)),
        Action::Beep(ms) => format!("beeped for {}", seconds(*ms)),
        Action::Mode(_) => match now.mode {
            Mode::Observe => {
                "mode observe: the clock runs its own mode; its times are read from its \
                 reports"
                    .to_owned()
            }
            Mode::Drive => format!("mode drive: chessclockd runs {}", now.time_control),
        },
    };
    format!("{who}: {what}")
}

/// `3 s`, `0.5 s`.
fn seconds(ms: u32) -> String {
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{} s", f64::from(ms) / 1000.0)
    }
}

/// The line for a clock that was asked to identify its board for `seconds`.
pub(crate) fn identified(c: &ClockStatus, seconds: u32) -> String {
    let shows = match c.board {
        0 => format!(
            "has no board number, so it shows its index {} (give it one with `chessclockctl \
             renumber {} N`)",
            c.index, c.index
        ),
        board => format!("shows board {board}"),
    };
    format!(
        "{} {shows} and beeps, for {seconds} s; then its times again",
        who(c)
    )
}

/// The hint for the notation `typed` to `set`, when it reads as something rarely meant.
pub(crate) fn set_hint(typed: &str) -> Option<String> {
    let parsed = notation::parse(typed).ok()?;
    notation::likely_slip(typed, &parsed)
}

/// The line for `info CLOCK TAG=VALUE...`: the tags set (as the daemon spells them: `white`
/// is `White`) and removed.
pub(crate) fn game_info(c: &ClockStatus, tags: &[(String, String)]) -> String {
    let spelt = |typed: &str| {
        c.game_info
            .keys()
            .find(|k| k.eq_ignore_ascii_case(typed))
            .cloned()
            .unwrap_or_else(|| typed.to_owned())
    };
    let set: Vec<String> = tags
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{}={v:?}", spelt(k)))
        .collect();
    let removed: Vec<&str> = tags
        .iter()
        .filter(|(_, v)| v.is_empty())
        .map(|(k, _)| k.as_str())
        .collect();
    let mut parts = Vec::new();
    if !set.is_empty() {
        parts.push(format!("game information set: {}", set.join(", ")));
    }
    if !removed.is_empty() {
        parts.push(format!("removed: {}", removed.join(", ")));
    }
    format!("{}: {}", who(c), parts.join("; "))
}

/// The line for `move CLOCK undo|force` and `position`: the game's last move after it.
pub(crate) fn moves(c: &ClockStatus, done: &str) -> String {
    let last = match &c.last_move {
        Some(m) => {
            let dots = if m.side == Side::White { "." } else { "..." };
            format!("last move {}{dots} {}", m.number, m.san)
        }
        None => "no moves yet".to_owned(),
    };
    format!("{}: {done}; {last}, {}", who(c), state(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(extra: serde_json::Value) -> ClockStatus {
        let mut v = serde_json::json!({
            "clock": "/c/1", "index": 1, "board": 2, "name": "Table 2", "port": "virtual:Table 2",
            "model": "DGT 3000", "firmware": "2.0", "board_serial": "", "connected": true,
            "device_state": "ready", "white_side": "left", "time_control": "90/30 d/0",
            "game_state": "ready", "status": "ready", "as_of_us": 1, "t_ms": 1,
            "white_ms": 1_800_000, "black_ms": 1_800_000, "running": null,
            "text": {"white": "30:00", "black": "30:00"},
            "phase": {"white": "main", "black": "main"}, "moves": {"white": 0, "black": 0},
            "detail": {"white": {}, "black": {}}, "result": null});
        if let (Some(v), Some(extra)) = (v.as_object_mut(), extra.as_object()) {
            v.extend(extra.clone());
        }
        serde_json::from_value(v).expect("status")
    }

    #[test]
    fn set_says_the_canonical_control_what_it_means_and_when_it_applies() {
        let before = status(serde_json::json!({}));
        let line = control(&before, Some(&before), &Action::Set("90/30".into()));
        assert_eq!(
            line,
            "clock 1 (\"Table 2\"): 90/30 d/0 = 90 moves in 30 min, repeating, for this game, \
             ready to start"
        );
        let running = status(serde_json::json!({"status": "running", "running": "white"}));
        let line = control(&running, Some(&running), &Action::Set("90/30".into()));
        assert!(
            line.ends_with("from now on: the game goes on with its times"),
            "{line}"
        );
        assert!(set_hint("90/30").is_some_and(|h| h.contains("write 90+30")));
        assert_eq!(set_hint("G/90 inc/30"), None);
        assert_eq!(set_hint("not a control"), None);
    }

    #[test]
    fn each_verb_says_the_game_as_it_stands_after() {
        let before = status(serde_json::json!({}));
        let after = status(serde_json::json!({
            "status": "running", "running": "black", "text": {"white": "29:58", "black": "30:00"}
        }));
        assert_eq!(
            control(&before, Some(&after), &Action::Press("white".into())),
            "clock 1 (\"Table 2\"): white pressed; black's clock runs (white 29:58, black 30:00)"
        );
        let ended =
            status(serde_json::json!({"status": "ended", "result": "1-0", "reason": "arbiter"}));
        assert_eq!(
            control(&before, Some(&ended), &Action::Result("1-0".into())),
            "clock 1 (\"Table 2\"): result 1-0 recorded (arbiter); the game is over"
        );
        let claimed = status(serde_json::json!({
            "status": "paused", "claim": {"side": "white", "flag_fell": false}
        }));
        let line = control(
            &before,
            Some(&claimed),
            &Action::Claim("white".into(), "x".into()),
        );
        assert!(
            line.contains("white's claim waits for the director"),
            "{line}"
        );
        assert_eq!(
            control(&before, None, &Action::Beep(500)),
            "clock 1 (\"Table 2\"): beeped for 0.5 s"
        );
        let adjusted = status(serde_json::json!({"text": {"white": "30:00", "black": "32:00"}}));
        assert_eq!(
            control(
                &before,
                Some(&adjusted),
                &Action::Adjust("black".into(), "main_ms".into(), "add".into(), 120_000)
            ),
            "clock 1 (\"Table 2\"): black's main_ms +120000 ms: black now shows 32:00"
        );
    }

    #[test]
    fn identify_says_the_board_or_the_missing_number() {
        let c = status(serde_json::json!({"board": 12}));
        assert_eq!(
            identified(&c, 5),
            "clock 1 (\"Table 2\") shows board 12 and beeps, for 5 s; then its times again"
        );
        let c = status(serde_json::json!({"board": 0}));
        let line = identified(&c, 3);
        assert!(
            line.contains("no board number") && line.contains("chessclockctl renumber 1 N"),
            "{line}"
        );
    }

    #[test]
    fn game_information_names_what_was_set_and_removed() {
        let c = status(serde_json::json!({"game_info": {"White": "Carlsen, Magnus"}}));
        let tags = [
            ("white".to_owned(), "Carlsen, Magnus".to_owned()),
            ("Event".to_owned(), String::new()),
        ];
        assert_eq!(
            game_info(&c, &tags),
            "clock 1 (\"Table 2\"): game information set: White=\"Carlsen, Magnus\"; removed: \
             Event"
        );
    }

    #[test]
    fn only_the_plain_voice_says_it() {
        assert!(Voice::default().says());
        assert!(
            !Voice {
                json: true,
                quiet: false
            }
            .says()
        );
        assert!(
            !Voice {
                json: false,
                quiet: true
            }
            .says()
        );
    }
}
