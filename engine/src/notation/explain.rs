//! Plain-English explanation of a control: what each side starts with, what a press does,
//! what happens at a period end and at a flag, and what the DGT clock shows (spec §3-§4).
//!
//! Owns wording only; it computes nothing the engine relies on and accepts any
//! [`TimeControl`] without panicking.

use crate::clock_text;
use crate::notation::canonical;
use crate::params::{
    Credit, DelayKind, Method, OnFlag, Params, Scheme, Segment, TimeControl, Transition,
};

/// A duration in words: `1 h 30 min`, `3 min 2 s`, `250 ms`.
pub(crate) fn human(ms: u64) -> String {
    if ms == 0 {
        return "0 s".into();
    }
    let (h, m, s, r) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    let mut parts = Vec::new();
    if h > 0 {
        parts.push(format!("{h} h"));
    }
    if m > 0 {
        parts.push(format!("{m} min"));
    }
    if s > 0 {
        parts.push(format!("{s} s"));
    }
    if r > 0 {
        parts.push(format!("{r} ms"));
    }
    parts.join(" ")
}

fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn start_sentence(who: &str, segs: &[Segment], credit: Credit) -> String {
    let Some(first) = segs.first() else {
        return format!("{who} starts with no time.");
    };
    let b = first.base_ms;
    match (first.inc(), first.delay(), credit) {
        (i, None, Credit::Fide) if i > 0 => format!(
            "{who} starts with {} plus the first {} increment: the clock shows {}.",
            human(b),
            human(i),
            clock_text(b.saturating_add(i))
        ),
        (i, None, Credit::Before) if i > 0 => format!(
            "{who} starts with {}; {} is added each time that player's turn starts.",
            human(b),
            human(i)
        ),
        (_, Some((d, DelayKind::Bronstein)), Credit::Fide) => format!(
            "{who} starts with {}; the clock shows {} (time plus the {} delay).",
            human(b),
            clock_text(b.saturating_add(d)),
            human(d)
        ),
        _ => format!("{who} starts with {} ({}).", human(b), clock_text(b)),
    }
}

fn per_move_sentence(who: &str, k: usize, n: usize, s: &Segment, credit: Credit) -> Option<String> {
    // Per side, name whose moves: "Each of White's moves".
    let mover = match who {
        "White" | "Black" => format!("each of {who}'s moves"),
        _ => "each move".to_owned(),
    };
    let scope = if n == 1 {
        let mut m = mover;
        m[..1].make_ascii_uppercase();
        m
    } else {
        format!("In period {}, {mover}", k + 1)
    };
    if let Some((d, kind)) = s.delay() {
        return Some(match kind {
            DelayKind::Us => format!(
                "{scope} has a {} delay: the clock stays still for {} before counting down, \
                 and unused delay is lost (the display does not move during the delay).",
                human(d),
                human(d)
            ),
            DelayKind::Bronstein => format!(
                "{scope} has a {} Bronstein delay: the clock counts down at once and the time \
                 used, up to {}, is given back at the press.",
                human(d),
                human(d)
            ),
        });
    }
    let i = s.inc();
    (i > 0).then(|| {
        let when = match credit {
            Credit::Fide | Credit::After => "at each press",
            Credit::Before => "when the player's turn starts",
        };
        format!("{scope} earns a {} increment, added {when}.", human(i))
    })
}

fn period_sentences(segs: &[Segment], transition: Transition, out: &mut Vec<String>) {
    let mut total: u64 = 0;
    for (k, pair) in segs.windows(2).enumerate() {
        let (cur, next) = (&pair[0], &pair[1]);
        let Some(n) = cur.moves else { continue };
        total = total.saturating_add(u64::from(n));
        out.push(match transition {
            Transition::Moves => format!(
                "When a player completes their own {} move, {} is added to that player's clock \
                 (period {}); unused time carries over.",
                ordinal(total),
                human(next.base_ms),
                k + 2
            ),
            Transition::Flag => format!(
                "When a player's time runs out after at least {total} moves, {} is added at \
                 once (period {}).",
                human(next.base_ms),
                k + 2
            ),
            Transition::FlagBoth => format!(
                "When either clock runs out, both players get {} (period {}), as DGT preset \
                 clocks do.",
                human(next.base_ms),
                k + 2
            ),
        });
    }
    if let Some(last) = segs.last()
        && let Some(n) = last.moves
    {
        out.push(format!(
            "The last period ({n} moves in {}) repeats for the rest of the game.",
            human(last.base_ms)
        ));
    }
    if segs.iter().any(|s| s.moves.is_some()) {
        out.push(
            "A player whose time runs out before making the required moves loses on time \
             (control not reached)."
                .into(),
        );
    }
}

