//! `chessclockctl replay`: the game in a recorded board stream.
//!
//! Owns running a recording (read by `decode`'s reader) through the protocol decoder and the
//! game crate's board game, and printing the game as text, one JSON document or PGN. Recordings
//! carry no timestamps, so time is taken from the clock: every report whose running half
//! shows a new second advances it by one second. It must not reconstruct moves itself.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use chessclock_game::pgn::{self, GameInfo};
use chessclock_game::shakmaty::Color;
use chessclock_game::{BoardGame, GameRecord, Half, TrackerConfig};
use chessclock_protocol::{ClockReport, Decoded, Decoder, Message, Orientation};
use serde_json::{Value, json};

use super::decode::{Format, read_chunks};

/// Arguments of this subcommand.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Recorded board stream; `-` reads standard input.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// How the input is written (as for `decode`).
    #[arg(long, value_enum, default_value_t = Format::Raw)]
    format: Format,
    /// Print the game as PGN (not with --json, which prints one JSON document: moves,
    /// result, orientation, problems).
    #[arg(long, conflicts_with = "json")]
    pgn: bool,
}

/// Run `replay`; with `json`, one JSON document.
pub(crate) fn run(args: Args, json: bool) -> anyhow::Result<ExitCode> {
    let chunks = read_chunks(&args.file, args.format)?;
    let mut rec = BoardGame::new(TrackerConfig::default());
    let mut decoder = Decoder::new();
    let mut time = VirtualTime::default();
    let mut errors = Vec::new();
    for chunk in &chunks {
        decoder.push(chunk);
        feed(&mut decoder, &mut rec, &mut time, &mut errors);
    }
    decoder.finish();
    feed(&mut decoder, &mut rec, &mut time, &mut errors);
    rec.finish(time.now);

    let game = rec.main_game();
    let mut out = BufWriter::new(io::stdout().lock());
    if json {
        writeln!(out, "{}", to_json(&rec, game, &errors))?;
    } else if args.pgn {
        write!(out, "{}", pgn::write(&game.pgn(&GameInfo::new(), None)))?;
    } else {
        write_text(&mut out, &rec, game, &errors)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Milliseconds since the start of the recording, from the clock's seconds.
#[derive(Debug, Default)]
struct VirtualTime {
    now: u64,
    last: Option<ClockReport>,
}

impl VirtualTime {
    fn on_report(&mut self, r: &ClockReport) {
        if let Some(prev) = self.last.replace(*r)
            && r.running
            && (prev.left.time != r.left.time || prev.right.time != r.right.time)
        {
            self.now += 1000;
        }
    }
}

fn feed(
    decoder: &mut Decoder,
    rec: &mut BoardGame,
    time: &mut VirtualTime,
    errors: &mut Vec<String>,
) {
    for item in decoder.by_ref() {
        match item {
            Ok(Decoded::Message(m)) => {
                if let Message::ClockReport(r) = &m {
                    time.on_report(r);
                    if rec.poll_timeout().is_some_and(|t| t <= time.now) {
                        rec.handle_timeout(time.now, None);
                    }
                }
                rec.on_message(time.now, &m, None);
            }
            Ok(Decoded::Dropped(d)) => errors.push(format!("{} garbage bytes dropped", d.count)),
            Err(e) => errors.push(format!("bad message: {e}")),
        }
    }
}

fn orientation_name(o: Option<Orientation>) -> Option<&'static str> {
    o.map(|o| match o {
        Orientation::Normal => "normal",
        Orientation::Rotated => "rotated",
    })
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn problems(rec: &BoardGame, game: &GameRecord, errors: &[String]) -> Vec<Value> {
    let mut v: Vec<Value> = game
        .problems
        .iter()
        .map(|p| json!({"kind": "unexplained", "ply": p.ply, "at_ms": p.at_ms, "message": p.message, "resolved": p.resolved}))
        .collect();
    if rec.games() == 0 {
        v.push(json!({"kind": "no_game", "message": "the board never showed the start position, so no game was followed"}));
    }
    let with_moves = rec.earlier_with_moves() + usize::from(!rec.moves().is_empty());
    if with_moves > 1 {
        v.push(json!({"kind": "new_game", "message": format!("{with_moves} games with moves in the recording; only the last one is shown")}));
    }
    if let Some(c) = game.flag {
        v.push(json!({"kind": "flag", "color": color_name(c), "message": format!("{}'s flag fell (the clock's final flag); the result is not set on the board", color_name(c))}));
    }
    v.extend(
        errors
            .iter()
            .map(|e| json!({"kind": "stream", "message": e})),
    );
    v
}

fn to_json(rec: &BoardGame, game: &GameRecord, errors: &[String]) -> Value {
    let moves: Vec<Value> = game
        .moves
        .iter()
        .map(|m| {
            json!({
                "ply": m.event.ply,
                "uci": m.event.uci,
                "san": m.event.san,
                "clock_ms": m.clock_ms,
                "elapsed_ms": m.elapsed_ms,
                "fen": m.event.fen,
            })
        })
        .collect();
    json!({
        "moves": moves,
        "result": game.result().map(|r| r.pgn()),
        "orientation": orientation_name(rec.orientation()),
        "white_clock_half": rec.white_half().map(|h| if h == Half::Left { "left" } else { "right" }),
        "flag": game.flag.map(color_name),
        "fen": game.moves.last().map(|m| m.event.fen.clone()),
        "problems": problems(rec, game, errors),
    })
}

fn write_text(
    out: &mut impl Write,
    rec: &BoardGame,
    game: &GameRecord,
    errors: &[String],
) -> io::Result<()> {
    let orientation = orientation_name(rec.orientation()).unwrap_or("unknown");
    writeln!(out, "orientation: {orientation}")?;
    for m in &game.moves {
        let number = if m.event.color == Color::White {
            format!("{}.", m.event.ply.div_ceil(2))
        } else {
            format!("{}...", m.event.ply.div_ceil(2))
        };
        let clock = m.clock_ms.map(pgn::clock_hms).unwrap_or_else(|| "-".into());
        writeln!(
            out,
            "{number:>5} {:<8} {:<6} clock {clock}",
            m.event.san, m.event.uci
        )?;
    }
    writeln!(out, "result: {}", game.result().map_or("*", |r| r.pgn()))?;
    for p in problems(rec, game, errors) {
        writeln!(
            out,
            "problem: {}",
            p["message"].as_str().unwrap_or_default()
        )?;
    }
    Ok(())
}
