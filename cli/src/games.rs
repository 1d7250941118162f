//! `chessclockctl games list|export`: the finished games the daemon keeps in its state
//! directory's `games/` folder (docs/operations.md), read directly from the files (an
//! operator in the `chessclock` group may read them; the daemon is not asked), selected by
//! round and date, listed or written as one PGN.
//!
//! Owns the selection and the output; reading a PGN's tags is the game crate's
//! (`chessclock_game::pgn_read`). It writes nothing but stdout.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use chessclock_game::pgn_read::{StoredGame, games};
use serde::Serialize;

/// Where the daemon keeps its state unless configured otherwise.
const DEFAULT_STATE_DIR: &str = "/var/lib/chessclockd";

/// `games list` / `games export`.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// List the finished games (date, round, board, players, result, file).
    List(Filter),
    /// Write the finished games as one PGN to stdout, oldest first (`> round5.pgn`).
    Export(Filter),
}

/// Which games.
#[derive(Debug, clap::Args)]
pub(crate) struct Filter {
    /// Only this round: its Round tag is R, or R.B for board B.
    #[arg(long, value_name = "R")]
    round: Option<u32>,
    /// Only games played on or after this date (YYYY-MM-DD, by their Date tag).
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    since: Option<jiff::civil::Date>,
    /// The daemon's state directory.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_STATE_DIR)]
    state_dir: PathBuf,
}

fn parse_date(s: &str) -> Result<jiff::civil::Date, String> {
    s.parse()
        .map_err(|_| format!("{s:?} is not a date; write it as YYYY-MM-DD, e.g. 2026-11-26"))
}

/// One listed game (the JSON of `games list -J`).
#[derive(Debug, Serialize)]
struct Listed<'a> {
    file: String,
    date: &'a str,
    event: &'a str,
    round: &'a str,
    board: &'a str,
    white: &'a str,
    black: &'a str,
    result: &'a str,
}

/// Run `cmd`.
pub(crate) fn run(cmd: Command, json: bool) -> Result<ExitCode> {
    let (filter, export) = match cmd {
        Command::List(f) => (f, false),
        Command::Export(f) => (f, true),
    };
    let found = read_games(&filter.state_dir.join("games"))?;
    let chosen: Vec<&(PathBuf, StoredGame)> =
        found.iter().filter(|(_, g)| filter.keeps(g)).collect();
    let mut out = std::io::stdout().lock();
    if export {
        for (_, game) in &chosen {
            writeln!(out, "{}", game.text)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let listed: Vec<Listed> = chosen
        .iter()
        .map(|(path, g)| {
            let tag = |name| g.tag(name).unwrap_or("?");
            Listed {
                file: path.display().to_string(),
                date: tag("Date"),
                event: tag("Event"),
                round: tag("Round"),
                board: tag("Board"),
                white: tag("White"),
                black: tag("Black"),
                result: tag("Result"),
            }
        })
        .collect();
    if json {
        writeln!(out, "{}", serde_json::to_string(&listed)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if listed.is_empty() {
        writeln!(out, "no finished games match")?;
        return Ok(ExitCode::SUCCESS);
    }
    for l in &listed {
        writeln!(
            out,
            "{:<10}  {:<6} {:<5} {:<24} {:<24} {:<7}  {}",
            l.date, l.round, l.board, l.white, l.black, l.result, l.file
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

impl Filter {
    fn keeps(&self, game: &StoredGame) -> bool {
        if let Some(round) = self.round {
            let tag = game.tag("Round").unwrap_or_default();
            let r = tag.split('.').next().unwrap_or_default();
            if r != round.to_string() {
                return false;
            }
        }
        if let Some(since) = self.since {
            // PGN dates are YYYY.MM.DD; an unknown date is not on or after anything.
            let date = game
                .tag("Date")
                .and_then(|d| d.replace('.', "-").parse::<jiff::civil::Date>().ok());
            if date.is_none_or(|d| d < since) {
                return false;
            }
        }
        true
    }
}

/// Every game of the `.pgn` files in `dir` and its subfolders (one level: a round's), oldest
/// first by file name (the daemon names them by their start time).
fn read_games(dir: &Path) -> Result<Vec<(PathBuf, StoredGame)>> {
    let mut files = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!(
                "{} does not exist: no game has finished yet, or the state directory is \
                 elsewhere (--state-dir DIR)",
                dir.display()
            )
        }
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => bail!(
            "cannot read {}: permission denied; the operators' group may read it: `sudo \
             adduser $USER chessclock`, then log in again",
            dir.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Ok(inner) = std::fs::read_dir(&path) {
                files.extend(inner.flatten().map(|e| e.path()));
            }
        } else {
            files.push(path);
        }
    }
    files.retain(|p| p.extension().is_some_and(|x| x == "pgn"));
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    let mut out = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        out.extend(games(&text).into_iter().map(|g| (path.clone(), g)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
