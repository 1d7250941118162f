//! The public JSON form of a time control: a method name plus a flat `params` object.
//!
//! This is the schema of `spec/timecontrols.md` §1.3 (the `method` and `params` of the
//! conformance vectors), used by the notation parser, the engine, the D-Bus API and the CLI.
//! It owns only the data shape and its defaults; validation lives with the parser and the
//! engine. No IO here.

use serde::{Deserialize, Serialize};

/// Longest duration any time-control field may hold: 1000 hours (about six weeks of
/// thinking time). The notation parser refuses longer values (`bad_duration`) and the engine
/// refuses params that hold one, so no product or sum the engine forms comes near `u64`.
pub const MAX_DURATION_MS: u64 = 1000 * 3_600_000;

/// Largest count (moves per period, byo-yomi periods, Canadian stones, cut-off moves) and
/// largest press counter an arbiter may set. A chess game cannot reach it (the 75-move rule
/// ends any game long before); it only bounds the arithmetic.
pub const MAX_COUNT: u32 = 10_000;

/// Which timing method a control uses (`method` in the JSON form).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// One sudden-death segment, no increment or delay.
    SuddenDeath,
    /// Sudden death with a Fischer increment.
    Fischer,
    /// Sudden death with a US (simple) delay.
    UsDelay,
    /// Sudden death with a Bronstein delay.
    Bronstein,
    /// Several segments (moves/minutes), mixed or repeating.
    Segments,
    /// Phased increment (increment up to a cut-off, then a final increment).
    PhasedIncrement,
    /// Phased increment with per-player declared parameters and a declared maximum.
    PhasedIncrementVariable,
    /// Hourglass (sandglass).
    Hourglass,
    /// Japanese byo-yomi.
    Byoyomi,
    /// Canadian byo-yomi.
    Canadian,
    /// Double-flag clock.
    DoubleFlag,
    /// Phased countdown with one reserve clock.
    PhasedCountdown,
    /// Phased countdown with a reserve and a secondary reserve.
    PhasedCountdownTriple,
    /// Phased swing with a cut-off.
    PhasedSwing,
    /// Open-ended phased swing.
    PhasedSwingOpen,
    /// Count-up: both clocks count the time used, up from 0:00 (no limit but `cap/`).
    CountUp,
    /// A different method for each side: `params.white` and `params.black` are controls.
    PerSide,
    /// PGN `?`: unknown; cannot configure a clock.
    Unknown,
    /// PGN `-`: no time control.
    None,
}

impl Method {
    /// The snake_case name used in JSON and on D-Bus.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::SuddenDeath => "sudden_death",
            Method::Fischer => "fischer",
            Method::UsDelay => "us_delay",
            Method::Bronstein => "bronstein",
            Method::Segments => "segments",
            Method::PhasedIncrement => "phased_increment",
            Method::PhasedIncrementVariable => "phased_increment_variable",
            Method::Hourglass => "hourglass",
            Method::Byoyomi => "byoyomi",
            Method::Canadian => "canadian",
            Method::DoubleFlag => "double_flag",
            Method::PhasedCountdown => "phased_countdown",
            Method::PhasedCountdownTriple => "phased_countdown_triple",
            Method::PhasedSwing => "phased_swing",
            Method::PhasedSwingOpen => "phased_swing_open",
            Method::CountUp => "count_up",
            Method::PerSide => "per_side",
            Method::Unknown => "unknown",
            Method::None => "none",
        }
    }

    /// Whether the method is driven by a segment list (`segments` or per-side lists).
    pub fn is_segment_based(self) -> bool {
        self.is_plain_period()
            || matches!(
                self,
                Method::PhasedIncrement | Method::PhasedIncrementVariable
            )
    }

    /// Whether the method is a plain period control: sudden death, Fischer, US delay,
    /// Bronstein or periods (`segments`).
    pub fn is_plain_period(self) -> bool {
        matches!(
            self,
            Method::SuddenDeath
                | Method::Fischer
                | Method::UsDelay
                | Method::Bronstein
                | Method::Segments
        )
    }

    /// The method of a per-side control whose sides use `self` and `black`: the same
    /// method, or `segments` when both are plain period controls of different kinds (the
    /// segment engine times each side by its own periods, increments and delays). `None`
    /// when the two cannot be combined.
    pub fn per_side_with(self, black: Method) -> Option<Method> {
        if self == black {
            Some(self)
        } else if self.is_plain_period() && black.is_plain_period() {
            Some(Method::Segments)
        } else {
            None
        }
    }
}