fn flag_sentence(p: &Params) -> String {
    match p.on_flag.unwrap_or_default() {
        OnFlag::Freeze => "When a clock reaches 0:00 both clocks stop and that player loses on \
                           time (the arbiter may still rule a draw if the opponent cannot mate)."
            .into(),
        OnFlag::Continue => "A clock that reaches 0:00 stays at 0:00, play may go on and the \
                             order of flags is recorded; there is no automatic result."
            .into(),
    }
}

fn segment_based(tc: &TimeControl, out: &mut Vec<String>) {
    let p = &tc.params;
    let credit = p.credit.unwrap_or(if tc.method == Method::PhasedIncrement {
        Credit::After
    } else {
        Credit::Fide
    });
    let sides: Vec<(&str, &[Segment])> = match (&p.segments_white, &p.segments_black) {
        (Some(w), Some(b)) => vec![("White", w.as_slice()), ("Black", b.as_slice())],
        _ => vec![("Each side", p.segments.as_deref().unwrap_or(&[]))],
    };
    let transition = p.transition.unwrap_or_default();
    for (who, segs) in &sides {
        if matches!(
            tc.method,
            Method::PhasedIncrement | Method::PhasedIncrementVariable
        ) && let [first, last] = segs
        {
            let n = u64::from(first.moves.unwrap_or(0));
            out.push(format!(
                "{who} starts with {}, earns {} after each of their first {n} moves, and gets a \
                 final {} right after their own {} move; after that no more time is added \
                 (at most {} in all).",
                human(first.base_ms),
                human(first.inc()),
                human(last.base_ms),
                ordinal(n),
                human(
                    first
                        .base_ms
                        .saturating_add(n.saturating_mul(first.inc()))
                        .saturating_add(last.base_ms)
                )
            ));
            continue;
        }
        out.push(start_sentence(who, segs, credit));
        for (k, s) in segs.iter().enumerate() {
            if let Some(line) = per_move_sentence(who, k, segs.len(), s, credit) {
                out.push(line);
            }
        }
        period_sentences(segs, transition, out);
    }
    if let Some(m) = p.max_total_ms {
        out.push(format!("Each declaration must total at most {}.", human(m)));
    }
    if let Some(cap) = p.cap_ms {
        out.push(format!(
            "A clock never goes above {} after an increment.",
            human(cap)
        ));
    }
    out.push(flag_sentence(p));
    out.push(
        "The DGT clock counts the side to move down and shows the waiting side's time still."
            .into(),
    );
}

