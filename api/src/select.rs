//! Naming a clock as operators do, for every client (`chessclockctl CLOCK`, the bridge's
//! URLs): one rule, so a name means the same clock everywhere.
//!
//! In this order: an object path; `board:N`, the clock playing board N of the current round
//! (its `board`); a number that is an attached clock's index; the operator-given `name`; a
//! tty path (symlinks followed); a board serial number. A name or serial that several clocks
//! share is an error listing them. Pure but for following a tty path's symlinks.

use crate::ClockStatus;
use crate::names::CLOCK_PATH_PREFIX;

/// Why a name names no single clock, in words that say how to name one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SelectError(pub String);

/// What the forms are, for error messages.
pub const FORMS: &str = "by index, board:N (board N of the round), name, object path, tty path \
                         or board serial";

/// The position in `clocks` of the clock `name` names.
pub fn select(clocks: &[ClockStatus], name: &str) -> Result<usize, SelectError> {
    let not_found = || {
        SelectError(format!(
            "no clock matches {}; name a clock {FORMS} (`chessclockctl list` shows them)",
            quote(name)
        ))
    };
    if name.starts_with(CLOCK_PATH_PREFIX) {
        return clocks
            .iter()
            .position(|c| c.clock == name)
            .ok_or_else(not_found);
    }
    if let Some(n) = name.strip_prefix("board:") {
        let n: u32 = n.trim().parse().map_err(|_| {
            SelectError(format!(
                "{} is not a board number: write board:N with N a number, e.g. board:3",
                quote(name)
            ))
        })?;
        return one(clocks, |c| c.board == n, &format!("board {n}")).map_err(|e| {
            e.unwrap_or_else(|| {
                SelectError(format!(
                    "no clock plays board {n} of this round; `chessclockctl list` shows the \
                     boards (column BOARD)"
                ))
            })
        });
    }
    if let Ok(n) = name.parse::<u32>()
        && let Some(i) = clocks.iter().position(|c| c.index == n)
    {
        return Ok(i);
    }
    match one(
        clocks,
        |c| c.name == name,
        &format!("the name {}", quote(name)),
    ) {
        Ok(i) => return Ok(i),
        Err(Some(e)) => return Err(e),
        Err(None) => {}
    }
    let wanted_port = std::fs::canonicalize(name).ok();
    if let Some(i) = clocks.iter().position(|c| {
        c.port == name
            || wanted_port
                .as_ref()
                .is_some_and(|w| std::fs::canonicalize(&c.port).ok().as_ref() == Some(w))
    }) {
        return Ok(i);
    }
    one(
        clocks,
        |c| !c.board_serial.is_empty() && c.board_serial == name,
        &format!("board serial {name}"),
    )
    .map_err(|e| e.unwrap_or_else(not_found))
}

/// The one clock `pred` accepts; `Err(None)` when none does, an error listing them when
/// several do.
fn one(
    clocks: &[ClockStatus],
    pred: impl Fn(&ClockStatus) -> bool,
    what: &str,
) -> Result<usize, Option<SelectError>> {
    let mut found: Vec<usize> = (0..clocks.len()).filter(|&i| pred(&clocks[i])).collect();
    // Named by index, so listed by index whatever order the clocks come in.
    found.sort_by_key(|&i| clocks[i].index);
    match found.as_slice() {
        [] => Err(None),
        [i] => Ok(*i),
        many => Err(Some(SelectError(format!(
            "{} clocks have {what}: {} ({}); name one by index (`chessclockctl list` shows them)",
            many.len(),
            many.iter()
                .map(|&i| clocks[i].index.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            many.iter()
                .map(|&i| format!("board {} {}", clocks[i].board, quote(&clocks[i].name)))
                .collect::<Vec<_>>()
                .join(", ")
        )))),
    }
}

fn quote(s: &str) -> String {
    chessclock_engine::words::quote(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(index: u32, board: u32, name: &str, serial: &str) -> ClockStatus {
        serde_json::from_value(serde_json::json!({
            "clock": crate::names::clock_path(index), "index": index, "board": board,
            "name": name, "port": format!("/nonexistent/tty{index}"), "model": "",
            "firmware": "", "board_serial": serial, "connected": true,
            "device_state": "ready", "white_side": "left", "time_control": "G/5",
            "game_state": "ready", "status": "ready", "as_of_us": 1, "t_ms": 0,
            "white_ms": 1, "black_ms": 1, "running": null, "text": {"white": "", "black": ""},
            "phase": {"white": "", "black": ""}, "moves": {"white": 0, "black": 0},
            "detail": {"white": {}, "black": {}}, "result": null}))
        .expect("status")
    }

    fn venue() -> Vec<ClockStatus> {
        vec![
            clock(0, 2, "table-a", "111"),
            clock(1, 1, "table-b", "222"),
            clock(2, 3, "twin", "333"),
            clock(3, 4, "twin", "333"),
        ]
    }

    #[test]
    fn every_form_names_its_clock() {
        let all = venue();
        assert_eq!(select(&all, "board:1"), Ok(1));
        assert_eq!(select(&all, "board:2"), Ok(0));
        assert_eq!(select(&all, "1"), Ok(1), "a number is an index");
        assert_eq!(select(&all, "table-a"), Ok(0));
        assert_eq!(select(&all, "/nonexistent/tty1"), Ok(1));
        assert_eq!(select(&all, "222"), Ok(1));
        assert_eq!(select(&all, &crate::names::clock_path(3)), Ok(3));
    }

    #[test]
    fn a_shared_name_or_serial_lists_the_clocks_and_a_bad_board_says_how() {
        let all = venue();
        let e = select(&all, "twin").expect_err("shared");
        assert!(
            e.0.starts_with("2 clocks have the name \"twin\": 2, 3 (board 3 \"twin\", board 4"),
            "{e}"
        );
        let e = select(&all, "333").expect_err("shared serial");
        assert!(e.0.contains("board serial 333"), "{e}");
        let e = select(&all, "board:9").expect_err("none");
        assert!(e.0.contains("no clock plays board 9"), "{e}");
        let e = select(&all, "board:x").expect_err("not a number");
        assert!(e.0.contains("board:N"), "{e}");
        let e = select(&all, "nowhere").expect_err("none");
        assert!(e.0.contains("board:N"), "{e}");
    }
}
