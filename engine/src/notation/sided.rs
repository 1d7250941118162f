//! Per-side controls `W{..} B{..} options` (spec §6.1): time odds, and phased increment with
//! variable parameters validated against the declared `max/`.
//!
//! Owns splitting the braces and combining two sides into one [`TimeControl`]. Each side's
//! own meaning comes from `semantics`.

use super::NotationError;
use super::errors::{self, err};
use super::grammar::{self, Item, OptItem};
use super::methods;
use super::semantics::{self, Built, OptAt};
use crate::params::{Credit, Method, Params, Segment, TimeControl};

/// Whether the input uses the per-side form (starts with `W{`).
pub(crate) fn is_sided(input: &str) -> bool {
    let t = input.trim_start().as_bytes();
    t.len() >= 2 && t[0].eq_ignore_ascii_case(&b'w') && t[1] == b'{'
}

/// One side's text and its offset.
struct Brace<'a> {
    text: &'a str,
    start: usize,
}

/// Find `<letter>{ ... }` at `at`; returns the content and the offset after `}`.
fn brace<'a>(
    input: &'a str,
    at: usize,
    letter: u8,
    side: &str,
) -> Result<(Brace<'a>, usize), NotationError> {
    let rest = input.get(at..).unwrap_or("");
    let skipped = rest.len() - rest.trim_start().len();
    let at = at + skipped;
    let b = input.as_bytes();
    let opens =
        b.get(at).is_some_and(|c| c.eq_ignore_ascii_case(&letter)) && b.get(at + 1) == Some(&b'{');
    if !opens {
        let tok: String = input
            .get(at..)
            .unwrap_or("")
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_string();
        return Err(err(
            format!("unknown_item:{tok}"),
            at,
            format!(
                "expected `{}{{..}}` with {side}'s control here; the per-side form is \
                 `W{{G/60 inc/30}} B{{G/30 inc/30}}`",
                letter.to_ascii_uppercase() as char
            ),
        ));
    }
    let start = at + 2;
    let Some(len) = input.get(start..).and_then(|r| r.find('}')) else {
        return Err(err(
            "unknown_item:{",
            at + 1,
            format!(
                "`{}{{` is not closed; add `}}` after {side}'s control",
                letter.to_ascii_uppercase() as char
            ),
        ));
    };
    let text = input.get(start..start + len).unwrap_or("");
    Ok((Brace { text, start }, start + len + 1))
}

/// Parse a whole per-side notation. Warnings are appended in order (White first).
pub(crate) fn parse(input: &str, warnings: &mut Vec<String>) -> Result<TimeControl, NotationError> {
    let (w, after_w) = brace(input, 0, b'w', "White")?;
    let (b, after_b) = brace(input, after_w, b'b', "Black")?;
    let mut w_warn = Vec::new();
    let w_chunks = grammar::control(w.text, w.start, &mut w_warn)?;
    let white = semantics::build(&w_chunks, w.start + w.text.len(), false)?;
    let mut b_warn = Vec::new();
    let b_chunks = grammar::control(b.text, b.start, &mut b_warn)?;
    let black = semantics::build(&b_chunks, b.start + b.text.len(), false)?;
    let tail = input.get(after_b..).unwrap_or("");
    let mut t_warn = Vec::new();
    let mut opts = Vec::new();
    for chunk in grammar::control(tail, after_b, &mut t_warn)? {
        for s in chunk {
            match s.item {
                Item::Opt(o) => {
                    if opts.iter().any(|a: &OptAt| a.opt.keyword() == o.keyword()) {
                        return Err(err(
                            format!("duplicate_option:{}", o.keyword()),
                            s.pos,
                            format!("`{}` is given twice; keep one", o.spelling()),
                        ));
                    }
                    opts.push(OptAt { opt: o, pos: s.pos });
                }
                _ => {
                    return Err(err(
                        format!("unknown_item:{}", s.text),
                        s.pos,
                        format!(
                            "`{}`: only options (`max/`, `cap/`, `cr/`, `tr/`, `flag/`, `armageddon`) may follow \
                             `B{{..}}`; move it inside the braces",
                            s.text
                        ),
                    ));
                }
            }
        }
    }
    warnings.extend(w_warn);
    if white.control.method.is_segment_based() && !white.named_modifier && !is_pinc(&white) {
        warnings.push(errors::no_modifier_warning(Some("White")));
    }
    warnings.extend(b_warn);
    if black.control.method.is_segment_based() && !black.named_modifier && !is_pinc(&black) {
        warnings.push(errors::no_modifier_warning(Some("Black")));
    }
    combine(white, black, &opts, b.start, input.len())
}

