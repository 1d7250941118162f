//! What Lichess said of each game of a push (`{"games":[{"tags":..,"moves":N} |
//! {"tags":..,"error":".."}]}`, one entry per game in the order sent): taken whole, refused
//! (its words), or taken with fewer half-moves than sent (Lichess reads 600; a last king
//! move to the centre is read as the kings' result signal and dropped).
//!
//! Owns reading the answer against the body sent, and counting a game's half-moves. Pure.

use serde_json::Value;

use super::body::Body;

/// Lichess's verdict on one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Every half-move sent is in the chapter.
    Taken,
    /// Refused, in Lichess's words.
    Refused(String),
    /// Fewer half-moves kept than sent.
    Short {
        /// Half-moves Lichess has.
        kept: u64,
        /// Half-moves sent.
        sent: u64,
    },
}

/// Each game's verdict, by board number, for the games the answer speaks of (an answer that
/// does not parse, or says less than was sent, leaves the others unknown).
pub(crate) fn read(body: &Body, answer: &str) -> Vec<(u32, Verdict)> {
    let Ok(v) = serde_json::from_str::<Value>(answer) else {
        return Vec::new();
    };
    let Some(entries) = v["games"].as_array() else {
        return Vec::new();
    };
    body.games
        .iter()
        .zip(entries)
        .map(|(game, entry)| {
            let verdict = match (entry["error"].as_str(), entry["moves"].as_u64()) {
                (Some(error), _) => Verdict::Refused(error.to_owned()),
                (None, Some(kept)) => {
                    let sent = half_moves(&game.pgn);
                    match kept < sent {
                        true => Verdict::Short { kept, sent },
                        false => Verdict::Taken,
                    }
                }
                (None, None) => Verdict::Taken,
            };
            (game.board, verdict)
        })
        .collect()
}

/// The half-moves of a game's main line: the SAN tokens of its movetext (comments,
/// variations, move numbers, NAGs and the result left out).
pub(crate) fn half_moves(pgn: &str) -> u64 {
    let movetext = pgn
        .lines()
        .skip_while(|l| l.trim_start().starts_with('[') || l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    let (mut n, mut comment, mut depth) = (0u64, false, 0u32);
    let mut word = String::new();
    let mut count = |w: &mut String, depth: u32| {
        let t = std::mem::take(w);
        if depth > 0 || matches!(t.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
            return;
        }
        let t = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if !t.is_empty() && !t.starts_with('$') {
            n += 1;
        }
    };
    for c in movetext.chars() {
        match c {
            '}' if comment => comment = false,
            _ if comment => {}
            '{' => {
                count(&mut word, depth);
                comment = true;
            }
            '(' => {
                count(&mut word, depth);
                depth += 1;
            }
            ')' => {
                count(&mut word, depth);
                depth = depth.saturating_sub(1);
            }
            c if c.is_whitespace() => count(&mut word, depth),
            c => word.push(c),
        }
    }
    count(&mut word, depth);
    n
}

#[cfg(test)]
mod tests {
    use super::super::body::Game;
    use super::*;

    #[test]
    fn half_moves_are_the_main_line_s_san() {
        let pgn = "[Event \"x\"]\n[Round \"1.2\"]\n\n1. e4 {[%clk 0:04:58]} 1... e5 {[%clk \
                   0:04:57]} 2. Nf3 (2. f4 exf4) Nc6 $1 3. Bb5 *\n";
        assert_eq!(half_moves(pgn), 5);
        assert_eq!(half_moves("[Result \"1-0\"]\n\n1-0\n"), 0);
        assert_eq!(
            half_moves(
                "[E \"x\"]\n\n{Moves not recorded.} 1. {[%clk 0:04:58]} 1... {[%clk 0:04:55]} *\n"
            ),
            0,
            "move numbers without moves"
        );
    }

    #[test]
    fn each_entry_is_the_verdict_on_the_game_sent_in_its_place() {
        let body = Body {
            games: vec![
                Game {
                    board: 3,
                    pgn: "[Board \"3\"]\n\n1. e4 e5 *".into(),
                },
                Game {
                    board: 7,
                    pgn: "[Board \"7\"]\n\n1. d4 d5 2. Kd2 *".into(),
                },
                Game {
                    board: 9,
                    pgn: "[Board \"9\"]\n\n1. c4 e5 2. Kc2 Ke7 3. Kd3 Ke6 4. Kd4 *".into(),
                },
            ],
            over: Vec::new(),
        };
        let answer = r#"{"games":[{"tags":{},"moves":2},
            {"tags":{"White":"A"},"error":"PGN Error: No move found"},
            {"tags":{},"moves":6}]}"#;
        assert_eq!(
            read(&body, answer),
            [
                (3, Verdict::Taken),
                (7, Verdict::Refused("PGN Error: No move found".into())),
                (9, Verdict::Short { kept: 6, sent: 7 }),
            ]
        );
        assert!(read(&body, "not json").is_empty());
        assert_eq!(read(&body, r#"{"games":[{"moves":2}]}"#).len(), 1);
    }
}
