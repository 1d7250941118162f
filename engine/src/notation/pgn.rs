//! PGN `TimeControl` values behind the `pgn:` prefix (spec §6.3): `?`, `-`, `*N`, `:`-separated
//! moves/seconds fields with `+inc`, and the Nocheto `S`/`B` delay suffixes and `=` per-side
//! form.
//!
//! Owns the PGN field syntax (read with nom) and its mapping to segments. PGN values never
//! draw the C9 "no increment or delay" warning.

use nom::{
    IResult, Parser,
    branch::alt,
    character::complete::{char, digit1, one_of},
    combinator::{all_consuming, map, opt},
};

use super::NotationError;
use super::errors::err;
use super::grammar::{self, Item};
use super::lexer::{MAX_MS, SECOND};
use super::methods;
use super::semantics::{self, OptAt, classify};
use crate::params::{DelayKind, Method, Params, Segment, TimeControl};

/// How `*N` is read (spec D5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sandclock {
    /// `*180` is 180 s of sand in all: 90 s per side (default, literal PGN reading).
    #[default]
    Split,
    /// `*180` is 180 s per side (Nocheto reading).
    PerSide,
}

#[derive(Debug, Clone, Copy)]
enum Suffix {
    Inc(u64),
    Delay(u64, DelayKind),
}

/// A PGN field as read: optional moves, seconds, optional suffix character and value.
type RawField = (
    Option<Option<u64>>,
    Option<u64>,
    Option<(char, Option<u64>)>,
);

struct Field {
    moves: Option<u32>,
    seconds: u64,
    suffix: Option<Suffix>,
}

fn int(i: &str) -> IResult<&str, Option<u64>> {
    map(digit1, |d: &str| d.parse::<u64>().ok()).parse(i)
}

fn field(i: &str) -> IResult<&str, RawField> {
    all_consuming((
        opt(map((int, char('/')), |(n, _)| n)),
        int,
        opt(alt(((char('+'), int), (one_of("SsBb"), int)))),
    ))
    .parse(i)
}

fn bad_field(text: &str, pos: usize) -> NotationError {
    err(
        format!("bad_pgn_field:{text}"),
        pos,
        format!(
            "`{text}` is not a PGN time-control field; fields look like `40/9000` (moves/seconds), \
             `300` or `300+2` (seconds + increment), `300S5`/`300B5` (delay), separated by `:`"
        ),
    )
}

fn secs_to_ms(s: u64, text: &str, pos: usize) -> Result<u64, NotationError> {
    s.checked_mul(SECOND)
        .filter(|&v| v <= MAX_MS)
        .ok_or_else(|| bad_field(text, pos))
}

fn read_field(text: &str, pos: usize) -> Result<Field, NotationError> {
    let (_, (moves, secs, suffix)) = field(text).map_err(|_| bad_field(text, pos))?;
    let moves = match moves {
        None => None,
        Some(n) => Some(
            n.and_then(|n| u32::try_from(n).ok())
                .filter(|n| (1..=crate::params::MAX_COUNT).contains(n))
                .ok_or_else(|| bad_field(text, pos))?,
        ),
    };
    let seconds = secs_to_ms(secs.ok_or_else(|| bad_field(text, pos))?, text, pos)?;
    let suffix = match suffix {
        None => None,
        Some((c, v)) => {
            let v = secs_to_ms(v.ok_or_else(|| bad_field(text, pos))?, text, pos)?;
            Some(match c {
                '+' => Suffix::Inc(v),
                'S' | 's' => Suffix::Delay(v, DelayKind::Us),
                _ => Suffix::Delay(v, DelayKind::Bronstein),
            })
        }
    };
    Ok(Field {
        moves,
        seconds,
        suffix,
    })
}

/// Under this many ms per move, a PGN moves field was probably written in minutes (or with
/// its numbers swapped): spec §6.3 `pgn_seconds_per_move`.
pub(crate) const MIN_MS_PER_MOVE: u64 = 10_000;

