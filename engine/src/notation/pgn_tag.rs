//! A control as a PGN `TimeControl` tag value (PGN standard 9.6.1), for game records.
//!
//! Owns only this rendering: the standard forms (`?`, `-`, `40/9000`, `300`, `4500+60`,
//! `*180`) and the `+inc` inside a moves field (`40/5400+30:1800+30`) that spec §6.3 accepts.
//! A control the PGN form cannot say gives `None` (never an approximation); the Nocheto
//! extensions (`S`/`B` delays, `=` per side) are not standard PGN and are not written.

use crate::params::{Method, Params, Segment, TimeControl, Transition};

const SECOND: u64 = 1000;

/// The PGN `TimeControl` value for `tc`, or `None` when PGN has no form for it.
///
/// Written: sudden death, Fischer and multi-period controls (shared by both sides, whole
/// seconds, no delay, move-counted transitions, no Fischer maximum or independent cap) as
/// `:`-separated fields; hourglass as `*N` with N the total sand (both sides' time, spec D5);
/// `?` and `-`. The increment convention (`cr/`) and the flag behaviour (`flag/`) are clock
/// conventions, not part of the control (spec D6), so they do not prevent a tag; nor does
/// `armageddon`, a scoring rule (the game's PGN says it in a comment). Reading
/// the tag back with `pgn:` gives the same control up to those two options.
pub fn pgn_time_control(tc: &TimeControl) -> Option<String> {
    let p = &tc.params;
    match tc.method {
        Method::Unknown => Some("?".into()),
        Method::None => Some("-".into()),
        Method::Hourglass => {
            let per_side = p.per_side_ms?;
            let only_per_side = Params {
                per_side_ms: p.per_side_ms,
                on_flag: p.on_flag,
                armageddon: p.armageddon,
                ..Params::default()
            };
            if *p != only_per_side || per_side == 0 || !per_side.is_multiple_of(SECOND / 2) {
                return None;
            }
            Some(format!("*{}", per_side.saturating_mul(2) / SECOND))
        }
        Method::SuddenDeath | Method::Fischer | Method::Segments => {
            let segs = p.segments.as_ref()?;
            let only_segments = Params {
                segments: p.segments.clone(),
                credit: p.credit,
                on_flag: p.on_flag,
                transition: p.transition.filter(|t| *t == Transition::Moves),
                armageddon: p.armageddon,
                ..Params::default()
            };
            if *p != only_segments || segs.is_empty() {
                return None;
            }
            let fields: Option<Vec<String>> = segs.iter().map(field).collect();
            Some(fields?.join(":"))
        }
        _ => None,
    }
}

/// One segment as a PGN field: `n/secs[+inc]` or `secs[+inc]`.
fn field(s: &Segment) -> Option<String> {
    if s.delay().is_some() || !s.base_ms.is_multiple_of(SECOND) || !s.inc().is_multiple_of(SECOND) {
        return None;
    }
    let base = s.base_ms / SECOND;
    let inc = match s.inc() {
        0 => String::new(),
        i => format!("+{}", i / SECOND),
    };
    Some(match s.moves {
        Some(n) => format!("{n}/{base}{inc}"),
        None => format!("{base}{inc}"),
    })
}