display_as_str!(Method);

/// Kind of per-move delay on a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DelayKind {
    /// US simple delay: the clock waits `delay_ms` before counting down.
    Us,
    /// Bronstein delay: the used part of the delay is refunded at the press.
    Bronstein,
}

/// One period of a segment-based control.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Segment {
    /// Moves in this period; `None` is sudden death (must be the last segment).
    pub moves: Option<u32>,
    /// Base time added when the period starts.
    pub base_ms: u64,
    /// Fischer increment per move in this period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inc_ms: Option<u64>,
    /// Per-move delay in this period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// Which delay `delay_ms` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_kind: Option<DelayKind>,
}

impl Segment {
    /// A sudden-death segment without increment or delay.
    pub fn sudden_death(base_ms: u64) -> Self {
        Segment {
            moves: None,
            base_ms,
            inc_ms: None,
            delay_ms: None,
            delay_kind: None,
        }
    }

    /// Increment in ms (0 when none).
    pub fn inc(&self) -> u64 {
        self.inc_ms.unwrap_or(0)
    }

    /// Delay in ms and its kind, when the segment has a non-zero delay.
    pub fn delay(&self) -> Option<(u64, DelayKind)> {
        match (self.delay_ms, self.delay_kind) {
            (Some(d), kind) if d > 0 => Some((d, kind.unwrap_or(DelayKind::Us))),
            _ => None,
        }
    }
}

/// When the Fischer increment is credited (spec D1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Credit {
    /// One increment at the start and one at every valid press (FIDE, DGT 3000).
    #[default]
    Fide,
    /// After each move; no credit at the start (PGN / online).
    After,
    /// When the player's own turn starts.
    Before,
}

/// When the next period's base time is added (spec D3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transition {
    /// At the press completing the player's N-th move.
    #[default]
    Moves,
    /// When the player's period time runs out, if the quota was reached.
    Flag,
    /// DGT preset: both clocks get the next period when either runs out.
    FlagBoth,
}

/// What a flag does (spec D16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnFlag {
    /// Both clocks stop; provisional result.
    #[default]
    Freeze,
    /// The flagged side stays at 0 and play may go on.
    Continue,
}

/// Double-flag bonus scheme (spec §4.10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheme {
    /// `min(t + b, M)`.
    Truncated,
    /// `t + b − ceil(b·t/M)`.
    Linear,
    /// `min(t + b, floor((t + M)/2))`.
    Hybrid,
}

impl Scheme {
    /// The name used in notation and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Truncated => "truncated",
            Scheme::Linear => "linear",
            Scheme::Hybrid => "hybrid",
        }
    }
}

