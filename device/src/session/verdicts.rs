//! Who can still mate in the board's position, and what a flag decides there, for the
//! session (docs/rules.md): after every change of the position the game crate's quick check
//! runs inline and decides what the material decides; the full search is asked of the IO
//! shell ([`SessionOutput::Search`], answered off the device thread through
//! [`Session::handle_verdict`]); a search not answered within [`VERDICT_WAIT`] counts as not
//! decided. Each verdict reaches the engine as journaled inputs: a dead position as
//! `board_end` `dead_position`, who wins on a flag as `mating_material` when it changes.
//! While the search runs the engine keeps the last verdict, except when a flag falls: just
//! before the engine reaches the flag it is told the verdict is not known (`None`, at the
//! millisecond before), so that the flag waits for the search and says so. A move costs the
//! journal nothing when the verdict stays what it was.
//!
//! Part of the pure [`Session`]: it owns when a verdict is asked, taken or given up on, and
//! what the arbiter is told; the verdicts are the game crate's ([`chessclock_game::winnable`]),
//! running the search is the worker's (`device/io/search.rs`), the flag's result the engine's.

use std::time::Duration;

use chessclock_game::shakmaty::Chess;
use chessclock_game::winnable::{self, Judgement, Rulebook};

use super::judging::DrawRules;
use super::{Session, SessionOutput};
use crate::link::driver::Instant;
use chessclock_engine::{BoardEnd, Input, Side};

/// How long a search may take before its position counts as not decided: a flag waits at
/// most this long for its result (a search takes microseconds usually, about a second on
/// the worst positions known; docs/benchmarks.md).
pub(crate) const VERDICT_WAIT: Duration = Duration::from_secs(5);

/// A search the IO shell must run: the full verdict on `position` under `rulebook`,
/// answered with its `id` ([`Session::handle_verdict`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    pub id: u64,
    pub position: Chess,
    pub rulebook: Rulebook,
}

impl SearchRequest {
    /// The verdict the search gives (what the worker runs; tests run it in place).
    pub fn run(&self) -> Judgement {
        winnable::judge(
            &self.position,
            self.rulebook,
            winnable::MateBudget::default(),
        )
    }
}

/// The session's part: the search under way and the verdict in force.
#[derive(Debug, Default)]
pub(crate) struct Verdicts {
    /// The id the next search gets.
    next_id: u64,
    /// The search under way for the position in [`Verdicts::position`], and when it was
    /// handed to the IO shell (polled; `None` before: the wait starts then).
    asked: Option<(u64, Option<Instant>)>,
    /// The position judged last (the board's current one, or the one a flag waits on).
    position: Option<Chess>,
    /// The verdict in force on it (the quick one until the search answers).
    current: Option<Judgement>,
}

impl Session {
    /// The rules that judge this clock's board (`draw_rules`, else by the control).
    pub(super) fn rules(&self) -> DrawRules {
        match self.cfg.draw_rules {
            Some(rules) => rules,
            None if self.engine.control().method
                == chessclock_engine::params::Method::DoubleFlag =>
            {
                DrawRules::None
            }
            None => DrawRules::Fide,
        }
    }

    fn rulebook(&self) -> Rulebook {
        match self.rules() {
            DrawRules::Uscf => Rulebook::Uscf,
            DrawRules::Fide | DrawRules::None => Rulebook::Fide,
        }
    }

    /// The board's position changed at `at` (a move read, a position set, a correction, an
    /// undo): judge it inline as far as the material goes and ask for the search. While a
    /// flag waits for the verdict on its position, that verdict is the one awaited.
    pub(super) fn judge_position(&mut self, at: Instant) {
        if self.engine.awaiting_verdict().is_some() && self.verdicts.asked.is_some() {
            return;
        }
        let Some(position) = self.board.game().tracker().positions().last().cloned() else {
            return;
        };
        let rulebook = self.rulebook();
        let quick = winnable::judge_quick(&position, rulebook);
        self.verdicts.position = Some(position.clone());
        self.verdicts.asked = None;
        let complete = quick.white_flag.is_some() && quick.black_flag.is_some();
        if !complete {
            let id = self.verdicts.next_id;
            self.verdicts.next_id += 1;
            self.verdicts.asked = Some((id, None));
            self.outputs.push_back(SessionOutput::Search(SearchRequest {
                id,
                position,
                rulebook,
            }));
        }
        self.take_judgement(at, &quick);
    }

    /// The search `id` answered `judgement` at `now` (the IO shell's worker); an answer for
    /// a position no longer judged is dropped.
    pub(crate) fn handle_verdict(&mut self, now: Instant, id: u64, judgement: Judgement) {
        self.advance(now);
        if self.verdicts.asked.map(|(asked, _)| asked) == Some(id) {
            self.verdicts.asked = None;
            self.take_judgement(now, &judgement);
        }
        self.finish(now);
    }

