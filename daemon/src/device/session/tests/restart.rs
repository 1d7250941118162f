//! A press made while the daemon was down (docs/reliability.md): the lever's agreement with
//! the running player is journaled when it changes, and a restarted session whose journal
//! says it was in step takes the first report's disagreement as the running player's press;
//! out of step, or not said, it is a notice only.

use chessclock_protocol::emulator::{EmuConfig, Running};

use super::{Rig, notices, until};
use crate::device::link::driver::{DriverConfig, Instant};
use crate::device::session::command::ClockEvent;
use crate::device::session::note::Note;
use crate::device::session::{Session, SessionEvent};
use crate::engine::{Input, Side};

/// The lever notes journaled so far.
fn lever_notes(rig: &Rig) -> Vec<bool> {
    rig.events
        .iter()
        .filter_map(|(_, ev)| match ev {
            SessionEvent::Note {
                note: Note::Lever(in_step),
                ..
            } => Some(*in_step),
            _ => None,
        })
        .collect()
}

fn presses(rig: &Rig) -> Vec<(Side, u64)> {
    rig.clock_events()
        .into_iter()
        .filter_map(|(_, ev)| match ev {
            ClockEvent::Pressed { side, move_ms, .. } => Some((side, move_ms)),
            _ => None,
        })
        .collect()
}

/// The daemon dies; the lever is pressed while it is down (`press_while_down`); 1.5 s
/// later a new session resumes the game, `journal_in_step` being what its journal said of
/// the lever.
fn restart(rig: &mut Rig, press_while_down: bool, journal_in_step: Option<bool>) {
    let engine = rig.session.engine().clone();
    if press_while_down {
        rig.press();
    }
    rig.run_until(rig.now + 1_500);
    let offset = rig.session.time_at(Instant::from_ms(rig.now)).as_ms();
    rig.emu.reset_board(rig.now);
    let mut session = Session::new(
        super::config(),
        DriverConfig::default(),
        engine,
        offset - rig.now,
        None,
    );
    if journal_in_step == Some(true) {
        session.resume_lever_in_step();
    }
    session.connect_first(Instant::from_ms(rig.now));
    rig.session = session;
    rig.events.clear();
}

#[test]
fn a_press_made_while_the_daemon_was_down_is_charged_when_the_lever_was_in_step() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 2_000);
    rig.press();
    rig.run_until(rig.now + 1_000);
    assert_eq!(lever_notes(&rig).last(), Some(&true), "journaled in step");
    restart(&mut rig, true, Some(true));
    until(&mut rig, 4_000, "the press", |r| !presses(r).is_empty());
    let taken = presses(&rig);
    assert_eq!(taken.len(), 1, "{taken:?}");
    assert_eq!(taken[0].0, Side::Black, "the running player's press");
    assert!(
        taken[0].1 >= 2_400,
        "charged up to the restart's first report: {taken:?}"
    );
    let said = notices(&rig);
    assert!(
        said.len() == 1 && said[0].contains("while chessclockd was not running is taken"),
        "{said:?}"
    );
    assert!(said[0].contains("chessclockctl adjust 7 black"), "{said:?}");
    until(&mut rig, 500, "White's time runs", |r| {
        r.emu.view().running == Running::Left
    });
}

#[test]
fn a_lever_out_of_step_in_the_journal_or_not_journaled_is_a_notice_only() {
    for journal in [Some(false), None] {
        let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
        rig.start();
        rig.run_until(rig.now + 1_000);
        // An operator presses for White over the bus: the lever still shows White to move
        // while Black's time runs, and nobody touches it while the daemon is down.
        rig.input(Input::Press { side: Side::White });
        rig.run_until(rig.now + 1_500);
        assert_eq!(
            lever_notes(&rig).last(),
            Some(&false),
            "journaled out of step"
        );
        restart(&mut rig, false, journal);
        until(&mut rig, 4_000, "the notice", |r| !notices(r).is_empty());
        assert!(presses(&rig).is_empty(), "{journal:?}: no press invented");
        assert!(
            notices(&rig)[0].contains("`chessclockctl press 7"),
            "{journal:?}: {:?}",
            notices(&rig)
        );
    }
}

/// A press flips the lever and the runner in the same report: the lever stays in step, and
/// the journal gets no note (and no fsync) for it.
#[test]
fn a_press_journals_no_lever_note() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 2_000);
    let before = lever_notes(&rig);
    for _ in 0..3 {
        rig.press();
        rig.run_until(rig.now + 1_500);
    }
    assert_eq!(presses(&rig).len(), 3, "the presses were taken");
    assert_eq!(lever_notes(&rig), before, "no lever note for a press");
}
