//! When a board needs an operator (`[[alert]]` in bridge.toml): a board gone, a game paused
//! too long, a flag, a result, a board problem that lasts, a clock's low battery. Pure: [`Watcher::check`] is told
//! the time and the clocks and says which alerts are due; sending them is `alert::run`'s.
//!
//! Each condition alerts once when it starts (after its delay) and is armed again when it
//! ends; the same clock and kind alert at most once per `min_interval_s`, further ones are
//! counted and reported with the next.

use std::collections::BTreeMap;

use chessclock_api::ClockStatus;
use serde::{Deserialize, Serialize};

/// What an alert is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Kind {
    /// The board's port went away.
    BoardGone,
    /// A game stayed paused mid-game.
    Paused,
    /// A flag fell.
    Flag,
    /// The game has its result.
    Result,
    /// The board showed a position no legal move explains.
    BoardProblem,
    /// The clock reports a low battery.
    BatteryLow,
}

impl Kind {
    const ALL: [Kind; 6] = [
        Kind::BoardGone,
        Kind::Paused,
        Kind::Flag,
        Kind::Result,
        Kind::BoardProblem,
        Kind::BatteryLow,
    ];
}

/// How the alert is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Format {
    /// POST a JSON object (`kind`, `clock`, `board`, `name`, `text`, `suppressed`).
    #[default]
    Json,
    /// POST the text to an ntfy topic URL, the kind as its title.
    Ntfy,
}

/// One `[[alert]]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AlertSettings {
    /// Where to POST: a webhook, or an ntfy topic URL.
    pub(crate) url: String,
    /// `json` (default) or `ntfy`.
    #[serde(default)]
    pub(crate) format: Format,
    /// Which kinds (default: all).
    #[serde(default = "all_kinds")]
    pub(crate) on: Vec<Kind>,
    /// A board gone this long alerts (seconds).
    #[serde(default = "ten")]
    pub(crate) gone_after_s: u64,
    /// A game paused this long mid-game alerts (seconds).
    #[serde(default = "two_minutes")]
    pub(crate) paused_after_s: u64,
    /// A board problem this long alerts (seconds).
    #[serde(default = "thirty")]
    pub(crate) problem_after_s: u64,
    /// The same clock and kind at most this often (seconds).
    #[serde(default = "sixty")]
    pub(crate) min_interval_s: u64,
}

fn all_kinds() -> Vec<Kind> {
    Kind::ALL.to_vec()
}
fn ten() -> u64 {
    10
}
fn thirty() -> u64 {
    30
}
fn sixty() -> u64 {
    60
}
fn two_minutes() -> u64 {
    120
}

/// An alert due.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Alert {
    pub(crate) kind: Kind,
    /// The clock's index.
    pub(crate) clock: u32,
    /// Its board number.
    pub(crate) board: u32,
    /// Its name.
    pub(crate) name: String,
    /// For people: what happened and where.
    pub(crate) text: String,
    /// Alerts of this clock and kind left out since the last one (rate limit).
    pub(crate) suppressed: u32,
}

#[derive(Debug, Default)]
struct Condition {
    /// Since when it holds (ms), while it does.
    since: Option<u64>,
    /// It alerted (or was suppressed) since it began.
    fired: bool,
}

/// The alert conditions of every clock. See the module docs.
#[derive(Debug)]
pub(crate) struct Watcher {
    settings: AlertSettings,
    conditions: BTreeMap<(u32, Kind), Condition>,
    /// When each clock and kind last alerted, and how many were left out since.
    sent: BTreeMap<(u32, Kind), (u64, u32)>,
}

impl Watcher {
    pub(crate) fn new(settings: AlertSettings) -> Watcher {
        Watcher {
            settings,
            conditions: BTreeMap::new(),
            sent: BTreeMap::new(),
        }
    }

    /// The alerts due at `now_ms` for `clocks` as they are.
    pub(crate) fn check(&mut self, now_ms: u64, clocks: &[&ClockStatus]) -> Vec<Alert> {
        let mut due = Vec::new();
        for c in clocks {
            for kind in Kind::ALL {
                let (holds, delay_s, text) = self.condition(kind, c);
                let cond = self.conditions.entry((c.index, kind)).or_default();
                if !holds {
                    *cond = Condition::default();
                    continue;
                }
                let since = *cond.since.get_or_insert(now_ms);
                if cond.fired || now_ms.saturating_sub(since) < delay_s * 1000 {
                    continue;
                }
                cond.fired = true;
                if !self.settings.on.contains(&kind) {
                    continue;
                }
                let min_ms = self.settings.min_interval_s * 1000;
                let sent = self.sent.entry((c.index, kind)).or_insert((0, 0));
                if sent.0 > 0 && now_ms.saturating_sub(sent.0) < min_ms {
                    sent.1 += 1;
                    continue;
                }
                let suppressed = std::mem::take(&mut sent.1);
                sent.0 = now_ms.max(1);
                due.push(Alert {
                    kind,
                    clock: c.index,
                    board: c.board,
                    name: c.name.clone(),
                    text,
                    suppressed,
                });
            }
        }
        due
    }

    /// Whether `kind` holds for `c`, its delay and its text. A board gone, a pause, a board
    /// problem and a low battery are the board's problems as every client lists them
    /// ([`chessclock_api::attention`]), said with what fixes them.
    fn condition(&self, kind: Kind, c: &ClockStatus) -> (bool, u64, String) {
        let at = format!("board {} ({})", c.board, c.name);
        let s = &self.settings;
        let problems = chessclock_api::problems(c);
        let problem_of = |kinds: &[&str], delay_s: u64| match problems
            .iter()
            .find(|p| kinds.contains(&p.kind.as_str()))
        {
            Some(p) => (true, delay_s, format!("{at}: {}: {}", p.text, p.fix)),
            None => (false, delay_s, String::new()),
        };
        let problem = |kind: &str, delay_s: u64| problem_of(&[kind], delay_s);
        match kind {
            Kind::BoardGone => problem("missing", s.gone_after_s),
            // Only a game under way: a clock paused before its first press waits for its
            // players, not for the operator.
            Kind::Paused if c.moves.white + c.moves.black == 0 => (false, 0, String::new()),
            Kind::Paused => problem("paused", s.paused_after_s),
            Kind::Flag => {
                let flag = c.flags.first();
                (
                    flag.is_some(),
                    0,
                    match flag {
                        Some(f) => format!("{at}: {}'s flag fell ({})", f.side.as_str(), f.reason),
                        None => String::new(),
                    },
                )
            }
            Kind::Result => (
                c.result.is_some(),
                0,
                format!(
                    "{at}: {} ({})",
                    c.result.as_deref().unwrap_or_default(),
                    c.reason.as_deref().unwrap_or("result").replace('_', " ")
                ),
            ),
            // The board's own, or an observed clock against its declared control.
            Kind::BoardProblem => {
                problem_of(&["board_problem", "clock_control"], s.problem_after_s)
            }
            Kind::BatteryLow => problem("battery_low", 0),
        }
    }
}

#[cfg(test)]
mod tests;
