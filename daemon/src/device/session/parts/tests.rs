//! The lever's part on its own: how a report's lever is judged, once per first report, and
//! when its agreement is journaled.

use super::{Lever, LeverVerdict};
use crate::engine::Side::{Black, White};

#[test]
fn a_lever_in_step_stays_so_and_out_of_step_after_the_first_report_says_nothing() {
    let mut lever = Lever::default();
    assert_eq!(lever.judge(White, Some(White)), LeverVerdict::InStep);
    assert!(lever.agreed);
    assert_eq!(lever.judge(Black, Some(White)), LeverVerdict::OutOfStep);
    assert!(!lever.agreed);
    assert_eq!(
        lever.judge(White, None),
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
        lever.judge(Black, Some(White)),
        LeverVerdict::UnheardPress { restarted: false }
    );
    assert_eq!(
        lever.judge(Black, Some(White)),
        LeverVerdict::OutOfStep,
        "once"
    );
    // Out of step before the replug: not a press.
    let mut lever = Lever {
        unchecked: true,
        ..Lever::default()
    };
    assert_eq!(lever.judge(Black, Some(White)), LeverVerdict::OutOfStep);
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
        lever.judge(Black, Some(White)),
        LeverVerdict::UnheardPress { restarted: true }
    );
    // It did not: nobody knows, the operator decides.
    let mut lever = Lever {
        unchecked: true,
        resumed: true,
        ..Lever::default()
    };
    assert_eq!(lever.judge(Black, Some(White)), LeverVerdict::Unknown);
    assert_eq!(lever.judge(Black, Some(White)), LeverVerdict::OutOfStep);
}

#[test]
fn the_agreement_is_journaled_only_when_it_changes() {
    let mut lever = Lever::default();
    assert_eq!(lever.journal_due(), Some(false), "never journaled yet");
    assert_eq!(lever.journal_due(), None);
    lever.judge(White, Some(White));
    assert_eq!(lever.journal_due(), Some(true));
    lever.judge(White, Some(White));
    assert_eq!(lever.journal_due(), None);
}
