//! How the stand-in reads a pushed body (`../shared/spec/lichess-broadcast.md` §1): `\r`
//! removed, split before every `[` that follows a blank line, each game's tags, and its main
//! line played move by move (shakmaty) from its start (`FEN`, `Variant "Chess960"`); only the
//! first 600 half-moves are read. A game that does not parse fails with `Cannot parse moves`
//! and no tags; one with an illegal move fails with `PGN Error: No move found` and its raw
//! tags, except when the only bad move is the last one and a king move to d4, d5, e4 or e5
//! (the kings-in-the-centre result signal), which is dropped.
//!
//! Test fixture: an independent reader of what the bridge sends, not the product's.

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, Position, Role, Square};

/// Half-moves of a game Lichess reads.
pub const MAX_PLIES: usize = 600;

/// The error of a game whose PGN does not parse.
pub const CANNOT_PARSE: &str = "Cannot parse moves";
/// The error of a game with an illegal move.
pub const NO_MOVE_FOUND: &str = "PGN Error: No move found";

/// One game of a push as read.
#[derive(Debug, Clone)]
pub struct Game {
    /// Its tags, raw, in order.
    pub tags: Vec<(String, String)>,
    /// Its main line (SAN as the game gave it, annotations cut), at most [`MAX_PLIES`].
    pub sans: Vec<String>,
    /// The `[%clk]` of each move, seconds, where it had one.
    pub clocks: Vec<Option<u64>>,
    /// The position after the last move read.
    pub end: Chess,
}

impl Game {
    /// A tag's value.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A game that failed: its raw tags (empty when it did not parse) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    /// The raw tags, or none when the PGN did not parse.
    pub tags: Vec<(String, String)>,
    /// Lichess's words.
    pub error: String,
}

/// The games of a pushed body, in order (every one; the caller keeps the first 100).
pub fn split(body: &str) -> Vec<String> {
    let text = body.replace('\r', "");
    let mut games = Vec::new();
    let mut current = String::new();
    let mut blank_before = true;
    for line in text.split('\n') {
        if line.starts_with('[') && blank_before && !current.trim().is_empty() {
            games.push(std::mem::take(&mut current));
        }
        current.push_str(line);
        current.push('\n');
        blank_before = line.trim().is_empty();
    }
    if !current.trim().is_empty() {
        games.push(current);
    }
    games
}

/// Read one game's text.
pub fn read(text: &str) -> Result<Game, Failed> {
    let unparsed = || Failed {
        tags: Vec::new(),
        error: CANNOT_PARSE.to_owned(),
    };
    let (tags, movetext) = tags_and_movetext(text).ok_or_else(unparsed)?;
    let tokens = movetext_tokens(&movetext).ok_or_else(unparsed)?;
    let tag = |name: &str| {
        tags.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let chess960 = tag("Variant").is_some_and(|v| v.eq_ignore_ascii_case("chess960"));
    let mode = match chess960 {
        true => CastlingMode::Chess960,
        false => CastlingMode::Standard,
    };
    let mut pos: Chess = match tag("FEN") {
        Some(fen) => fen
            .parse::<Fen>()
            .ok()
            .and_then(|f| f.into_position(mode).ok())
            .ok_or_else(unparsed)?,
        None => Chess::default(),
    };
    let mut sans = Vec::new();
    let mut clocks = Vec::new();
    let moves: Vec<&(String, Option<u64>)> = tokens.iter().take(MAX_PLIES).collect();
    for (i, (san, clock)) in moves.iter().enumerate() {
        let parsed: SanPlus = san.parse().map_err(|_| unparsed())?;
        match parsed.san.to_move(&pos) {
            Ok(m) => {
                pos.play_unchecked(m);
                sans.push(san.clone());
                clocks.push(*clock);
            }
            Err(_) if i + 1 == moves.len() && kings_signal(&parsed) => break,
            Err(_) => {
                return Err(Failed {
                    tags,
                    error: NO_MOVE_FOUND.to_owned(),
                });
            }
        }
    }
    Ok(Game {
        tags,
        sans,
        clocks,
        end: pos,
    })
}

/// A king move to d4, d5, e4 or e5: the DGT boards' result signal.
fn kings_signal(m: &SanPlus) -> bool {
    match m.san {
        shakmaty::san::San::Normal { role, to, .. } => {
            role == Role::King && [Square::D4, Square::D5, Square::E4, Square::E5].contains(&to)
        }
        _ => false,
    }
}

/// The tag pairs and the movetext after them; `None` when a tag line does not parse.
fn tags_and_movetext(text: &str) -> Option<(Vec<(String, String)>, String)> {
    let mut tags = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.peek() {
        let l = line.trim();
        if l.is_empty() {
            lines.next();
            continue;
        }
        if !l.starts_with('[') {
            break;
        }
        tags.push(tag_line(l)?);
        lines.next();
    }
    let movetext: Vec<&str> = lines.collect();
    Some((tags, movetext.join("\n")))
}

/// `[Name "value"]`, with `\"` and `\\` escapes.
fn tag_line(l: &str) -> Option<(String, String)> {
    let inner = l.strip_prefix('[')?.strip_suffix(']')?.trim();
    let (name, rest) = inner.split_once(char::is_whitespace)?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let quoted = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.push(chars.next()?),
            '"' => return None,
            c => value.push(c),
        }
    }
    Some((name.to_owned(), value))
}

