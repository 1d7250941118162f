//! `chessclockctl position assess`: who can still mate in a position, and what a flag would
//! decide there, offline (docs/cli.md, docs/rules.md).
//!
//! Owns the command's output (readable text, one JSON object, or one JSON line per FEN read
//! from standard input) and its exit codes (0 judged; 2 a FEN given as an argument is not a
//! position; 1 some line of standard input was not). The verdicts are the game crate's
//! `winnable` (the daemon's own); this module adds no rules and only measures the time the
//! judging took.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::time::Instant;

use chessclock_engine::Side;
use chessclock_game::shakmaty::fen::Fen;
use chessclock_game::shakmaty::{CastlingMode, Chess, EnPassantMode};
use chessclock_game::winnable::{self, Judgement, MateBudget, OnFlag, Rulebook};
use serde_json::{Value, json};

/// Arguments of `position assess`.
#[derive(Debug, clap::Args)]
pub(crate) struct AssessArgs {
    /// The position as FEN (its six fields; several words are joined with spaces, so
    /// quoting is optional), or `-`: one FEN a line from standard input, one JSON line each,
    /// in order.
    #[arg(value_name = "FEN", required = true, num_args = 1..)]
    fen: Vec<String>,
    /// The rules a flag is judged by: `fide` (6.9: lost unless the opponent cannot mate by
    /// any series of legal moves) or `uscf` (14E: the lone king, the lone minor piece and
    /// two knights without a forced win draw).
    #[arg(long, value_enum, default_value = "fide")]
    rules: Rules,
}

/// `--rules`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Rules {
    /// FIDE's Laws of Chess.
    Fide,
    /// US Chess's rules.
    Uscf,
}

impl From<Rules> for Rulebook {
    fn from(r: Rules) -> Rulebook {
        match r {
            Rules::Fide => Rulebook::Fide,
            Rules::Uscf => Rulebook::Uscf,
        }
    }
}

/// The position a FEN describes, or what is wrong with it and how to write it.
fn position(fen: &str) -> Result<Chess, String> {
    let parsed: Fen = fen.trim().parse().map_err(|e| {
        format!(
            "{fen:?} is not a FEN ({e}); write the six fields, e.g. \
             \"8/3k4/8/8/8/8/3K4/7R w - - 0 1\""
        )
    })?;
    parsed
        .into_position(CastlingMode::Standard)
        .map_err(|e| format!("{fen:?} is not a legal position: {e}"))
}

/// The verdict on `pos` and the microseconds it took.
fn assess(pos: &Chess, rules: Rules) -> (Judgement, u128) {
    let started = Instant::now();
    let judgement = winnable::judge(pos, rules.into(), MateBudget::default());
    (judgement, started.elapsed().as_micros())
}

/// Run `position assess`.
pub(crate) fn run(args: AssessArgs, json: bool) -> anyhow::Result<ExitCode> {
    let fen = args.fen.join(" ");
    if fen.trim() == "-" {
        return batch(args.rules);
    }
    let pos = match position(&fen) {
        Ok(pos) => pos,
        Err(e) => {
            if json {
                println!("{}", json!({ "error": "bad_fen", "message": e }));
            } else {
                eprintln!("chessclockctl: {e}");
            }
            return Ok(ExitCode::from(2));
        }
    };
    let (judgement, us) = assess(&pos, args.rules);
    let mut out = io::stdout().lock();
    if json {
        writeln!(out, "{}", to_json(&pos, &judgement, us, args.rules))?;
    } else {
        print_human(&mut out, &pos, &judgement, us, args.rules)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One FEN a line from standard input, one JSON line each (an error object for a line that
/// is not a position); exit 1 if any was not. Empty lines are skipped.
fn batch(rules: Rules) -> anyhow::Result<ExitCode> {
    let mut out = io::stdout().lock();
    let mut failed = false;
    for (n, line) in io::stdin().lock().lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let value = match position(&line) {
            Ok(pos) => {
                let (judgement, us) = assess(&pos, rules);
                to_json(&pos, &judgement, us, rules)
            }
            Err(e) => {
                failed = true;
                json!({ "line": n + 1, "error": "bad_fen", "message": e })
            }
        };
        writeln!(out, "{value}")?;
        out.flush()?;
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn rules_word(rules: Rules) -> &'static str {
    match rules {
        Rules::Fide => "fide",
        Rules::Uscf => "uscf",
    }
}

fn flag_json(flag: Option<OnFlag>, side: Side) -> Value {
    match flag {
        Some(f) => json!({
            "result": if f.loses { "loses" } else { "draws" },
            "undecided": f.undecided(),
            "explanation": f.explain(side),
        }),
        None => Value::Null,
    }
}

/// `{"fen","white","black","dead","rules","white_flag","black_flag","time_us"}`.
fn to_json(pos: &Chess, j: &Judgement, us: u128, rules: Rules) -> Value {
    json!({
        "fen": Fen::from_position(pos, EnPassantMode::Legal).to_string(),
        "white": j.who.white.as_str(),
        "black": j.who.black.as_str(),
        "dead": j.dead(),
        "rules": rules_word(rules),
        "white_flag": flag_json(j.white_flag, Side::White),
        "black_flag": flag_json(j.black_flag, Side::Black),
        "time_us": u64::try_from(us).unwrap_or(u64::MAX),
    })
}

fn verdict_text(m: chessclock_engine::Mating) -> &'static str {
    match m {
        chessclock_engine::Mating::CanMate => "can still checkmate",
        chessclock_engine::Mating::CannotMate => "cannot checkmate by any series of legal moves",
        chessclock_engine::Mating::Undetermined => "not decided by the search",
    }
}

fn print_human(
    out: &mut impl Write,
    pos: &Chess,
    j: &Judgement,
    us: u128,
    rules: Rules,
) -> io::Result<()> {
    writeln!(
        out,
        "position: {}",
        Fen::from_position(pos, EnPassantMode::Legal)
    )?;
    writeln!(out, "White:    {}", verdict_text(j.who.white))?;
    writeln!(out, "Black:    {}", verdict_text(j.who.black))?;
    if j.dead() {
        writeln!(
            out,
            "dead:     neither side can mate: the game is drawn (FIDE 5.2.2, USCF 14D)"
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "on a flag ({} rules):",
        rules_word(rules).to_uppercase()
    )?;
    for side in [Side::White, Side::Black] {
        if let Some(f) = j.on_flag(side) {
            writeln!(out, "  {}", f.explain(side))?;
        }
    }
    writeln!(out)?;
    writeln!(out, "judged in {}", micros(us))?;
    Ok(())
}

/// `350 µs`, `12.4 ms`, `1.20 s`.
fn micros(us: u128) -> String {
    match us {
        0..1_000 => format!("{us} µs"),
        1_000..1_000_000 => format!("{:.1} ms", us as f64 / 1_000.0),
        _ => format!("{:.2} s", us as f64 / 1_000_000.0),
    }
}
