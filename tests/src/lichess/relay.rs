//! The stand-in's rounds and their chapters, and what a push does to them
//! (`../shared/spec/lichess-broadcast.md` §1, §2, §4, §5): the 100-game cut, the answer game
//! by game, the games dropped before matching (no players, a bye), matching by `GameId`, then
//! tags, then moves (greedy, in push order; a fresh round's empty chapter taken by the first
//! game), chapters never deleted, tags only added or changed, moves never removed (a move a
//! push no longer has stays as a variation), and the round's status after the push.
//!
//! Where the spec names older and newer lila code, this is the newer: a `GameId` both sides
//! have decides alone, a match by moves needs the same round and players and one game's moves
//! a prefix of the other's, removed moves stay as a variation, byes are dropped.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use shakmaty::{Color, Position};

use super::pgn::{self, Game};

/// Games of a round Lichess keeps.
pub const MAX_CHAPTERS: usize = 100;

/// The tags a chapter keeps (§5).
const KEPT: [&str; 20] = [
    "White",
    "WhiteElo",
    "WhiteTitle",
    "WhiteTeam",
    "WhiteFideId",
    "Black",
    "BlackElo",
    "BlackTitle",
    "BlackTeam",
    "BlackFideId",
    "TimeControl",
    "Result",
    "Termination",
    "Site",
    "Event",
    "Round",
    "Board",
    "Annotator",
    "GameId",
    "FEN",
];

/// One chapter of a round.
#[derive(Debug, Clone, Default)]
pub struct Chapter {
    /// Its tags (§5: the kept ones, cleaned).
    pub tags: BTreeMap<String, String>,
    /// Its main line, SAN.
    pub moves: Vec<String>,
    /// Moves a later push no longer had, each kept where it left the main line: (ply, moves).
    pub variations: Vec<(usize, Vec<String>)>,
    /// Its result (`1-0`, `0-1`, `1/2-1/2`), `None` while it is played.
    pub result: Option<String>,
    /// The `[%clk]` seconds of its main line's moves.
    pub clocks: Vec<Option<u64>>,
    /// The empty chapter a new round has, until the first game takes it.
    pub placeholder: bool,
}

impl Chapter {
    /// A tag's value.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.get(name).map(String::as_str)
    }

    /// Every move the chapter has held: its main line and its variations.
    pub fn every_move(&self) -> Vec<&str> {
        self.moves
            .iter()
            .chain(self.variations.iter().flat_map(|(_, v)| v))
            .map(String::as_str)
            .collect()
    }
}

/// A round's state.
#[derive(Debug, Clone)]
pub struct Round {
    pub id: String,
    pub tour: String,
    pub name: String,
    pub slug: String,
    pub created_at: u64,
    pub starts_at: Option<u64>,
    pub starts_after_previous: bool,
    pub delay: Option<u32>,
    pub rated: bool,
    /// `customScoring` as sent (`{"white":{"win":..,"draw":..},"black":{..}}`).
    pub custom_scoring: Option<Value>,
    /// It pulls from a URL: pushes are refused.
    pub upstream: bool,
    /// Started (by a push with moves, or its status).
    pub started: bool,
    /// When it finished (epoch ms), if it is.
    pub finished_at: Option<u64>,
    pub chapters: Vec<Chapter>,
    /// Pushes held back by the round's delay: (when to apply, games).
    pending: Vec<(u64, Vec<Game>)>,
}

impl Round {
    /// A new push round of `tour`, with one empty chapter.
    pub fn new(id: &str, tour: &str, name: &str, now_ms: u64) -> Round {
        Round {
            id: id.to_owned(),
            tour: tour.to_owned(),
            name: name.to_owned(),
            slug: super::slug(name),
            created_at: now_ms,
            starts_at: None,
            starts_after_previous: false,
            delay: None,
            rated: false,
            custom_scoring: None,
            upstream: false,
            started: false,
            finished_at: None,
            chapters: vec![Chapter {
                placeholder: true,
                ..Chapter::default()
            }],
            pending: Vec::new(),
        }
    }

