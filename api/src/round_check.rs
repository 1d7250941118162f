//! The round's go/no-go (`chessclockctl round check`): for every board of the current round,
//! paper boards included, each check a board must pass before the round starts, with what
//! fixes it, made from the clocks' published status and the round's boards alone.
//!
//! Owns the checks and their words; the problems of a clock (missing, silent, not in PC mode,
//! no clock, a battery) are [`crate::attention`]'s, so every output says the same. It must
//! not ask the daemon anything: the caller gathers the status and the boards.

use serde::{Deserialize, Serialize};

use crate::ClockStatus;
use crate::attention;
use crate::clock::Orientation;
use crate::push::Pushing;

/// The pieces of the start position, as a FEN's first field.
const START_PIECES: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

/// One board of the round as the daemon lists it (`GetRoundBoards`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundBoard {
    pub board: u32,
    pub white: String,
    pub black: String,
    /// Its clock's index; `None`: a paper board.
    pub clock: Option<u32>,
}

/// One check of one board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Check {
    /// `answering`, `clock`, `pieces`, `orientation`, `control`, `battery`, `players`,
    /// `paper`, `lichess`.
    pub check: String,
    pub ok: bool,
    /// What was found, in words.
    pub text: String,
    /// What fixes it (empty when it passed).
    pub fix: String,
}

/// A board's checks, and whether it is ready.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BoardReadiness {
    pub board: u32,
    /// Its clock's index; `None`: a paper board.
    pub clock: Option<u32>,
    pub ready: bool,
    pub checks: Vec<Check>,
}

/// A board's readiness on the bus (the Manager's `CheckRound`): (board, clock number or -1
/// for a paper board, ready, its checks as (check, ok, text, fix)).
pub type BusReadiness = (u32, i32, bool, Vec<(String, bool, String, String)>);

impl BoardReadiness {
    /// As the bus carries it.
    pub fn to_bus(self) -> BusReadiness {
        let clock = self
            .clock
            .map_or(-1, |i| i32::try_from(i).unwrap_or(i32::MAX));
        let checks = self
            .checks
            .into_iter()
            .map(|c| (c.check, c.ok, c.text, c.fix))
            .collect();
        (self.board, clock, self.ready, checks)
    }

    /// From the bus.
    pub fn from_bus((board, clock, ready, checks): BusReadiness) -> BoardReadiness {
        BoardReadiness {
            board,
            clock: u32::try_from(clock).ok(),
            ready,
            checks: checks
                .into_iter()
                .map(|(check, ok, text, fix)| Check {
                    check,
                    ok,
                    text,
                    fix,
                })
                .collect(),
        }
    }
}

/// Every board of the round checked, in board order. `control`: the round's control
/// (canonical notation); `None`: the control most of the round's clocks are set to (the
/// first in board order on a tie), so that the odd one out is named. Likewise a board turned
/// round unlike most of the round's boards is named (`orientation`). `push`: what the bridge
/// says of its Lichess push (`None`: no bridge); where it pushes, or says a board's push has
/// a problem, each board has a `lichess` check.
pub fn check(
    boards: &[RoundBoard],
    clocks: &[ClockStatus],
    control: Option<&str>,
    push: Option<&Pushing>,
) -> Vec<BoardReadiness> {
    let of = |b: &RoundBoard| b.clock.and_then(|i| clocks.iter().find(|c| c.index == i));
    let round_control = control.map(str::to_owned).or_else(|| {
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for c in boards.iter().filter_map(of) {
            match counts.iter_mut().find(|(k, _)| *k == c.time_control) {
                Some((_, n)) => *n += 1,
                None => counts.push((&c.time_control, 1)),
            }
        }
        let most = counts.iter().map(|(_, n)| *n).max()?;
        counts
            .iter()
            .find(|(_, n)| *n == most)
            .map(|(k, _)| (*k).to_owned())
    });
    let known: Vec<Orientation> = boards
        .iter()
        .filter_map(of)
        .filter_map(|c| c.board_orientation)
        .collect();
    let turned = known.iter().filter(|o| **o == Orientation::Rotated).count();
    let most = match (turned * 2).cmp(&known.len()) {
        std::cmp::Ordering::Greater => Some((Orientation::Rotated, turned)),
        std::cmp::Ordering::Less => Some((Orientation::Normal, known.len() - turned)),
        std::cmp::Ordering::Equal => None,
    };
    boards
        .iter()
        .map(|b| {
            let checks = match of(b) {
                Some(c) => clock_checks(b, c, round_control.as_deref(), most),
                None => paper_checks(b),
            };
            let mut r = BoardReadiness {
                board: b.board,
                clock: b.clock,
                ready: checks.iter().all(|c| c.ok),
                checks,
            };
            if let Some(p) = push {
                add_push(&mut r, p);
            }
            r
        })
        .collect()
}

/// Add the `lichess` check `push` makes of board `b` (none where the bridge pushes nothing
/// and says nothing of it), and judge it ready again: what a bridge adds to the daemon's
/// `CheckRound`.
pub fn add_push(b: &mut BoardReadiness, push: &Pushing) {
    b.checks.retain(|c| c.check != "lichess");
    b.checks.extend(lichess(b.board, push));
    b.ready = b.checks.iter().all(|c| c.ok);
}

fn passed(check: &str, text: String) -> Check {
    Check {
        check: check.into(),
        ok: true,
        text,
        fix: String::new(),
    }
}

fn failed(check: &str, text: String, fix: String) -> Check {
    Check {
        check: check.into(),
        ok: false,
        text,
        fix,
    }
}