fn other(tc: &TimeControl, out: &mut Vec<String>) {
    let p = &tc.params;
    let v = |x: Option<u64>| human(x.unwrap_or(0));
    match tc.method {
        Method::Hourglass => {
            out.push(format!("Each side starts with {}.", v(p.per_side_ms)));
            out.push(
                "Hourglass: while one clock runs down, the other runs up by the same amount, \
                 like sand moving between the two halves."
                    .into(),
            );
            out.push(
                "The clock is run by the daemon: the waiting side's display is updated every \
                 second as it rises."
                    .into(),
            );
        }
        Method::Byoyomi => {
            let (n, t) = (p.periods.unwrap_or(0), p.period_ms.unwrap_or(0));
            out.push(format!(
                "Each side starts with {} of main time.",
                v(p.main_ms)
            ));
            out.push(format!(
                "After main time come {n} byo-yomi periods of {}: a move made within a period \
                 costs nothing, a longer move uses up periods; when the last period runs out \
                 the player loses on time.",
                human(t)
            ));
            out.push(format!(
                "The clock shows main time, then all remaining periods together (e.g. {} for \
                 {n} x {}), reset at each press.",
                clock_text(t.saturating_mul(u64::from(n))),
                human(t)
            ));
        }
        Method::Canadian => {
            out.push(format!(
                "Each side starts with {} of main time.",
                v(p.main_ms)
            ));
            out.push(format!(
                "Then each overtime period of {} must hold {} moves; after the last of them \
                 a fresh period starts and leftover time is dropped. Running out with moves \
                 still owed loses on time.",
                v(p.period_ms),
                p.stones.unwrap_or(0)
            ));
            out.push("The clock shows main time, then the overtime period counting down.".into());
        }
        Method::DoubleFlag => {
            let segs = p.main_segments.as_deref().unwrap_or(&[]);
            out.push(start_sentence("Each side", segs, Credit::Fide));
            period_sentences(segs, p.transition.unwrap_or_default(), out);
            let scheme = match p.scheme.unwrap_or(Scheme::Hybrid) {
                Scheme::Truncated => "t + b, at most M",
                Scheme::Linear => "t + b - b*t/M",
                Scheme::Hybrid => "the smaller of t + b and (t + M)/2",
            };
            out.push(format!(
                "When a player's main time runs out they get M = {} of extra time and can no \
                 longer win; each of their moves then sets the extra time t to {scheme} \
                 (b = {}).",
                v(p.extra_ms),
                v(p.bonus_ms)
            ));
            out.push(
                "Extra time running out loses; if the other player's main time also runs out \
                 the game is drawn at once, and the player still on main time may claim a \
                 draw at any moment."
                    .into(),
            );
            out.push(
                "The clock shows the extra time with a flag icon once a player is on it.".into(),
            );
        }
        Method::PhasedCountdown | Method::PhasedCountdownTriple => {
            let r = p.reserve_incs_ms.as_deref().unwrap_or(&[]);
            out.push(format!(
                "Each side starts with {} on the main clock and an empty reserve.",
                v(p.main_ms)
            ));
            out.push(format!(
                "Every move made on main time adds {} to the reserve, which runs once main time \
                 is gone.",
                v(r.first().copied())
            ));
            if let Some(r2) = r.get(1) {
                out.push(format!(
                    "Every move made on the reserve adds {} to a secondary reserve, which runs last.",
                    human(*r2)
                ));
            }
            out.push("When the last clock runs out the player loses on time.".into());
            out.push(
                "The clock shows the clock currently running; reserves are shown as text.".into(),
            );
        }
        Method::CountUp => {
            out.push(
                "Count-up: both clocks start at 0:00 and count the time each player uses; \
                 there is no limit and no flag (unless `cap/` sets one)."
                    .into(),
            );
            out.push(
                "The clock is run by the daemon: the side to move is shown counting up, \
                 updated every second."
                    .into(),
            );
        }
        _ => {
            out.push(format!(
                "Each side starts with a reserve of {} and a swing balance of {}.",
                v(p.reserve_ms),
                v(p.swing_ms)
            ));
            out.push(
                "While a player thinks, their swing time flows to the opponent's swing balance; \
                 once their swing is empty the reserve is used and nothing flows."
                    .into(),
            );
            out.push(match p.cutoff_moves {
                Some(n) => format!(
                    "When move {n} is complete each player's swing joins their reserve and the \
                     clocks become plain countdowns."
                ),
                None => "The swing never ends (open-ended), so an overall cap is advisable.".into(),
            });
            out.push("The display is swing + reserve; the waiting side's value rises while the mover spends swing.".into());
        }
    }
    if matches!(
        tc.method,
        Method::Hourglass
            | Method::Byoyomi
            | Method::Canadian
            | Method::PhasedCountdown
            | Method::PhasedCountdownTriple
            | Method::PhasedSwing
            | Method::PhasedSwingOpen
    ) {
        out.push(flag_sentence(p));
    }
}

