//! `chessclockctl timecontrol parse`: parse a time-control notation and say how the clock will
//! behave.
//!
//! Owns the output of this command (readable text or one JSON object) and its exit codes
//! (0 parsed, 2 rejected). The notation itself is the daemon library's
//! `engine::notation`; this module adds no rules of its own.

use std::io::{self, Write};
use std::process::ExitCode;

use chessclock_engine::notation::{self, NotationError, ParseOptions, Parsed, Sandclock};
use chessclock_engine::params::Method;
use chessclock_engine::rating;
use serde_json::json;

/// Arguments of this subcommand.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The notation, e.g. `G/90 inc/30`, `40/120 SD/60 d/5`, `pgn:300+2`. Several words are
    /// joined with spaces, so quoting is optional.
    #[arg(value_name = "NOTATION", required = true, num_args = 1..)]
    notation: Vec<String>,
    /// Read PGN `*N` as N seconds per side instead of N seconds split between the sides.
    #[arg(long)]
    pgn_sandclock_per_side: bool,
}

/// Run `timecontrol parse`; with `json`, one JSON object:
/// `{"method","params","canonical","warnings","uscf_rating","fide_category"}` or
/// `{"error","message","position"}`. `uscf_rating` is US Chess rule 5B's rating system
/// (`regular`, `dual`, `quick`, `blitz` or null), `fide_category` FIDE's (`standard`,
/// `rapid`, `blitz` or null), both from `chessclock_engine::rating`.
pub(crate) fn run(args: Args, json: bool) -> anyhow::Result<ExitCode> {
    let input = args.notation.join(" ");
    let options = ParseOptions {
        pgn_sandclock: if args.pgn_sandclock_per_side {
            Sandclock::PerSide
        } else {
            Sandclock::Split
        },
    };
    let result = notation::parse_with(&input, options);
    let mut out = io::stdout().lock();
    match (result, json) {
        (Ok(p), true) => {
            let value = json!({
                "method": p.control.method,
                "params": p.control.params,
                "canonical": p.canonical_json(),
                "warnings": p.warnings,
                "uscf_rating": rating::uscf_rating(&p.control),
                "fide_category": rating::fide_category(&p.control),
            });
            writeln!(out, "{value}")?;
            Ok(ExitCode::SUCCESS)
        }
        (Ok(p), false) => {
            print_human(&mut out, &input, &p)?;
            Ok(ExitCode::SUCCESS)
        }
        (Err(e), true) => {
            let value = json!({
                "error": e.code,
                "message": e.message,
                "position": e.position,
            });
            writeln!(out, "{value}")?;
            Ok(ExitCode::from(2))
        }
        (Err(e), false) => {
            eprint!("{}", render_error(&input, &e));
            Ok(ExitCode::from(2))
        }
    }
}

fn print_human(out: &mut impl Write, input: &str, p: &Parsed) -> io::Result<()> {
    writeln!(out, "method:    {}", p.control.method)?;
    writeln!(out, "canonical: {}", p.canonical)?;
    writeln!(out, "meaning:   {}", notation::summary(&p.control))?;
    writeln!(out)?;
    for line in notation::explain(&p.control) {
        writeln!(out, "  {line}")?;
    }
    if !matches!(p.control.method, Method::Unknown | Method::None) {
        writeln!(out)?;
        for line in rating::explain(&p.control) {
            writeln!(out, "  {line}")?;
        }
    }
    if !p.warnings.is_empty() {
        writeln!(out)?;
        for w in &p.warnings {
            writeln!(out, "warning: {w}")?;
        }
    }
    if let Some(hint) = notation::likely_slip(input, p) {
        writeln!(out, "hint: {hint}")?;
    }
    Ok(())
}

/// The error sentence, the input, and a caret under the position.
fn render_error(input: &str, e: &NotationError) -> String {
    let before = input.get(..e.position).unwrap_or(input);
    let column = before.chars().count();
    format!(
        "chessclockctl: cannot parse the time control ({}): {}\n  {input}\n  {}^\n",
        e.code,
        e.message,
        " ".repeat(column)
    )
}
