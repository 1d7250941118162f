//! The validated rules of a control: the per-method parameters the engine runs on, built
//! from the JSON form, and the segment schedule arithmetic (which period governs move m,
//! where the cumulative move boundaries are).
//!
//! Pure functions of the parameters; no game state here.

use crate::params::{
    Credit, DelayKind, Method, OnFlag, Params, Scheme, Segment, TimeControl, Transition,
};

use super::types::ConfigError;

/// What a method needs at run time.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// Segment-based methods (sudden death, Fischer, delays, segments, phased increment).
    Segments {
        /// Per side (White, Black).
        segs: [Vec<Segment>; 2],
        credit: Credit,
        transition: Transition,
        cap_ms: Option<u64>,
        /// `sd` phase naming: a single sudden-death segment.
        /// (per side: each side's own periods decide, as a method per side may differ).
        single_sd: [bool; 2],
    },
    Hourglass {
        per_side: u64,
    },
    Byoyomi {
        main: u64,
        periods: u32,
        period: u64,
    },
    Canadian {
        main: u64,
        stones: u32,
        period: u64,
    },
    DoubleFlag {
        segs: Vec<Segment>,
        /// How main-time periods are added (spec §4.10 "as 4.5").
        transition: Transition,
        extra: u64,
        bonus: u64,
        scheme: Scheme,
    },
    PhasedCountdown {
        main: u64,
        incs: Vec<u64>,
    },
    Swing {
        reserve: u64,
        swing: u64,
        cutoff: Option<u32>,
    },
    /// Count-up: no parameters (the independent cap is the core's).
    CountUp,
    /// A different method for each side (White's, Black's): only methods whose sides do not
    /// interact.
    PerSide(Box<[Kind; 2]>),
}

/// Rules of a game.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rules {
    pub kind: Kind,
    pub on_flag: OnFlag,
    pub overall_cap: Option<u64>,
    /// Armageddon: a draw scores as a win for Black.
    pub armageddon: bool,
}

fn need<T: Copy>(v: Option<T>, method: Method, field: &str) -> Result<T, ConfigError> {
    v.ok_or_else(|| ConfigError(format!("{method} needs params.{field}")))
}

fn check_segments(segs: &[Segment], what: &str) -> Result<(), ConfigError> {
    if segs.is_empty() {
        return Err(ConfigError(format!(
            "{what}: at least one segment is needed"
        )));
    }
    for (i, s) in segs.iter().enumerate() {
        if s.moves.is_none() && i + 1 != segs.len() {
            return Err(ConfigError(format!(
                "{what}: segment {} is sudden death but not last; sudden death must be the last segment",
                i + 1
            )));
        }
        if s.moves == Some(0) {
            return Err(ConfigError(format!(
                "{what}: segment {} has 0 moves; give a positive move count",
                i + 1
            )));
        }
        if s.inc() > 0 && s.delay().is_some() {
            return Err(ConfigError(format!(
                "{what}: segment {} has both an increment and a delay; keep one",
                i + 1
            )));
        }
    }
    Ok(())
}

