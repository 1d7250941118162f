//! Which rating system a control belongs to: US Chess rule 5B (the rating systems follow
//! from the total playing time `mm + ss`) and FIDE's categories (Laws of Chess, Appendices A
//! and B: standard, rapid, blitz from the time for 60 moves).
//!
//! Pure functions of a [`TimeControl`]; they read no game state. Only the period-based
//! methods (sudden death, Fischer, delays, periods, also per side) have a classification:
//! the rules define none for byo-yomi, hourglass and the other methods, which get `None`.

use serde::Serialize;

use crate::params::{Segment, TimeControl};
use crate::rules::{bases_between, period_of_move};

const MINUTE: u64 = 60_000;

/// A US Chess rating system (rule 5B), as `timecontrol parse --json` gives it (`uscf_rating`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UscfRating {
    /// Regular only: total playing time over 65 minutes.
    Regular,
    /// Both regular and quick: 30 to 65 minutes.
    Dual,
    /// Quick only: over 10 and under 30 minutes.
    Quick,
    /// Blitz: 5 to 10 minutes, at least 3 minutes' primary time.
    Blitz,
}

impl UscfRating {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            UscfRating::Regular => "regular",
            UscfRating::Dual => "dual",
            UscfRating::Quick => "quick",
            UscfRating::Blitz => "blitz",
        }
    }

    /// The rating systems a game is rated in, in words.
    pub fn systems(self) -> &'static str {
        match self {
            UscfRating::Regular => "regular",
            UscfRating::Dual => "regular and quick (dual rated)",
            UscfRating::Quick => "quick",
            UscfRating::Blitz => "blitz",
        }
    }
}

/// A FIDE category (Laws of Chess, Appendices A and B), JSON `fide_category`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FideCategory {
    /// 60 minutes or more for 60 moves.
    Standard,
    /// More than 10 and less than 60 minutes for 60 moves.
    Rapid,
    /// 10 minutes or less for 60 moves.
    Blitz,
}

impl FideCategory {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            FideCategory::Standard => "standard",
            FideCategory::Rapid => "rapid",
            FideCategory::Blitz => "blitz",
        }
    }
}

/// One side's periods, or both sides' when the control is per side. `None` for methods the
/// rules do not classify.
fn sides(tc: &TimeControl) -> Option<Vec<&[Segment]>> {
    if !tc.method.is_plain_period() {
        return None;
    }
    let p = &tc.params;
    let list: Vec<&[Segment]> = match (&p.segments, &p.segments_white, &p.segments_black) {
        (Some(s), _, _) => vec![s.as_slice()],
        (None, Some(w), Some(b)) => vec![w.as_slice(), b.as_slice()],
        _ => return None,
    };
    list.iter().all(|s| !s.is_empty()).then_some(list)
}

/// The per-move seconds of a period: its increment or its delay (rule 5B counts either).
fn per_move(s: &Segment) -> u64 {
    s.inc().max(s.delay().map_or(0, |(d, _)| d))
}

/// Rule 5B's total playing time of one side, in ms: the base minutes of every period added,
/// plus one minute per second of increment or delay (the largest of the periods', as if in
/// force from move 1), and the primary time (the first period's base).
pub fn uscf_total(segs: &[Segment]) -> (u64, u64) {
    let bases = segs.iter().fold(0u64, |t, s| t.saturating_add(s.base_ms));
    let ss = segs.iter().map(per_move).max().unwrap_or(0);
    let primary = segs.first().map_or(0, |s| s.base_ms);
    (bases.saturating_add(ss.saturating_mul(60)), primary)
}

fn uscf_of(segs: &[Segment]) -> Option<UscfRating> {
    let (total, primary) = uscf_total(segs);
    let m = |n: u64| n * MINUTE;
    match total {
        t if t > m(65) && primary >= m(5) => Some(UscfRating::Regular),
        t if (m(30)..=m(65)).contains(&t) && primary >= m(5) => Some(UscfRating::Dual),
        t if t > m(10) && t < m(30) && primary >= m(5) => Some(UscfRating::Quick),
        t if (m(5)..=m(10)).contains(&t) && primary >= m(3) => Some(UscfRating::Blitz),
        _ => None,
    }
}

/// FIDE's time for 60 moves of one side, in ms: the base times of every period that starts
/// within the first 60 moves, plus the increment or delay of each of the 60 moves.
pub fn fide_total(segs: &[Segment]) -> u64 {
    let Some(first) = segs.first() else { return 0 };
    let last = segs.len() - 1;
    let bases = first
        .base_ms
        .saturating_add(bases_between(segs, 0, period_of_move(segs, 60)));
    (1..=60u32).fold(bases, |t, m| {
        let s = &segs[period_of_move(segs, m).min(last)];
        t.saturating_add(per_move(s))
    })
}

fn fide_of(segs: &[Segment]) -> FideCategory {
    match fide_total(segs) {
        t if t <= 10 * MINUTE => FideCategory::Blitz,
        t if t < 60 * MINUTE => FideCategory::Rapid,
        _ => FideCategory::Standard,
    }
}

/// The same answer for every side, or `None`.
fn agreed<T: PartialEq>(mut each: impl Iterator<Item = Option<T>>) -> Option<T> {
    let first = each.next()??;
    each.all(|x| x.as_ref() == Some(&first)).then_some(first)
}

