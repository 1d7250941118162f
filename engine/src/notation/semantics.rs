//! Meaning of a parsed control (spec §6.1 "Semantics and defaults"): increment/delay scoping
//! (USCF 5A7d), the choice of method, each method's base time, option checks, and the
//! per-side `W{..} B{..}` combination with its `max/` validation.
//!
//! Owns validity of item combinations. It reads no text (that is `grammar`) and prints
//! nothing (that is `printer`).

use super::NotationError;
use super::errors::{self, err};
use super::grammar::{Chunks, Item, MethodItem, Modifier, OptItem, SegmentItem};
use super::methods;
use crate::params::{Credit, Method, OnFlag, Params, Segment, TimeControl};

/// A built control and what the warnings need to know about it.
#[derive(Debug, Clone)]
pub(crate) struct Built {
    pub control: TimeControl,
    /// The text named an increment or delay somewhere (C9).
    pub named_modifier: bool,
}

/// An option with its position.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OptAt {
    pub opt: OptItem,
    pub pos: usize,
}

/// A segment item with where it was written and its chunk.
pub(crate) struct SegAt {
    pub seg: SegmentItem,
    pub pos: usize,
    pub text: String,
    pub chunk: usize,
}

struct ModAt {
    m: Modifier,
    pos: usize,
    text: String,
    chunk: usize,
}

/// Build one control. `end` is the byte offset just past it (for errors about something
/// missing); with `options_allowed == false` options are refused (inside `W{..}`/`B{..}`).
pub(crate) fn build(
    chunks: &Chunks,
    end: usize,
    options_allowed: bool,
) -> Result<Built, NotationError> {
    let mut segs = Vec::new();
    let mut mods = Vec::new();
    let mut methods: Vec<(&MethodItem, usize, &str)> = Vec::new();
    let mut opts: Vec<OptAt> = Vec::new();
    for (chunk, items) in chunks.iter().enumerate() {
        for s in items {
            match &s.item {
                Item::Segment(seg) => segs.push(SegAt {
                    seg: seg.clone(),
                    pos: s.pos,
                    text: s.text.clone(),
                    chunk,
                }),
                Item::Modifier(m) => mods.push(ModAt {
                    m: *m,
                    pos: s.pos,
                    text: s.text.clone(),
                    chunk,
                }),
                Item::Method(m) => methods.push((m, s.pos, &s.text)),
                Item::Opt(o) => {
                    if !options_allowed {
                        return Err(err(
                            format!("option_inside_braces:{}", o.keyword()),
                            s.pos,
                            format!("`{}` applies to both sides: put it after `B{{..}}`", s.text),
                        ));
                    }
                    if opts.iter().any(|a| a.opt.keyword() == o.keyword()) {
                        return Err(err(
                            format!("duplicate_option:{}", o.keyword()),
                            s.pos,
                            format!("`{}` is given twice; keep one", o.spelling()),
                        ));
                    }
                    opts.push(OptAt {
                        opt: *o,
                        pos: s.pos,
                    });
                }
            }
        }
    }
    if let Some((_, pos, text)) = methods.get(1) {
        return Err(err(
            "conflicting_methods",
            *pos,
            format!(
                "`{text}` is a second timing method; a control uses one method \
                 (`{}` was already given): remove one",
                methods.first().map_or("", |m| m.2)
            ),
        ));
    }
    let named_modifier = !mods.is_empty() || segs.iter().any(|s| s.seg.modifier.is_some());
    let Some((method, mpos, mtext)) = methods.first().copied() else {
        let segments = scoped_segments(&segs, &mods, chunks.len(), end)?;
        let control = segment_control(segments, &opts, end)?;
        return Ok(Built {
            control,
            named_modifier,
        });
    };
    let kw = method.keyword();
    if let Some(m) = mods.first() {
        return Err(not_supported_with(kw, &m.text, m.pos));
    }
    if let Some(s) = segs.iter().find(|s| s.seg.modifier.is_some()) {
        return Err(not_supported_with(kw, &s.text, s.pos));
    }
    let control = methods::method_control(method, (mpos, mtext), &segs, end)?;
    let mut control = control;
    apply_options(kw, &opts, &mut control.params)?;
    Ok(Built {
        control,
        named_modifier,
    })
}

