//! A PGN tag reader (pure: text in, games out): splits a PGN file into its games and reads
//! each game's tag pairs, for tools that list or select finished games by `Date`, `Round`,
//! `Board`, `White`, `Black`, `Result` or `Event` and copy them unchanged.
//!
//! A game starts at a tag line (`[Name "value"]`, `\"` and `\\` escaped) that follows
//! movetext or the start of the file (not inside a `{...}` comment); its text runs to the
//! next such start. It owns tag
//! syntax only: it must not parse movetext (shakmaty and python-chess do that) nor know where
//! the files are.

/// One tag line: its name and value, or what is wrong with it.
pub fn tag(line: &str) -> Result<(String, String), String> {
    let bad = || format!("{line:?} is not a PGN tag; a tag is [Name \"value\"]");
    let inner = line
        .trim()
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or_else(bad)?;
    let (name, rest) = inner
        .trim()
        .split_once(char::is_whitespace)
        .ok_or_else(bad)?;
    let rest = rest.trim();
    let quoted = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(bad)?;
    let mut value = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.push(chars.next().ok_or_else(bad)?),
            '"' => return Err(bad()),
            c => value.push(c),
        }
    }
    Ok((name.to_owned(), value))
}

/// One game read from a PGN file: its tags in file order and its whole text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadGame {
    /// The tag pairs, in file order (a malformed tag line is skipped).
    pub tags: Vec<(String, String)>,
    /// The game's text as in the file (tags and movetext), ending in a newline.
    pub text: String,
}

impl ReadGame {
    /// A tag's value (the first one of that name).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The games of a PGN file, in file order. Text before the first tag is ignored.
pub fn games(content: &str) -> Vec<ReadGame> {
    let mut out: Vec<ReadGame> = Vec::new();
    let mut in_tags = false;
    // Inside a `{...}` comment that spans lines, a line starting with `[` is not a tag.
    let mut in_comment = false;
    for raw in content.lines() {
        let line = raw.trim_start_matches('\u{feff}').trim();
        let is_tag = !in_comment && line.starts_with('[');
        if !is_tag {
            for c in line.chars() {
                match c {
                    '{' => in_comment = true,
                    '}' => in_comment = false,
                    _ => {}
                }
            }
        }
        if is_tag && !in_tags {
            out.push(ReadGame {
                tags: Vec::new(),
                text: String::new(),
            });
        }
        in_tags = is_tag;
        let Some(game) = out.last_mut() else {
            continue;
        };
        if let Some(pair) = is_tag.then(|| tag(line).ok()).flatten() {
            game.tags.push(pair);
        }
        game.text.push_str(raw.trim_start_matches('\u{feff}'));
        game.text.push('\n');
    }
    for game in &mut out {
        let trimmed = game.text.trim_end().len();
        game.text.truncate(trimmed);
        game.text.push('\n');
    }
    out
}

#[cfg(test)]
mod tests;
