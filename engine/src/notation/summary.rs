//! A control in one line (`90 moves in 30 min, repeating`), for a command that has just set
//! it, and the notations that are likely a slip, with what was probably meant (`90/30` typed
//! for 90 minutes and 30 s a move).
//!
//! Owns this wording only, as [`super::explain`] owns the long form; it accepts any
//! [`TimeControl`] without panicking and changes no reading of the notation.

use super::Parsed;
use super::explain::human;
use crate::params::{DelayKind, Method, Segment, TimeControl};

/// What `tc` means, in one line: `15 min + 10 s a move`, `40 moves in 2 h, then 1 h, + 30 s a
/// move`, `90 moves in 30 min, repeating`, `hourglass, 5 min each`.
pub fn summary(tc: &TimeControl) -> String {
    let p = &tc.params;
    let v = |x: Option<u64>| human(x.unwrap_or(0));
    let mut text = match tc.method {
        Method::Unknown => return "unknown (PGN `?`): it sets no clock".to_owned(),
        Method::None => return "no time control (PGN `-`): the clock is not used".to_owned(),
        Method::PerSide => {
            let side = |who: &str, c: &Option<Box<TimeControl>>| {
                c.as_deref()
                    .map(|c| format!("{who} {}", summary(c)))
                    .unwrap_or_default()
            };
            format!("{}; {}", side("White", &p.white), side("Black", &p.black))
        }
        Method::PhasedIncrement | Method::PhasedIncrementVariable => {
            match p.segments.as_deref().unwrap_or_default() {
                [first, last] => format!(
                    "{} + {} a move for the first {} moves, then {} more and no increment",
                    human(first.base_ms),
                    human(first.inc()),
                    first.moves.unwrap_or(0),
                    human(last.base_ms)
                ),
                segs => segments(segs),
            }
        }
        Method::SuddenDeath => format!(
            "{}, sudden death",
            segments(p.segments.as_deref().unwrap_or_default())
        ),
        m if m.is_segment_based() => match (&p.segments_white, &p.segments_black) {
            (Some(w), Some(b)) => format!("White {}; Black {}", segments(w), segments(b)),
            _ => segments(p.segments.as_deref().unwrap_or_default()),
        },
        Method::Hourglass => format!("hourglass, {} each", v(p.per_side_ms)),
        Method::Byoyomi => format!(
            "{} main time, then {} byo-yomi periods of {}",
            v(p.main_ms),
            p.periods.unwrap_or(0),
            v(p.period_ms)
        ),
        Method::Canadian => format!(
            "{} main time, then {} moves in every {}",
            v(p.main_ms),
            p.stones.unwrap_or(0),
            v(p.period_ms)
        ),
        Method::DoubleFlag => format!(
            "double-flag: {} of main time, then {} of extra time (bonus {} a move)",
            segments(p.main_segments.as_deref().unwrap_or_default()),
            v(p.extra_ms),
            v(p.bonus_ms)
        ),
        Method::PhasedCountdown | Method::PhasedCountdownTriple => {
            let r = p.reserve_incs_ms.as_deref().unwrap_or_default();
            let mut t = format!(
                "phased countdown: {} main time, {} to the reserve a move",
                v(p.main_ms),
                v(r.first().copied())
            );
            if let Some(r2) = r.get(1) {
                t.push_str(&format!(", {} to a second reserve", human(*r2)));
            }
            t
        }
        Method::CountUp => "count-up: both clocks count the time used, with no limit".to_owned(),
        _ => {
            let mut t = format!(
                "swing: {} reserve and {} swing each",
                v(p.reserve_ms),
                v(p.swing_ms)
            );
            if let Some(n) = p.cutoff_moves {
                t.push_str(&format!(", until move {n}"));
            }
            t
        }
    };
    if let Some(cap) = p.cap_ms {
        text.push_str(&format!(", never above {}", human(cap)));
    }
    if let Some(cap) = p.overall_cap_ms {
        text.push_str(&format!(", at most {} in all", human(cap)));
    }
    if p.armageddon == Some(true) {
        text.push_str(", Armageddon (Black has draw odds)");
    }
    text
}

/// What a press adds in a segment: `+ 10 s a move`, `with a 5 s delay`; empty for none.
fn modifier(s: &Segment) -> String {
    match s.delay() {
        Some((d, DelayKind::Us)) => format!("with a {} delay", human(d)),
        Some((d, DelayKind::Bronstein)) => format!("with a {} Bronstein delay", human(d)),
        None if s.inc() > 0 => format!("+ {} a move", human(s.inc())),
        None => String::new(),
    }
}

