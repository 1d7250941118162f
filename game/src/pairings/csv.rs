//! Pairings as CSV: a header line naming the columns (`board`, `white`, `black`, and any of
//! `white_fide_id`, `black_fide_id`, `white_elo`, `black_elo`, `white_title`, `black_title`,
//! `white_team`, `black_team`, in any order and case), then one line per board.
//!
//! Fields are separated by commas (semicolons or tabs when the header has no comma) and may
//! be quoted (`"Carlsen, Magnus"`, `""` for a quote inside). A row is one line. Owns this
//! format only; the model and the checks of single values are `mod.rs`'s.

use super::{LineError, Pairing, Player};

/// The columns a header may name.
const COLUMNS: [&str; 11] = [
    "board",
    "white",
    "black",
    "white_fide_id",
    "black_fide_id",
    "white_elo",
    "black_elo",
    "white_title",
    "black_title",
    "white_team",
    "black_team",
];

/// The fields of one line, or why the quoting is wrong.
fn fields(line: &str, sep: char) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        let mut field = String::new();
        while chars.peek() == Some(&' ') {
            chars.next();
        }
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    Some('"') => break,
                    Some(c) => field.push(c),
                    None => {
                        return Err("a quoted field is not closed; end it with \"".into());
                    }
                }
            }
            while chars.peek().is_some_and(|c| *c != sep) {
                match chars.next() {
                    Some(c) if c.is_whitespace() => {}
                    _ => {
                        return Err(format!(
                            "text after a quoted field; put {sep:?} after the closing quote"
                        ));
                    }
                }
            }
        } else {
            while let Some(c) = chars.peek().copied() {
                if c == sep {
                    break;
                }
                field.push(c);
                chars.next();
            }
        }
        out.push(field.trim().to_owned());
        if chars.next().is_none() {
            return Ok(out);
        }
    }
}

/// The pairings of `content`; problems go to `errors`.
pub(super) fn parse(content: &str, errors: &mut Vec<LineError>) -> Vec<Pairing> {
    let mut lines = content
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_start_matches('\u{feff}')))
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((header_no, header)) = lines.next() else {
        errors.push(LineError::new(0, "the file is empty"));
        return Vec::new();
    };
    let sep = [',', ';', '\t']
        .into_iter()
        .find(|c| header.contains(*c))
        .unwrap_or(',');
    let names = match fields(header, sep) {
        Ok(names) => names,
        Err(e) => {
            errors.push(LineError::new(header_no, e));
            return Vec::new();
        }
    };
    let mut columns = Vec::new();
    for name in &names {
        let key = name.to_ascii_lowercase().replace([' ', '-'], "_");
        match COLUMNS.iter().position(|c| *c == key) {
            Some(_) if columns.contains(&key) => errors.push(LineError::new(
                header_no,
                format!("the column {name:?} is named twice"),
            )),
            Some(_) => columns.push(key),
            None => {
                errors.push(LineError::new(
                    header_no,
                    format!(
                        "{name:?} is not a pairings column; the header names board, white, black \
                         and any of {}",
                        COLUMNS[3..].join(", ")
                    ),
                ));
                columns.push(String::new());
            }
        }
    }
    for needed in &COLUMNS[..3] {
        if !columns.iter().any(|c| c == needed) {
            errors.push(LineError::new(
                header_no,
                format!(
                    "the header has no {needed} column; a pairings CSV starts with a header like \
                     board,white,black"
                ),
            ));
        }
    }
    if !errors.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (no, line) in lines {
        match fields(line, sep).and_then(|f| row(&columns, &f)) {
            Ok(mut p) => {
                p.line = no;
                out.push(p);
            }
            Err(e) => errors.push(LineError::new(no, e)),
        }
    }
    out
}

/// One line's pairing from its fields.
fn row(columns: &[String], fields: &[String]) -> Result<Pairing, String> {
    if fields.len() != columns.len() {
        return Err(format!(
            "{} fields where the header has {} columns",
            fields.len(),
            columns.len()
        ));
    }
    let mut p = Pairing::default();
    for (column, value) in columns.iter().zip(fields) {
        let (side, key) = match column.split_once('_') {
            Some((side, key)) => (side, key),
            None => (column.as_str(), "name"),
        };
        if side == "board" {
            p.board = super::board(value)?;
            continue;
        }
        let player: &mut Player = if side == "white" {
            &mut p.white
        } else {
            &mut p.black
        };
        match key {
            "name" => player.name = super::name(value, side)?,
            "fide_id" => player.fide_id = super::fide_id(value, column)?,
            "elo" => player.elo = super::elo(value, column)?,
            "title" => player.title = super::title(value, column)?,
            _ => player.team = super::one_line(value, column)?,
        }
    }
    Ok(p)
}