/// The US Chess rating system of a control (rule 5B), `None` when the rule rates none (too
/// short, primary time too small, a method the rule does not know, or sides that differ).
pub fn uscf_rating(tc: &TimeControl) -> Option<UscfRating> {
    agreed(sides(tc)?.into_iter().map(uscf_of))
}

/// FIDE's category of a control, `None` for methods without a 60-move time and for sides
/// that fall in different categories.
pub fn fide_category(tc: &TimeControl) -> Option<FideCategory> {
    agreed(sides(tc)?.into_iter().map(|s| Some(fide_of(s))))
}

/// Two sentences for `timecontrol parse`: the US Chess rating system and FIDE's category,
/// each with the sum it comes from.
pub fn explain(tc: &TimeControl) -> Vec<String> {
    let Some(sides) = sides(tc) else {
        return vec![format!(
            "Rating: US Chess rule 5B and FIDE's categories do not classify {} controls.",
            tc.method
        )];
    };
    let mins = |ms: u64| {
        if ms.is_multiple_of(MINUTE) {
            format!("{}", ms / MINUTE)
        } else {
            format!("{:.2}", ms as f64 / MINUTE as f64)
        }
    };
    let who = |k: usize| match (sides.len(), k) {
        (1, _) => String::new(),
        (_, 0) => "White ".into(),
        _ => "Black ".into(),
    };
    let mut uscf = Vec::new();
    let mut fide = Vec::new();
    for (k, segs) in sides.iter().enumerate() {
        let (total, primary) = uscf_total(segs);
        uscf.push(format!(
            "{}{} min (primary {} min)",
            who(k),
            mins(total),
            mins(primary)
        ));
        fide.push(format!("{}{} min", who(k), mins(fide_total(segs))));
    }
    let u = match uscf_rating(tc) {
        Some(r) => format!("US Chess (rule 5B): rated {}", r.systems()),
        None => "US Chess (rule 5B): not ratable".into(),
    };
    let f = match fide_category(tc) {
        Some(c) => format!("FIDE: {}", c.as_str()),
        None => "FIDE: no single category".into(),
    };
    vec![
        format!("{u}; total playing time mm + ss = {}.", uscf.join(", ")),
        format!("{f}; time for 60 moves = {}.", fide.join(", ")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse;

    fn uscf(n: &str) -> Option<&'static str> {
        uscf_rating(&parse(n).expect(n).control).map(UscfRating::as_str)
    }

    fn fide(n: &str) -> Option<&'static str> {
        fide_category(&parse(n).expect(n).control).map(FideCategory::as_str)
    }

    #[test]
    fn the_bounds_of_each_system() {
        assert_eq!(uscf("G/65 d/0"), Some("dual"));
        assert_eq!(uscf("G/65 inc/1"), Some("regular"));
        assert_eq!(uscf("G/30 d/0"), Some("dual"));
        assert_eq!(uscf("G/29 d/0"), Some("quick"));
        assert_eq!(uscf("G/10 d/1"), Some("quick"));
        assert_eq!(uscf("G/10 d/0"), Some("blitz"));
        assert_eq!(uscf("G/5 d/0"), Some("blitz"));
        assert_eq!(uscf("G/4 d/6"), Some("blitz"));
        assert_eq!(uscf("G/3 inc/2"), Some("blitz"));
        assert_eq!(uscf("G/4 d/59"), None, "dual needs 5 minutes' primary time");
        assert_eq!(uscf("G/2 inc/60"), None, "primary under 3 minutes");
        assert_eq!(uscf("G/4 inc/10"), None, "total under 5 minutes");
        assert_eq!(
            uscf("G/4 inc/30"),
            None,
            "quick needs 5 minutes' primary time"
        );
    }

    #[test]
    fn per_side_and_other_methods() {
        assert_eq!(uscf("W{G/60 d/5} B{G/45 d/5}"), Some("dual"));
        assert_eq!(uscf("W{G/90 d/5} B{G/45 d/5}"), None);
        assert_eq!(uscf("G/60 byo/5x30"), None);
        assert_eq!(fide("HG/3"), None);
    }

    #[test]
    fn fide_counts_sixty_moves() {
        assert_eq!(fide("G/3 inc/2"), Some("blitz"));
        assert_eq!(fide("G/10 d/0"), Some("blitz"));
        assert_eq!(fide("G/10 inc/1"), Some("rapid"));
        assert_eq!(fide("G/15 inc/10"), Some("rapid"));
        assert_eq!(fide("G/50 inc/10"), Some("standard"));
        // Periods: 40/90 then 30 min for the rest; 60 x 30 s.
        let segs = parse("40/90 SD/30 inc/30")
            .unwrap()
            .control
            .params
            .segments
            .unwrap();
        assert_eq!(fide_total(&segs), 150 * MINUTE);
        // A repeating period starts at move 21 and 41: both count.
        let segs = parse("20/10 d/0").unwrap().control.params.segments.unwrap();
        assert_eq!(fide_total(&segs), 30 * MINUTE);
        // A period starting after move 60 does not.
        let segs = parse("60/50 SD/30 d/0")
            .unwrap()
            .control
            .params
            .segments
            .unwrap();
        assert_eq!(fide_total(&segs), 50 * MINUTE);
    }
}
