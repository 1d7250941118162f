//! The non-segment methods of the native grammar (spec §4.7-§4.14 parameters): hourglass,
//! byo-yomi, Canadian, double flag, phased countdown, phased increment, phased swing and
//! count-up (`UP`, docs/timecontrols.md), each
//! built from its method item and the `G/` base, with the checks each one needs.
//!
//! Owns building these methods' params. Increment/delay refusal and options are handled by
//! `semantics`, which calls this module.

use super::NotationError;
use super::errors::err;
use super::grammar::MethodItem;
use super::semantics::{SegAt, check_sd_last, make_segment, no_base_time};
use crate::params::{Credit, Method, Params, Segment, TimeControl};

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

pub(crate) fn method_control(
    m: &MethodItem,
    (mpos, mtext): (usize, &str),
    segs: &[SegAt],
    end: usize,
) -> Result<TimeControl, NotationError> {
    let kw = m.keyword();
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
        MethodItem::Up => {
            if let Some(s) = segs.first() {
                return Err(err(
                    "up_takes_no_segments",
                    s.pos,
                    format!(
                        "`{}`: a count-up clock has no time to count down; remove the period \
                         (a limit is `cap/`, e.g. `UP cap/90`)",
                        s.text
                    ),
                ));
            }
            (Method::CountUp, Params::default())
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
        Method::CountUp => "up",
        Method::PerSide => "per_side",
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
