//! What one push sends: the games a `[[lichess]]` table takes of the round, in board order,
//! at most [`MAX_GAMES`], each known by its board number (Lichess answers game by game in
//! the order sent: the answer's n-th entry is the n-th game here), and the boards left out
//! past the limit.
//!
//! Owns the choice (the table's `boards`, the limit) and the body's text. Pure: no IO.

use super::MAX_GAMES;
use super::boards::BoardSet;

/// One game of a push.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Game {
    /// Its board number.
    pub(crate) board: u32,
    /// Its PGN, without the blank line after it.
    pub(crate) pgn: String,
}

/// The games of one push.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Body {
    /// The games sent, in board order.
    pub(crate) games: Vec<Game>,
    /// Boards the table takes that are left out: Lichess takes [`MAX_GAMES`] a round.
    pub(crate) over: Vec<u32>,
}

impl Body {
    /// The games the table takes of `candidates` (board number and PGN, any order; a board
    /// number once): those `boards` holds (every one without it), in board order, the first
    /// [`MAX_GAMES`] sent.
    pub(crate) fn pick(mut candidates: Vec<(u32, String)>, boards: Option<&BoardSet>) -> Body {
        candidates.retain(|(b, _)| boards.is_none_or(|s| s.contains(*b)));
        candidates.sort_by_key(|(b, _)| *b);
        let over = candidates.iter().skip(MAX_GAMES).map(|(b, _)| *b).collect();
        candidates.truncate(MAX_GAMES);
        Body {
            games: candidates
                .into_iter()
                .map(|(board, pgn)| Game {
                    board,
                    pgn: pgn.trim_end().to_owned(),
                })
                .collect(),
            over,
        }
    }

    /// Each game's `Result` tag (`*` without one), in order.
    pub(crate) fn results(&self) -> Vec<String> {
        self.games
            .iter()
            .map(|g| {
                g.pgn
                    .lines()
                    .find_map(|l| l.trim().strip_prefix("[Result \"")?.split('"').next())
                    .unwrap_or("*")
                    .to_owned()
            })
            .collect()
    }

    /// Whether a game has a move.
    pub(crate) fn has_moves(&self) -> bool {
        self.games
            .iter()
            .any(|g| super::answer::half_moves(&g.pgn) > 0)
    }

    /// The body's text: each game followed by a blank line (empty: nothing to push).
    pub(crate) fn text(&self) -> String {
        let mut out = String::new();
        for g in &self.games {
            out.push_str(&g.pgn);
            out.push_str("\n\n");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_s_boards_go_in_board_order_up_to_the_limit() {
        let game = |b: u32| (b, format!("[Board \"{b}\"]\n\n*\n"));
        let all: Vec<(u32, String)> = (1..=130).rev().map(game).collect();
        let body = Body::pick(all.clone(), None);
        assert_eq!(body.games.len(), MAX_GAMES);
        assert_eq!(body.games[0].board, 1);
        assert_eq!(body.over, (101..=130).collect::<Vec<_>>());
        let set = BoardSet::parse("101-150").expect("set");
        let body = Body::pick(all, Some(&set));
        let boards: Vec<u32> = body.games.iter().map(|g| g.board).collect();
        assert_eq!(boards, (101..=130).collect::<Vec<_>>());
        assert!(body.over.is_empty());
        assert!(
            body.text()
                .starts_with("[Board \"101\"]\n\n*\n\n[Board \"102\"]")
        );
        assert_eq!(Body::pick(Vec::new(), None).text(), "");
        let two = Body::pick(
            vec![
                (1, "[Result \"1-0\"]\n\n1. e4 1-0".into()),
                (2, "[Event \"x\"]\n\n*".into()),
            ],
            None,
        );
        assert_eq!(two.results(), ["1-0", "*"]);
        assert!(two.has_moves());
    }
}
