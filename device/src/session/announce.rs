//! What the clock display says about game events: phase changes, flags and results as short
//! text for the model's display (8 characters on a DGT 3000, 6 seven-segment digits on a DGT XL).
//!
//! Pure: turns an engine [`Event`] into a label. Sending it, and when the times come back, is
//! the session's business.

use std::time::Duration;

use chessclock_engine::{Event, Phase, ResultReason, Side};
use chessclock_protocol::ClockModel as Model;

/// How long an announcement stays on the display before the times are shown again.
pub(crate) const SHOW_FOR: Duration = Duration::from_millis(2500);

/// A text to show for an engine event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Announcement {
    /// Fits the model's display.
    pub text: String,
    /// Beep with it (flags).
    pub beep: bool,
}

/// The announcement for `ev`, if it deserves one.
pub(crate) fn announce(ev: &Event, model: Model) -> Option<Announcement> {
    let wide = model != Model::DgtXl;
    let letter = |side: &Side| match side {
        Side::White => "W",
        Side::Black => "B",
    };
    // The DGT 3000 has room for a space between the side and the word; the XL has not.
    let gap = if wide { " " } else { "" };
    let (text, beep) = match ev {
        Event::Flag { side, .. } => (format!("{}{gap}FLAG", letter(side)), true),
        Event::Result { result, reason } => {
            let r = result.to_string();
            let text = match (r.as_str(), wide) {
                ("1/2-1/2", false) => "DRAW".to_owned(),
                // An Armageddon draw scored for Black: say why on the DGT 3000.
                (_, true) if *reason == ResultReason::Armageddon => format!("{r} ARM"),
                _ => r,
            };
            (text, false)
        }
        Event::PhaseChanged { side, new, .. } => (
            format!("{}{gap}{}", letter(side), phase_label(*new, wide)?),
            false,
        ),
        _ => return None,
    };
    let width = if wide { 8 } else { 6 };
    Some(Announcement {
        text: text.chars().take(width).collect(),
        beep,
    })
}

/// A phase (`spec/timecontrols.md` §1.4) as the display says it; `None` for phases not
/// worth interrupting the times for. (The independent cap taking over is not a phase change
/// of the engine: it shows in the snapshot's `+cap` phase, not here.)
fn phase_label(phase: Phase, wide: bool) -> Option<String> {
    let pick = |long: &str, short: &str| Some(if wide { long } else { short }.to_owned());
    match phase {
        Phase::Byoyomi => pick("BYO", "BYO"),
        Phase::Overtime => pick("OVTIME", "OT"),
        Phase::Extra => pick("NO WIN", "NOWIN"),
        Phase::Reserve => pick("RESERV", "RES"),
        Phase::Secondary => pick("SECOND", "SEC"),
        Phase::PostCutoff => pick("CUTOFF", "CUT"),
        // The N-th time control has begun.
        Phase::Period(n) | Phase::PeriodSd(n) => Some(if wide {
            format!("TC {n}")
        } else {
            format!("TC{n}")
        }),
        Phase::Flagged | Phase::Sd | Phase::Hourglass | Phase::Main | Phase::Swing | Phase::Up => {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessclock_engine::{FlagReason, GameResult};

    fn phase(side: Side, new: Phase) -> Event {
        Event::PhaseChanged {
            side,
            old: Phase::Main,
            new,
        }
    }

    fn text(ev: &Event, model: Model) -> Option<String> {
        announce(ev, model).map(|a| a.text)
    }

    #[test]
    fn flags_beep_and_name_the_side() {
        let flag = Event::Flag {
            side: Side::Black,
            reason: FlagReason::Time,
        };
        let a = announce(&flag, Model::Dgt3000).expect("flag");
        assert_eq!((a.text.as_str(), a.beep), ("B FLAG", true));
        assert_eq!(text(&flag, Model::DgtXl).as_deref(), Some("BFLAG"));
    }

    #[test]
    fn results_and_phases_fit_each_display() {
        let draw = Event::Result {
            result: GameResult::Draw,
            reason: ResultReason::BothMainTimesExpired,
        };
        assert_eq!(text(&draw, Model::Dgt3000).as_deref(), Some("1/2-1/2"));
        assert_eq!(text(&draw, Model::DgtXl).as_deref(), Some("DRAW"));
        let armageddon = Event::Result {
            result: GameResult::BlackWins,
            reason: ResultReason::Armageddon,
        };
        assert_eq!(
            text(&armageddon, Model::Dgt3000).as_deref(),
            Some("0-1 ARM")
        );
        assert_eq!(text(&armageddon, Model::DgtXl).as_deref(), Some("0-1"));
        let extra = phase(Side::White, Phase::Extra);
        assert_eq!(text(&extra, Model::Dgt3000).as_deref(), Some("W NO WIN"));
        assert_eq!(text(&extra, Model::DgtXl).as_deref(), Some("WNOWIN"));
        assert_eq!(
            text(&phase(Side::White, Phase::Period(2)), Model::Dgt3000).as_deref(),
            Some("W TC 2")
        );
        for ev in [
            extra,
            phase(Side::Black, Phase::Byoyomi),
            phase(Side::Black, Phase::Overtime),
            phase(Side::Black, Phase::PeriodSd(3)),
        ] {
            for model in [Model::Dgt3000, Model::DgtXl] {
                let t = text(&ev, model).expect("announced");
                let Event::PhaseChanged { new, .. } = &ev else {
                    unreachable!("phases only")
                };
                let label = phase_label(*new, model != Model::DgtXl).expect("labelled");
                assert!(t.ends_with(&label), "{t} must not be cut short ({label})");
                if model == Model::DgtXl {
                    assert!(
                        t.chars()
                            .all(|c| chessclock_protocol::clock_text::seven_segment(c).is_some()),
                        "{t} must be showable on seven segments"
                    );
                }
            }
        }
    }

    #[test]
    fn uninteresting_phases_are_not_announced() {
        for p in [
            Phase::Main,
            Phase::Swing,
            Phase::Flagged,
            Phase::Sd,
            Phase::Hourglass,
        ] {
            assert_eq!(text(&phase(Side::White, p), Model::Dgt3000), None, "{p}");
        }
    }
}