    /// When the search under way counts as not decided, if one is.
    pub(super) fn verdict_deadline(&self) -> Option<Instant> {
        self.verdicts
            .asked
            .and_then(|(_, at)| at)
            .map(|at| at + VERDICT_WAIT)
    }

    /// The IO shell took the search `id` at the session's latest time: the wait starts.
    pub(super) fn search_handed_out(&mut self, id: u64) {
        if let Some((asked, at)) = &mut self.verdicts.asked
            && *asked == id
            && at.is_none()
        {
            *at = Some(self.time.now());
        }
    }

    /// The search under way is past [`VERDICT_WAIT`] at `now`: its position is judged as
    /// not decided beyond the material (a later answer is dropped).
    pub(super) fn verdict_timeout(&mut self, now: Instant) {
        if self.verdict_deadline().is_none_or(|d| d > now) {
            return;
        }
        self.verdicts.asked = None;
        let Some(position) = self.verdicts.position.clone() else {
            return;
        };
        let judgement = winnable::judge_unsearched(&position, self.rulebook());
        self.notify(format!(
            "clock {}: the search of who can still mate did not answer within {} s; the \
             position counts as not decided",
            self.cfg.clock,
            VERDICT_WAIT.as_secs()
        ));
        self.take_judgement(now, &judgement);
    }

    /// Give the engine what `judgement` decides (a dead position ends the game under FIDE's
    /// and US Chess's rules), publish who can mate, and tell the arbiter of a waiting flag's
    /// result the search did not decide.
    fn take_judgement(&mut self, at: Instant, judgement: &Judgement) {
        self.verdicts.current = Some(*judgement);
        if self.published.state().can_mate != Some(judgement.who) {
            self.published.state_mut().can_mate = Some(judgement.who);
            self.published.mark_changed();
        }
        if self.observing() {
            return;
        }
        let awaited = self.engine.awaiting_verdict();
        if judgement.dead() && self.rules() != DrawRules::None {
            self.end_on_board(at, BoardEnd::DeadPosition);
        }
        // What is not known yet keeps the engine's last verdict until a flag needs it
        // ([`Session::hold_flag_for_search`]).
        let (known_white, known_black) = self.engine.mating_material();
        let (white, black) = judgement.wins_on_flag();
        let (white, black) = (white.or(known_white), black.or(known_black));
        if (white, black) != (known_white, known_black) {
            // Taken in every status; nothing to refuse.
            let _ = self.apply(at, Input::MatingMaterial { white, black });
        }
        if let Some(side) = awaited
            && self.engine.awaiting_verdict().is_none()
        {
            self.flag_judged(side, judgement);
        }
    }

    /// Before the engine is brought to `t`: a flag due by then while the search of the
    /// position runs must wait for it, so the engine is told, at the millisecond before the
    /// flag (journaled, so that a replay waits alike), which verdicts are not known yet.
    pub(super) fn hold_flag_for_search(&mut self, t: chessclock_engine::Time) {
        if self.verdicts.asked.is_none() || self.observing() {
            return;
        }
        let Some(current) = self.verdicts.current else {
            return;
        };
        let (white, black) = current.wins_on_flag();
        if (white, black) == self.engine.mating_material() {
            return;
        }
        let Some(due) = self.engine.poll_timeout() else {
            return;
        };
        if due > t {
            return;
        }
        let before =
            chessclock_engine::Time::from_ms(due.as_ms().saturating_sub(1)).max(self.engine.now());
        let input = Input::MatingMaterial { white, black };
        if self.engine.handle_input(before, input.clone()).is_ok() {
            self.outputs.push_back(SessionOutput::Input {
                t_ms: before.as_ms(),
                input,
            });
        }
    }

    /// `side`'s flag fell (the engine's event): say that its result waits for the search,
    /// or how a verdict the search did not decide judged it.
    pub(super) fn flag_fell(&mut self, side: Side) {
        if self.observing() {
            return;
        }
        if self.engine.awaiting_verdict() == Some(side) {
            self.notify(format!(
                "clock {}: {}'s flag fell; the result waits for the search of who can still \
                 mate in the position (at most {} s)",
                self.cfg.clock,
                side.as_str(),
                VERDICT_WAIT.as_secs()
            ));
            return;
        }
        if let Some(judgement) = self.verdicts.current {
            self.flag_judged(side, &judgement);
        }
    }

    /// Tell the arbiter how `side`'s flag was judged when the verdict rests on a search that
    /// did not decide.
    fn flag_judged(&mut self, side: Side, judgement: &Judgement) {
        if let Some(flag) = judgement.on_flag(side)
            && flag.undecided()
        {
            self.notify(format!("clock {}: {}", self.cfg.clock, flag.explain(side)));
        }
    }
}
