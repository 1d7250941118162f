//! `chessclockctl decode`: turn recorded DGT board traffic into messages.
//!
//! Owns reading the input formats (raw bytes, hex lines, base64 lines as in the shared
//! captures), feeding them chunk by chunk to the protocol crate's decoder, and printing one
//! line per item, readable or JSON. It must not interpret messages beyond what the protocol
//! crate provides.

use std::fs;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use base64::Engine;
use chessclock_protocol::{ClockSide, DecodeError, Decoded, Decoder, Message, hex};
use serde_json::{Value, json};

/// Arguments of this subcommand.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Input file; `-` or nothing reads standard input.
    #[arg(value_name = "FILE", default_value = "-")]
    file: PathBuf,
    /// How the input is written.
    ///
    /// raw: the bytes as received. hex: hex digits, whitespace ignored, one chunk per line,
    /// `#` starts a comment. base64-lines: one base64 chunk per line, as in the captures'
    /// `.inbytes` files.
    #[arg(long, value_enum, default_value_t = Format::Raw)]
    format: Format,
}

/// How a recorded board stream is written (shared with `replay`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    Raw,
    Hex,
    Base64Lines,
}

/// Run `decode`; with `json`, one JSON object per line instead of readable text.
pub(crate) fn run(args: Args, json: bool) -> anyhow::Result<ExitCode> {
    let chunks = read_chunks(&args.file, args.format)?;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut decoder = Decoder::new();
    for chunk in &chunks {
        decoder.push(chunk);
        write_items(&mut out, &mut decoder, json)?;
    }
    decoder.finish();
    write_items(&mut out, &mut decoder, json)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Read a recorded board stream (`-` = standard input) as the chunks it was received in.
pub(crate) fn read_chunks(file: &Path, format: Format) -> anyhow::Result<Vec<Vec<u8>>> {
    let stdin = file.as_os_str() == "-";
    let name = if stdin {
        "standard input".to_owned()
    } else {
        file.display().to_string()
    };
    let raw = if stdin {
        let mut buf = Vec::new();
        io::stdin()
            .read_to_end(&mut buf)
            .context("reading standard input")?;
        buf
    } else {
        fs::read(file).with_context(|| format!("reading {name}"))?
    };
    Ok(match format {
        Format::Raw => vec![raw],
        Format::Hex => text_lines(&raw, &name)?
            .map(|(n, l)| parse_hex(l).with_context(|| at(&name, n)))
            .collect::<Result<_, _>>()?,
        Format::Base64Lines => text_lines(&raw, &name)?
            .map(|(n, l)| {
                base64::engine::general_purpose::STANDARD
                    .decode(l)
                    .map_err(|e| anyhow::anyhow!("{e}; expected one base64 chunk per line"))
                    .with_context(|| at(&name, n))
            })
            .collect::<Result<_, _>>()?,
    })
}

fn at(name: &str, line: usize) -> String {
    format!("{name} line {line}")
}

/// Non-empty, non-comment lines with their 1-based numbers, trimmed.
fn text_lines<'a>(
    raw: &'a [u8],
    name: &str,
) -> anyhow::Result<impl Iterator<Item = (usize, &'a str)>> {
    let text = std::str::from_utf8(raw)
        .with_context(|| format!("{name} is not text; use --format raw for binary captures"))?;
    Ok(text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#')))
}

fn parse_hex(line: &str) -> anyhow::Result<Vec<u8>> {
    let digits: Vec<char> = line.chars().filter(|c| !c.is_whitespace()).collect();
    if let Some(bad) = digits.iter().find(|c| !c.is_ascii_hexdigit()) {
        bail!("{bad:?} is not a hex digit; write bytes as pairs like \"8e 00 05\"");
    }
    if !digits.len().is_multiple_of(2) {
        bail!(
            "odd number of hex digits ({}); every byte needs two",
            digits.len()
        );
    }
    digits
        .chunks(2)
        .map(|p| {
            let s: String = p.iter().collect();
            u8::from_str_radix(&s, 16).with_context(|| format!("{s:?} is not a hex byte"))
        })
        .collect()
}

fn write_items(out: &mut impl Write, decoder: &mut Decoder, as_json: bool) -> io::Result<()> {
    for item in decoder.by_ref() {
        if as_json {
            writeln!(out, "{}", to_json(&item))?;
        } else {
            match &item {
                Ok(Decoded::Message(m)) => writeln!(out, "{m}")?,
                Ok(Decoded::Dropped(d)) => {
                    let more = if d.count > d.bytes.len() { " ..." } else { "" };
                    writeln!(out, "dropped {} bytes: {}{more}", d.count, hex(&d.bytes))?;
                }
                Err(e) => writeln!(out, "error {e}")?,
            }
        }
    }
    Ok(())
}

fn side(s: &ClockSide) -> Value {
    json!({
        "seconds": s.total_seconds(),
        "flag": s.flag,
        "final_flag": s.final_flag,
        "time_per_move": s.time_per_move,
    })
}

fn to_json(item: &Result<Decoded, DecodeError>) -> Value {
    let m = match item {
        Ok(Decoded::Message(m)) => m,
        Ok(Decoded::Dropped(d)) => {
            return json!({"type": "dropped", "bytes": hex(&d.bytes), "count": d.count});
        }
        Err(e) => {
            return json!({"type": "error", "id": e.id, "payload": hex(&e.payload), "message": e.to_string()});
        }
    };
    let ty = m.type_name();
    match m {
        Message::ClockReport(r) => json!({
            "type": ty,
            "left": side(&r.left),
            "right": side(&r.right),
            "running": r.running,
            "right_high": r.right_high,
            "battery_low": r.battery_low,
            "clock_connected": r.clock_connected,
            "status": r.status,
        }),
        Message::ClockAck(a) => {
            json!({"type": ty, "ack": a.bytes, "meaning": a.meaning().to_string()})
        }
        Message::FieldUpdate { square, piece } => json!({
            "type": ty,
            "square": square.to_string(),
            "piece": piece.map(|p| p.to_char().to_string()),
        }),
        Message::BoardDump(b) => json!({"type": "board", "pieces": b.to_piece_string()}),
        Message::Unknown { id, payload } => json!({"type": ty, "id": id, "payload": hex(payload)}),
        Message::EmptyClockReport => json!({"type": ty}),
        Message::Version { major, minor } => json!({"type": ty, "major": major, "minor": minor}),
        Message::BusAddress(a) => json!({"type": ty, "address": a}),
        Message::SerialNumber(s) | Message::Trademark(s) | Message::LongSerialNumber(s) => {
            json!({"type": ty, "text": s})
        }
        Message::BatteryStatus(b) => json!({
            "type": ty,
            "percent": b.percent,
            "hours_left": b.hours_left,
            "minutes_left": b.minutes_left,
            "on_hours": b.on_hours,
            "on_minutes": b.on_minutes,
            "standby_days": b.standby_days,
            "standby_hours": b.standby_hours,
            "standby_minutes": b.standby_minutes,
            "status": b.status,
        }),
        Message::EeMoves(p)
        | Message::BoardDump50B(p)
        | Message::BoardDump50W(p)
        | Message::HardwareVersion(p)
        | Message::I2cClock(p) => json!({"type": ty, "payload": hex(p)}),
    }
}