/// A sudden-death base with an increment under this many ms was probably written in minutes
/// (the Lichess `15+10` form): spec §6.3 `pgn_minutes_suspected`.
pub(crate) const MIN_SD_WITH_INC_MS: u64 = 60_000;

/// The §6.3 sanity warnings for one field as written (the value is still read as PGN says).
/// `pgn_seconds_per_move`: a moves field giving under 10 s per move (0 included).
/// `pgn_minutes_suspected`: a sudden-death field with a `+` increment (any value, `+0`
/// included) whose base is above 0 and under 60 s.
fn sanity_warnings(part: &str, f: &Field, warnings: &mut Vec<String>) {
    let secs = f.seconds / SECOND;
    match f.moves {
        Some(n) if f.seconds < MIN_MS_PER_MOVE.saturating_mul(u64::from(n)) => {
            let hint = if secs < u64::from(n) {
                format!("if the numbers are swapped write {secs}/{n}")
            } else {
                format!("if {secs} is minutes write {n}/{}", secs.saturating_mul(60))
            };
            warnings.push(format!(
                "pgn_seconds_per_move:{part} (read as {n} moves in {secs} s, under 10 s per                  move; PGN counts seconds: {hint})"
            ));
        }
        None if f.seconds > 0
            && f.seconds < MIN_SD_WITH_INC_MS
            && matches!(f.suffix, Some(Suffix::Inc(_))) =>
        {
            let inc = match f.suffix {
                Some(Suffix::Inc(v)) => v / SECOND,
                _ => 0,
            };
            warnings.push(format!(
                "pgn_minutes_suspected:{part} (read as {secs} s + {inc} s per move; PGN counts                  seconds: for {secs} minutes write {}+{inc})",
                secs.saturating_mul(60)
            ));
        }
        _ => {}
    }
}

/// One side's `:`-separated field list.
fn segments(
    text: &str,
    pos: usize,
    warnings: &mut Vec<String>,
) -> Result<Vec<Segment>, NotationError> {
    let parts: Vec<&str> = text.split(':').collect();
    let mut out = Vec::new();
    let mut off = pos;
    for (k, part) in parts.iter().enumerate() {
        let f = read_field(part, off)?;
        sanity_warnings(part, &f, warnings);
        if f.moves.is_none() && k + 1 < parts.len() {
            return Err(err(
                "sudden_death_not_last",
                off,
                format!(
                    "`{part}` has no move count, so it is sudden death and must be the last field; \
                     give it a count like `40/{part}` or move it to the end"
                ),
            ));
        }
        let mut seg = Segment::sudden_death(f.seconds);
        seg.moves = f.moves;
        match f.suffix {
            Some(Suffix::Inc(v)) if v > 0 => seg.inc_ms = Some(v),
            Some(Suffix::Delay(v, kind)) if v > 0 => {
                seg.delay_ms = Some(v);
                seg.delay_kind = Some(kind);
            }
            _ => {}
        }
        out.push(seg);
        off += part.len() + 1;
    }
    if out.iter().all(|s| s.base_ms == 0 && s.inc() == 0) {
        return Err(err(
            "no_base_time",
            pos,
            "the PGN value gives no playing time; write e.g. `pgn:300+2`",
        ));
    }
    Ok(out)
}

/// Parse the text after `pgn:` (`pos` = its offset in the input).
pub(crate) fn parse(
    body: &str,
    pos: usize,
    sandclock: Sandclock,
    warnings: &mut Vec<String>,
) -> Result<TimeControl, NotationError> {
    let lead = body.len() - body.trim_start().len();
    let body = body.trim();
    let pos = pos + lead;
    // D6 / §6.1: native options may follow the PGN value (`pgn:300+2 cr/after`).
    let (text, tail) = match body.find(char::is_whitespace) {
        Some(k) => (&body[..k], &body[k..]),
        None => (body, ""),
    };
    let opts = tail_options(tail, pos + text.len(), warnings)?;
    let mut control = value(text, pos, sandclock, warnings)?;
    if !opts.is_empty() {
        let kw = methods::method_keyword(control.method);
        if matches!(control.method, Method::Unknown | Method::None) {
            let o = opts[0];
            return Err(err(
                format!("option_not_supported_with_{kw}:{}", o.opt.keyword()),
                o.pos,
                format!(
                    "`pgn:{text}` configures no clock, so `{}/` has no meaning; remove it",
                    o.opt.keyword()
                ),
            ));
        }
        semantics::apply_options(kw, &opts, &mut control.params)?;
        semantics::check_fischer_max(&control.params, &opts)?;
    }
    Ok(control)
}