impl Rules {
    pub(crate) fn new(tc: &TimeControl) -> Result<Rules, ConfigError> {
        let p: &Params = &tc.params;
        let m = tc.method;
        p.check_limits().map_err(ConfigError)?;
        let kind = match m {
            Method::SuddenDeath
            | Method::Fischer
            | Method::UsDelay
            | Method::Bronstein
            | Method::Segments
            | Method::PhasedIncrement
            | Method::PhasedIncrementVariable => {
                let (w, b) = match (&p.segments, &p.segments_white, &p.segments_black) {
                    (_, Some(w), Some(b)) => (w.clone(), b.clone()),
                    (Some(s), None, None) => (s.clone(), s.clone()),
                    _ => {
                        return Err(ConfigError(format!(
                            "{m} needs params.segments, or both segments_white and segments_black"
                        )));
                    }
                };
                check_segments(&w, "White's segments")?;
                check_segments(&b, "Black's segments")?;
                let credit = match m {
                    Method::PhasedIncrement | Method::PhasedIncrementVariable => {
                        p.credit.unwrap_or(Credit::After)
                    }
                    _ => p.credit.unwrap_or_default(),
                };
                let single = |s: &[Segment]| s.len() == 1 && s[0].moves.is_none();
                let single_sd = [single(&w), single(&b)];
                if let Some(max) = p.max_total_ms {
                    for (side, segs) in [("white", &w), ("black", &b)] {
                        let total = max_total(segs);
                        if total > max {
                            return Err(ConfigError(format!(
                                "exceeds_max:{side}:{total}>{max}: {side}'s declared parameters allow {total} ms, more than the maximum {max} ms"
                            )));
                        }
                    }
                }
                Kind::Segments {
                    segs: [w, b],
                    credit,
                    transition: p.transition.unwrap_or_default(),
                    cap_ms: p.cap_ms,
                    single_sd,
                }
            }
            Method::Hourglass => Kind::Hourglass {
                per_side: need(p.per_side_ms, m, "per_side_ms")?,
            },
            Method::Byoyomi => Kind::Byoyomi {
                main: p.main_ms.unwrap_or(0),
                periods: need(p.periods, m, "periods")?.max(1),
                period: need(p.period_ms, m, "period_ms")?,
            },
            Method::Canadian => Kind::Canadian {
                main: p.main_ms.unwrap_or(0),
                stones: need(p.stones, m, "stones")?.max(1),
                period: need(p.period_ms, m, "period_ms")?,
            },
            Method::DoubleFlag => {
                let segs = p
                    .main_segments
                    .clone()
                    .ok_or_else(|| ConfigError("double_flag needs params.main_segments".into()))?;
                check_segments(&segs, "main time")?;
                if segs.last().is_some_and(|s| s.moves.is_some()) {
                    return Err(ConfigError(
                        "df_needs_final_sudden_death: double flag needs a final sudden-death segment".into(),
                    ));
                }
                let extra = need(p.extra_ms, m, "extra_ms")?;
                let bonus = need(p.bonus_ms, m, "bonus_ms")?;
                if bonus > extra {
                    return Err(ConfigError(
                        "df_bonus_exceeds_cap: the bonus cannot exceed the extra time".into(),
                    ));
                }
                Kind::DoubleFlag {
                    segs,
                    transition: p.transition.unwrap_or_default(),
                    extra,
                    bonus,
                    scheme: p.scheme.unwrap_or(Scheme::Hybrid),
                }
            }
            Method::PhasedCountdown | Method::PhasedCountdownTriple => {
                let incs = p.reserve_incs_ms.clone().unwrap_or_default();
                if incs.is_empty() || incs.len() > 2 {
                    return Err(ConfigError(
                        "phased countdown needs one or two reserve increments".into(),
                    ));
                }
                Kind::PhasedCountdown {
                    main: need(p.main_ms, m, "main_ms")?,
                    incs,
                }
            }
            Method::PhasedSwing | Method::PhasedSwingOpen => Kind::Swing {
                reserve: need(p.reserve_ms, m, "reserve_ms")?,
                swing: need(p.swing_ms, m, "swing_ms")?,
                cutoff: if m == Method::PhasedSwing {
                    Some(need(p.cutoff_moves, m, "cutoff_moves")?)
                } else {
                    None
                },
            },
            Method::CountUp => Kind::CountUp,
            Method::PerSide => {
                let side = |c: &Option<Box<TimeControl>>, who: &str| {
                    let c = c.as_deref().ok_or_else(|| {
                        ConfigError(format!("per_side needs params.{who}, a control"))
                    })?;
                    let rules = Rules::new(c).map_err(|e| ConfigError(format!("{who}: {e}")))?;
                    match rules.kind {
                        Kind::Hourglass { .. }
                        | Kind::Swing { .. }
                        | Kind::DoubleFlag { .. }
                        | Kind::CountUp
                        | Kind::PerSide(_) => Err(ConfigError(format!(
                            "{who}: {} cannot be one side of a method per side (its sides \
                             interact, or it is per side already)",
                            c.method
                        ))),
                        kind => Ok(kind),
                    }
                };
                Kind::PerSide(Box::new([
                    side(&p.white, "white")?,
                    side(&p.black, "black")?,
                ]))
            }
            Method::Unknown | Method::None => {
                return Err(ConfigError(format!(
                    "method {m} cannot run a clock; give a time control"
                )));
            }
        };
        let on_flag = p.on_flag.unwrap_or_default();
        if on_flag == OnFlag::Continue
            && matches!(
                kind,
                Kind::Hourglass { .. }
                    | Kind::Swing { .. }
                    | Kind::DoubleFlag { .. }
                    | Kind::CountUp
            )
        {
            return Err(ConfigError(format!(
                "on_flag continue is for countdown methods (spec D16); {m} defines its own flag consequences"
            )));
        }
        if p.transition.is_some_and(|t| t != Transition::Moves)
            && !matches!(kind, Kind::Segments { .. } | Kind::DoubleFlag { .. })
        {
            return Err(ConfigError(format!(
                "transition applies to move-counted periods; {m} has none"
            )));
        }
        let armageddon = p.armageddon == Some(true);
        if armageddon && matches!(kind, Kind::DoubleFlag { .. }) {
            return Err(ConfigError(
                "armageddon is not defined with double_flag, whose own rules turn wins into draws; remove one of them".into(),
            ));
        }
        Ok(Rules {
            kind,
            on_flag,
            overall_cap: p.overall_cap_ms,
            armageddon,
        })
    }
}

