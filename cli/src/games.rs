//! `chessclockctl games list|export`: the finished games in the daemon's state directory
//! (`games/round-R/*.pgn`, each round's, and `games/*.pgn`, older records and clocks without
//! a round), selected by round and date, listed or copied out as one PGN.
//!
//! Owns this verb only: it reads the folder directly (an operator in group `chessclock` may
//! read it; the daemon need not run) and reads tags with `chessclock_game::pgn::read`. It must
//! not write to the state directory nor parse movetext.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use chessclock_game::pgn::read::{self, ReadGame};
use jiff::civil::Date;

/// `games` subcommands.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// List the finished games (date, round, board, players, result), oldest first.
    List(Filter),
    /// Write the selected finished games, oldest first, as one PGN to stdout.
    Export(Filter),
}

/// Which games, and where they are.
#[derive(Debug, clap::Args)]
pub(crate) struct Filter {
    /// Only games of this round (`3` also selects rounds written `3.1`, `3.2`...).
    #[arg(long, value_name = "R", value_parser = parse_round)]
    round: Option<String>,
    /// Only games played on or after this date (YYYY-MM-DD, or `today`).
    #[arg(long, value_name = "DATE", value_parser = parse_since)]
    since: Option<Date>,
    /// The daemon's state directory (its games are in DIR/games).
    #[arg(long, value_name = "DIR", default_value = "/var/lib/chessclockd")]
    state_dir: PathBuf,
}

fn parse_round(s: &str) -> Result<String, String> {
    let ok = !s.is_empty()
        && s.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if ok {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "{s:?} is not a round; give its number, like 3 (or 3.1 for a round's game)"
        ))
    }
}

fn parse_since(s: &str) -> Result<Date, String> {
    if s == "today" {
        return Ok(jiff::ZonedDateTime::now().date());
    }
    s.replace('.', "-").parse::<Date>().map_err(|_| {
        format!("{s:?} is not a date; give it as YYYY-MM-DD, like 2026-11-26, or say today")
    })
}

/// One game found: its file, when the file was written, and the game.
#[derive(Debug)]
struct Found {
    file: PathBuf,
    /// The round of its folder (`games/round-R/`), if it is in one.
    folder_round: Option<String>,
    written: SystemTime,
    game: ReadGame,
}

impl Found {
    /// The day the game was played: its `Date` tag, else the day its file was written.
    fn date(&self) -> Option<Date> {
        let tag = self.game.tag("Date").unwrap_or("");
        tag.replace('.', "-").parse::<Date>().ok().or_else(|| {
            let ts = jiff::Timestamp::try_from(self.written).ok()?;
            Some(ts.to_zoned_datetime(jiff::tz::TimeZone::system()).date())
        })
    }

    fn tag(&self, name: &str) -> &str {
        self.game.tag(name).unwrap_or("?")
    }
}

/// Run the verb; returns the exit code.
pub(crate) fn run(command: Command, json: bool) -> ExitCode {
    let (filter, export) = match &command {
        Command::List(f) => (f, false),
        Command::Export(f) => (f, true),
    };
    let games = match load(&filter.state_dir.join("games")) {
        Ok(games) => select(games, filter),
        Err(msg) => {
            eprintln!("chessclockctl: {msg}");
            return ExitCode::from(1);
        }
    };
    let out = if export {
        export_pgn(&games)
    } else if json {
        list_json(&games)
    } else {
        list_text(&games)
    };
    print!("{out}");
    ExitCode::SUCCESS
}

/// Every game of every `*.pgn` in `dir` and its `round-R/` folders, oldest file first.
fn load(dir: &Path) -> Result<Vec<Found>, String> {
    let denied = |e: &std::io::Error| {
        if e.kind() == std::io::ErrorKind::PermissionDenied {
            format!(
                "cannot read {}: permission denied; finished games are readable by group \
                 chessclock (`sudo usermod -aG chessclock $USER`, then log in again)",
                dir.display()
            )
        } else if e.kind() == std::io::ErrorKind::NotFound {
            format!(
                "{} does not exist: no game has finished yet, or the daemon keeps its state \
                 elsewhere (give it with --state-dir DIR)",
                dir.display()
            )
        } else {
            format!("cannot read {}: {e}", dir.display())
        }
    };
    let mut files = Vec::new();
    let mut folders = vec![(dir.to_path_buf(), None)];
    while let Some((folder, round)) = folders.pop() {
        for entry in std::fs::read_dir(&folder).map_err(|e| denied(&e))? {
            let path = entry.map_err(|e| denied(&e))?.path();
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let sub = name
                .as_deref()
                .and_then(|n| n.strip_prefix("round-"))
                .filter(|r| r.parse::<u32>().is_ok());
            if round.is_none() && path.is_dir() && sub.is_some() {
                folders.push((path.clone(), sub.map(str::to_owned)));
            } else if path.extension().is_some_and(|x| x == "pgn") {
                files.push((path, round.clone()));
            }
        }
    }
    let mut found = Vec::new();
    for (file, folder_round) in files {
        let text = std::fs::read_to_string(&file).map_err(|e| denied(&e))?;
        let written = std::fs::metadata(&file)
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        for game in read::games(&text) {
            found.push(Found {
                file: file.clone(),
                folder_round: folder_round.clone(),
                written,
                game,
            });
        }
    }
    // Stable: games of one file keep their order.
    found.sort_by(|a, b| (a.written, &a.file).cmp(&(b.written, &b.file)));
    Ok(found)
}

/// The games `filter` selects, in their order.
fn select(games: Vec<Found>, filter: &Filter) -> Vec<Found> {
    games
        .into_iter()
        .filter(|g| {
            filter.round.as_ref().is_none_or(|r| {
                let round = g.tag("Round");
                g.folder_round.as_ref() == Some(r)
                    || round == r
                    || round
                        .strip_prefix(r.as_str())
                        .is_some_and(|s| s.starts_with('.'))
            })
        })
        .filter(|g| {
            filter
                .since
                .is_none_or(|since| g.date().is_some_and(|d| d >= since))
        })
        .collect()
}

fn export_pgn(games: &[Found]) -> String {
    games
        .iter()
        .map(|g| g.game.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn list_text(games: &[Found]) -> String {
    let mut out = String::new();
    for g in games {
        let date = g.date().map_or_else(|| "?".to_owned(), |d| d.to_string());
        out.push_str(&format!(
            "{date}  round {:<5} board {:<3} {} - {}  {}  ({})\n",
            g.tag("Round"),
            g.tag("Board"),
            g.tag("White"),
            g.tag("Black"),
            g.tag("Result"),
            g.file.file_name().unwrap_or_default().to_string_lossy(),
        ));
    }
    out
}

fn list_json(games: &[Found]) -> String {
    let rows: Vec<serde_json::Value> = games
        .iter()
        .map(|g| {
            let tag = |n: &str| g.game.tag(n);
            serde_json::json!({
                "file": g.file.display().to_string(),
                "date": g.date().map(|d| d.to_string()),
                "event": tag("Event"),
                "round": tag("Round"),
                "board": tag("Board"),
                "white": tag("White"),
                "black": tag("Black"),
                "result": tag("Result"),
            })
        })
        .collect();
    format!("{}\n", serde_json::Value::Array(rows))
}

#[cfg(test)]
mod tests;