    /// The chapters with a game (not the empty one of a new round).
    pub fn games(&self) -> Vec<&Chapter> {
        self.chapters.iter().filter(|c| !c.placeholder).collect()
    }

    /// Every chapter deleted, the finish cleared (`reset`).
    pub fn reset(&mut self) {
        self.chapters = vec![Chapter {
            placeholder: true,
            ..Chapter::default()
        }];
        self.finished_at = None;
        self.pending.clear();
    }

    /// Apply the pushes held back by the delay that are due at `now_ms`.
    pub fn catch_up(&mut self, now_ms: u64) {
        while self.pending.first().is_some_and(|(at, _)| *at <= now_ms) {
            let (_, games) = self.pending.remove(0);
            self.sync(games, now_ms);
        }
    }

    /// A push of `body` at `now_ms` (`tour_tc`: the tour's `info.tc`): the answer's `games`.
    pub fn push(&mut self, body: &str, tour_tc: Option<&str>, now_ms: u64) -> Value {
        if self.upstream {
            return json!({"games": [{"tags": {}, "error":
                "The relay has an upstream URL, and cannot be pushed to."}]});
        }
        self.catch_up(now_ms);
        let mut answers = Vec::new();
        let mut games = Vec::new();
        for text in pgn::split(body).into_iter().take(MAX_CHAPTERS) {
            match pgn::read(&text) {
                Ok(mut game) => {
                    if game.tag("TimeControl").is_none()
                        && let Some(tc) = tour_tc.filter(|tc| tc_parses(tc))
                    {
                        game.tags.push(("TimeControl".into(), tc.to_owned()));
                    }
                    answers.push(json!({"tags": cleaned(&game.tags), "moves": game.sans.len()}));
                    games.push(game);
                }
                Err(failed) => {
                    let tags: BTreeMap<&str, &str> = failed
                        .tags
                        .iter()
                        .map(|(n, v)| (n.as_str(), v.as_str()))
                        .collect();
                    answers.push(json!({"tags": tags, "error": failed.error}));
                }
            }
        }
        match self.delay.filter(|d| *d > 1) {
            Some(d) => self.pending.push((now_ms + u64::from(d - 1) * 1000, games)),
            None => self.sync(games, now_ms),
        }
        json!({ "games": answers })
    }

    /// The games of a push, matched to the chapters and applied; then the round's status.
    fn sync(&mut self, games: Vec<Game>, now_ms: u64) {
        let held_games = !games.is_empty();
        let all_results = games.iter().all(|g| result_of(g).is_some());
        let games: Vec<Game> = games.into_iter().filter(has_players).collect();
        let mut claimed = vec![false; self.chapters.len()];
        let mut order = Vec::new();
        let mut added_moves = false;
        for game in &games {
            let found = (0..self.chapters.len())
                .find(|&i| !claimed[i] && tags_match(game, &self.chapters[i]))
                .or_else(|| {
                    (0..self.chapters.len())
                        .find(|&i| !claimed[i] && moves_match(game, &self.chapters[i]))
                });
            let i = match found {
                Some(i) => i,
                None if self.games().len() < MAX_CHAPTERS => {
                    self.chapters.push(Chapter::default());
                    claimed.push(false);
                    self.chapters.len() - 1
                }
                None => continue,
            };
            claimed[i] = true;
            order.push(i);
            added_moves |= update(&mut self.chapters[i], game);
        }
        // Chapters are put in push order only when every chapter was matched.
        if claimed.iter().all(|c| *c) {
            let mut chapters = Vec::with_capacity(order.len());
            for i in &order {
                chapters.push(std::mem::take(&mut self.chapters[*i]));
            }
            self.chapters = chapters;
        }
        if added_moves {
            self.started = true;
        }
        let all_finished = self.chapters.iter().all(|c| c.result.is_some());
        self.finished_at = match held_games && all_results && all_finished {
            true => self.finished_at.or(Some(now_ms)),
            false => None,
        };
    }

