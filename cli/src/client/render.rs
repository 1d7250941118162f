//! Output of the reading commands for people: a clock's [`ClockStatus`] as the text of
//! `status` (with its players, last move and what needs attention, each with its fix) and as
//! a line of `list`. The JSON form is the status itself (its
//! schema is the `chessclock-api` crate's).

use chessclock_api::{ClockStatus, Side};
use chessclock_engine::clock_text;
use serde_json::Value;

/// Secondary information for one side: the detail fields that matter to a person.
fn side_notes(v: &ClockStatus, side: Side) -> String {
    let d = v.detail.get(side);
    let mut notes = Vec::new();
    if let Some(p) = d.get("periods_left").and_then(Value::as_u64) {
        notes.push(format!("{p} periods left"));
    }
    if let Some(st) = d.get("stones_left").and_then(Value::as_u64) {
        notes.push(format!("{st} stones left"));
    }
    if d.get("can_win") == Some(&Value::Bool(false)) {
        notes.push("cannot win".into());
    }
    if let Some(r) = d.get("reserve_ms").and_then(Value::as_u64) {
        notes.push(format!("reserve {}", clock_text(r)));
    }
    if let Some(c) = d.get("cap_left_ms").and_then(Value::as_u64) {
        notes.push(format!("cap {}", clock_text(c)));
    }
    notes.join(", ")
}

/// The human form of `status`.
pub(crate) fn status_text(v: &ClockStatus) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "Clock {}  board {}  {:?}  {}\n",
        v.index, v.board, v.name, v.port
    ));
    out.push_str(&format!(
        "  players  {} - {}{}\n",
        v.player(Side::White),
        v.player(Side::Black),
        v.game_info
            .get("Round")
            .map(|r| format!("  (round {r})"))
            .unwrap_or_default()
    ));
    let model = if v.model.is_empty() {
        "clock model unknown".to_owned()
    } else {
        format!("{} {}", v.model, v.firmware)
    };
    let serial = if v.board_serial.is_empty() {
        String::new()
    } else {
        format!(", board {}", v.board_serial)
    };
    out.push_str(&format!(
        "  device   {} ({model}{serial}), white on the {} half\n",
        v.device_state, v.white_side
    ));
    // What needs the operator (chessclock_api::attention); a claim and the draws claimable
    // have their own lines below.
    for p in &v.problems {
        if p.kind == "cannot_win" {
            out.push_str(&format!("  mating   {} ({})\n", p.text, p.fix));
        } else if !matches!(p.kind.as_str(), "claim" | "watched" | "draw_claimable") {
            out.push_str(&format!("  ATTENTION {}: {}\n", p.text, p.fix));
        }
    }
    if v.mode == chessclock_api::Mode::Observe {
        out.push_str("  mode     observe: the clock runs its own mode; times from its reports\n");
    } else {
        out.push_str(&format!("  control  {}\n", v.time_control));
    }
    out.push_str(&format!(
        "  game     {}{}\n",
        v.game_state,
        v.running
            .map(|r| format!(", {} to move", r.as_str()))
            .unwrap_or_default()
    ));
    for side in [Side::White, Side::Black] {
        let marker = if v.running == Some(side) { "*" } else { " " };
        out.push_str(&format!(
            "  {marker}{:<6} {:>8}  {:<10} moves {:<4} {}\n",
            side.as_str(),
            v.text.get(side),
            v.phase.get(side),
            v.moves.get(side),
            side_notes(v, side)
        ));
    }
    if let Some(m) = &v.last_move {
        let dots = if m.side == Side::White { "." } else { "..." };
        out.push_str(&format!("  last     {}{dots} {}\n", m.number, m.san));
    }
    if let Some(r) = &v.result {
        out.push_str(&format!(
            "  result   {r} ({})\n",
            v.reason.as_deref().unwrap_or("")
        ));
    }
    if let Some(claim) = &v.claim {
        let what = if claim.flag_fell {
            "flag fell while watched"
        } else {
            "claims insufficient losing chances"
        };
        out.push_str(&format!(
            "  claim    {} {what}: waiting for the director (`chessclockctl ruling {} \
             draw|deny|delay|watch`)\n",
            claim.side.as_str(),
            v.index
        ));
    }
    if let Some(side) = v.watched {
        out.push_str(&format!(
            "  watched  {}: the director watches its claim; its flag pauses the game\n",
            side.as_str()
        ));
    }
    if !v.draw_claimable.is_empty() {
        out.push_str(&format!(
            "  claimable {} (`chessclockctl claim {} SIDE --kind ...`)\n",
            v.draw_claimable
                .iter()
                .map(|c| c.as_str().replace('_', "-"))
                .collect::<Vec<_>>()
                .join(", "),
            v.index
        ));
    }
    for notice in &v.notices {
        out.push_str(&format!("  notice   {notice}\n"));
    }
    out
}