/// The flat `params` object of the JSON form. Which fields are present depends on the method
/// (spec §1.3); absent options take their defaults (`credit` fide, `transition` moves,
/// `on_flag` freeze).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Segments shared by both sides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segments: Option<Vec<Segment>>,
    /// White's own segments (per-side controls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segments_white: Option<Vec<Segment>>,
    /// Black's own segments (per-side controls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segments_black: Option<Vec<Segment>>,
    /// Increment convention.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credit: Option<Credit>,
    /// Period transition rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transition: Option<Transition>,
    /// Flag behaviour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_flag: Option<OnFlag>,
    /// Fischer maximum (clock never exceeds this after a credit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap_ms: Option<u64>,
    /// Declared limit for variable phased-increment parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_total_ms: Option<u64>,
    /// Independent single countdown per side (any method).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overall_cap_ms: Option<u64>,
    /// Hourglass amount per side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_side_ms: Option<u64>,
    /// Main time (byo-yomi, Canadian, phased countdown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub main_ms: Option<u64>,
    /// Byo-yomi periods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub periods: Option<u32>,
    /// Byo-yomi / Canadian period length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_ms: Option<u64>,
    /// Canadian stones per period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stones: Option<u32>,
    /// Double-flag main time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub main_segments: Option<Vec<Segment>>,
    /// Double-flag initial extra batch (= maximum extra), M.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_ms: Option<u64>,
    /// Double-flag bonus, b.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bonus_ms: Option<u64>,
    /// Double-flag bonus scheme.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<Scheme>,
    /// Phased-countdown reserve increments (`[r1]` or `[r1, r2]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve_incs_ms: Option<Vec<u64>>,
    /// Phased-swing reserve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve_ms: Option<u64>,
    /// Phased-swing balance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swing_ms: Option<u64>,
    /// Phased-swing cut-off in full moves (absent: open-ended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cutoff_moves: Option<u32>,
    /// Armageddon: every draw scores as a win for Black (draw odds), any method but double
    /// flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub armageddon: Option<bool>,
    /// A method per side: White's control (method `per_side`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white: Option<Box<TimeControl>>,
    /// A method per side: Black's control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black: Option<Box<TimeControl>>,
}

impl Params {
    /// The same params with defaults made explicit where the method uses them, and removed
    /// where they carry no information, so two equivalent params compare equal (spec C1).
    pub fn normalized(&self, method: Method) -> Params {
        let mut p = self.clone();
        if p.credit == Some(Credit::Fide) && method != Method::PhasedIncrement {
            p.credit = None;
        }
        if matches!(
            method,
            Method::PhasedIncrement | Method::PhasedIncrementVariable
        ) && p.credit == Some(Credit::After)
        {
            p.credit = None;
        }
        if p.transition == Some(Transition::Moves) {
            p.transition = None;
        }
        if p.on_flag == Some(OnFlag::Freeze) {
            p.on_flag = None;
        }
        if p.armageddon == Some(false) {
            p.armageddon = None;
        }
        for side in [&mut p.white, &mut p.black].into_iter().flatten() {
            side.params = side.params.normalized(side.method);
        }
        p
    }
}

impl Params {
    /// Check every duration (`*_ms`, also inside segments and lists) against
    /// [`MAX_DURATION_MS`] and every count (`moves`, `periods`, `stones`, `cutoff_moves`)
    /// against [`MAX_COUNT`]. The error names the field and the limit.
    pub fn check_limits(&self) -> Result<(), String> {
        /// One checked value: a duration (`_ms`) or a count.
        enum V {
            Ms(u64),
            Count(u64),
        }
        let check = |path: String, v: V| match v {
            V::Ms(n) if n > MAX_DURATION_MS => Err(format!(
                "params{path} = {n} ms is longer than the limit of {MAX_DURATION_MS} ms (1000 h)"
            )),
            V::Count(n) if n > u64::from(MAX_COUNT) => Err(format!(
                "params{path} = {n} is more than the limit of {MAX_COUNT}"
            )),
            _ => Ok(()),
        };
        let segments = |name: &str, segs: &Option<Vec<Segment>>| -> Result<(), String> {
            for (i, s) in segs.iter().flatten().enumerate() {
                check(format!(".{name}[{i}].base_ms"), V::Ms(s.base_ms))?;
                if let Some(d) = s.delay_ms {
                    check(format!(".{name}[{i}].delay_ms"), V::Ms(d))?;
                }
                if let Some(n) = s.inc_ms {
                    check(format!(".{name}[{i}].inc_ms"), V::Ms(n))?;
                }
                if let Some(m) = s.moves {
                    check(format!(".{name}[{i}].moves"), V::Count(u64::from(m)))?;
                }
            }
            Ok(())
        };
        let ms = |name: &str, v: Option<u64>| match v {
            Some(n) => check(format!(".{name}"), V::Ms(n)),
            None => Ok(()),
        };
        let count = |name: &str, v: Option<u32>| match v {
            Some(n) => check(format!(".{name}"), V::Count(u64::from(n))),
            None => Ok(()),
        };
        // In the alphabetical order of the JSON keys, so the first violation reported is the
        // same whichever way the params were written.
        ms("bonus_ms", self.bonus_ms)?;
        ms("cap_ms", self.cap_ms)?;
        count("cutoff_moves", self.cutoff_moves)?;
        ms("extra_ms", self.extra_ms)?;
        ms("main_ms", self.main_ms)?;
        segments("main_segments", &self.main_segments)?;
        ms("max_total_ms", self.max_total_ms)?;
        ms("overall_cap_ms", self.overall_cap_ms)?;
        ms("per_side_ms", self.per_side_ms)?;
        ms("period_ms", self.period_ms)?;
        count("periods", self.periods)?;
        for (i, n) in self.reserve_incs_ms.iter().flatten().enumerate() {
            check(format!(".reserve_incs_ms[{i}]"), V::Ms(*n))?;
        }
        ms("reserve_ms", self.reserve_ms)?;
        segments("segments", &self.segments)?;
        segments("segments_black", &self.segments_black)?;
        segments("segments_white", &self.segments_white)?;
        count("stones", self.stones)?;
        ms("swing_ms", self.swing_ms)?;
        for (name, side) in [("white", &self.white), ("black", &self.black)] {
            if let Some(c) = side {
                c.params
                    .check_limits()
                    .map_err(|e| e.replacen("params", &format!("params.{name}.params"), 1))?;
            }
        }
        Ok(())
    }
}