fn players(b: &RoundBoard, white: Option<&str>, black: Option<&str>) -> Check {
    let known = |s: Option<&str>| s.is_some_and(|s| !s.is_empty() && s != "?");
    if known(white) && known(black) {
        passed(
            "players",
            format!("{} - {}", white.unwrap_or(""), black.unwrap_or("")),
        )
    } else {
        failed(
            "players",
            format!("board {} has no players", b.board),
            "load the round's pairings: `chessclockctl round load FILE`".into(),
        )
    }
}

fn paper_checks(b: &RoundBoard) -> Vec<Check> {
    vec![
        passed(
            "paper",
            format!(
                "a paper board: no e-board, its result entered by hand (`chessclockctl round \
                 result {} RESULT`)",
                b.board
            ),
        ),
        players(b, Some(&b.white), Some(&b.black)),
    ]
}

fn clock_checks(
    b: &RoundBoard,
    c: &ClockStatus,
    control: Option<&str>,
    most: Option<(Orientation, usize)>,
) -> Vec<Check> {
    let me = c.handle();
    let problems = attention::problems(c);
    let problem = |kinds: &[&str]| problems.iter().find(|p| kinds.contains(&p.kind.as_str()));
    let mut checks = Vec::new();
    checks.push(match problem(&["missing", "not_responding"]) {
        Some(p) => failed("answering", p.text.clone(), p.fix.clone()),
        None if matches!(c.device_state.as_str(), "opening" | "probing") => failed(
            "answering",
            format!(
                "the board on {} has not answered yet ({})",
                c.port,
                c.device_state.as_str()
            ),
            "wait a moment; if it stays so, check its cable and that it is switched on".into(),
        ),
        None => passed("answering", format!("{me} answers on {}", c.port)),
    });
    checks.push(match problem(&["no_clock", "not_in_pc_mode"]) {
        Some(p) => failed("clock", p.text.clone(), p.fix.clone()),
        None if c.model.is_empty() => failed(
            "clock",
            "no clock has reported yet".into(),
            "connect the clock to the board and switch it on".into(),
        ),
        None => passed("clock", format!("a {}", c.model)),
    });
    checks.push(pieces(c, &me));
    checks.extend(orientation(c, most));
    if let Some(want) = control {
        checks.push(if let Some(p) = problem(&["clock_control"]) {
            // Observed: the clock runs its own time, and shows what the control does not.
            failed("control", p.text.clone(), p.fix.clone())
        } else if c.time_control == want {
            passed("control", format!("set to {want}"))
        } else {
            failed(
                "control",
                format!("set to {}, the round's is {want}", c.time_control),
                format!("chessclockctl set {me} \"{want}\""),
            )
        });
    }
    checks.push(match problem(&["battery_low"]) {
        Some(p) => failed("battery", p.text.clone(), p.fix.clone()),
        None => passed("battery", "fine".into()),
    });
    let tag = |k: &str| c.game_info.get(k).map(String::as_str);
    checks.push(players(b, tag("White"), tag("Black")));
    checks
}

/// Board `board`'s Lichess push: its most urgent push problem, else the round its game went
/// to; `None` where the bridge pushes nothing and says nothing of the board.
fn lichess(board: u32, push: &Pushing) -> Option<Check> {
    let problem = push
        .problems
        .iter()
        .filter(|(b, _)| *b == board)
        .map(|(_, p)| p)
        .min_by_key(|p| p.rank);
    if let Some(p) = problem {
        return Some(failed("lichess", p.text.clone(), p.fix.clone()));
    }
    if push.tables == 0 {
        return None;
    }
    Some(match push.pushed.get(&board) {
        Some(round) => passed("lichess", format!("pushed to Lichess round {round}")),
        None => failed(
            "lichess",
            "not pushed to Lichess yet".into(),
            "wait for the bridge's next push; if it stays so, read `journalctl -u \
             chessclock-bridge`"
                .into(),
        ),
    })
}

/// Which way round the board lies, against most of the round's boards (`most`: that way and
/// how many; `None` on a tie); no check until the board has shown a start position (the
/// `pieces` check says what to set up).
fn orientation(c: &ClockStatus, most: Option<(Orientation, usize)>) -> Option<Check> {
    let o = c.board_orientation?;
    let words = |o: Orientation| match o {
        Orientation::Normal => "the normal way round (its connector at White's left)",
        Orientation::Rotated => "turned round (its connector at White's right)",
    };
    Some(match most {
        Some((usual, n)) if usual != o => failed(
            "orientation",
            format!(
                "{}, unlike {n} other boards of the round, which lie {}",
                words(o),
                match usual {
                    Orientation::Normal => "the normal way round",
                    Orientation::Rotated => "turned round",
                }
            ),
            format!(
                "if White sits at the wrong end, set the pieces up the other way round; if the \
                 board is meant so, check the clock shows White's time on White's side \
                 (`chessclockctl status {}`: white_side)",
                c.handle()
            ),
        ),
        _ => passed("orientation", words(o).into()),
    })
}

/// The pieces: the start position on a board whose game has not begun.
fn pieces(c: &ClockStatus, me: &str) -> Check {
    let moves = c.moves_san.len();
    if c.status != "ready" || moves > 0 {
        return failed(
            "pieces",
            format!("its game has begun ({moves} plies, {})", c.status),
            format!("if it should not have, `chessclockctl new-game {me}`"),
        );
    }
    let shown = c.fen.split(' ').next().unwrap_or_default();
    if shown == START_PIECES && c.board_problem.is_empty() {
        return passed("pieces", "in the start position".into());
    }
    let text = if c.board_problem.is_empty() {
        "the pieces are not in the start position".to_owned()
    } else {
        c.board_problem.clone()
    };
    failed(
        "pieces",
        text,
        "set up the start position (White on the side the board reads as White's)".into(),
    )
}

#[cfg(test)]
mod tests;
