//! The bridge's Lichess push as its boards' problems: what Lichess said of a board's game
//! (refused, or fewer moves kept than sent) and a board the push leaves out (no
//! `[[lichess]]` table takes it, or past the 100 games of a round), each a [`Problem`] of the
//! board, in the one list the dashboard, `status`, `watch` and the alerts read
//! ([`crate::attention`]).
//!
//! The bridge holds the token and does the push, so these problems are the bridge's: it
//! serves them on its bus name (`org.chessclockd.Bridge1`, object [`BRIDGE_PATH`], property
//! `Problems` of [`PUSH_INTERFACE`]) and on MQTT for the other machines of a fleet; a client
//! of the daemon reads them there ([`read`]) and adds them to its clocks ([`merge`]). Owns the
//! words of these problems and their D-Bus form; it does no push.

use zbus::Connection;

use crate::attention::Problem;
use crate::names::BRIDGE_BUS_NAME;
use crate::status::ClockStatus;

/// Where the bridge serves its push's state.
pub const BRIDGE_PATH: &str = "/org/chessclockd/Bridge1";
/// The interface of the bridge's push state.
pub const PUSH_INTERFACE: &str = "org.chessclockd.Bridge1.Push";

/// A board's push problem on the bus: (board, kind, rank, text, fix).
pub type BusProblem = (u32, String, u8, String, String);

/// Kinds of the push's problems.
pub const REFUSED: &str = "push_refused";
/// Lichess kept fewer moves than were sent.
pub const SHORT: &str = "push_short";
/// The push leaves the board out.
pub const LEFT_OUT: &str = "push_left_out";

fn handle(board: u32) -> String {
    format!("board:{board}")
}

/// Lichess refused board `board`'s game in round `round` with `error` (its words).
pub fn refused(board: u32, round: &str, error: &str) -> Problem {
    let fix = if error.contains("upstream URL") {
        format!(
            "Lichess round {round} takes its games from a URL: remove its source URL in the \
             round's settings on lichess.org (or push to another round)"
        )
    } else {
        format!(
            "correct the game (chessclockctl move {b} undo|force UCI, or chessclockctl \
             position {b} board); the next push sends it and this goes once Lichess takes it",
            b = handle(board)
        )
    };
    Problem {
        kind: REFUSED.into(),
        rank: 1,
        text: format!("Lichess refused the game (round {round}): {error}"),
        fix,
    }
}

/// Lichess kept `kept` of the `sent` half-moves of board `board`'s game in round `round`.
pub fn short(board: u32, round: &str, kept: u64, sent: u64) -> Problem {
    let fix = if kept >= 600 {
        "Lichess reads the first 600 half-moves of a game: upload the whole game by hand once \
         it ends (chessclockctl pgn BOARD)"
            .replace("BOARD", &handle(board))
    } else {
        format!(
            "see the game's moves (chessclockctl pgn {b}) and correct it (chessclockctl move \
             {b} undo|force UCI); this goes once Lichess keeps every move",
            b = handle(board)
        )
    };
    Problem {
        kind: SHORT.into(),
        rank: 1,
        text: format!("Lichess kept {kept} of the {sent} half-moves sent (round {round})"),
        fix,
    }
}

/// No `[[lichess]]` table of the pushing bridge takes board `board`.
pub fn in_no_table(board: u32) -> Problem {
    Problem {
        kind: LEFT_OUT.into(),
        rank: 2,
        text: format!("board {board} is in no [[lichess]] table: its game is not pushed"),
        fix: format!(
            "add it to a table's boards in bridge.toml (boards = \"...\" holding {board}) and \
             restart chessclock-bridge"
        ),
    }
}

/// Board `board` is past the `max` games Lichess keeps in round `round`.
pub fn past_limit(board: u32, round: &str, max: usize) -> Problem {
    Problem {
        kind: LEFT_OUT.into(),
        rank: 2,
        text: format!(
            "board {board} is past the {max} games Lichess keeps in round {round}: its game is \
             not pushed"
        ),
        fix: "split the boards over two [[lichess]] tables (boards = \"1-100\", boards = \
              \"101-...\"), each with its own Lichess round, and restart chessclock-bridge"
            .into(),
    }
}