/// A complete time control in its JSON form: `{"method": .., "params": {..}}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeControl {
    /// The timing method.
    pub method: Method,
    /// Its parameters.
    pub params: Params,
}

impl TimeControl {
    /// Equality after normalization (spec C1).
    pub fn equivalent(&self, other: &TimeControl) -> bool {
        self.method == other.method
            && self.params.normalized(self.method) == other.params.normalized(other.method)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip_keeps_only_present_fields() {
        let json = r#"{"method":"fischer","params":{"segments":[{"moves":null,"base_ms":180000,"inc_ms":2000}],"credit":"after"}}"#;
        let tc: TimeControl = serde_json::from_str(json).unwrap();
        assert_eq!(tc.method, Method::Fischer);
        assert_eq!(tc.params.credit, Some(Credit::After));
        assert_eq!(serde_json::to_string(&tc).unwrap(), json);
    }

    #[test]
    fn unknown_field_is_rejected_with_its_name() {
        let err = serde_json::from_str::<Params>(r#"{"base":1}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field `base`"), "{err}");
    }

    #[test]
    fn limits_name_the_field() {
        let mut p: Params = serde_json::from_str(
            r#"{"segments":[{"moves":40,"base_ms":5400000,"inc_ms":30000}],"periods":5}"#,
        )
        .unwrap();
        assert_eq!(p.check_limits(), Ok(()));
        p.segments.as_mut().unwrap()[0].inc_ms = Some(MAX_DURATION_MS + 1);
        let e = p.check_limits().unwrap_err();
        assert!(e.contains("params.segments[0].inc_ms"), "{e}");
        p.segments.as_mut().unwrap()[0].inc_ms = Some(MAX_DURATION_MS);
        p.reserve_incs_ms = Some(vec![1, MAX_DURATION_MS + 1]);
        assert!(p.check_limits().unwrap_err().contains("reserve_incs_ms[1]"));
        p.reserve_incs_ms = None;
        p.stones = Some(MAX_COUNT + 1);
        assert!(p.check_limits().unwrap_err().contains("params.stones"));
    }

    #[test]
    fn defaults_compare_equal_to_absent() {
        let a = TimeControl {
            method: Method::Segments,
            params: Params {
                transition: Some(Transition::Moves),
                credit: Some(Credit::Fide),
                ..Params::default()
            },
        };
        let b = TimeControl {
            method: Method::Segments,
            params: Params::default(),
        };
        assert!(a.equivalent(&b));
        let c = TimeControl {
            method: Method::Segments,
            params: Params {
                transition: Some(Transition::Flag),
                ..Params::default()
            },
        };
        assert!(!a.equivalent(&c));
    }
}
