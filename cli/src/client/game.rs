//! The board's game from the command line: `pgn` (the live PGN), `board` (the position drawn
//! in the terminal), `info` (game information: players, event, round), and the operator's
//! corrections `move ... undo|force` and `position`. The daemon keeps the game; this only
//! asks and prints.

use std::collections::HashMap;

use chessclock_api::proxy::ClockProxy;
use chessclock_api::read;
use zbus::Connection;

use super::commands::out_line;
use super::resolve::resolve;
use super::said::{self, Voice};
use super::{BusArgs, Failure, Result, bus_failure, read_failure};

/// Subcommands about the game on the board's pieces.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum GameCommand {
    /// Print the live PGN of a clock's game (moves with [%clk], tags, result).
    Pgn {
        /// Clock.
        clock: String,
    },
    /// Draw the position on a clock's board.
    Board {
        /// Clock.
        clock: String,
    },
    /// Show or set a clock's game information: white="Carlsen, Magnus" round=7 event=...
    Info {
        /// Clock.
        clock: String,
        /// TAG=VALUE pairs (Event, Site, Date, Round, White, Black, Board or any PGN tag
        /// name; lower case is fine). An empty value removes the tag. None: print them.
        tags: Vec<String>,
    },
    /// Correct a move the board misread: take plies back, or play a legal move the board did
    /// not show (the live PGN changes at once; the pieces must then show the game).
    Move {
        /// Clock.
        clock: String,
        /// undo or force.
        #[command(subcommand)]
        action: MoveAction,
    },
    /// Set the game's position: a FEN (a Chess960 or Freestyle start, an adjourned game), or
    /// `board` for the pieces as they stand (after an illegal move that stood). The game
    /// begins anew from it: the PGN carries SetUp and FEN. `position assess FEN` judges a
    /// position offline instead (no daemon).
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Position {
        /// Offline: `assess`.
        #[command(subcommand)]
        offline: Option<PositionOffline>,
        /// Clock.
        #[arg(required = true)]
        clock: Option<String>,
        /// A FEN (quoted or not), or `board`.
        #[arg(required = true, num_args = 1..)]
        position: Vec<String>,
        /// With `board`: the side to move (default: kept).
        #[arg(long, value_parser = chessclock_engine::Side::NAMES)]
        turn: Option<String>,
    },
}

/// What `position` does offline.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum PositionOffline {
    /// Who can still checkmate in a position (by search: locked pawn walls and forced
    /// sequences included), and what a flag by each side would decide (FIDE 6.9, USCF 14E).
    /// No daemon is asked.
    Assess(crate::offline::position::AssessArgs),
}

/// A correction of the moves.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum MoveAction {
    /// Take back the last N plies (default 1).
    Undo {
        /// How many plies.
        #[arg(default_value_t = 1)]
        plies: u32,
    },
    /// Play a legal move in UCI (e2e4, e7e8q, e1g1) that the board did not show.
    Force {
        /// The move.
        uci: String,
    },
}

/// `white=Carlsen, Magnus` as (`White`, `Carlsen, Magnus`).
fn parse_tag(text: &str) -> Result<(String, String)> {
    let Some((name, value)) = text.split_once('=') else {
        return Err(Failure::Action(format!(
            "{} is not TAG=VALUE; write e.g. white=\"Carlsen, Magnus\" round=7",
            chessclock_engine::words::quote(text)
        )));
    };
    // The daemon spells known tags the standard way (`white` is `White`).
    Ok((name.trim().to_owned(), value.to_owned()))
}

