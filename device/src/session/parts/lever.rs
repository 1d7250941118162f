//! The clock's lever against the engine's player to move: whether it agreed, and the
//! verdict on the first report after a replug or a resume. It judges the lever; it takes no
//! press itself.

use chessclock_engine::Side;

/// What the session knows of the clock's lever against the engine's player to move.
/// Invariant: at most one of `resumed` and `restarted` is set, and only until the first
/// clock report after the game came back from the journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Lever {
    /// The lever's raised end agreed with the engine's player to move at the last clock
    /// report of a running game, or after the last input that set a clock running (a press
    /// over the bus leaves the lever where it was): a disagreement at the first report after
    /// a reconnect or a restart is a press the host could not hear.
    agreed: bool,
    /// The next clock report is the first since the port was opened.
    unchecked: bool,
    /// A running game resumed from the journal, its lever not seen yet: whether it was in
    /// step before the daemon stopped is not known.
    resumed: bool,
    /// A running game resumed from the journal whose lever was in step: a disagreement at
    /// the first report is a press made while the daemon was not running.
    restarted: bool,
    /// What the journal last said of the lever ([`crate::session::note::Note::Lever`]).
    journaled: Option<bool>,
}

/// What a clock report's lever means for a game in drive mode ([`Lever::verdict`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LeverVerdict {
    /// The lever shows the player whose time runs (or no clock runs).
    InStep,
    /// Out of step, and nothing to say: not the first report, or it was out of step before.
    OutOfStep,
    /// The first report after a replug (`restarted`: after a restart of the daemon) shows
    /// the other player to move while the lever was in step before: a press nobody heard,
    /// to be taken now.
    UnheardPress {
        /// After a restart of the daemon, not a replug.
        restarted: bool,
    },
    /// The first report of a game resumed from a journal that did not say the lever was in
    /// step: a press may have been made while the daemon was down; the operator decides.
    Unknown,
}

impl Lever {
    /// The lever of a game that is `resumed` from the journal running (its lever not seen
    /// yet), or not.
    pub(crate) fn resuming(resumed: bool) -> Lever {
        Lever {
            resumed,
            ..Lever::default()
        }
    }

    /// The port opened: the next clock report is the first since.
    pub(crate) fn connected(&mut self) {
        self.unchecked = true;
    }

    /// An input set a clock running with the lever `agreed` with it or not, journaled now.
    pub(crate) fn noted(&mut self, agreed: bool) {
        self.agreed = agreed;
        self.journaled = Some(agreed);
    }

    /// A press the lever showed was taken: the lever is in step.
    pub(crate) fn press_taken(&mut self) {
        self.agreed = true;
    }

    /// A new journal (a new game): it has said nothing of the lever yet.
    pub(crate) fn new_journal(&mut self) {
        self.journaled = None;
    }

    /// The halves now mean other players: in step again only once a report says, and the
    /// journal must say it anew.
    pub(crate) fn sides_swapped(&mut self) {
        self.agreed = false;
        self.journaled = None;
    }

    /// Judge the lever of a clock report: `shown`, the player the raised end says is to
    /// move; `runner`, the player whose time runs (`None` when no clock runs). The first
    /// report since the port opened, or since a resume, is judged once.
    pub(crate) fn verdict(&mut self, shown: Side, runner: Option<Side>) -> LeverVerdict {
        let first = std::mem::take(&mut self.unchecked);
        let restarted = std::mem::take(&mut self.restarted);
        let resumed = std::mem::take(&mut self.resumed);
        let Some(turn) = runner else {
            self.agreed = false;
            return LeverVerdict::InStep;
        };
        if shown == turn {
            self.agreed = true;
            return LeverVerdict::InStep;
        }
        let was_in_step = std::mem::replace(&mut self.agreed, false);
        match (first, resumed, was_in_step) {
            (false, _, _) => LeverVerdict::OutOfStep,
            (true, true, _) => LeverVerdict::Unknown,
            (true, false, false) => LeverVerdict::OutOfStep,
            (true, false, true) => LeverVerdict::UnheardPress { restarted },
        }
    }