/// The main line's SAN tokens with the `[%clk]` (seconds) of the comment after each;
/// comments, variations, NAGs, move numbers and the result left out. `None`: it does not
/// parse (an unclosed comment or variation).
fn movetext_tokens(text: &str) -> Option<Vec<(String, Option<u64>)>> {
    let mut out: Vec<(String, Option<u64>)> = Vec::new();
    let mut chars = text.chars().peekable();
    let mut depth = 0u32;
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<(String, Option<u64>)>, depth: u32| {
        let w = std::mem::take(word);
        if depth > 0 || w.is_empty() {
            return;
        }
        // Results, move numbers (`12.`, `12...`, `12.e4`) and NAGs are not moves.
        if matches!(w.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
            return;
        }
        let w = w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if w.is_empty() || w.starts_with('$') {
            return;
        }
        let san = w.trim_end_matches(['!', '?']);
        if !san.is_empty() {
            out.push((san.to_owned(), None));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                flush(&mut word, &mut out, depth);
                let mut comment = String::new();
                loop {
                    match chars.next()? {
                        '}' => break,
                        c => comment.push(c),
                    }
                }
                if depth == 0
                    && let Some(last) = out.last_mut()
                    && last.1.is_none()
                {
                    last.1 = clk(&comment);
                }
            }
            ';' => {
                flush(&mut word, &mut out, depth);
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' => {
                flush(&mut word, &mut out, depth);
                depth += 1;
            }
            ')' => {
                flush(&mut word, &mut out, depth);
                depth = depth.checked_sub(1)?;
            }
            c if c.is_whitespace() => flush(&mut word, &mut out, depth),
            c => word.push(c),
        }
    }
    flush(&mut word, &mut out, depth);
    (depth == 0).then_some(out)
}

/// The seconds of `[%clk h:mm:ss]` in a comment.
fn clk(comment: &str) -> Option<u64> {
    let rest = comment.split_once("[%clk ")?.1;
    let value = rest.split(']').next()?.trim();
    let mut secs = 0u64;
    for part in value.split(':') {
        let n: f64 = part.parse().ok()?;
        secs = secs * 60 + n as u64;
    }
    Some(secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_split_before_each_tag_after_a_blank_line() {
        let body = "[White \"A\"]\r\n[Black \"B\"]\r\n\r\n1. e4 {[%clk 0:05:00]} e5 *\r\n\r\n\
                    [White \"C\"]\n\n1. d4 (1. c4) d5 $1 2. c4!? *\n";
        let games = split(body);
        assert_eq!(games.len(), 2, "{games:?}");
        let a = read(&games[0]).expect("game 1");
        assert_eq!(a.sans, ["e4", "e5"]);
        assert_eq!(a.clocks, [Some(300), None]);
        assert_eq!(a.tag("Black"), Some("B"));
        let c = read(&games[1]).expect("game 2");
        assert_eq!(
            c.sans,
            ["d4", "d5", "c4"],
            "variations and NAGs are not the main line"
        );
    }

    #[test]
    fn an_illegal_move_fails_with_the_raw_tags_and_bad_text_with_none() {
        let e = read("[White \"A\"]\n[Event \"?\"]\n\n1. e4 e5 2. Ke3 *\n").expect_err("illegal");
        assert_eq!(e.error, NO_MOVE_FOUND);
        assert_eq!(e.tags.len(), 2);
        let e = read("[White \"A]\n\n1. e4 *\n").expect_err("bad tag");
        assert_eq!((e.error.as_str(), e.tags.len()), (CANNOT_PARSE, 0));
        let e = read("[White \"A\"]\n\n1. e4 {never closed *\n").expect_err("comment");
        assert_eq!(e.error, CANNOT_PARSE);
        let e = read("[White \"A\"]\n\n1. e4 x9 *\n").expect_err("not SAN");
        assert_eq!(e.error, CANNOT_PARSE);
    }

    #[test]
    fn a_last_king_move_to_the_centre_is_dropped_and_the_rest_kept() {
        let g = read("1. e3 e6 2. Ke2 Ke7 3. Ke4 *\n").expect("the kings' signal");
        assert_eq!(g.sans, ["e3", "e6", "Ke2", "Ke7"]);
        read("1. e3 e6 2. Ke4 Ke7 *\n").expect_err("not the last move");
    }

    #[test]
    fn a_game_from_a_position_and_the_600_ply_cut() {
        let g = read("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 Kd7 *\n")
            .expect("from a FEN");
        assert_eq!(g.sans.len(), 2);
        let knights = "Nf3 Nf6 Ng1 Ng8 ".repeat(160);
        let g = read(&format!("{knights}*\n")).expect("long");
        assert_eq!(g.sans.len(), MAX_PLIES);
    }
}