/// Run a game subcommand; the corrections and a change of game information say what they
/// did unless `voice` is quiet (or JSON).
pub(crate) async fn run(
    conn: &Connection,
    bus: &BusArgs,
    cmd: GameCommand,
    voice: Voice,
) -> Result<()> {
    let name = match &cmd {
        GameCommand::Pgn { clock }
        | GameCommand::Board { clock }
        | GameCommand::Info { clock, .. }
        | GameCommand::Move { clock, .. } => clock.clone(),
        GameCommand::Position { clock, .. } => clock.clone().unwrap_or_default(),
    };
    let (path, _) = resolve(conn, bus, &name).await?;
    let f = |e| bus_failure(bus, e);
    let clock = ClockProxy::builder(conn)
        .path(path.clone())
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .map_err(f)?;
    match cmd {
        GameCommand::Pgn { .. } => {
            print!("{}", clock.get_pgn().await.map_err(f)?);
            Ok(())
        }
        GameCommand::Board { .. } => {
            let st = read::clock(conn, &path)
                .await
                .map_err(|e| read_failure(bus, e))?;
            if st.fen.is_empty() {
                println!(
                    "no position known: no pieces were read (no e-board, or an empty one); \
                     set one with `chessclockctl position {name} FEN`"
                );
            } else {
                println!("{}", draw(&st.fen));
                println!("{}", st.fen);
            }
            if let Some(last) = st.moves_san.last() {
                println!("{} moves, last {last}", st.moves_san.len());
            }
            if !st.board_problem.is_empty() {
                println!("problem: {}", st.board_problem);
            }
            Ok(())
        }
        GameCommand::Info { tags, .. } if tags.is_empty() => {
            let st = read::clock(conn, &path)
                .await
                .map_err(|e| read_failure(bus, e))?;
            for (k, v) in &st.game_info {
                println!("{k}={v}");
            }
            Ok(())
        }
        GameCommand::Info { tags, .. } => {
            let parsed = tags
                .iter()
                .map(|t| parse_tag(t))
                .collect::<Result<Vec<_>>>()?;
            let map: HashMap<&str, &str> = parsed
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            clock.set_game_info(map).await.map_err(f)?;
            if voice.says() {
                let after = read::clock(conn, &path)
                    .await
                    .map_err(|e| read_failure(bus, e))?;
                out_line(&said::game_info(&after, &parsed))?;
            }
            Ok(())
        }
        GameCommand::Move { action, .. } => {
            let done = match action {
                MoveAction::Undo { plies } => {
                    clock.undo_moves(plies).await.map_err(f)?;
                    format!("took back {plies} ply{}", if plies == 1 { "" } else { "s" })
                }
                MoveAction::Force { uci } => {
                    clock.force_move(&uci).await.map_err(f)?;
                    format!("played {uci}")
                }
            };
            said_moves(conn, bus, &path, &done, voice).await
        }
        GameCommand::Position { position, turn, .. } => {
            let position = position.join(" ");
            clock
                .set_position(&position, turn.as_deref().unwrap_or_default())
                .await
                .map_err(f)?;
            let done = match position.trim() {
                "board" => "the game begins anew from the pieces as they stand".to_owned(),
                fen => format!("the game begins anew from {fen}"),
            };
            said_moves(conn, bus, &path, &done, voice).await
        }
    }
}

/// After a correction: what was done and the game's last move, unless quiet.
async fn said_moves(
    conn: &Connection,
    bus: &BusArgs,
    path: &zbus::OwnedObjectPath,
    done: &str,
    voice: Voice,
) -> Result<()> {
    if !voice.says() {
        return Ok(());
    }
    let after = read::clock(conn, path)
        .await
        .map_err(|e| read_failure(bus, e))?;
    out_line(&said::moves(&after, done))
}

/// The board of `fen` as 8 lines of letters (White upper case) with ranks and files, White
/// at the bottom.
fn draw(fen: &str) -> String {
    let placement = fen.split_whitespace().next().unwrap_or_default();
    let mut out = String::new();
    for (i, rank) in placement.split('/').enumerate() {
        out.push_str(&format!("{} ", 8 - i));
        for c in rank.chars() {
            match c.to_digit(10) {
                Some(n) => (0..n).for_each(|_| out.push_str(" .")),
                None => {
                    out.push(' ');
                    out.push(c);
                }
            }
        }
        out.push('\n');
    }
    out.push_str("   a b c d e f g h");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_position_is_drawn_with_white_at_the_bottom() {
        let d = draw("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(lines[0], "8  r n b q k b n r");
        assert_eq!(lines[4], "4  . . . . P . . .");
        assert_eq!(lines[7], "1  R N B Q K B N R");
        assert_eq!(lines[8], "   a b c d e f g h");
    }

    #[test]
    fn tags_need_an_equals_sign_and_keep_commas_in_values() {
        assert_eq!(
            parse_tag("white=Carlsen, Magnus").ok(),
            Some(("white".into(), "Carlsen, Magnus".into()))
        );
        assert_eq!(
            parse_tag(" ECO =B90").ok(),
            Some(("ECO".into(), "B90".into()))
        );
        assert_eq!(
            parse_tag("round=").ok(),
            Some(("round".into(), String::new()))
        );
        let Err(Failure::Action(msg)) = parse_tag("white") else {
            panic!("refused")
        };
        assert!(msg.contains("TAG=VALUE"), "{msg}");
    }
}
