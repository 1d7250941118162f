//! `chessclockctl simulate`: run a time control offline, through the daemon's own engine.
//!
//! Two modes: a scripted game for people (`--control` + `--script`), and conformance vectors
//! for machines (`--vectors FILE`), which prints one JSON document with the snapshots at
//! every expected instant, computed from the inputs only.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use chessclock_engine::notation;
use chessclock_engine::vectors::{VectorFile, simulate};
use chessclock_engine::{AdjustField, AdjustOp, Engine, Input, Side, Time};
use serde_json::Value;

/// Arguments of `simulate`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("mode").required(true).args(["vectors", "control"])))]
pub(crate) struct Args {
    /// A file in the conformance-vector schema; prints the computed snapshots as JSON.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["control", "script"])]
    vectors: Option<std::path::PathBuf>,
    /// Time-control notation for a scripted game, e.g. "G/3 inc/2".
    #[arg(long, value_name = "NOTATION", requires = "script")]
    control: Option<String>,
    /// Steps separated by `;`, each an optional delay then an action:
    /// `start [black]`, `10s press`, `+1.5s press black`, `pause`, `5s resume`,
    /// `adjust white main_ms add 120000`, `moves black 40`, `claim white`, `result 1-0`,
    /// `30s wait`. Delays: `500ms`, `10s`, `2.5s`, `3m`, `1h`.
    #[arg(long, value_name = "SCRIPT")]
    script: Option<String>,
}

/// Run `simulate`; with `json` and --control, one JSON snapshot per step instead of a table.
pub(crate) fn run(args: Args, json: bool) -> anyhow::Result<ExitCode> {
    if let Some(path) = args.vectors {
        return vectors(&path);
    }
    let (Some(control), Some(script)) = (args.control, args.script) else {
        anyhow::bail!("give --vectors FILE, or --control NOTATION with --script SCRIPT");
    };
    scripted(&control, &script, json)
}

fn vectors(path: &std::path::Path) -> anyhow::Result<ExitCode> {
    let text = if path.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).context("cannot read stdin")?
    } else {
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?
    };
    let file = match serde_json::from_str::<Value>(&text)
        .map_err(|e| e.to_string())
        .and_then(|doc| VectorFile::from_value(&doc))
    {
        Ok(f) => f,
        Err(e) => {
            eprintln!(
                "chessclockctl: {} is not a vectors file (schema chessclock-timecontrol-vectors/1): {e}",
                path.display()
            );
            return Ok(ExitCode::from(2));
        }
    };
    // Each vector is run on its own: one that cannot run gets {"id", "error"}, the others
    // are still printed.
    let doc = simulate(&file);
    writeln!(std::io::stdout().lock(), "{doc}")?;
    Ok(ExitCode::SUCCESS)
}

/// US Chess's rating system (rule 5B) and FIDE's category of a control, in one line.
fn rating_line(control: &chessclock_engine::params::TimeControl) -> String {
    use chessclock_engine::rating::{fide_category, uscf_rating};
    format!(
        "US Chess {}, FIDE {}",
        uscf_rating(control).map_or("not ratable", |r| r.as_str()),
        fide_category(control).map_or("none", |c| c.as_str())
    )
}

/// A delay like `500ms`, `10s`, `2.5s`, `3m`, `1h`.
fn parse_delay(s: &str) -> Option<u64> {
    let s = s.strip_prefix('+').unwrap_or(s);
    let (num, mult) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60_000.0)
    } else if let Some(n) = s.strip_suffix('h') {
        (n, 3_600_000.0)
    } else {
        return None;
    };
    let v: f64 = num.parse().ok()?;
    if !v.is_finite() || !(0.0..=1.0e9).contains(&v) {
        return None;
    }
    let ms = (v * mult).round();
    (ms <= 1.0e15).then_some(ms as u64)
}

fn side(word: Option<&str>) -> Result<Option<Side>, String> {
    word.map(|w| w.parse::<Side>().map_err(|e| e.to_string()))
        .transpose()
}

/// One script step: the delay before it and the action.
#[derive(Debug)]
enum Action {
    Input(Input),
    PressMover,
    Wait,
}

