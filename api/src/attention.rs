//! What needs the operator at a board: one list of a clock's [`Problem`]s, made from its
//! published state alone, so the dashboard, `watch`, `status` and the bridge's alerts say
//! the same thing, and each goes when its cause goes (nothing is remembered here).
//!
//! Each problem has a `kind` (stable, for programs), the words, and what fixes it, naming
//! the clock as `board:N` so the command reads as the operator thinks of the board.
//! Most urgent first: the board missing or silent, the clock refusing control, what the
//! pieces show wrong, a claim or pause mid-game, a flag, a low battery, then what is only
//! worth knowing (a watched claimant, a draw the player may claim, a side that can no
//! longer win).

use serde::{Deserialize, Serialize};

use crate::ClockStatus;

/// One thing wrong at a board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Problem {
    /// `missing`, `not_responding`, `not_in_pc_mode`, `no_clock`, `board_problem`,
    /// `clock_control`, `claim`, `paused`, `flag`, `battery_low`, `watched`, `draw_claimable`, `cannot_win`.
    pub kind: String,
    /// 0 (most urgent) to 4 (worth knowing).
    pub rank: u8,
    /// What is wrong, in words.
    pub text: String,
    /// What fixes it: an action or a `chessclockctl` command.
    pub fix: String,
}

impl ClockStatus {
    /// How a command names this clock: `board:N` when it has a board number, else its index.
    pub fn handle(&self) -> String {
        if self.board > 0 {
            format!("board:{}", self.board)
        } else {
            self.index.to_string()
        }
    }

    /// Where this clock comes among the boards, the key of every list of clocks a client
    /// shows (`list`, `watch`, the bridge's lists and pages): by board number, then index;
    /// clocks without a board number (an older daemon) after, by index.
    pub fn board_order(&self) -> (bool, u32, u32) {
        (self.board == 0, self.board, self.index)
    }
}