/// Segment `p` of a schedule (the last one repeats).
pub(crate) fn seg_at(segs: &[Segment], p: usize) -> &Segment {
    &segs[p.min(segs.len() - 1)]
}

/// Cumulative move count at the end of period `p`, or `None` for a sudden-death period.
/// Closed form: O(number of segments), whatever `p` (the last segment repeats).
pub(crate) fn boundary(segs: &[Segment], p: usize) -> Option<u64> {
    let n = segs.len();
    if n == 0 {
        return None;
    }
    let mut total = 0u64;
    for s in &segs[..=p.min(n - 1)] {
        total = total.saturating_add(u64::from(s.moves?));
    }
    if p >= n {
        let last = u64::from(segs[n - 1].moves?);
        let repeats = u64::try_from(p - (n - 1)).unwrap_or(u64::MAX);
        total = total.saturating_add(repeats.saturating_mul(last));
    }
    Some(total)
}

/// Index of the period that governs move `m` (1-based): the first period whose boundary is
/// at or after `m`, or the sudden-death period. Closed form: O(number of segments).
pub(crate) fn period_of_move(segs: &[Segment], m: u32) -> usize {
    let m = u64::from(m);
    let mut cum = 0u64;
    for (k, s) in segs.iter().enumerate() {
        let Some(c) = s.moves else { return k };
        cum += u64::from(c);
        if cum >= m {
            return k;
        }
    }
    let Some(last) = segs.last().and_then(|s| s.moves).filter(|&c| c > 0) else {
        return segs.len().saturating_sub(1);
    };
    let more = (m - cum).div_ceil(u64::from(last));
    (segs.len() - 1).saturating_add(usize::try_from(more).unwrap_or(usize::MAX))
}

/// The period after a reconfiguration with `next` the next move: the one that governs it
/// under `tr/moves`; under `tr/flag`/`tr/flagboth` periods are reached by running out of
/// time, so the period already reached (`kept`) stays, never beyond the moves.
pub(crate) fn period_after(
    segs: &[Segment],
    transition: Transition,
    next: u32,
    kept: usize,
) -> usize {
    let derived = period_of_move(segs, next);
    if transition == Transition::Moves {
        derived
    } else {
        kept.min(derived)
    }
}

/// The next period starts: `period` moves on and its base time joins `main`.
pub(crate) fn next_period(segs: &[Segment], main: &mut u64, period: &mut usize) {
    *period += 1;
    *main = main.saturating_add(seg_at(segs, *period).base_ms);
}

/// An arbiter correction of the move counter to `moves` under `tr/moves`: the period that
/// governs the next move is reached, with every base time up to it (closed form).
pub(crate) fn catch_up(
    segs: &[Segment],
    transition: Transition,
    main: &mut u64,
    period: &mut usize,
    moves: u32,
) {
    let target = period_of_move(segs, moves.saturating_add(1));
    if transition == Transition::Moves && target > *period {
        *main = main.saturating_add(bases_between(segs, *period, target));
        *period = target;
    }
}

/// Sum of the base times of periods `from + 1 ..= to` (what moving from period `from` to
/// period `to` adds). Closed form: O(number of segments).
pub(crate) fn bases_between(segs: &[Segment], from: usize, to: usize) -> u64 {
    let n = segs.len();
    if n == 0 || to <= from {
        return 0;
    }
    let mut total = 0u64;
    for s in segs.iter().take(to.min(n - 1) + 1).skip(from + 1) {
        total = total.saturating_add(s.base_ms);
    }
    let repeat_from = from.max(n - 1);
    if to > repeat_from {
        let k = u64::try_from(to - repeat_from).unwrap_or(u64::MAX);
        total = total.saturating_add(k.saturating_mul(segs[n - 1].base_ms));
    }
    total
}

/// The increment of the segment that governs move `m`.
pub(crate) fn inc_for_move(segs: &[Segment], m: u32) -> u64 {
    seg_at(segs, period_of_move(segs, m)).inc()
}

/// The delay of the segment that governs move `m`.
pub(crate) fn delay_for_move(segs: &[Segment], m: u32) -> Option<(u64, DelayKind)> {
    seg_at(segs, period_of_move(segs, m)).delay()
}