    /// The agreement to journal, when it changed since it was last journaled.
    pub(crate) fn journal_due(&mut self) -> Option<bool> {
        (self.journaled != Some(self.agreed)).then(|| {
            self.journaled = Some(self.agreed);
            self.agreed
        })
    }

    /// The lever is a new board's, not the one the game was played on: whatever its first
    /// report shows, no press is taken and nothing is said (out of step until it agrees).
    pub(crate) fn new_board(&mut self) {
        self.resumed = false;
        self.restarted = false;
        self.agreed = false;
    }

    /// A running game resumed from a journal that says the lever was in step: its first
    /// report is judged as after a replug.
    pub(crate) fn resume_in_step(&mut self) {
        if self.resumed {
            self.resumed = false;
            self.restarted = true;
            self.agreed = true;
            self.journaled = Some(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Lever, LeverVerdict};
    use chessclock_engine::Side::{Black, White};

    #[test]
    fn a_lever_in_step_stays_so_and_out_of_step_after_the_first_report_says_nothing() {
        let mut lever = Lever::default();
        assert_eq!(lever.verdict(White, Some(White)), LeverVerdict::InStep);
        assert!(lever.agreed);
        assert_eq!(lever.verdict(Black, Some(White)), LeverVerdict::OutOfStep);
        assert!(!lever.agreed);
        assert_eq!(
            lever.verdict(White, None),
            LeverVerdict::InStep,
            "no clock runs"
        );
        assert!(!lever.agreed, "nothing to agree with");
    }

    #[test]
    fn the_first_report_after_a_replug_of_a_lever_in_step_is_an_unheard_press_once() {
        let mut lever = Lever {
            agreed: true,
            unchecked: true,
            ..Lever::default()
        };
        assert_eq!(
            lever.verdict(Black, Some(White)),
            LeverVerdict::UnheardPress { restarted: false }
        );
        assert_eq!(
            lever.verdict(Black, Some(White)),
            LeverVerdict::OutOfStep,
            "once"
        );
        // Out of step before the replug: not a press.
        let mut lever = Lever {
            unchecked: true,
            ..Lever::default()
        };
        assert_eq!(lever.verdict(Black, Some(White)), LeverVerdict::OutOfStep);
    }

    #[test]
    fn after_a_restart_the_journal_decides_whether_the_lever_is_trusted() {
        // The journal said in step: as a replug, said to come from a restart.
        let mut lever = Lever {
            unchecked: true,
            resumed: true,
            ..Lever::default()
        };
        lever.resume_in_step();
        assert_eq!(lever.journaled, Some(true));
        assert_eq!(
            lever.verdict(Black, Some(White)),
            LeverVerdict::UnheardPress { restarted: true }
        );
        // It did not: nobody knows, the operator decides.
        let mut lever = Lever {
            unchecked: true,
            resumed: true,
            ..Lever::default()
        };
        assert_eq!(lever.verdict(Black, Some(White)), LeverVerdict::Unknown);
        assert_eq!(lever.verdict(Black, Some(White)), LeverVerdict::OutOfStep);
    }

    #[test]
    fn a_new_board_s_lever_says_nothing_of_a_press_whatever_it_shows() {
        let mut lever = Lever {
            unchecked: true,
            resumed: true,
            ..Lever::default()
        };
        lever.resume_in_step();
        lever.new_board();
        assert_eq!(lever.verdict(Black, Some(White)), LeverVerdict::OutOfStep);
        let mut lever = Lever {
            unchecked: true,
            resumed: true,
            ..Lever::default()
        };
        lever.new_board();
        assert_eq!(lever.verdict(Black, Some(White)), LeverVerdict::OutOfStep);
        assert_eq!(lever.verdict(White, Some(White)), LeverVerdict::InStep);
    }

    #[test]
    fn the_agreement_is_journaled_only_when_it_changes() {
        let mut lever = Lever::default();
        assert_eq!(lever.journal_due(), Some(false), "never journaled yet");
        assert_eq!(lever.journal_due(), None);
        lever.verdict(White, Some(White));
        assert_eq!(lever.journal_due(), Some(true));
        lever.verdict(White, Some(White));
        assert_eq!(lever.journal_due(), None);
    }
}