fn not_supported_with(kw: &str, text: &str, pos: usize) -> NotationError {
    err(
        format!("increment_or_delay_not_supported_with_{kw}"),
        pos,
        format!(
            "`{text}`: `{}` controls take no increment or delay; remove `{text}`",
            errors::method_word(kw)
        ),
    )
}

fn two_modifiers(a: &str, b: &str, pos: usize) -> NotationError {
    err(
        "increment_and_delay_on_same_segment",
        pos,
        format!(
            "`{b}`: a period already has `{a}`; a period can have one increment or one delay, \
             not both: remove one"
        ),
    )
}

/// Attach increments/delays to segments (USCF 5A7d) and check sudden death is last.
fn scoped_segments(
    segs: &[SegAt],
    mods: &[ModAt],
    n_chunks: usize,
    end: usize,
) -> Result<Vec<Segment>, NotationError> {
    if segs.is_empty() {
        return Err(no_base_time(end));
    }
    check_sd_last(segs)?;
    let mut assigned: Vec<Option<(Modifier, &str)>> = segs
        .iter()
        .map(|s| s.seg.modifier.map(|m| (m, s.text.as_str())))
        .collect();
    let seg_chunks: Vec<usize> = segs.iter().map(|s| s.chunk).collect();
    let chunks_with_mods: Vec<usize> = {
        let mut c: Vec<usize> = mods.iter().map(|m| m.chunk).collect();
        c.dedup();
        c
    };
    let last_chunk_only =
        chunks_with_mods.len() == 1 && chunks_with_mods.first() == Some(&(n_chunks - 1));
    let mut global = Vec::new();
    for (i, m) in mods.iter().enumerate() {
        if let Some(prev) = mods[..i].iter().rev().find(|p| p.chunk == m.chunk) {
            return Err(two_modifiers(&prev.text, &m.text, m.pos));
        }
        let own: Vec<usize> = (0..segs.len())
            .filter(|&k| seg_chunks[k] == m.chunk)
            .collect();
        if own.is_empty() {
            global.push(m);
            continue;
        }
        for &k in &own {
            if let Some((_, prev)) = assigned[k] {
                return Err(two_modifiers(prev, &m.text, m.pos));
            }
            assigned[k] = Some((m.m, m.text.as_str()));
        }
        if last_chunk_only {
            global.push(m);
        }
    }
    for m in global {
        let mut used = false;
        for slot in assigned.iter_mut() {
            if slot.is_none() {
                *slot = Some((m.m, m.text.as_str()));
                used = true;
            }
        }
        let own_chunk = seg_chunks.contains(&m.chunk);
        if !used && !own_chunk {
            let prev = assigned.iter().flatten().next().map_or("", |a| a.1);
            return Err(two_modifiers(prev, &m.text, m.pos));
        }
    }
    Ok(segs
        .iter()
        .zip(assigned)
        .map(|(s, m)| make_segment(&s.seg, m.map(|x| x.0)))
        .collect())
}

pub(crate) fn make_segment(s: &SegmentItem, m: Option<Modifier>) -> Segment {
    let mut seg = Segment::sudden_death(s.base_ms);
    seg.moves = s.moves;
    match m {
        Some(Modifier::Inc(v)) if v > 0 => seg.inc_ms = Some(v),
        Some(Modifier::Delay(v, kind)) if v > 0 => {
            seg.delay_ms = Some(v);
            seg.delay_kind = Some(kind);
        }
        _ => {}
    }
    seg
}

pub(crate) fn check_sd_last(segs: &[SegAt]) -> Result<(), NotationError> {
    if let Some(s) = segs.iter().rev().skip(1).find(|s| s.seg.moves.is_none()) {
        return Err(err(
            "sudden_death_not_last",
            s.pos,
            format!(
                "`{}` is sudden death (all remaining moves) and must be the last period; \
                 move it to the end or give it a move count like `40/{}`",
                s.text,
                s.seg.base_ms / 60_000
            ),
        ));
    }
    Ok(())
}

pub(crate) fn no_base_time(pos: usize) -> NotationError {
    err(
        "no_base_time",
        pos,
        "the control gives no playing time; start with a period such as `G/30` or `40/120`",
    )
}

