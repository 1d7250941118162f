//! PGN files read back: the games of a file, each with its tag pairs and its text as written
//! (for `chessclockctl games`: list the day's games by their tags, export them unchanged).
//!
//! Reads only what our writer ([`crate::pgn`]) and common tools write: tag lines
//! `[Name "value"]` (with `\"` and `\\` escapes) before each game's movetext. It does not
//! check the moves: python-chess or shakmaty do that where it matters.

/// One game of a PGN file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredGame {
    /// Its tag pairs, in order.
    pub tags: Vec<(String, String)>,
    /// The game as it stands in the file (tags and movetext), ending in a newline.
    pub text: String,
}

impl StoredGame {
    /// The value of tag `name`, if the game has it.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The tag pair of `line` (`[Name "value"]`), if it is one.
fn tag_pair(line: &str) -> Option<(String, String)> {
    let inner = line.trim().strip_prefix('[')?.strip_suffix(']')?;
    let (name, rest) = inner.split_once(char::is_whitespace)?;
    let quoted = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.push(chars.next()?),
            c => value.push(c),
        }
    }
    Some((name.to_owned(), value))
}

/// The games of `text`, in order. A game begins with its first tag line after the previous
/// game's movetext; text before any tag (a comment, a byte-order mark) belongs to no game.
pub fn games(text: &str) -> Vec<StoredGame> {
    let mut out: Vec<StoredGame> = Vec::new();
    let mut in_movetext = true;
    for line in text.trim_start_matches('\u{feff}').lines() {
        if let Some(pair) = tag_pair(line) {
            if in_movetext {
                out.push(StoredGame {
                    tags: Vec::new(),
                    text: String::new(),
                });
                in_movetext = false;
            }
            if let Some(game) = out.last_mut() {
                game.tags.push(pair);
            }
        } else if !line.trim().is_empty() {
            in_movetext = true;
        }
        if let Some(game) = out.last_mut() {
            game.text.push_str(line);
            game.text.push('\n');
        }
    }
    for game in &mut out {
        let trimmed = game.text.trim_end().len();
        game.text.truncate(trimmed);
        game.text.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_split_with_their_tags_and_text() {
        let text = "\u{feff}[Event \"Open \\\"A\\\"\"]\n[Round \"3.2\"]\n\n1. e4 e5 1-0\n\n\
                    [Event \"B\"]\n[White \"x\\\\y\"]\n\n*\n";
        let g = games(text);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].tag("Event"), Some("Open \"A\""));
        assert_eq!(g[0].tag("Round"), Some("3.2"));
        assert!(g[0].text.ends_with("1. e4 e5 1-0\n"), "{:?}", g[0].text);
        assert_eq!(g[1].tag("White"), Some("x\\y"));
        assert_eq!(g[1].tag("Black"), None);
        assert_eq!(g[1].text, "[Event \"B\"]\n[White \"x\\\\y\"]\n\n*\n");
    }

    #[test]
    fn what_is_not_a_tag_line_is_movetext_and_nothing_panics() {
        assert!(games("").is_empty());
        assert!(games("1. e4 *\n").is_empty(), "no tags: no game");
        let g = games("[Event \"x\n[Broken\n1. e4 *\n");
        assert!(g.is_empty(), "{g:?}");
        for junk in ["[", "[]", "[A]", "[A \"\\", "\"]", "[A \"b\"]]"] {
            let _ = games(junk);
        }
    }

    #[test]
    fn our_writer_s_games_read_back() {
        let mut info = crate::pgn::GameInfo::new();
        info.set("White", "Carlsen, Magnus").expect("tag");
        info.set("Round", "5.1").expect("tag");
        let game = crate::pgn::PgnGame {
            info,
            ..crate::pgn::PgnGame::default()
        };
        let text = crate::pgn::write(&game);
        let g = games(&format!("{text}\n{text}"));
        assert_eq!(g.len(), 2);
        assert_eq!(g[1].tag("White"), Some("Carlsen, Magnus"));
        assert_eq!(g[1].tag("Round"), Some("5.1"));
    }
}
