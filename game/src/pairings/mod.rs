//! Pairings in: the boards of a round and who plays on each, read from what pairing
//! programs export (pure: text in, [`Pairing`]s or line-numbered errors out).
//!
//! Owns the one pairing model ([`Pairing`], [`Player`]), the detection of a file's format,
//! and the game information tags a pairing gives a board's game ([`Pairing::tags`], set
//! through [`crate::pgn::GameInfo`] like any game information). The formats are in
//! `csv.rs` (a header naming the columns), `pgn_tags.rs` (tags-only PGN, one game per board)
//! and `trf.rs` (FIDE TRF-16 player lines); what goes back out (a board's result-only PGN, the
//! round's results as CSV or as the TRF-16 file with the round's results filled in) is
//! `export.rs`. It must not know clocks, rounds in progress or
//! files: the daemon matches boards to clocks and applies the tags.

mod csv;
mod export;
mod pgn_tags;
#[cfg(test)]
mod tests;
mod trf;

use std::fmt;

pub use export::{BoardResult, csv_results, paper_pgn, result_word, trf_results};

/// One player of a pairing; empty fields are unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Player {
    /// The name as the pairing program writes it (`Carlsen, Magnus`).
    pub name: String,
    /// FIDE id (digits).
    pub fide_id: Option<u64>,
    /// Rating.
    pub elo: Option<u32>,
    /// Title (`GM`, `WIM`, ...).
    pub title: String,
    /// Team (team events).
    pub team: String,
    /// The starting rank (TRF's player number), when the pairings came from TRF.
    pub start_rank: Option<u32>,
}

/// One board of a round.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pairing {
    /// The board number (1 and up).
    pub board: u32,
    /// The line of the file the pairing was read from (1 and up), for messages.
    pub line: usize,
    /// White.
    pub white: Player,
    /// Black.
    pub black: Player,
}

/// The formats a pairings file can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Comma- (or semicolon-, tab-) separated, with a header line.
    Csv,
    /// PGN with tags only, one game per board.
    Pgn,
    /// FIDE TRF-16.
    Trf,
}

impl Format {
    /// The format named `name` (`csv`, `pgn`, `trf`; any case); `auto` or empty is `None`.
    pub fn from_name(name: &str) -> Result<Option<Format>, String> {
        match name.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(None),
            "csv" => Ok(Some(Format::Csv)),
            "pgn" => Ok(Some(Format::Pgn)),
            "trf" | "trf16" | "trf-16" => Ok(Some(Format::Trf)),
            other => Err(format!(
                "{other:?} is not a pairings format; use csv, pgn, trf or auto"
            )),
        }
    }

    /// The format of `content`: TRF when a line starts with a TRF code (`001`, `012`), PGN
    /// when the first line that is not blank starts with `[`, CSV otherwise.
    pub fn detect(content: &str) -> Format {
        if content
            .lines()
            .any(|l| l.starts_with("001 ") || l.starts_with("012 "))
        {
            return Format::Trf;
        }
        match content.lines().map(str::trim).find(|l| !l.is_empty()) {
            Some(l) if l.starts_with('[') => Format::Pgn,
            _ => Format::Csv,
        }
    }

    /// The format's name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Pgn => "pgn",
            Format::Trf => "trf",
        }
    }
}

/// What is wrong with one line of a pairings file (`line` 0: the file as a whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// The line (1 and up), 0 for the whole file.
    pub line: usize,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl LineError {
    pub(crate) fn new(line: usize, message: impl Into<String>) -> LineError {
        LineError {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => f.write_str(&self.message),
            n => write!(f, "line {n}: {}", self.message),
        }
    }
}

/// Every problem of a pairings file, in line order (at least one).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
pub struct PairingsError(pub Vec<LineError>);

/// Read the pairings of round `round` from `content` in `format` (detected when `None`).
/// Only TRF holds several rounds; the other formats are one round's pairings. Every board
/// appears once; the pairings are in board order. Errors name every bad line.
pub fn parse(
    content: &str,
    format: Option<Format>,
    round: u32,
) -> Result<Vec<Pairing>, PairingsError> {
    let (pairings, errors) = parse_all(content, format, round);
    if errors.is_empty() {
        Ok(pairings)
    } else {
        Err(PairingsError(errors))
    }
}

/// As [`parse`], but the lines that read well and the errors of the others, both: a caller
/// that checks the pairings further (against the clocks) names every problem of the file in
/// one answer. The errors are in line order; a board paired twice keeps its first line.
pub fn parse_all(
    content: &str,
    format: Option<Format>,
    round: u32,
) -> (Vec<Pairing>, Vec<LineError>) {
    let format = format.unwrap_or_else(|| Format::detect(content));
    let mut errors = Vec::new();
    let mut pairings = match format {
        Format::Csv => csv::parse(content, &mut errors),
        Format::Pgn => pgn_tags::parse(content, &mut errors),
        Format::Trf => trf::parse(content, round, &mut errors),
    };
    pairings.sort_by_key(|p| (p.board, p.line));
    let mut twice = Vec::new();
    for (i, pair) in pairings.windows(2).enumerate() {
        if pair[0].board == pair[1].board {
            errors.push(LineError::new(
                pair[1].line,
                format!(
                    "board {} is paired already on line {}; every board has one game",
                    pair[1].board, pair[0].line
                ),
            ));
            twice.push(i + 1);
        }
    }
    for i in twice.into_iter().rev() {
        pairings.remove(i);
    }
    if errors.is_empty() && pairings.is_empty() {
        errors.push(LineError::new(
            0,
            format!("no pairings found in the {} file", format.name()),
        ));
    }
    errors.sort_by_key(|e| e.line);
    (pairings, errors)
}