    /// The round as Lichess's JSON has it (`base`: the server's URL, `tour_slug`).
    pub fn json(&self, base: &str, tour_slug: &str) -> Value {
        let mut r = json!({
            "id": self.id,
            "name": self.name,
            "slug": self.slug,
            "createdAt": self.created_at,
            "rated": self.rated,
            "url": format!("{base}/broadcast/{tour_slug}/{}/{}", self.slug, self.id),
        });
        let o = r.as_object_mut().expect("an object");
        if let Some(t) = self.starts_at {
            o.insert("startsAt".into(), json!(t));
        }
        if self.starts_after_previous {
            o.insert("startsAfterPrevious".into(), json!(true));
        }
        if let Some(t) = self.finished_at {
            o.insert("finishedAt".into(), json!(t));
        }
        if let Some(d) = self.delay {
            o.insert("delay".into(), json!(d));
        }
        if let Some(s) = &self.custom_scoring {
            o.insert("customScoring".into(), s.clone());
        }
        if self.started && self.finished_at.is_none() {
            o.insert("ongoing".into(), json!(true));
        }
        r
    }
}

/// A `TimeControl` value Lichess reads: seconds, with an increment or moves per period.
fn tc_parses(tc: &str) -> bool {
    !tc.is_empty()
        && tc
            .split([':', '+', '/'])
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The tags without empty, `?` and `unknown` values, and without `Date` (§5).
fn cleaned(tags: &[(String, String)]) -> BTreeMap<String, String> {
    tags.iter()
        .filter(|(n, v)| {
            n != "Date" && !v.is_empty() && v != "?" && !v.eq_ignore_ascii_case("unknown")
        })
        .map(|(n, v)| (n.clone(), v.clone()))
        .collect()
}

/// The game's result: its tag, else mate or stalemate on the board.
fn result_of(g: &Game) -> Option<String> {
    match g.tag("Result") {
        Some(r @ ("1-0" | "0-1" | "1/2-1/2")) => Some(r.to_owned()),
        _ if g.end.is_checkmate() => Some(match g.end.turn() {
            Color::White => "0-1".to_owned(),
            Color::Black => "1-0".to_owned(),
        }),
        _ if g.end.is_stalemate() => Some("1/2-1/2".to_owned()),
        _ => None,
    }
}

/// Games without both players, and byes, are dropped before matching.
fn has_players(g: &Game) -> bool {
    let tags = cleaned(&g.tags);
    let white = tags.contains_key("White") || tags.contains_key("WhiteFideId");
    let black = tags.contains_key("Black");
    let bye = ["White", "Black"]
        .iter()
        .any(|t| tags.get(*t).is_some_and(|n| n.eq_ignore_ascii_case("bye")));
    white && black && !bye
}

/// The leading digits of `Round`.
fn round_number(tags: &BTreeMap<String, String>) -> Option<u32> {
    let r = tags.get("Round")?;
    let digits: String = r.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// `Board`, else the `B` of `Round "R.B"`.
fn board_number(tags: &BTreeMap<String, String>) -> Option<u32> {
    tags.get("Board")
        .and_then(|b| b.trim().parse().ok())
        .or_else(|| tags.get("Round")?.split_once('.')?.1.parse().ok())
}

/// The same players: by FIDE id where both sides have ids other than `0`, else by name.
fn same_players(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) -> bool {
    ["White", "Black"].iter().all(|side| {
        let id = |t: &BTreeMap<String, String>| {
            t.get(&format!("{side}FideId"))
                .filter(|v| v.as_str() != "0")
                .cloned()
        };
        match (id(a), id(b)) {
            (Some(x), Some(y)) => x == y,
            _ => a.get(*side) == b.get(*side),
        }
    })
}

/// Whether `game` is `chapter`'s by its tags (§2).
fn tags_match(game: &Game, chapter: &Chapter) -> bool {
    if chapter.placeholder {
        return true;
    }
    let g = cleaned(&game.tags);
    let c = &chapter.tags;
    match (g.get("GameId"), c.get("GameId")) {
        (Some(a), Some(b)) => a == b,
        _ => {
            g.get("Event") == c.get("Event")
                && g.get("Site") == c.get("Site")
                && round_number(&g) == round_number(c)
                && board_number(&g) == board_number(c)
                && same_players(&g, c)
        }
    }
}

/// Whether `game` is `chapter`'s by its moves (§2): the same round and players, from the same
/// start, one game's moves a prefix of the other's (a game without moves: any such chapter).
/// Two different `GameId`s never match.
fn moves_match(game: &Game, chapter: &Chapter) -> bool {
    let g = cleaned(&game.tags);
    let c = &chapter.tags;
    if let (Some(a), Some(b)) = (g.get("GameId"), c.get("GameId"))
        && a != b
    {
        return false;
    }
    let n = game.sans.len().min(chapter.moves.len());
    round_number(&g) == round_number(c)
        && same_players(&g, c)
        && g.get("FEN") == c.get("FEN")
        && game.sans[..n] == chapter.moves[..n]
}

/// Apply `game` to `chapter`: tags added or changed (never removed, but `Termination
/// "Unplayed"` once the game has two moves), moves added (those the game no longer has kept
/// as a variation), the result. Whether moves were added.
fn update(chapter: &mut Chapter, game: &Game) -> bool {
    chapter.placeholder = false;
    for (name, value) in cleaned(&game.tags) {
        if KEPT.contains(&name.as_str()) {
            chapter.tags.insert(name, value);
        }
    }
    let common = chapter
        .moves
        .iter()
        .zip(&game.sans)
        .take_while(|(a, b)| a == b)
        .count();
    let added = game.sans.len() > common;
    if common < chapter.moves.len() {
        let gone = chapter.moves.split_off(common);
        chapter.variations.push((common, gone));
    }
    chapter.moves = game.sans.clone();
    chapter.clocks = game.clocks.clone();
    chapter.result = result_of(game);
    match &chapter.result {
        Some(r) => {
            chapter.tags.insert("Result".into(), r.clone());
        }
        None => {
            chapter.tags.insert("Result".into(), "*".into());
        }
    }
    if chapter.result.is_some() && chapter.moves.len() < 2 {
        chapter.tags.insert("Termination".into(), "Unplayed".into());
    } else if chapter.tag("Termination") == Some("Unplayed") {
        chapter.tags.remove("Termination");
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(
        id: Option<&str>,
        white: &str,
        black: &str,
        board: u32,
        moves: &str,
        result: &str,
    ) -> String {
        let id = id
            .map(|i| format!("[GameId \"{i}\"]\n"))
            .unwrap_or_default();
        format!(
            "[Event \"Open\"]\n[Site \"Hall\"]\n[Date \"2026.05.01\"]\n[Round \"1.{board}\"]\n\
             [White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n[Board \"{board}\"]\n\
             {id}\n{moves} {result}\n\n"
        )
    }

    #[test]
    fn the_first_game_takes_the_empty_chapter_and_a_game_id_keeps_one_chapter() {
        let mut r = Round::new("AbCd1234", "t", "Round 1", 0);
        let a = r.push(&game(Some("g1"), "Ann", "Bo", 1, "1. e4", "*"), None, 1);
        assert_eq!(a["games"][0]["moves"], 1, "{a}");
        assert_eq!(a["games"][0]["tags"].get("Date"), None, "Date dropped: {a}");
        assert_eq!((r.chapters.len(), r.started), (1, true));
        // Colours swapped and the board renumbered: the same GameId, the same chapter.
        r.push(&game(Some("g1"), "Bo", "Ann", 7, "1. e4 e5", "*"), None, 2);
        assert_eq!(r.games().len(), 1);
        assert_eq!(r.chapters[0].tag("White"), Some("Bo"));
        assert_eq!(r.chapters[0].tag("Board"), Some("7"));
        // Without a GameId, the swap is another game: a second chapter.
        let mut r = Round::new("AbCd1234", "t", "Round 1", 0);
        r.push(&game(None, "Ann", "Bo", 1, "1. e4", "*"), None, 1);
        r.push(&game(None, "Bo", "Ann", 1, "1. e4", "*"), None, 2);
        assert_eq!(r.games().len(), 2, "the spec's second chapter");
    }

    #[test]
    fn chapters_are_never_deleted_and_moves_never_removed() {
        let mut r = Round::new("AbCd1234", "t", "Round 1", 0);
        let two = format!(
            "{}{}",
            game(Some("a"), "A", "B", 1, "1. e4 e5", "*"),
            game(Some("b"), "C", "D", 2, "1. d4", "*")
        );
        r.push(&two, None, 1);
        r.push(&game(Some("a"), "A", "B", 1, "1. e4 c5", "*"), None, 2);
        assert_eq!(r.games().len(), 2, "board 2 left out of the push stays");
        assert_eq!(r.chapters[0].moves, ["e4", "c5"]);
        assert_eq!(r.chapters[0].variations, [(1, vec!["e5".to_owned()])]);
        assert!(r.chapters[0].every_move().contains(&"e5"));
    }

    #[test]
    fn the_round_finishes_only_while_every_game_has_a_result() {
        let mut r = Round::new("AbCd1234", "t", "Round 1", 0);
        let both = |res2: &str| {
            format!(
                "{}{}",
                game(Some("a"), "A", "B", 1, "1. e4", "1-0"),
                game(Some("b"), "C", "D", 2, "1. d4", res2)
            )
        };
        r.push(&both("*"), None, 1);
        assert_eq!(r.finished_at, None);
        r.push(&both("0-1"), None, 2);
        assert_eq!(r.finished_at, Some(2));
        r.push(&game(Some("a"), "A", "B", 1, "1. e4", "1-0"), None, 3);
        assert_eq!(r.finished_at, Some(2), "every chapter still finished");
        r.push("", None, 4);
        assert_eq!(r.finished_at, None, "an empty push undoes the finish");
        r.finished_at = Some(5);
        r.push(&both("*"), None, 6);
        assert_eq!(r.finished_at, None, "a game under way undoes it");
    }

    #[test]
    fn each_game_is_answered_in_order_and_only_100_are_kept() {
        let mut r = Round::new("AbCd1234", "t", "Round 1", 0);
        let body: String = (1..=105)
            .map(|b| {
                let moves = if b == 3 { "1. e4 e5 2. Ke3" } else { "1. e4" };
                game(
                    Some(&format!("g{b}")),
                    &format!("W{b}"),
                    &format!("B{b}"),
                    b,
                    moves,
                    "*",
                )
            })
            .collect();
        let a = r.push(&body, Some("5400+30"), 1);
        let games = a["games"].as_array().expect("games");
        assert_eq!(games.len(), 100);
        assert_eq!(games[2]["error"], pgn::NO_MOVE_FOUND);
        assert_eq!(
            games[2]["tags"]["White"], "W3",
            "the raw tags of a refused game"
        );
        assert_eq!(games[0]["tags"]["TimeControl"], "5400+30", "the tour's tc");
        assert_eq!(r.games().len(), 99, "the refused game has no chapter");
        let upstream = &mut Round::new("x", "t", "R", 0);
        upstream.upstream = true;
        let a = upstream.push(&body, None, 1);
        assert_eq!(
            a["games"][0]["error"],
            "The relay has an upstream URL, and cannot be pushed to."
        );
    }

    #[test]
    fn a_result_with_fewer_than_two_moves_is_unplayed_and_byes_are_dropped() {
        let mut r = Round::new("AbCd1234", "t", "Round 1", 0);
        r.push(&game(Some("p"), "A", "B", 4, "", "1-0"), None, 1);
        assert_eq!(r.chapters[0].tag("Termination"), Some("Unplayed"));
        r.push(&game(Some("p"), "A", "B", 4, "1. e4 e5", "1-0"), None, 2);
        assert_eq!(r.chapters[0].tag("Termination"), None);
        r.push(&game(Some("q"), "bye", "B", 5, "", "1-0"), None, 3);
        assert_eq!(r.games().len(), 1, "a bye is no chapter");
    }
}