/// The options written after a PGN value; anything else there is an error.
fn tail_options(
    tail: &str,
    pos: usize,
    warnings: &mut Vec<String>,
) -> Result<Vec<OptAt>, NotationError> {
    let mut opts: Vec<OptAt> = Vec::new();
    for chunk in grammar::control(tail, pos, warnings)? {
        for s in chunk {
            let Item::Opt(o) = s.item else {
                return Err(err(
                    format!("unknown_item:{}", s.text),
                    s.pos,
                    format!(
                        "`{}`: only options (`cr/`, `tr/`, `flag/`, `max/`, `cap/`, `armageddon`) may follow a \
                         PGN value; write the whole control in PGN or in the native notation",
                        s.text
                    ),
                ));
            };
            if opts.iter().any(|a| a.opt.keyword() == o.keyword()) {
                return Err(err(
                    format!("duplicate_option:{}", o.keyword()),
                    s.pos,
                    format!("`{}` is given twice; keep one", o.spelling()),
                ));
            }
            opts.push(OptAt { opt: o, pos: s.pos });
        }
    }
    Ok(opts)
}

/// The PGN value itself (no options).
fn value(
    text: &str,
    pos: usize,
    sandclock: Sandclock,
    warnings: &mut Vec<String>,
) -> Result<TimeControl, NotationError> {
    let plain = |method| TimeControl {
        method,
        params: Params::default(),
    };
    match text {
        "?" => {
            warnings.push("time control unknown: cannot configure a clock".into());
            return Ok(plain(Method::Unknown));
        }
        "-" => {
            warnings.push("no time control: clock not used".into());
            return Ok(plain(Method::None));
        }
        "" => return Err(bad_field("", pos)),
        _ => {}
    }
    if let Some(sand) = text.strip_prefix('*') {
        let secs = sand
            .parse::<u64>()
            .ok()
            .filter(|&s| s > 0)
            .ok_or_else(|| bad_field(text, pos))?;
        let total = secs_to_ms(secs, text, pos)?;
        let per_side = match sandclock {
            Sandclock::Split => total / 2,
            Sandclock::PerSide => total,
        };
        warnings.push(match sandclock {
            Sandclock::Split => {
                format!("sandclock: total {secs} s split evenly, {per_side} ms per side")
            }
            Sandclock::PerSide => format!("sandclock: {secs} s per side ({per_side} ms)"),
        });
        return Ok(TimeControl {
            method: Method::Hourglass,
            params: Params {
                per_side_ms: Some(per_side),
                ..Params::default()
            },
        });
    }
    if let Some(eq) = text.find('=') {
        let (w, b) = (&text[..eq], &text[eq + 1..]);
        let ws = segments(w, pos, warnings)?;
        let bs = segments(b, pos + eq + 1, warnings)?;
        let (wm, bm) = (classify(&ws), classify(&bs));
        let Some(wm) = wm.per_side_with(bm) else {
            return Err(err(
                format!("per_side_methods_differ:{wm}/{bm}"),
                pos + eq + 1,
                format!(
                    "White's control is {wm} but Black's is {bm}; both sides must use the same method"
                ),
            ));
        };
        return Ok(TimeControl {
            method: wm,
            params: Params {
                segments_white: Some(ws),
                segments_black: Some(bs),
                ..Params::default()
            },
        });
    }
    let segs = segments(text, pos, warnings)?;
    Ok(TimeControl {
        method: classify(&segs),
        params: Params {
            segments: Some(segs),
            ..Params::default()
        },
    })
}