/// Where a clock comes among the boards ([`ClockStatus::board_order`], every client's).
pub(crate) fn board_order(c: &ClockStatus) -> (bool, u32, u32) {
    c.board_order()
}

/// One line of `list`: the board, its players, its clock and what needs attention.
pub(crate) fn list_line(v: &ClockStatus) -> String {
    let mark = |side: Side| if v.running == Some(side) { "*" } else { " " };
    let players = format!("{} - {}", v.player(Side::White), v.player(Side::Black));
    let state = match &v.result {
        Some(r) => r.clone(),
        None => v.game_state.to_string(),
    };
    let attention: Vec<&str> = v.problems.iter().map(|p| p.text.as_str()).collect();
    format!(
        "{:>3} {:>5}  {:<12} {:<32} {:<16} {:<14} {:<8} {}{:>8} {}{:>8}  {:<14} {}",
        v.index,
        v.board,
        truncate(&v.name, 12),
        truncate(&players, 32),
        truncate(&v.port, 16),
        v.device_state,
        state,
        mark(Side::White),
        v.text.white,
        mark(Side::Black),
        v.text.black,
        truncate(&v.time_control, 14),
        attention.join("; ")
    )
    .trim_end()
    .to_owned()
}

/// What the operator should do about a device state, if anything (docs/dbus-api.md).
pub(crate) fn device_advice(state: &str, model: &str) -> Option<String> {
    Some(match state {
        "not_in_pc_mode" => format!(
            "the clock refuses remote control: select option {} on the clock, or follow it \
             in its own mode with `chessclockctl mode CLOCK observe`",
            match model {
                "DGT XL" => "23",
                "DGT 3000" => "25",
                _ => "25 (DGT 3000) or 23 (DGT XL)",
            }
        ),
        "no_clock" => "no clock on the board's cable: plug it in and switch it on".into(),
        "not_responding" => "the clock does not answer: check its cable and batteries".into(),
        "disconnected" => {
            "the board is gone: reconnect it (the game goes on; it is reopened every 2 s)".into()
        }
        _ => return None,
    })
}

/// Header of `list`.
pub(crate) fn list_header() -> String {
    format!(
        "{:>3} {:>5}  {:<12} {:<32} {:<16} {:<14} {:<8} {:>9} {:>9}  {:<14} {}",
        "#",
        "BOARD",
        "NAME",
        "PLAYERS",
        "PORT",
        "DEVICE",
        "GAME",
        "WHITE",
        "BLACK",
        "CONTROL",
        "ATTENTION"
    )
}

