//! A press made while the daemon was down (docs/reliability.md): the lever's agreement with
//! the running player is journaled when it changes and with every press (over the bus too),
//! and a restarted session whose journal says it was in step takes the first report's
//! disagreement as the running player's press; out of step, or not said, it is a notice
//! only. The clock is asked for a report before the first set-and-run.

use chessclock_protocol::emulator::{EmuConfig, Running};
use chessclock_protocol::{ClockCommand, Command, RunFlags, RunSide};

use super::{Rig, notices, until};
use crate::link::driver::{DriverConfig, Instant};
use crate::session::interface::ClockEvent;
use crate::session::note::{Note, lever_noted_after};
use crate::session::{Session, SessionOutput};
use chessclock_engine::{Input, Side};

/// The lever notes journaled so far.
fn lever_notes(rig: &Rig) -> Vec<bool> {
    rig.events
        .iter()
        .filter_map(|(_, ev)| match ev {
            SessionOutput::Note {
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
            ClockEvent::Pressed(chessclock_engine::Press { side, move_ms, .. }) => {
                Some((side, move_ms))
            }
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

/// A press journals the lever's agreement right after it (the same batch of the journal:
/// no fsync of its own): a lever press keeps it in step, a press over the bus, with the
/// lever where it was, puts it out of step and the next one back in step.
#[test]
fn every_press_journals_the_lever_s_agreement_right_after_it() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 2_000);
    for _ in 0..3 {
        rig.press();
        rig.run_until(rig.now + 1_500);
    }
    // Black to move, the lever showing Black.
    rig.bus_presses_unheard(&[Side::Black, Side::White]);
    assert_eq!(presses(&rig).len(), 5, "the presses were taken");
    let after: Vec<Option<bool>> = rig
        .events
        .iter()
        .enumerate()
        .filter(|(_, (_, ev))| matches!(ev, SessionOutput::Input { .. }))
        .map(|(i, _)| match rig.events.get(i + 1) {
            Some((
                _,
                SessionOutput::Note {
                    note: Note::Lever(in_step),
                    ..
                },
            )) => Some(*in_step),
            _ => None,
        })
        .collect();
    assert_eq!(
        after,
        [
            Some(true),
            Some(true),
            Some(true),
            Some(true),
            Some(false),
            Some(true)
        ],
        "start, three lever presses, two presses over the bus"
    );
}

/// An arbiter presses over the bus, White, Black, White, on a board whose lever never
/// moved, and the daemon is killed at once, before the clock reports the change: the
/// journal said with each press whether the lever was in step, so the restarted daemon
/// invents no press (it used to take the lever's disagreement for Black's press).
#[test]
fn presses_over_the_bus_then_a_restart_invent_no_press() {
    let mut rig = Rig::ready("G/10", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 2_000);
    rig.bus_presses_unheard(&[Side::White, Side::Black, Side::White]);
    let journal = journal_says(&rig);
    assert_eq!(journal, Some(false), "journaled out of step");
    restart(&mut rig, false, journal);
    rig.run_until(rig.now + 4_000);
    assert!(presses(&rig).is_empty(), "no press invented");
    let snap = rig.session.snapshot(Instant::from_ms(rig.now));
    assert_eq!((snap.moves.white, snap.moves.black), (2, 1), "{snap:?}");
    assert_eq!(rig.emu.view().running, Running::Right, "Black's time runs");
    let said = notices(&rig);
    assert!(
        said.len() == 1 && said[0].contains("`chessclockctl press 7 black`"),
        "{said:?}"
    );
}

/// After a restart the clock is asked for a report (0x41) before the first set-and-run:
/// a press made while the daemon was down is taken before the display is set, which never
/// shows the wrong side running.
#[test]
fn after_a_restart_the_first_push_already_follows_a_press_made_while_down() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 2_000);
    rig.press();
    rig.run_until(rig.now + 1_000);
    let journal = journal_says(&rig);
    assert_eq!(journal, Some(true));
    restart(&mut rig, true, journal);
    let back = rig.now;
    until(&mut rig, 2_000, "the press", |r| !presses(r).is_empty());
    rig.run_until(rig.now + 1_000);
    let pushes: Vec<_> = rig
        .emu
        .host_log()
        .iter()
        .filter(|e| e.at_ms >= back)
        .filter_map(|e| match &e.command {
            Command::Clock(ClockCommand::SetAndRun(s)) => Some((e.at_ms, s.flags)),
            _ => None,
        })
        .collect();
    assert!(!pushes.is_empty(), "pushed after the restart");
    assert!(
        pushes
            .iter()
            .all(|(_, flags)| *flags == RunFlags::from(RunSide::Left)),
        "only White's time shown running: {pushes:?}"
    );
    assert!(pushes[0].0 < back + 1_000, "{pushes:?}: within a second");
}

/// What a restore would read of the lever from the journal the session asked for so far:
/// the last lever note, unless an input after which the journal notes the lever, or White's
/// half, came after it (`persist::restore`).
fn journal_says(rig: &Rig) -> Option<bool> {
    let mut said = None;
    for (_, ev) in &rig.events {
        match ev {
            SessionOutput::Input { input, .. } if lever_noted_after(input) => said = None,
            SessionOutput::Note {
                note: Note::Lever(in_step),
                ..
            } => said = Some(*in_step),
            SessionOutput::Note {
                note: Note::WhiteSide(_),
                ..
            } => said = None,
            _ => {}
        }
    }
    said
}