/// The tags that place a game in a round: `Round "R.B"` and `Board "B"` (what a pairing
/// gives its board, and what every board's game carries when no pairing or game information
/// names them).
pub fn board_tags(round: u32, board: u32) -> Vec<(String, String)> {
    vec![
        ("Round".to_owned(), format!("{round}.{board}")),
        ("Board".to_owned(), board.to_string()),
    ]
}

/// Every tag a pairing sets, each with an empty value: what clears a board's players and
/// its round for the next round (game information keeps its other tags).
pub fn cleared_tags() -> Vec<(String, String)> {
    let mut tags = vec![
        ("Round".to_owned(), String::new()),
        ("Board".to_owned(), String::new()),
    ];
    for side in ["White", "Black"] {
        for field in ["", "FideId", "Elo", "Title", "Team"] {
            tags.push((format!("{side}{field}"), String::new()));
        }
    }
    tags
}

impl Pairing {
    /// The game information tags this pairing gives its board's game in round `round`:
    /// `Round "R.B"`, `Board`, the players, their FIDE ids, ratings, titles and teams. A field
    /// the pairing does not give is an empty value, which removes what an earlier round left.
    pub fn tags(&self, round: u32) -> Vec<(String, String)> {
        let mut tags = board_tags(round, self.board);
        for (side, p) in [("White", &self.white), ("Black", &self.black)] {
            let opt = |v: Option<String>| v.unwrap_or_default();
            tags.push((side.to_owned(), p.name.clone()));
            tags.push((
                format!("{side}FideId"),
                opt(p.fide_id.map(|v| v.to_string())),
            ));
            tags.push((format!("{side}Elo"), opt(p.elo.map(|v| v.to_string()))));
            tags.push((format!("{side}Title"), p.title.clone()));
            tags.push((format!("{side}Team"), p.team.clone()));
        }
        tags
    }
}

/// A name as a tag value: one line, trimmed; empty is an error.
pub(crate) fn name(value: &str, what: &str) -> Result<String, String> {
    let v = value.trim();
    if v.is_empty() {
        return Err(format!("the {what} name is empty"));
    }
    if v.contains(['\n', '\r']) {
        return Err(format!("the {what} name has a line break"));
    }
    Ok(v.to_owned())
}

/// A board number: 1 and up.
pub(crate) fn board(value: &str) -> Result<u32, String> {
    match value.trim().parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "board {:?} is not a board number; boards are numbered from 1",
            value.trim()
        )),
    }
}

/// A FIDE id (digits), empty or `0` for none.
pub(crate) fn fide_id(value: &str, what: &str) -> Result<Option<u64>, String> {
    let v = value.trim();
    if v.is_empty() {
        return Ok(None);
    }
    match v.parse::<u64>() {
        Ok(0) => Ok(None),
        Ok(n) if v.bytes().all(|b| b.is_ascii_digit()) => Ok(Some(n)),
        _ => Err(format!(
            "{what} {v:?} is not a FIDE id; a FIDE id is digits, like 1503014"
        )),
    }
}

/// A rating (0 to 4000), empty or `0` for none.
pub(crate) fn elo(value: &str, what: &str) -> Result<Option<u32>, String> {
    let v = value.trim();
    if v.is_empty() {
        return Ok(None);
    }
    match v.parse::<u32>() {
        Ok(0) => Ok(None),
        Ok(n) if n <= 4000 && v.bytes().all(|b| b.is_ascii_digit()) => Ok(Some(n)),
        _ => Err(format!(
            "{what} {v:?} is not a rating; a rating is a number up to 4000, like 2830"
        )),
    }
}

/// A title: up to four letters (`GM`, `WFM`), empty for none.
pub(crate) fn title(value: &str, what: &str) -> Result<String, String> {
    let v = value.trim();
    if v.len() <= 4 && v.bytes().all(|b| b.is_ascii_alphabetic()) {
        Ok(v.to_owned())
    } else {
        Err(format!(
            "{what} {v:?} is not a title; a title is letters, like GM or WIM"
        ))
    }
}

/// A one-line value (a team), trimmed.
pub(crate) fn one_line(value: &str, what: &str) -> Result<String, String> {
    let v = value.trim();
    if v.contains(['\n', '\r']) {
        return Err(format!("the {what} has a line break"));
    }
    Ok(v.to_owned())
}