/// A problem as the bus carries it.
pub fn to_bus(board: u32, p: &Problem) -> BusProblem {
    (board, p.kind.clone(), p.rank, p.text.clone(), p.fix.clone())
}

/// A problem from the bus.
pub fn from_bus(b: BusProblem) -> (u32, Problem) {
    let (board, kind, rank, text, fix) = b;
    (
        board,
        Problem {
            kind,
            rank,
            text,
            fix,
        },
    )
}

/// What the bridge on the bus says of its push ([`pushing`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pushing {
    /// How many `[[lichess]]` tables it pushes (0: it pushes nothing to Lichess itself; its
    /// `problems` are then the other machines' bridges' words of this machine's boards).
    pub tables: u32,
    /// The Lichess round each board's game went to at its table's last push, by board.
    pub pushed: std::collections::BTreeMap<u32, String>,
    /// Each board's push problems.
    pub problems: Vec<(u32, Problem)>,
}

/// What the bridge on `conn`'s bus serves of its push (one `GetAll`); `None` when no bridge
/// is there. A bridge older than a property has it empty.
pub async fn pushing(conn: &Connection) -> Option<Pushing> {
    let reply = conn
        .call_method(
            Some(BRIDGE_BUS_NAME),
            BRIDGE_PATH,
            Some("org.freedesktop.DBus.Properties"),
            "GetAll",
            &(PUSH_INTERFACE,),
        )
        .await
        .ok()?;
    let mut all: std::collections::HashMap<String, zbus::OwnedVariant> =
        reply.body().deserialize().ok()?;
    let mut take = |name: &str| all.remove(name);
    Some(Pushing {
        tables: take("Tables")
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(0),
        pushed: take("Pushed")
            .and_then(|v| std::collections::BTreeMap::<u32, String>::try_from(v).ok())
            .unwrap_or_default(),
        problems: take("Problems")
            .and_then(|v| Vec::<BusProblem>::try_from(v).ok())
            .map(|v| v.into_iter().map(from_bus).collect())
            .unwrap_or_default(),
    })
}

/// The push problems the bridge on `conn`'s bus serves; none when no bridge is there.
pub async fn read(conn: &Connection) -> Vec<(u32, Problem)> {
    pushing(conn).await.map(|p| p.problems).unwrap_or_default()
}

/// Add `push` (problems by board number) to the problems of the clocks of those boards, most
/// urgent first.
pub fn merge(clocks: &mut [ClockStatus], push: &[(u32, Problem)]) {
    for c in clocks {
        let board = match c.board {
            0 => c.index + 1,
            b => b,
        };
        let mine: Vec<&Problem> = push
            .iter()
            .filter(|(b, _)| *b == board)
            .map(|(_, p)| p)
            .collect();
        if mine.is_empty() {
            continue;
        }
        c.problems.extend(mine.into_iter().cloned());
        c.problems.sort_by_key(|p| p.rank);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_s_push_problems_join_its_clock_s_list_by_rank_and_say_the_fix() {
        let mut c = ClockStatus::default();
        c.published.board = 37;
        c.problems.push(Problem {
            kind: "battery_low".into(),
            rank: 3,
            text: "clock battery low".into(),
            fix: "x".into(),
        });
        let p = refused(37, "AbCd1234", "PGN Error: No move found");
        assert_eq!(
            p.text,
            "Lichess refused the game (round AbCd1234): PGN Error: No move found"
        );
        assert!(
            p.fix.contains("chessclockctl move board:37 undo"),
            "{}",
            p.fix
        );
        let other = in_no_table(12);
        merge(
            std::slice::from_mut(&mut c),
            &[(37, p.clone()), (12, other)],
        );
        let kinds: Vec<&str> = c.problems.iter().map(|p| p.kind.as_str()).collect();
        assert_eq!(kinds, [REFUSED, "battery_low"]);
        assert_eq!(from_bus(to_bus(37, &p)), (37, p));
        assert!(short(3, "x", 600, 640).fix.contains("600 half-moves"));
        assert!(
            refused(
                3,
                "x",
                "The relay has an upstream URL, and cannot be pushed to."
            )
            .fix
            .contains("source URL")
        );
    }
}
