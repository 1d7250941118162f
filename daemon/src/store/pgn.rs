//! PGN export of a finished game's clock record: the seven-tag roster (+ `TimeControl`,
//! `Termination`), then each move followed by `{[%clk h:mm:ss]}`, the mover's remaining time
//! after the move.
//!
//! Owns text rendering only: no IO, no clock reads. The daemon usually knows the times but
//! not the moves (the clock sees presses, not pieces); unknown moves are rendered as the move
//! number and the time only, after a comment saying so. Strict PGN readers may refuse such a
//! clock-only record; it is meant for people and for tools that read `%clk`.

use std::fmt::Write as _;

/// The game's result as PGN writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PgnResult {
    /// `1-0`
    WhiteWins,
    /// `0-1`
    BlackWins,
    /// `1/2-1/2`
    Draw,
    /// `*` (unfinished or unknown)
    Unknown,
}

impl PgnResult {
    fn token(self) -> &'static str {
        match self {
            PgnResult::WhiteWins => "1-0",
            PgnResult::BlackWins => "0-1",
            PgnResult::Draw => "1/2-1/2",
            PgnResult::Unknown => "*",
        }
    }
}

/// One half-move: White's and Black's moves alternate, White first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnMove {
    /// The move in SAN, if known.
    pub san: Option<String>,
    /// The mover's remaining time after the move (increment included), in milliseconds.
    pub clock_ms: u64,
}

/// What is needed to render a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnGame {
    /// `Event` tag (`?` if None), likewise `site`, `round`, `white`, `black`.
    pub event: Option<String>,
    /// `Site` tag.
    pub site: Option<String>,
    /// `Date` tag as `YYYY.MM.DD` (`????.??.??` if None).
    pub date: Option<String>,
    /// `Round` tag.
    pub round: Option<String>,
    /// `White` tag.
    pub white: Option<String>,
    /// `Black` tag.
    pub black: Option<String>,
    /// `Result` tag and the game-termination marker.
    pub result: PgnResult,
    /// `TimeControl` tag (PGN form, e.g. `40/5400+30:1800+30`), omitted if None.
    pub time_control: Option<String>,
    /// `Termination` tag (e.g. `time forfeit`), omitted if None.
    pub termination: Option<String>,
    /// The moves in order.
    pub moves: Vec<PgnMove>,
}

/// `h:mm:ss` of the time a clock shows for `ms` (whole seconds rounded up, as on the display).
pub fn clk(ms: u64) -> String {
    let s = ms.div_ceil(1000);
    format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
}

fn tag_value(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace(['\n', '\r'], " ")
}

fn comment_text(v: &str) -> String {
    v.replace('}', ")").replace('{', "(")
}

/// Render `game` as one PGN game (tags, blank line, movetext wrapped at 79 columns).
pub fn render(game: &PgnGame) -> String {
    let mut out = String::new();
    let unknown = |v: &Option<String>| {
        v.as_deref()
            .map(tag_value)
            .unwrap_or_else(|| "?".to_owned())
    };
    let tags = [
        ("Event", unknown(&game.event)),
        ("Site", unknown(&game.site)),
        (
            "Date",
            game.date
                .as_deref()
                .map(tag_value)
                .unwrap_or_else(|| "????.??.??".to_owned()),
        ),
        ("Round", unknown(&game.round)),
        ("White", unknown(&game.white)),
        ("Black", unknown(&game.black)),
        ("Result", game.result.token().to_owned()),
    ];
    for (name, value) in tags {
        let _ = writeln!(out, "[{name} \"{value}\"]");
    }
    for (name, value) in [
        ("TimeControl", &game.time_control),
        ("Termination", &game.termination),
    ] {
        if let Some(v) = value {
            let _ = writeln!(out, "[{name} \"{}\"]", tag_value(v));
        }
    }
    out.push('\n');

    let mut tokens: Vec<String> = Vec::new();
    if game.moves.iter().any(|m| m.san.is_none()) {
        tokens.push("{Moves not recorded: move numbers and clock times only.}".to_owned());
    }
    for (i, m) in game.moves.iter().enumerate() {
        let number = i / 2 + 1;
        let white = i % 2 == 0;
        // Every move is followed by a comment, so Black's moves always repeat the number.
        let number = if white {
            format!("{number}.")
        } else {
            format!("{number}...")
        };
        match &m.san {
            Some(san) => tokens.push(format!("{number} {}", comment_text(san))),
            None => tokens.push(number),
        }
        tokens.push(format!("{{[%clk {}]}}", clk(m.clock_ms)));
    }
    tokens.push(game.result.token().to_owned());

    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(moves: Vec<PgnMove>) -> PgnGame {
        PgnGame {
            event: Some("Club \"Open\"".into()),
            site: None,
            date: Some("2026.11.22".into()),
            round: Some("1".into()),
            white: Some("A".into()),
            black: Some("B".into()),
            result: PgnResult::BlackWins,
            time_control: Some("5400+30".into()),
            termination: Some("time forfeit".into()),
            moves,
        }
    }

    #[test]
    fn clock_values_round_up_to_whole_seconds() {
        assert_eq!(clk(0), "0:00:00");
        assert_eq!(clk(1), "0:00:01");
        assert_eq!(clk(61_000), "0:01:01");
        assert_eq!(clk(3_599_001), "1:00:00");
        assert_eq!(clk(5_399_001), "1:30:00");
        assert_eq!(clk(36_000_000), "10:00:00");
    }

    #[test]
    fn known_moves_with_clock_comments() {
        let moves = vec![
            PgnMove {
                san: Some("e4".into()),
                clock_ms: 5_425_000,
            },
            PgnMove {
                san: Some("c5".into()),
                clock_ms: 5_420_500,
            },
            PgnMove {
                san: Some("Nf3".into()),
                clock_ms: 5_410_000,
            },
        ];
        let text = render(&game(moves));
        let expected = "[Event \"Club \\\"Open\\\"\"]\n[Site \"?\"]\n[Date \"2026.11.22\"]\n[Round \"1\"]\n\
            [White \"A\"]\n[Black \"B\"]\n[Result \"0-1\"]\n[TimeControl \"5400+30\"]\n\
            [Termination \"time forfeit\"]\n\n\
            1. e4 {[%clk 1:30:25]} 1... c5 {[%clk 1:30:21]} 2. Nf3 {[%clk 1:30:10]} 0-1\n";
        assert_eq!(text, expected);
    }

    #[test]
    fn unknown_moves_give_numbers_and_times_after_a_note() {
        let moves = vec![
            PgnMove {
                san: None,
                clock_ms: 60_000,
            },
            PgnMove {
                san: None,
                clock_ms: 59_001,
            },
        ];
        let text = render(&PgnGame {
            result: PgnResult::Unknown,
            ..game(moves)
        });
        let movetext = text.split("\n\n").nth(1).expect("movetext");
        assert_eq!(
            movetext,
            "{Moves not recorded: move numbers and clock times only.} 1. {[%clk 0:01:00]}\n\
             1... {[%clk 0:01:00]} *\n"
        );
    }

    #[test]
    fn long_games_wrap_below_80_columns() {
        let moves = (0..200)
            .map(|i| PgnMove {
                san: Some("Kf1".into()),
                clock_ms: i * 1000,
            })
            .collect();
        let text = render(&game(moves));
        assert!(text.lines().all(|l| l.len() < 80), "{text}");
        assert!(text.contains("100. Kf1"), "numbering reaches move 100");
        assert!(text.ends_with(" 0-1\n"));
    }
}