/// Periods in a row: `40 moves in 2 h, then 1 h`, each press's addition once when they share
/// it, `, repeating` when the last period has a move count.
fn segments(segs: &[Segment]) -> String {
    let Some(last) = segs.last() else {
        return "no time".to_owned();
    };
    let shared = segs.iter().all(|s| modifier(s) == modifier(last));
    let periods: Vec<String> = segs
        .iter()
        .map(|s| {
            let time = match s.moves {
                Some(n) => format!("{n} moves in {}", human(s.base_ms)),
                None => human(s.base_ms),
            };
            match modifier(s) {
                m if shared || m.is_empty() => time,
                m => format!("{time} ({m})"),
            }
        })
        .collect();
    let mut text = periods.join(", then ");
    if last.moves.is_some() {
        text.push_str(", repeating");
    }
    match modifier(last) {
        m if !shared || m.is_empty() => text,
        m if segs.len() == 1 && last.moves.is_none() => format!("{text} {m}"),
        m => format!("{text}, {m}"),
    }
}

/// A hint when `input` reads, as written, as something a person rarely means: a single
/// repeating `N/M` period of more moves than minutes and nothing else (`90/30` is 90 moves in
/// 30 min, repeating, under a minute a move), which is most often `N` minutes and `M` seconds
/// a move written with the wrong separator. `None` for every other notation.
pub fn likely_slip(input: &str, parsed: &Parsed) -> Option<String> {
    let tc = &parsed.control;
    let [only] = tc.params.segments.as_deref()? else {
        return None;
    };
    let moves = only.moves?;
    let minutes = only.base_ms / 60_000;
    let bare = input.trim();
    let written = format!("{moves}/{minutes}");
    let plain = tc.method == Method::Segments
        && only.base_ms % 60_000 == 0
        && u64::from(moves) > minutes
        && modifier(only).is_empty()
        && bare == written;
    plain.then(|| {
        format!(
            "{written} means {}; for {moves} min + {minutes} s a move write {moves}+{minutes} \
             (or G/{moves} inc/{minutes})",
            summary(tc)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse;

    fn said(notation: &str) -> String {
        summary(&parse(notation).expect(notation).control)
    }

    #[test]
    fn one_line_says_each_common_control() {
        assert_eq!(said("90/30"), "90 moves in 30 min, repeating");
        assert_eq!(said("G/15 inc/10"), "15 min + 10 s a move");
        assert_eq!(said("15+10"), "15 min + 10 s a move");
        assert_eq!(said("G/60"), "1 h, sudden death");
        assert_eq!(said("G/5 d/3"), "5 min with a 3 s delay");
        assert_eq!(said("G/5 br/3"), "5 min with a 3 s Bronstein delay");
        assert_eq!(
            said("40/120 SD/60 inc/30"),
            "40 moves in 2 h, then 1 h, + 30 s a move"
        );
        assert_eq!(said("40/90 SD/30"), "40 moves in 1 h 30 min, then 30 min");
        assert_eq!(said("HG/3"), "hourglass, 3 min each");
        assert_eq!(
            said("G/60 byo/5x30"),
            "1 h main time, then 5 byo-yomi periods of 30 s"
        );
        assert_eq!(
            said("G/30 can/25/5"),
            "30 min main time, then 25 moves in every 5 min"
        );
        assert_eq!(
            said("G/60 pinc/60:40:60"),
            "1 h + 1 min a move for the first 40 moves, then 1 h more and no increment"
        );
        assert_eq!(
            said("W{G/5 inc/3} B{G/3 inc/2}"),
            "White 5 min + 3 s a move; Black 3 min + 2 s a move"
        );
        assert_eq!(
            said("UP cap/90"),
            "count-up: both clocks count the time used, with no limit, at most 1 h 30 min in all"
        );
    }

    #[test]
    fn every_method_in_the_table_of_the_docs_gets_one_line_of_its_own() {
        let table = [
            "G/5 d/0",
            "G/3 inc/2",
            "G/30 d/5",
            "G/5 br/5",
            "40/90 SD/30 inc/30",
            "HG/3",
            "G/60 byo/5x30",
            "G/30 can/25/5",
            "G/15 df/60:10:hybrid",
            "G/120 rsv/60",
            "G/120 rsv/60:30",
            "G/60 pinc/60:40:60",
            "G/30 swing/30:40",
            "G/30 swing/30",
            "UP",
            "pgn:?",
            "pgn:-",
        ];
        let mut lines = std::collections::BTreeSet::new();
        for notation in table {
            let line = said(notation);
            assert!(
                !line.is_empty() && !line.contains('\n'),
                "{notation}: {line}"
            );
            assert!(
                lines.insert(line.clone()),
                "{notation} says what another does: {line}"
            );
        }
    }

    #[test]
    fn more_moves_than_minutes_in_one_bare_period_is_a_likely_slip() {
        let hint = |n: &str| likely_slip(n, &parse(n).expect(n));
        let h = hint("90/30").expect("a hint");
        assert_eq!(
            h,
            "90/30 means 90 moves in 30 min, repeating; for 90 min + 30 s a move write 90+30 \
             (or G/90 inc/30)"
        );
        for fine in [
            "40/120",
            "40/90 SD/30",
            "30/30",
            "90/30 inc/30",
            "90/30m d/0",
            "G/90 inc/30",
        ] {
            assert_eq!(hint(fine), None, "{fine}");
        }
    }
}