fn parse_step(step: &str) -> Result<(u64, Action, String), String> {
    let mut words: Vec<&str> = step.split_whitespace().collect();
    let mut delay = 0;
    if let Some(first) = words.first()
        && first.starts_with(|c: char| c.is_ascii_digit() || c == '+')
    {
        delay = parse_delay(first).ok_or_else(|| {
            format!(
                "{} is not a delay; write e.g. 500ms, 10s, 2.5s, 3m",
                chessclock_engine::words::quote(first)
            )
        })?;
        words.remove(0);
    }
    let Some((&verb, rest)) = words.split_first() else {
        return Ok((delay, Action::Wait, "wait".into()));
    };
    let need_side = |w: Option<&&str>| -> Result<Side, String> {
        side(w.copied())?.ok_or_else(|| format!("{verb} needs a side (white or black)"))
    };
    let action = match verb {
        "start" => Action::Input(Input::Start {
            side: side(rest.first().copied())?.unwrap_or(Side::White),
        }),
        "press" => match side(rest.first().copied())? {
            Some(s) => Action::Input(Input::Press { side: s }),
            None => Action::PressMover,
        },
        "pause" => Action::Input(Input::Pause),
        "resume" => Action::Input(Input::Resume),
        "wait" => Action::Wait,
        "adjust" => {
            let side = need_side(rest.first())?;
            let field: AdjustField = rest
                .get(1)
                .ok_or("adjust needs a field, e.g. adjust white main_ms add 120000")?
                .parse()?;
            let op: AdjustOp = rest
                .get(2)
                .ok_or("adjust needs set or add after the field")?
                .parse()
                .map_err(|e: chessclock_engine::words::WordError| e.to_string())?;
            let ms = rest
                .get(3)
                .and_then(|v| v.parse::<i64>().ok())
                .ok_or("adjust needs an amount in ms")?;
            Action::Input(Input::Adjust {
                side,
                field,
                op,
                ms,
            })
        }
        "moves" => Action::Input(Input::SetMoves {
            side: need_side(rest.first())?,
            moves: rest
                .get(1)
                .and_then(|v| v.parse().ok())
                .ok_or("moves needs a count, e.g. moves black 40")?,
        }),
        "claim" => Action::Input(Input::ClaimDraw {
            side: need_side(rest.first())?,
        }),
        "result" => Action::Input(Input::BoardResult {
            result: rest
                .first()
                .ok_or("result needs 1-0, 0-1 or 1/2-1/2")?
                .parse()
                .map_err(|e: chessclock_engine::words::WordError| e.to_string())?,
        }),
        other => {
            return Err(format!(
                "unknown action {}; use start, press, pause, resume, adjust, moves, claim, result or wait",
                chessclock_engine::words::quote(other)
            ));
        }
    };
    Ok((delay, action, words.join(" ")))
}

fn scripted(control: &str, script: &str, json_out: bool) -> anyhow::Result<ExitCode> {
    let parsed = match notation::parse(control) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("chessclockctl: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let mut steps = Vec::new();
    for (i, raw) in script.split(';').enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        match parse_step(raw.trim()) {
            Ok(s) => steps.push(s),
            Err(e) => {
                eprintln!(
                    "chessclockctl: script step {} ({:?}): {e}",
                    i + 1,
                    raw.trim()
                );
                return Ok(ExitCode::from(2));
            }
        }
    }
    let mut engine = Engine::new(parsed.control.clone())?;
    let mut out = std::io::stdout().lock();
    if !json_out {
        writeln!(out, "control: {}", parsed.canonical)?;
        writeln!(out, "rating:  {}", rating_line(&parsed.control))?;
        writeln!(
            out,
            "{:>9}  {:<18} {:>9} {:<12} {:>5}  {:>9} {:<12} {:>5}  status",
            "t", "event", "white", "phase", "moves", "black", "phase", "moves"
        )?;
    }
    let mut t = 0u64;
    for (delay, action, text) in steps {
        t = t.saturating_add(delay);
        let now = Time::from_ms(t);
        engine.handle_timeout(now);
        let note = match action {
            Action::Wait => String::new(),
            Action::PressMover => match engine.snapshot(now).running {
                Some(s) => match engine.handle_input(now, Input::Press { side: s }) {
                    Ok(()) => String::new(),
                    Err(e) => format!("  (ignored: {e})"),
                },
                None => "  (ignored: no clock runs)".into(),
            },
            Action::Input(input) => match engine.handle_input(now, input) {
                Ok(()) => String::new(),
                Err(e) => format!("  (ignored: {e})"),
            },
        };
        let snap = engine.snapshot(now);
        if json_out {
            writeln!(out, "{}", serde_json::to_string(&snap)?)?;
            continue;
        }
        let result = snap
            .result
            .map(|r| {
                let why = snap.reason.map(|r| r.as_str()).unwrap_or("");
                format!(" {r} ({why})")
            })
            .unwrap_or_default();
        writeln!(
            out,
            "{:>9}  {:<18} {:>9} {:<12} {:>5}  {:>9} {:<12} {:>5}  {}{}{}",
            chessclock_engine::clock_text(t),
            text,
            snap.text.white,
            snap.phase.white.to_string(),
            snap.moves.white,
            snap.text.black,
            snap.phase.black.to_string(),
            snap.moves.black,
            snap.status,
            result,
            note
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_parse_with_units_and_reject_junk() {
        assert_eq!(parse_delay("500ms"), Some(500));
        assert_eq!(parse_delay("2.5s"), Some(2500));
        assert_eq!(parse_delay("+3m"), Some(180_000));
        assert_eq!(parse_delay("1h"), Some(3_600_000));
        assert_eq!(parse_delay("10"), None);
        assert_eq!(parse_delay("-1s"), None);
        assert_eq!(parse_delay("NaNs"), None);
    }

    #[test]
    fn steps_name_what_is_wrong() {
        assert!(parse_step("10s press").is_ok());
        let e = parse_step("10s jump").unwrap_err();
        assert!(e.contains("unknown action \"jump\""), "{e}");
        let e = parse_step("adjust purple main_ms add 1").unwrap_err();
        assert!(e.contains("not a side"), "{e}");
        let e = parse_step("1x press").unwrap_err();
        assert!(e.contains("not a delay"), "{e}");
    }
}
