//! Observe mode's checks of the clock against the declared control, as DGT LiveChess's
//! "clock at start" check does, and the time the clock adds outside a press.
//!
//! Owns three things read from the clock's reports (each side's time, whole seconds):
//! - the times the clock showed at the game's start (every report before the first press;
//!   the last one standing, or the first one running unless the clock is set anew, holds),
//!   judged against the declared
//!   control's start times ([`Engine::new`]'s first snapshot: a FIDE increment is in it);
//! - what the clock added at each press: the mover's time in the press's report against
//!   the report before, plus every change of that side's time while it waits (a period the
//!   clock adds a report late, an arbiter's correction on the stopped clock), judged against
//!   what the declared control adds there (the engine pressed in zero time: the increment,
//!   and a period's time at its move);
//! - the time added to a side outside its press (a period on the flag, a correction): it is
//!   added to that side's last `[%clk]` in the PGN until its next press, so a broadcast
//!   shows it at once (lila reads a changed `[%clk]` of a move it has; `docs/relay.md`).
//!
//! A mismatch is the clock's problem (`ClockProblem`: its words, then `; fix: ` and what fixes
//! it, which `chessclock_api::attention` shows as the fix) while its cause holds: it goes when the clock shows the right
//! start times before the first press, when the operator declares the control the clock
//! runs (`chessclockctl set`), or with a new game. The game moving on does not clear it: the
//! record would name a control the clock did not run. Judged lazily against the control
//! declared now, so a new declaration judges the game again. Pure: no IO, no clock read.
//!
//! Not judged: time added outside a press (a period on the flag, `tr/flag`: the engine in
//! zero time never flags), and a game whose start was not seen (a restart mid-game).

use chessclock_engine::params::TimeControl;
use chessclock_engine::{Engine, Input, PerSide, Side, Time, clock_text, notation};

/// A press's whole-second reading may be up to this much under what the control adds (the
/// report before the press is up to a second old, and the display rounds).
const SHORT_MS: u64 = 2_000;
/// ... and this much over it (rounding), plus a delay's refund.
const OVER_MS: u64 = 1_000;

/// What the clock added at one press.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Added {
    side: Side,
    move_number: u32,
    /// The mover's time after the press and every change while it waited, minus its time
    /// before the press, ms (negative: the clock took time).
    ms: i64,
    /// The mover's time after it, ms.
    after_ms: u64,
}

/// The checks' record of the game. See the module docs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ControlCheck {
    /// The times the clock showed at the start, and whether it already ran then.
    start: Option<(PerSide<u64>, Option<Side>)>,
    /// Each press's addition, in order.
    presses: Vec<Added>,
    /// The game was under way before the first report (a restart, a switch to observe
    /// mode after moves): its start was not seen, so nothing is judged.
    unseen: bool,
    /// The last report's times and runner, and the one before.
    last: Option<(PerSide<u64>, Option<Side>)>,
    prev: Option<(PerSide<u64>, Option<Side>)>,
    /// Time added to each side outside its press since its last press (ms), for the PGN.
    since_press: PerSide<i64>,
}

fn get(p: &PerSide<u64>, side: Side) -> u64 {
    match side {
        Side::White => p.white,
        Side::Black => p.black,
    }
}

fn get_mut<T>(p: &mut PerSide<T>, side: Side) -> &mut T {
    match side {
        Side::White => &mut p.white,
        Side::Black => &mut p.black,
    }
}

fn signed(ms: i64) -> String {
    let text = clock_text(ms.unsigned_abs());
    if ms < 0 {
        format!("-{text}")
    } else {
        format!("+{text}")
    }
}

impl ControlCheck {
    /// No report read yet in this game.
    pub(crate) fn is_fresh(&self) -> bool {
        self.last.is_none() && !self.unseen
    }

    /// The game was under way before its first report: its start is not judged, nor its
    /// presses (what the control adds depends on the moves before).
    pub(crate) fn start_unseen(&mut self) {
        self.unseen = true;
    }

