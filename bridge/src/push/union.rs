//! A fleet round: the union of the boards' PGN that every machine's bridge publishes, retained,
//! on `chessclockd/<host>/board/<B>/pgn`, as the one body a `source = "fleet"` round pushes.
//!
//! Owns the latest game per (host, board), e-boards' and paper boards' (`.../paper/<B>/pgn`:
//! each machine loads the whole round, so a board another machine drives is a paper board
//! here; a board's e-board game wins, else the first paper game with a result), a cleared board (an empty payload) leaving it, the
//! round filter (the round is the `R` of each game's `Round "R.B"` tag; the current round is
//! the highest one seen, and games of other rounds are left out), the order (by board number)
//! and the conflicts (two hosts with one board number: the first host by name is pushed, the
//! conflict is reported, once, for the caller to log). Pure: no MQTT, no HTTP, no clock.

use std::collections::{BTreeMap, BTreeSet};

/// One game of the fleet: its PGN and the round of its `Round` tag, if it has a number.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Game {
    pgn: String,
    round: Option<u32>,
}

/// Two machines publishing the same board number in the current round.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Conflict {
    /// The board number.
    pub(crate) board: u32,
    /// The host whose game is pushed (the first by name).
    pub(crate) pushed: String,
    /// The hosts whose games for that board are left out.
    pub(crate) left_out: Vec<String>,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "board {} is published by {} and {}: {}'s game is pushed, not {}'s; give each \
             board its own number (`board = N` in the [[clock]] tables of one machine)",
            self.board,
            self.pushed,
            self.left_out.join(" and "),
            self.pushed,
            self.left_out.join("'s or "),
        )
    }
}

/// The current round's games on the broker, one per board number, and its conflicts.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct RoundGames {
    /// Board number and PGN of each board's game, in board order: the e-board game of the
    /// first host (by name) that drives the board, else its paper game.
    pub(crate) games: Vec<(u32, String)>,
    /// The round the games are of (`None`: no game has a round number; all are taken).
    pub(crate) round: Option<u32>,
    /// Board numbers two machines share.
    pub(crate) conflicts: Vec<Conflict>,
}

/// The latest game of every (board, host) seen on the broker, e-boards' and paper boards'.
#[derive(Debug, Default)]
pub(crate) struct Union {
    games: BTreeMap<(u32, String), Game>,
    paper: BTreeMap<(u32, String), Game>,
}

/// Put `payload` as `host`'s game of `board` in `games` (empty: cleared); whether anything
/// changed.
fn put(games: &mut BTreeMap<(u32, String), Game>, host: &str, board: u32, payload: &str) -> bool {
    let key = (board, host.to_owned());
    let pgn = payload.trim();
    if pgn.is_empty() {
        return games.remove(&key).is_some();
    }
    let game = Game {
        pgn: pgn.to_owned(),
        round: round_of(pgn),
    };
    if games.get(&key) == Some(&game) {
        return false;
    }
    games.insert(key, game);
    true
}

impl Union {
    /// `host` published `payload` for `board`; an empty payload clears the board. Whether
    /// anything changed.
    pub(crate) fn set(&mut self, host: &str, board: u32, payload: &str) -> bool {
        put(&mut self.games, host, board, payload)
    }

    /// `host` published `payload` for its paper board `board` (`.../paper/<B>/pgn`); empty
    /// clears it. In a fleet every machine loads the whole round, so a board one machine
    /// drives is a paper board of the others: a board's e-board game wins over paper, and
    /// of the paper games the first with a result (by host name). Whether anything changed.
    pub(crate) fn set_paper(&mut self, host: &str, board: u32, payload: &str) -> bool {
        put(&mut self.paper, host, board, payload)
    }

    /// The paper game of `board` in `round` to push when no machine drives the board.
    fn paper_of(&self, board: u32, round: Option<u32>) -> Option<&Game> {
        let of_board = || {
            self.paper
                .range((board, String::new())..)
                .take_while(move |((b, _), _)| *b == board)
                .map(|(_, g)| g)
                .filter(move |g| round.is_none() || g.round == round)
        };
        of_board()
            .find(|g| !g.pgn.contains("[Result \"*\"]"))
            .or_else(|| of_board().next())
    }

    /// The current round's games, one per board number, in board order.
    pub(crate) fn round_games(&self) -> RoundGames {
        let round = self.round();
        let mut out = RoundGames {
            round,
            ..RoundGames::default()
        };
        // BTreeMap order: by board number, then host name; the first host of a board wins.
        let mut games: std::collections::BTreeMap<u32, String> = std::collections::BTreeMap::new();
        for ((board, host), game) in self.current(round) {
            match out.conflicts.last_mut() {
                Some(c) if c.board == *board => {
                    c.left_out.push(host.clone());
                    continue;
                }
                _ => {}
            }
            let shared = self
                .current(round)
                .any(|((b, h), _)| b == board && h != host);
            if shared {
                out.conflicts.push(Conflict {
                    board: *board,
                    pushed: host.clone(),
                    left_out: Vec::new(),
                });
            }
            games.entry(*board).or_insert_with(|| game.pgn.clone());
        }
        // The boards no machine drives: their paper game, once.
        let paper: BTreeSet<u32> = self.paper.keys().map(|(b, _)| *b).collect();
        for board in paper {
            if games.contains_key(&board) {
                continue;
            }
            if let Some(game) = self.paper_of(board, round) {
                games.insert(board, game.pgn.clone());
            }
        }
        out.games = games.into_iter().collect();
        out
    }

    /// What to warn about in `games` that is not in `warned` yet: each conflict, once;
    /// `warned` remembers them.
    pub(crate) fn news(games: &RoundGames, warned: &mut BTreeSet<String>) -> Vec<String> {
        let mut news: Vec<String> = games.conflicts.iter().map(ToString::to_string).collect();
        news.retain(|what| warned.insert(what.clone()));
        news
    }

    /// The board numbers of the current round, driven or on paper.
    pub(crate) fn round_boards(&self) -> BTreeSet<u32> {
        let round = self.round();
        let mut boards: BTreeSet<u32> = self.current(round).map(|((b, _), _)| *b).collect();
        boards.extend(
            self.paper
                .iter()
                .filter(|(_, g)| round.is_none() || g.round == round)
                .map(|((b, _), _)| *b),
        );
        boards
    }

    /// The current round: the highest of the games' round numbers.
    fn round(&self) -> Option<u32> {
        self.games
            .values()
            .chain(self.paper.values())
            .filter_map(|g| g.round)
            .max()
    }

    /// The games of `round` (every game when `None`).
    fn current(&self, round: Option<u32>) -> impl Iterator<Item = (&(u32, String), &Game)> {
        self.games
            .iter()
            .filter(move |(_, g)| round.is_none() || g.round == round)
    }
}

/// The round number of a PGN's `[Round "R.B"]` (or `[Round "R"]`) tag.
pub(crate) fn round_of(pgn: &str) -> Option<u32> {
    pgn.lines()
        .map(str::trim)
        .take_while(|l| l.starts_with('[') || l.is_empty())
        .find_map(|l| l.strip_prefix("[Round \"")?.split_once('"').map(|(v, _)| v))
        .and_then(|v| v.split('.').next()?.parse().ok())
}

#[cfg(test)]
mod tests;