/// `s` cut to `n` characters, with an ellipsis when cut.
pub(crate) fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_states_that_need_the_operator_say_what_to_do() {
        let pc = device_advice("not_in_pc_mode", "DGT XL").expect("advice");
        assert!(pc.contains("option 23"), "{pc}");
        let pc = device_advice("not_in_pc_mode", "DGT 3000").expect("advice");
        assert!(pc.contains("option 25"), "{pc}");
        assert!(device_advice("no_clock", "").is_some());
        assert_eq!(device_advice("ready", "DGT 3000"), None);
    }

    #[test]
    fn status_text_marks_running_side_and_notes() {
        let v: ClockStatus = serde_json::from_value(serde_json::json!({
            "clock": "/org/chessclockd/ChessClock1/Clock/2", "index": 2, "name": "b1",
            "port": "/dev/x", "model": "DGT 3000", "firmware": "2.0", "board_serial": "",
            "connected": true, "device_state": "ready", "white_side": "left",
            "time_control": "G/15 df/60:10:hybrid", "game_state": "running", "status": "running",
            "as_of_us": 1, "t_ms": 1, "white_ms": 59_000, "black_ms": 840_000,
            "running": "black", "text": {"white": "0:59", "black": "14:00"},
            "phase": {"white": "extra", "black": "main"}, "moves": {"white": 3, "black": 2},
            "detail": {"white": {"can_win": false}, "black": {"can_win": true}}, "result": null,
            "notices": ["on resuming the game: the wall clock was set back 3 s"]}))
        .expect("status");
        let t = status_text(&v);
        assert!(t.contains("*black"), "{t}");
        assert!(t.contains("cannot win"), "{t}");
        assert!(t.contains("black to move"), "{t}");
        assert!(
            t.contains("  notice   on resuming the game: the wall clock was set back 3 s\n"),
            "{t}"
        );
    }

    #[test]
    fn list_lines_keep_every_column_under_its_heading() {
        let v: ClockStatus = serde_json::from_value(serde_json::json!({
            "clock": "/c/0", "index": 0, "board": 1, "name": "Table 1", "port": "virtual:Table 1",
            "model": "DGT 3000", "firmware": "2.0", "board_serial": "", "connected": true,
            "device_state": "ready", "white_side": "left", "time_control": "G/15 inc/10",
            "game_state": "ready", "status": "ready", "as_of_us": 1, "t_ms": 1,
            "white_ms": 900_000, "black_ms": 900_000, "running": null,
            "text": {"white": "15:10", "black": "15:10"},
            "phase": {"white": "main", "black": "main"}, "moves": {"white": 0, "black": 0},
            "detail": {"white": {}, "black": {}}, "result": null}))
        .expect("status");
        let header = list_header();
        let line = list_line(&v);
        let at = |text: &str, word: &str, from: usize| {
            text[from..].find(word).map(|i| i + from).expect(word)
        };
        let device = at(&header, "DEVICE", 0);
        let game = at(&header, "GAME", 0);
        let control = at(&header, "CONTROL", 0);
        assert_eq!(at(&line, "ready", device - 1), device, "{header}\n{line}");
        assert_eq!(at(&line, "ready", device + 1), game, "{header}\n{line}");
        assert_eq!(at(&line, "G/15", 0), control, "{header}\n{line}");
    }

    #[test]
    fn status_text_says_a_pending_claim_and_the_draws_claimable() {
        let mut v: ClockStatus = serde_json::from_value(serde_json::json!({
            "clock": "/c/4", "index": 4, "name": "b4", "port": "/dev/x", "model": "DGT 3000",
            "firmware": "2.0", "board_serial": "", "connected": true, "device_state": "ready",
            "white_side": "left", "time_control": "G/5", "game_state": "paused",
            "status": "paused", "as_of_us": 1, "t_ms": 1, "white_ms": 90_000,
            "black_ms": 200_000, "running": null, "text": {"white": "1:30", "black": "3:20"},
            "phase": {"white": "sd", "black": "sd"}, "moves": {"white": 30, "black": 30},
            "detail": {"white": {}, "black": {}}, "result": null,
            "claim": {"side": "white", "flag_fell": false}}))
        .expect("status");
        let t = status_text(&v);
        assert!(
            t.contains("claim    white claims insufficient losing chances"),
            "{t}"
        );
        assert!(t.contains("chessclockctl ruling 4"), "{t}");
        assert!(!t.contains("claimable"), "{t}");
        v.claim = None;
        v.draw_claimable = vec![
            chessclock_engine::BoardClaim::Threefold,
            chessclock_engine::BoardClaim::FiftyMoves,
        ];
        let t = status_text(&v);
        assert!(t.contains("claimable threefold, fifty-moves"), "{t}");
    }
}