    /// A clock report with these times (by side) and runner. A report in which the runner
    /// changed sides carries a press: its change is the press's ([`ControlCheck::on_press`],
    /// which follows it).
    pub(crate) fn on_report(&mut self, times: PerSide<u64>, running: Option<Side>) {
        let press = matches!(
            (self.last.and_then(|(_, r)| r), running),
            (Some(a), Some(b)) if a != b
        );
        if self.presses.is_empty() && !press && !self.unseen {
            // Before the first press: the clock as it stands is the start; once it runs, the
            // first running report holds, until the clock is set anew (a time rises).
            let set_anew = self
                .last
                .is_some_and(|(t, _)| times.white > t.white || times.black > t.black);
            match self.start {
                Some((_, Some(_))) if running.is_some() && !set_anew => {}
                _ => self.start = Some((times, running)),
            }
        }
        self.prev = self.last.replace((times, running));
        let Some((before, was_running)) = self.prev else {
            return;
        };
        if press {
            return;
        }
        for side in [Side::White, Side::Black] {
            let delta = get(&times, side) as i64 - get(&before, side) as i64;
            // A running side's time falls by itself (or, counting up, rises a second at a
            // time); only a larger rise is added time. A waiting side's time changes only
            // when the clock (or the arbiter) changes it.
            let ran = was_running == Some(side) || running == Some(side);
            if delta == 0 || (ran && delta <= 1_000) {
                continue;
            }
            *get_mut(&mut self.since_press, side) += delta;
            if !ran && let Some(last) = self.presses.iter_mut().rev().find(|a| a.side == side) {
                last.ms += delta;
                last.after_ms = get(&times, side);
            }
        }
    }

    /// `side` pressed (its `move_number`-th press), in the last report.
    pub(crate) fn on_press(&mut self, side: Side, move_number: u32) {
        // The press's report gives the mover's clock anew.
        *get_mut(&mut self.since_press, side) = 0;
        let (Some(_), Some((after, _))) = (self.start, self.last) else {
            // The start was not seen (a restart mid-game): nothing to judge the presses by.
            return;
        };
        let before = self.prev.map_or(get(&after, side), |(t, _)| get(&t, side));
        let after = get(&after, side);
        self.presses.push(Added {
            side,
            move_number,
            ms: after as i64 - before as i64,
            after_ms: after,
        });
    }

    /// Time added to `side` outside its press since its last press, ms (for its `[%clk]`).
    pub(crate) fn added_since_press(&self, side: Side) -> i64 {
        *match side {
            Side::White => &self.since_press.white,
            Side::Black => &self.since_press.black,
        }
    }

    /// What is wrong with the clock against `declared`, in words with the fix, or `None`.
    /// `clock` names the clock in the fix's command.
    pub(crate) fn problem(&self, declared: &TimeControl, clock: &str) -> Option<String> {
        let mut engine = Engine::new(declared.clone()).ok()?;
        let name = notation::canonical(declared);
        let fix = format!(
            "fix: set the clock to the declared control with its own menu, or declare the \
             control it runs: chessclockctl set {clock} CONTROL"
        );
        let t = Time::from_ms(0);
        let want = engine.snapshot(t);
        if let Some((shown, running)) = self.start {
            let ok = |side: Side| {
                let (w, s) = (want.value(side), get(&shown, side));
                // The side already running may have lost its first second.
                let slack = if running == Some(side) { 1_000 } else { 0 };
                s <= w && s + slack >= w
            };
            if !ok(Side::White) || !ok(Side::Black) {
                return Some(format!(
                    "the clock started at {} - {} (White - Black), but the declared control \
                     {name} starts at {} - {}; {fix}",
                    clock_text(shown.white),
                    clock_text(shown.black),
                    clock_text(want.white_ms),
                    clock_text(want.black_ms),
                ));
            }
        }
        let first = self.presses.first()?;
        engine
            .handle_input(t, Input::Start { side: first.side })
            .ok()?;
        let mut delay_ms = 0;
        for a in &self.presses {
            let before = engine.snapshot(t).value(a.side);
            delay_ms = engine
                .snapshot(t)
                .detail
                .get(a.side)
                .delay_left_ms
                .unwrap_or(0)
                .max(delay_ms);
            let input = Input::PressMove {
                side: a.side,
                move_number: a.move_number,
            };
            engine.handle_input(t, input).ok()?;
            let want = engine.snapshot(t).value(a.side) as i64 - before as i64;
            if a.ms + (SHORT_MS as i64) < want || a.ms > want + (OVER_MS + delay_ms) as i64 {
                return Some(format!(
                    "at {}'s move {} the clock added {} (to {}), but the declared control \
                     {name} adds {} there; {fix}",
                    a.side.as_str(),
                    a.move_number,
                    signed(a.ms),
                    clock_text(a.after_ms),
                    signed(want),
                ));
            }
        }
        None
    }
}
