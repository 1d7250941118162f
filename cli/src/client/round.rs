//! `chessclockctl round`: the daemon's current round, a round's pairings loaded from a
//! file (`round load`), and the roll-over to the next round (`round next`). The file is read here and its text sent (the daemon runs sandboxed
//! and may not read the caller's files); parsing and applying are the daemon's.

use std::path::PathBuf;

use chessclock_api::proxy::ManagerProxy;
use zbus::Connection;

use super::commands::out_line;
use super::{BusArgs, Failure, Result, bus_failure};

/// The round and its pairings.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum RoundCommand {
    /// Print the current round.
    Show,
    /// Load a round's pairings: each board's clock gets its players (names, FIDE ids, Elo,
    /// titles, teams) and Round "R.B"; the round becomes current. The next round's, once a
    /// game of the current round has started, are kept for `round next` instead (the games
    /// under way keep their players). A bad line, a board without a clock or a board two
    /// clocks share changes nothing and is named by its line.
    Load {
        /// The pairings file: CSV with a header (board,white,black,...), tags-only PGN or FIDE
        /// TRF-16; `-` reads standard input.
        file: PathBuf,
        /// The round (default: the current round; TRF holds every round's pairings).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        round: Option<u32>,
        /// The file's format (default: from the extension .csv, .pgn, .trf, else from the
        /// content).
        #[arg(long, value_parser = ["auto", "csv", "pgn", "trf"])]
        format: Option<String>,
    },
    /// Roll the round over: every clock starts a new game as its board in the next round
    /// (the live feed moves to live/round-R+1/; round R's files stay) with the next round's
    /// pairings kept by `round load`, if any, and the next round is current. Refused, naming
    /// the boards, while games are under way.
    Next {
        /// Roll over even while games are under way (they are discarded as by new-game).
        #[arg(long)]
        force: bool,
        /// The Lichess broadcast round id of the new round (8 letters and digits, the last
        /// part of its URL): kept by the daemon, the bridge pushes the round there unless its
        /// [[lichess]] rounds names one.
        #[arg(long, value_name = "ID")]
        lichess_round: Option<String>,
    },
}

/// The format to tell the daemon: the one given, else the file's extension, else `auto`.
fn format_of(file: &std::path::Path, given: Option<String>) -> String {
    given.unwrap_or_else(|| {
        let ext = file
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some(e @ ("csv" | "pgn" | "trf")) => e.to_owned(),
            _ => "auto".to_owned(),
        }
    })
}

/// The file's text (`-`: standard input).
fn read(file: &std::path::Path) -> Result<String> {
    let text = if file.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read(file).map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
    };
    text.map_err(|e| {
        Failure::Action(format!(
            "cannot read {}: {e}; name a pairings file you can read",
            file.display()
        ))
    })
}

/// Run a round subcommand.
pub(crate) async fn run(
    conn: &Connection,
    bus: &BusArgs,
    cmd: RoundCommand,
    json: bool,
) -> Result<()> {
    let f = |e| bus_failure(bus, e);
    let mgr = ManagerProxy::new(conn).await.map_err(f)?;
    match cmd {
        RoundCommand::Show => {
            let round = mgr.round().await.map_err(f)?;
            if json {
                out_line(&serde_json::json!({ "round": round }).to_string())
            } else {
                out_line(&format!("round {round}"))
            }
        }
        RoundCommand::Load {
            file,
            round,
            format,
        } => {
            let content = read(&file)?;
            let format = format_of(&file, format);
            let report = mgr
                .load_pairings(&content, &format, round.unwrap_or(0))
                .await
                .map_err(f)?;
            let round = mgr.round().await.map_err(f)?;
            print_report(round, &report, json)
        }
        RoundCommand::Next {
            force,
            lichess_round,
        } => {
            let report = match lichess_round {
                Some(id) => mgr.next_round_broadcast(force, &id).await,
                None => mgr.next_round(force).await,
            }
            .map_err(f)?;
            let round = mgr.round().await.map_err(f)?;
            print_report(round, &report, json)
        }
    }
}

/// What a round command did to each board, after the round it left current.
fn print_report(round: u32, report: &[String], json: bool) -> Result<()> {
    if json {
        return out_line(&serde_json::json!({ "round": round, "boards": report }).to_string());
    }
    out_line(&format!("round {round}:"))?;
    for line in report {
        out_line(&format!("  {line}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_is_the_one_given_else_the_extension_else_detected() {
        let p = std::path::Path::new;
        assert_eq!(format_of(p("r3.TRF"), None), "trf");
        assert_eq!(format_of(p("r3.csv"), Some("pgn".into())), "pgn");
        assert_eq!(format_of(p("r3.txt"), None), "auto");
        assert_eq!(format_of(p("-"), None), "auto");
    }
}