/// Largest total a schedule can give (phased increment variable parameters): every base plus
/// every increment up to the last move-counted period.
fn max_total(segs: &[Segment]) -> u64 {
    segs.iter().fold(0u64, |acc, s| {
        acc.saturating_add(s.base_ms)
            .saturating_add(s.inc().saturating_mul(u64::from(s.moves.unwrap_or(0))))
    })
}

/// Double-flag bonus formula (spec §4.10, D10).
pub(crate) fn bonus(scheme: Scheme, t: u64, b: u64, m: u64) -> u64 {
    match scheme {
        Scheme::Truncated => t.saturating_add(b).min(m),
        Scheme::Linear => {
            if m == 0 {
                t
            } else {
                // b·t can exceed u64 for long (but valid) times: compute in u128.
                let cut = (u128::from(b) * u128::from(t)).div_ceil(u128::from(m));
                let v = (u128::from(t) + u128::from(b)).saturating_sub(cut);
                u64::try_from(v).unwrap_or(u64::MAX)
            }
        }
        Scheme::Hybrid => {
            let half = (u128::from(t) + u128::from(m)) / 2;
            t.saturating_add(b)
                .min(u64::try_from(half).unwrap_or(u64::MAX))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(moves: Option<u32>, base: u64) -> Segment {
        Segment {
            moves,
            ..Segment::sudden_death(base)
        }
    }

    #[test]
    fn repeating_boundaries_and_periods() {
        let segs = vec![seg(Some(3), 60_000), seg(Some(2), 30_000)];
        assert_eq!(boundary(&segs, 0), Some(3));
        assert_eq!(boundary(&segs, 1), Some(5));
        assert_eq!(boundary(&segs, 2), Some(7));
        assert_eq!(period_of_move(&segs, 3), 0);
        assert_eq!(period_of_move(&segs, 4), 1);
        assert_eq!(period_of_move(&segs, 6), 2);
    }

    /// The closed forms agree with the step-by-step definitions.
    #[test]
    fn closed_forms_match_the_walk() {
        let shapes: Vec<Vec<Segment>> = vec![
            vec![seg(Some(1), 60_000)],
            vec![seg(Some(3), 60_000), seg(Some(2), 30_000)],
            vec![seg(Some(40), 1), seg(Some(20), 2), seg(None, 3)],
            vec![seg(Some(5), 10), seg(Some(7), 20), seg(Some(3), 40)],
            vec![seg(None, 5)],
        ];
        for segs in &shapes {
            let walk_boundary = |p: usize| -> Option<u64> {
                (0..=p).map(|j| seg_at(segs, j).moves.map(u64::from)).sum()
            };
            for p in 0..60 {
                assert_eq!(boundary(segs, p), walk_boundary(p), "{segs:?} p={p}");
            }
            for m in 0..200u32 {
                let mut p = 0;
                while walk_boundary(p).is_some_and(|c| c < u64::from(m)) {
                    p += 1;
                }
                assert_eq!(period_of_move(segs, m), p, "{segs:?} m={m}");
            }
            for from in 0..20 {
                for to in 0..30 {
                    let walk: u64 = (from + 1..=to).map(|j| seg_at(segs, j).base_ms).sum();
                    assert_eq!(bases_between(segs, from, to), walk, "{from}..{to}");
                }
            }
        }
        // Far periods are instant.
        let one = vec![seg(Some(1), 60_000)];
        assert_eq!(period_of_move(&one, u32::MAX), (u32::MAX - 1) as usize);
        assert_eq!(boundary(&one, 1_000_000), Some(1_000_001));
    }

    #[test]
    fn bonus_formulas_match_the_seed_examples() {
        let m = 60_000;
        assert_eq!(bonus(Scheme::Hybrid, 44_000, 10_000, m), 52_000);
        assert_eq!(bonus(Scheme::Hybrid, 42_000, 10_000, m), 51_000);
        assert_eq!(bonus(Scheme::Hybrid, 58_000, 10_000, m), 59_000);
        assert_eq!(bonus(Scheme::Truncated, 55_000, 10_000, m), 60_000);
        assert_eq!(bonus(Scheme::Linear, 30_000, 10_000, m), 35_000);
        assert_eq!(bonus(Scheme::Linear, 44_000, 10_000, m), 46_666);
        // Products beyond u64 do not overflow.
        let big = u64::MAX / 2;
        assert_eq!(bonus(Scheme::Linear, big, big, big), big);
        assert_eq!(
            bonus(Scheme::Hybrid, u64::MAX, u64::MAX, u64::MAX),
            u64::MAX
        );
    }
}
