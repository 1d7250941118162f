//! `chessclockctl round`: the daemon's current round and its boards (`round show`), a
//! round's pairings loaded from a file (`round load`), a board's result by its number
//! (`round result`, paper boards too), the round's results for the pairing program (`round
//! export`), and the roll-over to the next round (`round next`). The file is read here and
//! its text sent (the daemon runs sandboxed and may not read the caller's files); parsing,
//! applying and exporting are the daemon's.

use std::path::PathBuf;

use chessclock_api::proxy::ManagerProxy;
use zbus::Connection;

use super::commands::out_line;
use super::said::Voice;
use super::{BusArgs, Failure, Result, bus_failure};

/// The round and its pairings.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum RoundCommand {
    /// Print the current round and every board of it: its players, its result, and its
    /// clock or "paper" (a board without an e-board).
    Show,
    /// The round's go/no-go: every board of the current round (paper boards included) with
    /// each check (answering, clock, pieces in the start position, orientation, control,
    /// battery, players; and the Lichess round its game went to, where a bridge pushes) and
    /// what fixes it. Exit 0 only when every board is ready, else 1.
    Check {
        /// The round's control (e.g. "G/90 inc/30"); default: the control most of the round's
        /// clocks are set to, so that the odd one out is named.
        #[arg(long, value_name = "NOTATION")]
        control: Option<String>,
        /// Check again on every change until every board is ready (each board's line is
        /// printed when it changes), then exit 0.
        #[arg(long)]
        wait: bool,
    },
    /// Set a board's result by its board number: a paper board's (kept, and written to the
    /// live feed and the broadcast), or for an e-board the arbiter's result of its game.
    Result {
        /// The board number.
        board: u32,
        /// 1-0, 0-1, 1/2-1/2, a paper board's forfeit +- or -+ (or * to clear a paper
        /// board's result).
        #[arg(allow_hyphen_values = true)]
        result: String,
    },
    /// Write the round's results for the pairing program to standard output: CSV
    /// (board,white,black,result) or, when the pairings came from TRF, the TRF-16 file with
    /// this round's results and the points filled in.
    Export {
        /// csv or trf.
        #[arg(long, value_parser = ["csv", "trf"], default_value = "csv")]
        format: String,
    },
    /// Load a round's pairings: each board's clock gets its players (names, FIDE ids, Elo,
    /// titles, teams) and Round "R.B"; the round becomes current. The next round's, once a
    /// game of the current round has started, are kept for `round next` instead (the games
    /// under way keep their players). A board without a clock is a paper board. A malformed
    /// line, a board paired twice or a board two clocks share changes nothing; every such
    /// line is named, all in one answer. The same file again changes nothing; one that
    /// gives a begun game other players is refused without --force.
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
        /// Load it even where it gives a game that has begun (or a paper board's entered
        /// result) other players; without it such a file is refused, naming each board.
        #[arg(long)]
        force: bool,
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

/// Run a round subcommand; what `load`, `next` and `result` did is printed unless `voice`
/// is quiet (with `--json`, as JSON).
pub(crate) async fn run(
    conn: &Connection,
    bus: &BusArgs,
    cmd: RoundCommand,
    voice: Voice,
) -> Result<()> {
    let json = voice.json;
    let f = |e| bus_failure(bus, e);
    let mgr = ManagerProxy::new(conn).await.map_err(f)?;
    match cmd {
        RoundCommand::Show => {
            let round = mgr.round().await.map_err(f)?;
            let boards = mgr.get_round_boards().await.map_err(f)?;
            print_boards(round, &boards, json)
        }
        RoundCommand::Check { control, wait } => {
            super::round_check::run(conn, bus, &mgr, control.as_deref(), wait, voice).await
        }
        RoundCommand::Result { board, result } => {
            let done = mgr.set_board_result(board, &result).await.map_err(f)?;
            if voice.quiet && !json {
                Ok(())
            } else if json {
                out_line(&serde_json::json!({ "board": board, "done": done }).to_string())
            } else {
                out_line(&done)
            }
        }
        RoundCommand::Export { format } => {
            let text = mgr.export_round(&format).await.map_err(f)?;
            let mut out = std::io::stdout().lock();
            std::io::Write::write_all(&mut out, text.as_bytes())
                .and_then(|()| std::io::Write::flush(&mut out))
                .map_err(|e| Failure::Action(format!("cannot write the export: {e}")))
        }
        RoundCommand::Load {
            file,
            round,
            format,
            force,
        } => {
            let content = read(&file)?;
            let format = format_of(&file, format);
            let report = mgr
                .load_pairings_with(&content, &format, round.unwrap_or(0), force)
                .await
                .map_err(f)?;
            if voice.quiet && !json {
                return Ok(());
            }
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
            if voice.quiet && !json {
                return Ok(());
            }
            let round = mgr.round().await.map_err(f)?;
            print_report(round, &report, json)
        }
    }
}

/// The round's boards as `GetRoundBoards` gives them.
type Boards = [(u32, String, String, String, i32, String)];

/// The round and each of its boards: players, result, clock or paper.
fn print_boards(round: u32, boards: &Boards, json: bool) -> Result<()> {
    if json {
        let list: Vec<serde_json::Value> = boards
            .iter()
            .map(|(board, white, black, result, index, name)| {
                serde_json::json!({
                    "board": board, "white": white, "black": black, "result": result,
                    "clock": (*index >= 0).then_some(*index), "name": name,
                    "paper": *index < 0,
                })
            })
            .collect();
        return out_line(&serde_json::json!({ "round": round, "boards": list }).to_string());
    }
    out_line(&format!("round {round}"))?;
    for (board, white, black, result, index, name) in boards {
        let on = if *index < 0 {
            "paper".to_owned()
        } else {
            format!("clock {index} ({name:?})")
        };
        out_line(&format!(
            "  board {board}: {white} - {black}  {result}  [{on}]"
        ))?;
    }
    Ok(())
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