/// Sentences describing how the clock will behave with `tc`.
pub fn explain(tc: &TimeControl) -> Vec<String> {
    let mut out = Vec::new();
    match tc.method {
        Method::Unknown => {
            out.push("The time control is unknown (PGN `?`): it cannot configure a clock.".into());
            return out;
        }
        Method::None => {
            out.push("There is no time control (PGN `-`): the clock is not used.".into());
            return out;
        }
        m if m.is_segment_based() => segment_based(tc, &mut out),
        Method::PerSide => {
            for (who, side) in [("White", &tc.params.white), ("Black", &tc.params.black)] {
                if let Some(c) = side {
                    out.push(format!("{who} plays {} ({}):", canonical(c), c.method));
                    out.extend(explain(c).into_iter().map(|l| format!("  {l}")));
                }
            }
        }
        _ => other(tc, &mut out),
    }
    if let Some(cap) = tc.params.overall_cap_ms
        && tc.method == Method::CountUp
    {
        out.push(format!(
            "Each player may use at most {}: reaching it loses on time (the clock keeps \
             counting the time used up to it).",
            human(cap)
        ));
    } else if let Some(cap) = tc.params.overall_cap_ms {
        out.push(format!(
            "Independently, each player may think for at most {} in the whole game; reaching \
             it loses on time, and the clock shows this limit whenever it is the smaller value.",
            human(cap)
        ));
    }
    if tc.params.armageddon == Some(true) {
        out.push(
            "Armageddon: Black has draw odds. Every draw (on the board, by a claim, a flag \
             against a side that cannot mate, an arbiter's 1/2-1/2) scores 0-1, reason \
             `armageddon`; White must win."
                .into(),
        );
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::notation::parse;

    fn text(n: &str) -> String {
        explain(&parse(n).unwrap().control).join(" ")
    }

    #[test]
    fn count_up_says_it_counts_up_and_what_the_cap_does() {
        let t = text("UP");
        assert!(t.contains("start at 0:00"), "{t}");
        assert!(!t.contains("at most"), "{t}");
        let t = text("UP cap/90");
        assert!(t.contains("at most 1 h 30 min"), "{t}");
        assert!(!t.contains("swing"), "{t}");
    }

    #[test]
    fn a_method_per_side_names_whose_moves() {
        let t = text("W{G/5 inc/3} B{G/5 d/5}");
        assert!(
            t.contains("Each of White's moves earns a 3 s increment"),
            "{t}"
        );
        assert!(t.contains("Each of Black's moves has a 5 s delay"), "{t}");
    }

    #[test]
    fn armageddon_says_who_has_draw_odds() {
        let t = text("W{G/5 d/0} B{G/4 d/0} armageddon");
        assert!(t.contains("Black has draw odds"), "{t}");
        assert!(!text("G/5 d/0").contains("Armageddon"));
    }

    #[test]
    fn fischer_fide_names_the_starting_display() {
        let t = text("G/3 inc/2");
        assert!(t.contains("3 min plus the first 2 s increment"), "{t}");
        assert!(t.contains("3:02"), "{t}");
    }

    #[test]
    fn periods_name_the_move_and_the_added_time() {
        let t = text("40/90 SD/30 inc/30");
        assert!(t.contains("own 40th move, 30 min is added"), "{t}");
        assert!(t.contains("control not reached"), "{t}");
    }

    #[test]
    fn every_method_explains_start_and_flag() {
        for n in [
            "HG/3",
            "G/60 byo/5x30",
            "G/30 can/25/5",
            "G/15 df/60:10",
            "G/120 rsv/60:30",
            "G/60 pinc/60:40:60",
            "G/30 swing/30:40",
            "G/30 swing/30 cap/60",
            "G/5 d/5",
            "G/5 br/5",
            "W{G/5 d/0} B{G/3 d/0}",
        ] {
            let t = text(n);
            assert!(t.contains("starts with"), "{n}: {t}");
            assert!(t.contains("loses") || t.contains("0:00"), "{n}: {t}");
        }
    }

    #[test]
    fn human_durations() {
        assert_eq!(human(5_400_000), "1 h 30 min");
        assert_eq!(human(1_190_000), "19 min 50 s");
        assert_eq!(human(250), "250 ms");
        assert_eq!(clock_text(3_599_001), "1:00:00");
    }
}