fn is_pinc(b: &Built) -> bool {
    b.control.method == Method::PhasedIncrement
}

fn segments_of(b: Built) -> Vec<Segment> {
    b.control.params.segments.unwrap_or_default()
}

fn combine(
    white: Built,
    black: Built,
    opts: &[OptAt],
    black_pos: usize,
    end: usize,
) -> Result<TimeControl, NotationError> {
    let (wm, bm) = (white.control.method, black.control.method);
    // A method per side: two methods whose sides do not interact, not both period controls
    // (those share the segment engine, below).
    let mixable = |m: Method| {
        !matches!(
            m,
            Method::Hourglass
                | Method::PhasedSwing
                | Method::PhasedSwingOpen
                | Method::DoubleFlag
                | Method::CountUp
                | Method::PhasedIncrement
                | Method::PhasedIncrementVariable
        )
    };
    if mixable(wm) && mixable(bm) && !(wm.is_segment_based() && bm.is_segment_based()) {
        let mut params = Params {
            white: Some(Box::new(white.control)),
            black: Some(Box::new(black.control)),
            ..Params::default()
        };
        semantics::apply_options("per_side", opts, &mut params)?;
        return Ok(TimeControl {
            method: Method::PerSide,
            params,
        });
    }
    if !wm.is_segment_based() {
        let kw = methods::method_keyword(wm);
        return Err(err(
            format!("per_side_not_supported_for_{kw}"),
            0,
            format!(
                "`{}` controls cannot differ per side; write one control without `W{{..}} B{{..}}`",
                errors::method_word(kw)
            ),
        ));
    }
    let Some(wm) = wm.per_side_with(bm) else {
        return Err(err(
            format!("per_side_methods_differ:{wm}/{bm}"),
            black_pos,
            format!(
                "White's control is {wm} but Black's is {bm}; hourglass, phased swing, double \
                 flag, phased increment and count-up cannot be mixed with another method"
            ),
        ));
    };
    if wm == Method::PhasedIncrement {
        let Some(max) = opts.iter().find_map(|o| match o.opt {
            OptItem::Max(v) => Some(v),
            _ => None,
        }) else {
            return Err(err(
                "variable_parameters_need_max",
                end,
                "per-side phased increment declarations need the declared limit: add e.g. `max/160` after `B{..}`",
            ));
        };
        let (ws, bs) = (segments_of(white), segments_of(black));
        for (side, segs) in [("white", &ws), ("black", &bs)] {
            let total = pinc_total(segs);
            if total > max {
                return Err(err(
                    format!("exceeds_max:{side}:{total}>{max}"),
                    if side == "white" { 0 } else { black_pos },
                    format!(
                        "{side}'s declaration allows {total} ms in all (base + moves x increment + final), \
                         above the declared maximum of {max} ms; lower it or raise `max/`"
                    ),
                ));
            }
        }
        let mut params = Params {
            segments_white: Some(ws),
            segments_black: Some(bs),
            credit: Some(Credit::After),
            max_total_ms: Some(max),
            ..Params::default()
        };
        let others: Vec<OptAt> = opts
            .iter()
            .copied()
            .filter(|o| !matches!(o.opt, OptItem::Max(_)))
            .collect();
        semantics::apply_options("pinc", &others, &mut params)?;
        return Ok(TimeControl {
            method: Method::PhasedIncrementVariable,
            params,
        });
    }
    let mut params = Params {
        segments_white: Some(segments_of(white)),
        segments_black: Some(segments_of(black)),
        ..Params::default()
    };
    semantics::apply_options("segments", opts, &mut params)?;
    Ok(TimeControl { method: wm, params })
}

/// `B + N·i + F` of a phased-increment segment list (saturating).
pub(crate) fn pinc_total(segs: &[Segment]) -> u64 {
    let mut total: u64 = 0;
    for s in segs {
        let per_move = s.inc().saturating_mul(u64::from(s.moves.unwrap_or(0)));
        total = total.saturating_add(s.base_ms).saturating_add(per_move);
    }
    total
}