/// Sudden death, Fischer, US delay, Bronstein or segments, from the segment list.
pub(crate) fn classify(segments: &[Segment]) -> Method {
    match segments {
        [s] if s.moves.is_none() => match (s.inc(), s.delay()) {
            (0, None) => Method::SuddenDeath,
            (_, None) => Method::Fischer,
            (_, Some((_, crate::params::DelayKind::Us))) => Method::UsDelay,
            (_, Some(_)) => Method::Bronstein,
        },
        _ => Method::Segments,
    }
}

fn segment_control(
    segments: Vec<Segment>,
    opts: &[OptAt],
    end: usize,
) -> Result<TimeControl, NotationError> {
    if segments.iter().all(|s| s.base_ms == 0 && s.inc() == 0) {
        return Err(no_base_time(end));
    }
    let method = classify(&segments);
    let mut params = Params {
        segments: Some(segments),
        ..Params::default()
    };
    apply_options("segments", opts, &mut params)?;
    check_fischer_max(&params, opts)?;
    Ok(TimeControl { method, params })
}

/// The Fischer maximum must hold the starting clock (spec §4.2).
pub(crate) fn check_fischer_max(params: &Params, opts: &[OptAt]) -> Result<(), NotationError> {
    let (Some(cap), Some(first)) = (
        params.cap_ms,
        params.segments.as_ref().and_then(|s| s.first()),
    ) else {
        return Ok(());
    };
    let credit = params.credit.unwrap_or_default();
    let start = first.base_ms.saturating_add(if credit == Credit::Fide {
        first.inc()
    } else {
        0
    });
    if start > cap {
        let pos = opts
            .iter()
            .find(|o| matches!(o.opt, OptItem::Max(_)))
            .map_or(0, |o| o.pos);
        return Err(err(
            format!("exceeds_max:both:{start}>{cap}"),
            pos,
            format!(
                "the clock starts at {start} ms, above the maximum of {cap} ms; raise `max/` \
                 or lower the base time"
            ),
        ));
    }
    Ok(())
}

/// Which options each kind of control takes.
fn option_allowed(kw: &str, opt: OptItem) -> bool {
    match opt {
        OptItem::Cap(_) | OptItem::OnFlag(OnFlag::Freeze) => true,
        // D16: countdown methods only; hourglass, swing and double flag define their own
        // flag consequences.
        OptItem::OnFlag(OnFlag::Continue) => !matches!(kw, "hg" | "swing" | "df" | "up"),
        // A method per side takes the options of the whole game only.
        OptItem::Credit(_) | OptItem::Max(_) => kw == "segments",
        OptItem::Transition(_) if kw == "per_side" => false,
        OptItem::Transition(_) => matches!(kw, "segments" | "df"),
        // A double-flag control has its own draw rules (a win on extra time is a draw, the
        // draw claim, both main times out): Armageddon's draw odds are not defined with them.
        OptItem::Armageddon => kw != "df",
    }
}

/// Put options into `params`; `kw` is `segments` or a method keyword.
pub(crate) fn apply_options(
    kw: &str,
    opts: &[OptAt],
    params: &mut Params,
) -> Result<(), NotationError> {
    for o in opts {
        if !option_allowed(kw, o.opt) {
            let k = o.opt.keyword();
            let message = if o.opt == OptItem::Armageddon {
                "`armageddon` (a draw scores for Black) is not defined with a double-flag \
                 control, whose own rules turn wins into draws: remove one of them"
                    .to_owned()
            } else if matches!(o.opt, OptItem::OnFlag(OnFlag::Continue)) {
                format!(
                    "`flag/continue` is for countdown methods (D16); a `{}` control has its \
                     own flag rules: remove it",
                    errors::method_word(kw)
                )
            } else {
                format!(
                    "`{k}/` has no meaning for a `{}` control; remove it",
                    errors::method_word(kw)
                )
            };
            return Err(err(
                format!("option_not_supported_with_{kw}:{k}"),
                o.pos,
                message,
            ));
        }
        match o.opt {
            OptItem::Cap(v) => params.overall_cap_ms = Some(v),
            OptItem::Max(v) => params.cap_ms = Some(v),
            OptItem::Credit(c) => params.credit = Some(c),
            OptItem::Transition(t) => params.transition = Some(t),
            OptItem::OnFlag(f) => params.on_flag = Some(f),
            OptItem::Armageddon => params.armageddon = Some(true),
        }
    }
    Ok(())
}
