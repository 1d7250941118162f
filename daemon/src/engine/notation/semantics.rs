//! Meaning of a parsed control (spec §6.1 "Semantics and defaults"): increment/delay scoping
//! (USCF 5A7d), the choice of method, each method's base time, option checks, and the
//! per-side `W{..} B{..}` combination with its `max/` validation.
//!
//! Owns validity of item combinations. It reads no text (that is `grammar`) and prints
//! nothing (that is `printer`).

use super::NotationError;
use super::errors::err;
use super::grammar::{Chunks, Item, MethodItem, Modifier, OptItem, SegmentItem};
use crate::engine::params::{Credit, Method, Params, Segment, TimeControl};

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

struct SegAt {
    seg: SegmentItem,
    pos: usize,
    text: String,
    chunk: usize,
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
                            format!("`{}/` is given twice; keep one", o.keyword()),
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
    let Some((method, mpos, _)) = methods.first().copied() else {
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
    let control = method_control(method, mpos, &segs, end)?;
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
        format!("`{text}`: `{kw}/` controls take no increment or delay; remove `{text}`"),
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

fn make_segment(s: &SegmentItem, m: Option<Modifier>) -> Segment {
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

fn check_sd_last(segs: &[SegAt]) -> Result<(), NotationError> {
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

fn no_base_time(pos: usize) -> NotationError {
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
            (_, Some((_, crate::engine::params::DelayKind::Us))) => Method::UsDelay,
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
fn check_fischer_max(params: &Params, opts: &[OptAt]) -> Result<(), NotationError> {
    let (Some(cap), Some(first)) = (
        params.cap_ms,
        params.segments.as_ref().and_then(|s| s.first()),
    ) else {
        return Ok(());
    };
    let credit = params.credit.unwrap_or_default();
    let start = first.base_ms
        + if credit == Credit::Fide {
            first.inc()
        } else {
            0
        };
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
        OptItem::Cap(_) | OptItem::OnFlag(_) => true,
        OptItem::Credit(_) | OptItem::Max(_) => kw == "segments",
        OptItem::Transition(_) => matches!(kw, "segments" | "df"),
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
            return Err(err(
                format!("option_not_supported_with_{kw}:{k}"),
                o.pos,
                format!("`{k}/` has no meaning for a `{kw}/` control; remove it"),
            ));
        }
        match o.opt {
            OptItem::Cap(v) => params.overall_cap_ms = Some(v),
            OptItem::Max(v) => params.cap_ms = Some(v),
            OptItem::Credit(c) => params.credit = Some(c),
            OptItem::Transition(t) => params.transition = Some(t),
            OptItem::OnFlag(f) => params.on_flag = Some(f),
        }
    }
    Ok(())
}

/// The single `G/` base of byo, can, rsv, pinc and swing (`None`: no segment at all).
fn single_base(kw: &str, segs: &[SegAt]) -> Result<Option<u64>, NotationError> {
    match segs {
        [] => Ok(None),
        [s] if s.seg.moves.is_none() => Ok(Some(s.seg.base_ms)),
        [s, ..] => Err(err(
            format!("{kw}_needs_single_sudden_death_base"),
            s.pos,
            format!(
                "`{kw}/` takes its main time from one `G/` period (e.g. `G/60 {kw}/..`); \
                 replace the periods with a single `G/`"
            ),
        )),
    }
}

fn positive(v: u64, what: &str, pos: usize, text: &str) -> Result<u64, NotationError> {
    if v == 0 {
        return Err(err(
            format!("bad_duration:{text}"),
            pos,
            format!("`{text}`: the {what} must be longer than 0"),
        ));
    }
    Ok(v)
}

fn method_control(
    m: &MethodItem,
    mpos: usize,
    segs: &[SegAt],
    end: usize,
) -> Result<TimeControl, NotationError> {
    let kw = m.keyword();
    let mtext = kw;
    let needs_base = |base: Option<u64>| base.filter(|&b| b > 0).ok_or_else(|| no_base_time(end));
    let (method, params) = match m {
        MethodItem::Hourglass(h) => {
            if let Some(s) = segs.first() {
                return Err(err(
                    "hourglass_takes_no_segments",
                    s.pos,
                    format!(
                        "`{}`: an hourglass has only `HG/` time per side; remove the period",
                        s.text
                    ),
                ));
            }
            let h = needs_base(Some(*h))?;
            (
                Method::Hourglass,
                Params {
                    per_side_ms: Some(h),
                    ..Params::default()
                },
            )
        }
        MethodItem::Byo { periods, period_ms } => {
            let main = single_base(kw, segs)?.unwrap_or(0);
            let period = positive(*period_ms, "byo-yomi period", mpos, mtext)?;
            let p = Params {
                main_ms: Some(main),
                periods: Some(*periods),
                period_ms: Some(period),
                ..Params::default()
            };
            (Method::Byoyomi, p)
        }
        MethodItem::Can { stones, period_ms } => {
            let main = single_base(kw, segs)?.unwrap_or(0);
            let period = positive(*period_ms, "Canadian period", mpos, mtext)?;
            let p = Params {
                main_ms: Some(main),
                stones: Some(*stones),
                period_ms: Some(period),
                ..Params::default()
            };
            (Method::Canadian, p)
        }
        MethodItem::Rsv(incs) => {
            let main = needs_base(single_base(kw, segs)?)?;
            let method = if incs.len() > 1 {
                Method::PhasedCountdownTriple
            } else {
                Method::PhasedCountdown
            };
            (
                method,
                Params {
                    main_ms: Some(main),
                    reserve_incs_ms: Some(incs.clone()),
                    ..Params::default()
                },
            )
        }
        MethodItem::Pinc {
            inc_ms,
            cutoff,
            final_ms,
        } => {
            let base = needs_base(single_base(kw, segs)?)?;
            let first = Segment {
                moves: Some(*cutoff),
                inc_ms: (*inc_ms > 0).then_some(*inc_ms),
                ..Segment::sudden_death(base)
            };
            let p = Params {
                segments: Some(vec![first, Segment::sudden_death(*final_ms)]),
                credit: Some(Credit::After),
                ..Params::default()
            };
            (Method::PhasedIncrement, p)
        }
        MethodItem::Swing { swing_ms, cutoff } => {
            let reserve = single_base(kw, segs)?.ok_or_else(|| no_base_time(end))?;
            if reserve == 0 && *swing_ms == 0 {
                return Err(no_base_time(end));
            }
            let method = if cutoff.is_some() {
                Method::PhasedSwing
            } else {
                Method::PhasedSwingOpen
            };
            let p = Params {
                reserve_ms: Some(reserve),
                swing_ms: Some(*swing_ms),
                cutoff_moves: *cutoff,
                ..Params::default()
            };
            (method, p)
        }
        MethodItem::Df {
            extra_ms,
            bonus_ms,
            scheme,
        } => {
            if segs.is_empty() {
                return Err(no_base_time(end));
            }
            check_sd_last(segs)?;
            if let Some(last) = segs.last().filter(|s| s.seg.moves.is_some()) {
                return Err(err(
                    "df_needs_final_sudden_death",
                    last.pos,
                    format!(
                        "`{}`: double-flag main time must end with a sudden-death period; add e.g. `SD/30`",
                        last.text
                    ),
                ));
            }
            let extra = positive(*extra_ms, "double-flag extra time", mpos, mtext)?;
            if bonus_ms > extra_ms {
                return Err(err(
                    "df_bonus_exceeds_cap",
                    mpos,
                    format!(
                        "the bonus ({bonus_ms} ms) is larger than the extra time cap ({extra_ms} ms); lower the bonus"
                    ),
                ));
            }
            let main: Vec<Segment> = segs.iter().map(|s| make_segment(&s.seg, None)).collect();
            if main.iter().all(|s| s.base_ms == 0) {
                return Err(no_base_time(end));
            }
            let p = Params {
                main_segments: Some(main),
                extra_ms: Some(extra),
                bonus_ms: Some(*bonus_ms),
                scheme: Some(*scheme),
                ..Params::default()
            };
            (Method::DoubleFlag, p)
        }
    };
    Ok(TimeControl { method, params })
}

/// The keyword of a non-segment method (for per-side errors).
pub(crate) fn method_keyword(m: Method) -> &'static str {
    match m {
        Method::Hourglass => "hg",
        Method::Byoyomi => "byo",
        Method::Canadian => "can",
        Method::DoubleFlag => "df",
        Method::PhasedCountdown | Method::PhasedCountdownTriple => "rsv",
        Method::PhasedSwing | Method::PhasedSwingOpen => "swing",
        Method::PhasedIncrement | Method::PhasedIncrementVariable => "pinc",
        Method::Unknown => "unknown",
        Method::None => "none",
        _ => "segments",
    }
}
