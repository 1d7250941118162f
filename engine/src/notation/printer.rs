//! The canonical printer (spec §6.2): one text per control, which parses back to the same
//! control and prints the same again.
//!
//! Owns formatting only. It accepts any [`TimeControl`] (also one read from JSON that the
//! parser would refuse) and never panics: missing fields print as 0.

use crate::params::{Credit, DelayKind, Method, OnFlag, Params, Segment, TimeControl, Transition};

const MINUTE: u64 = 60_000;

/// A base-time position: whole minutes bare, else `Ns`, else `Nms`.
pub(crate) fn base(ms: u64) -> String {
    if ms.is_multiple_of(MINUTE) {
        (ms / MINUTE).to_string()
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// A per-move position: whole seconds bare, else `Nms`.
pub(crate) fn per_move(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        format!("{ms}ms")
    }
}

/// The base of an `n/DUR` period. A bare value that D8 would read as hours gets an explicit
/// `m` so that it parses back to minutes.
fn period_base(moves: u32, ms: u64) -> String {
    let text = base(ms);
    if ms.is_multiple_of(MINUTE) && (ms / MINUTE).saturating_mul(6) < u64::from(moves) {
        format!("{text}m")
    } else {
        text
    }
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum Mod {
    None,
    Inc(u64),
    Delay(u64, DelayKind),
    Both(u64, u64, DelayKind),
}

fn modifier(s: &Segment) -> Mod {
    match (s.inc(), s.delay()) {
        (0, None) => Mod::None,
        (i, None) => Mod::Inc(i),
        (0, Some((d, k))) => Mod::Delay(d, k),
        (i, Some((d, k))) => Mod::Both(i, d, k),
    }
}

fn delay_text(d: u64, k: DelayKind) -> String {
    match k {
        DelayKind::Us => format!("d/{}", per_move(d)),
        DelayKind::Bronstein => format!("br/{}", per_move(d)),
    }
}

fn mod_text(m: Mod) -> String {
    match m {
        Mod::None => "d/0".into(),
        Mod::Inc(i) => format!("inc/{}", per_move(i)),
        Mod::Delay(d, k) => delay_text(d, k),
        Mod::Both(i, d, k) => format!("inc/{} {}", per_move(i), delay_text(d, k)),
    }
}

fn segment_text(s: &Segment, only: bool) -> String {
    match s.moves {
        Some(n) => format!("{n}/{}", period_base(n, s.base_ms)),
        None if only => format!("G/{}", base(s.base_ms)),
        None => format!("SD/{}", base(s.base_ms)),
    }
}

/// Periods without modifiers (double-flag main time).
fn bare_segments(segs: &[Segment]) -> String {
    let only = segs.len() == 1;
    segs.iter()
        .map(|s| segment_text(s, only))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Periods with one modifier per group of consecutive equal modifiers.
fn segments(segs: &[Segment]) -> String {
    if segs.is_empty() {
        return "G/0 d/0".into();
    }
    let only = segs.len() == 1;
    let mut groups: Vec<(Mod, Vec<String>)> = Vec::new();
    for s in segs {
        let m = modifier(s);
        match groups.last_mut() {
            Some((gm, items)) if *gm == m => items.push(segment_text(s, only)),
            _ => groups.push((m, vec![segment_text(s, only)])),
        }
    }
    groups
        .into_iter()
        .map(|(m, items)| format!("{} {}", items.join(" "), mod_text(m)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `G/B pinc/i:N:F` when the list has the phased-increment shape.
fn pinc(segs: &[Segment]) -> Option<String> {
    match segs {
        [first, last] if last.moves.is_none() && last.inc() == 0 && last.delay().is_none() => {
            let n = first.moves?;
            if first.delay().is_some() {
                return None;
            }
            Some(format!(
                "G/{} pinc/{}:{n}:{}",
                base(first.base_ms),
                per_move(first.inc()),
                base(last.base_ms)
            ))
        }
        _ => None,
    }
}

fn side(method: Method, segs: &[Segment]) -> String {
    if matches!(
        method,
        Method::PhasedIncrement | Method::PhasedIncrementVariable
    ) && let Some(p) = pinc(segs)
    {
        return p;
    }
    segments(segs)
}

fn options(method: Method, p: &Params, out: &mut Vec<String>) {
    let pinc = matches!(
        method,
        Method::PhasedIncrement | Method::PhasedIncrementVariable
    );
    match p.credit {
        Some(Credit::After) if !pinc => out.push("cr/after".into()),
        Some(Credit::Before) => out.push("cr/before".into()),
        _ => {}
    }
    match p.transition {
        Some(Transition::Flag) => out.push("tr/flag".into()),
        Some(Transition::FlagBoth) => out.push("tr/flagboth".into()),
        _ => {}
    }
    if p.on_flag == Some(OnFlag::Continue) {
        out.push("flag/continue".into());
    }
    if let Some(m) = p.cap_ms {
        out.push(format!("max/{}", base(m)));
    }
    if let Some(m) = p.max_total_ms {
        out.push(format!("max/{}", base(m)));
    }
    if let Some(c) = p.overall_cap_ms {
        out.push(format!("cap/{}", base(c)));
    }
    if p.armageddon == Some(true) {
        out.push("armageddon".into());
    }
}

/// The canonical text of a control. `unknown` and `none` print as `pgn:?` and `pgn:-`.
pub fn canonical(tc: &TimeControl) -> String {
    let p = &tc.params;
    let g = |v: Option<u64>| format!("G/{}", base(v.unwrap_or(0)));
    let mut parts: Vec<String> = Vec::new();
    match tc.method {
        Method::Unknown => return "pgn:?".into(),
        Method::None => return "pgn:-".into(),
        m if m.is_segment_based() => match (&p.segments_white, &p.segments_black) {
            (Some(w), Some(b)) => {
                parts.push(format!("W{{{}}} B{{{}}}", side(m, w), side(m, b)));
            }
            _ => parts.push(side(m, p.segments.as_deref().unwrap_or(&[]))),
        },
        Method::Hourglass => parts.push(format!("HG/{}", base(p.per_side_ms.unwrap_or(0)))),
        Method::CountUp => parts.push("UP".into()),
        Method::PerSide => {
            let side =
                |c: &Option<Box<TimeControl>>| c.as_deref().map(canonical).unwrap_or_default();
            parts.push(format!("W{{{}}} B{{{}}}", side(&p.white), side(&p.black)));
        }
        Method::Byoyomi => parts.push(format!(
            "{} byo/{}x{}",
            g(p.main_ms),
            p.periods.unwrap_or(0),
            per_move(p.period_ms.unwrap_or(0))
        )),
        Method::Canadian => parts.push(format!(
            "{} can/{}/{}",
            g(p.main_ms),
            p.stones.unwrap_or(0),
            base(p.period_ms.unwrap_or(0))
        )),
        Method::DoubleFlag => parts.push(format!(
            "{} df/{}:{}:{}",
            bare_segments(p.main_segments.as_deref().unwrap_or(&[])),
            per_move(p.extra_ms.unwrap_or(0)),
            per_move(p.bonus_ms.unwrap_or(0)),
            p.scheme.unwrap_or(crate::params::Scheme::Hybrid).as_str()
        )),
        Method::PhasedCountdown | Method::PhasedCountdownTriple => {
            let incs: Vec<String> = p
                .reserve_incs_ms
                .iter()
                .flatten()
                .map(|&r| per_move(r))
                .collect();
            parts.push(format!("{} rsv/{}", g(p.main_ms), incs.join(":")));
        }
        _ => {
            let mut s = format!(
                "{} swing/{}",
                g(p.reserve_ms),
                per_move(p.swing_ms.unwrap_or(0))
            );
            if let Some(n) = p.cutoff_moves {
                s.push_str(&format!(":{n}"));
            }
            parts.push(s);
        }
    }
    options(tc.method, p, &mut parts);
    parts.join(" ")
}