/// What needs the operator at `c`, most urgent first.
pub fn problems(c: &ClockStatus) -> Vec<Problem> {
    let me = c.handle();
    let mut p = Vec::new();
    let mut add = |kind: &str, rank: u8, text: String, fix: String| {
        p.push(Problem {
            kind: kind.into(),
            rank,
            text,
            fix,
        })
    };
    match c.device_state.as_str() {
        "disconnected" => add(
            "missing",
            0,
            "board missing".into(),
            "reconnect the board's cable (the game goes on; its port is reopened every 2 s)".into(),
        ),
        _ if !c.connected && !matches!(c.device_state.as_str(), "opening" | "probing") => add(
            "missing",
            0,
            "board missing".into(),
            "reconnect the board's cable".into(),
        ),
        "not_responding" => add(
            "not_responding",
            1,
            "clock not responding".into(),
            "check the clock's cable and batteries".into(),
        ),
        "not_in_pc_mode" => add(
            "not_in_pc_mode",
            1,
            "clock not in PC mode".into(),
            format!(
                "select option {} on the clock, or follow it: chessclockctl mode {me} observe",
                match c.model.as_str() {
                    "DGT XL" => "23",
                    "DGT 3000" => "25",
                    _ => "25 (DGT 3000) or 23 (DGT XL)",
                }
            ),
        ),
        "no_clock" => add(
            "no_clock",
            1,
            "no clock on the board".into(),
            "plug the clock into the board and switch it on".into(),
        ),
        _ => {}
    }
    if !c.board_problem.is_empty() {
        add(
            "board_problem",
            1,
            format!("board problem: {}", c.board_problem),
            format!(
                "set the pieces as the game stands (chessclockctl board {me}), or correct \
                 the game: chessclockctl move {me} undo|force UCI"
            ),
        );
    }
    if !c.clock_problem.is_empty() {
        // The observed clock against its declared control says its own fix after `; fix: `.
        let (words, fix) = c
            .clock_problem
            .split_once("; fix: ")
            .unwrap_or((c.clock_problem.as_str(), ""));
        add(
            "clock_control",
            1,
            format!("clock: {words}"),
            fix.to_owned(),
        );
    }
    if let Some(claim) = &c.claim {
        add(
            "claim",
            1,
            format!(
                "{} {}: the director rules",
                claim.side.as_str(),
                if claim.flag_fell {
                    "flag fell while watched"
                } else {
                    "claims insufficient losing chances"
                }
            ),
            format!("chessclockctl ruling {me} draw|deny|delay|watch"),
        );
    } else if c.status == "paused" {
        add(
            "paused",
            2,
            "paused mid-game".into(),
            format!("chessclockctl resume {me}"),
        );
    }
    if c.status == "flagged" || !c.flags.is_empty() {
        let who: Vec<String> = c
            .flags
            .iter()
            .map(|f| format!("{} ({})", f.side.as_str(), f.reason.replace('_', " ")))
            .collect();
        add(
            "flag",
            3,
            format!("flag: {}", who.join(", ")),
            if c.result.is_some() {
                "none needed: the game has its result".into()
            } else {
                format!("the arbiter decides; then chessclockctl result {me} 1-0|0-1|1/2-1/2")
            },
        );
    }
    if c.battery_low {
        add(
            "battery_low",
            3,
            "clock battery low".into(),
            "change the clock's batteries before the next game".into(),
        );
    }
    if let Some(side) = c.watched {
        add(
            "watched",
            4,
            format!("{} watched by the director (USCF 14H)", side.as_str()),
            "none: its flag pauses the game for the director".into(),
        );
    }
    if !c.draw_claimable.is_empty() {
        let what = c
            .draw_claimable
            .iter()
            .map(|d| d.as_str().replace('_', "-"))
            .collect::<Vec<_>>()
            .join(", ");
        add(
            "draw_claimable",
            4,
            format!("draw claimable: {what}"),
            format!("on the player's claim: chessclockctl claim {me} SIDE --kind {what}"),
        );
    }
    // Where it matters for a flag: the game goes on, one side can no longer mate (the
    // other's flag would draw); both unable end the game as a dead position.
    if let Some(who) = c.can_mate
        && matches!(c.status.as_str(), "running" | "paused")
    {
        use chessclock_engine::Mating::CannotMate;
        let side = match (who.white, who.black) {
            (CannotMate, b) if b != CannotMate => Some(("White", "Black")),
            (w, CannotMate) if w != CannotMate => Some(("Black", "White")),
            _ => None,
        };
        if let Some((side, other)) = side {
            add(
                "cannot_win",
                4,
                format!("{side} can no longer win"),
                format!(
                    "none: {other}'s flag would draw (FIDE 6.9; under US Chess rules 14E \
                     decides)"
                ),
            );
        }
    }
    p.sort_by_key(|x| x.rank);
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::FlagEvent;

    fn ready() -> ClockStatus {
        serde_json::from_value(serde_json::json!({
            "clock": "/c/0", "index": 0, "board": 7, "name": "t", "port": "/dev/x",
            "model": "DGT 3000", "firmware": "", "board_serial": "", "connected": true,
            "device_state": "ready", "white_side": "left", "time_control": "G/5",
            "game_state": "running", "status": "running", "as_of_us": 1, "t_ms": 0,
            "white_ms": 1, "black_ms": 1, "running": "white",
            "text": {"white": "", "black": ""}, "phase": {"white": "", "black": ""},
            "moves": {"white": 0, "black": 0}, "detail": {"white": {}, "black": {}},
            "result": null}))
        .expect("status")
    }

    fn kinds(c: &ClockStatus) -> Vec<String> {
        problems(c).into_iter().map(|p| p.kind).collect()
    }

    #[test]
    fn each_cause_is_one_problem_that_goes_with_it() {
        let mut c = ready();
        assert!(problems(&c).is_empty());
        c.board_problem = "a white pawn on e5 that the game does not have".into();
        c.battery_low = true;
        c.device_state = crate::DeviceState::Disconnected;
        c.connected = false;
        assert_eq!(kinds(&c), ["missing", "board_problem", "battery_low"]);
        let board = &problems(&c)[1];
        assert!(board.text.contains("white pawn on e5"), "{board:?}");
        assert!(
            board.fix.contains("chessclockctl board board:7"),
            "{board:?}"
        );
        c.board_problem.clear();
        c.device_state = crate::DeviceState::Ready;
        c.connected = true;
        assert_eq!(kinds(&c), ["battery_low"], "the causes gone, so are they");
    }

    #[test]
    fn a_side_that_can_no_longer_win_is_said_while_the_game_goes_on() {
        use chessclock_engine::{Mating, WhoCanMate};
        let mut c = ready();
        c.can_mate = Some(WhoCanMate {
            white: Mating::CannotMate,
            black: Mating::CanMate,
        });
        let p = problems(&c);
        assert_eq!(kinds(&c), ["cannot_win"]);
        assert_eq!(p[0].text, "White can no longer win");
        assert!(p[0].fix.contains("Black's flag would draw"), "{:?}", p[0]);
        // Both unable: a dead position, which ends the game; nothing to warn of here.
        c.can_mate = Some(WhoCanMate {
            white: Mating::CannotMate,
            black: Mating::CannotMate,
        });
        assert!(problems(&c).is_empty());
        // Not decided, or the game over: nothing said.
        c.can_mate = Some(WhoCanMate {
            white: Mating::Undetermined,
            black: Mating::CanMate,
        });
        assert!(problems(&c).is_empty());
        c.can_mate = Some(WhoCanMate {
            white: Mating::CanMate,
            black: Mating::CannotMate,
        });
        assert_eq!(problems(&c)[0].text, "Black can no longer win");
        c.status = "ended".into();
        assert!(problems(&c).is_empty());
    }

    #[test]
    fn an_observed_clock_against_its_control_is_a_clock_problem_with_its_own_fix() {
        let mut c = ready();
        c.clock_problem = "the clock started at 4:00 - 4:00; fix: chessclockctl set 7 G/4".into();
        let p = &problems(&c)[0];
        assert_eq!(p.kind, "clock_control");
        assert_eq!(p.text, "clock: the clock started at 4:00 - 4:00");
        assert_eq!(p.fix, "chessclockctl set 7 G/4");
    }

    #[test]
    fn a_pause_a_flag_and_a_claim_say_the_command_that_fixes_them() {
        let mut c = ready();
        c.status = "paused".into();
        assert_eq!(problems(&c)[0].fix, "chessclockctl resume board:7");
        c.status = "flagged".into();
        c.flags.push(FlagEvent {
            side: crate::Side::White,
            t_ms: 1,
            reason: "time".into(),
        });
        let flag = &problems(&c)[0];
        assert_eq!(flag.text, "flag: white (time)");
        c.claim = Some(chessclock_engine::PendingClaim {
            side: crate::Side::Black,
            flag_fell: false,
        });
        c.status = "paused".into();
        assert_eq!(kinds(&c), ["claim", "flag"], "a claim's pause is the claim");
        c.board = 0;
        c.device_state = crate::DeviceState::NotInPcMode;
        assert!(problems(&c)[0].fix.contains("option 25"));
        assert!(problems(&c)[0].fix.contains("mode 0 observe"));
    }
}
