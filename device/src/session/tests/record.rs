//! The game's record's life in the session, in virtual time: when it is due
//! ([`SessionOutput::RecordDue`]) — a result (once), a new game replacing one under way, a
//! clock detached with its game under way — the round it was played in, and its `Date`.

use chessclock_protocol::emulator::EmuConfig;

use super::Rig;
use crate::session::interface::{ClockEvent, Request};
use crate::session::note::Note;
use crate::session::{RecordDue, SessionOutput};
use chessclock_engine::GameResult;

/// Wall time (Unix ms) the rig's wake-ups are given: 2026-11-26, noon UTC.
const WALL: u64 = 1_795_694_400_000;

/// A ready journaled clock (it is given the wall time) on board 3 of round 1, its game
/// started and one press made.
fn under_way() -> Rig {
    let mut rig = Rig::ready("G/3", EmuConfig::default());
    rig.session.set_wall_ms(Some(WALL));
    rig.request(Request::Place { round: 1, board: 3 })
        .expect("placed");
    rig.start();
    rig.run_until(rig.now + 2_000);
    rig.press();
    rig.run_until(rig.now + 1_000);
    rig
}

/// The records said due so far, each with the index of its event.
fn dues(rig: &Rig) -> Vec<(usize, RecordDue)> {
    rig.events
        .iter()
        .enumerate()
        .filter_map(|(i, (_, ev))| match ev {
            SessionOutput::RecordDue(due) => Some((i, (**due).clone())),
            _ => None,
        })
        .collect()
}

fn index_of(rig: &Rig, f: impl Fn(&SessionOutput) -> bool) -> usize {
    rig.events
        .iter()
        .position(|(_, ev)| f(ev))
        .expect("the event")
}

#[test]
fn a_result_makes_the_record_due_once_after_the_events_said_with_it() {
    let mut rig = under_way();
    assert_eq!(
        rig.session.pgn_info().get("Date"),
        Some("2026.11.26"),
        "the PGN's date is the game's start's"
    );
    assert!(dues(&rig).is_empty(), "nothing is due while the game runs");
    rig.request(Request::SetResult(GameResult::WhiteWins))
        .expect("a result");
    rig.run_until(rig.now + 5_000);
    let said = dues(&rig);
    assert_eq!(said.len(), 1, "one record for one result");
    let (at, due) = &said[0];
    assert_eq!(due.snapshot.result, Some(GameResult::WhiteWins));
    assert!(!due.under_way_only, "an ended game is written as it stands");
    assert_eq!(due.round, Some(1));
    let result = index_of(&rig, |ev| {
        matches!(
            ev,
            SessionOutput::Clock {
                event: ClockEvent::Result { .. },
                ..
            }
        )
    });
    assert!(result < *at, "due after the result is said (journaled)");
}

#[test]
fn a_new_game_replacing_one_under_way_makes_its_record_due_before_the_journal_starts_anew() {
    let mut rig = under_way();
    rig.request(Request::NewGame).expect("new game");
    let said = dues(&rig);
    assert_eq!(said.len(), 1);
    let (at, due) = &said[0];
    assert!(due.under_way_only);
    assert_eq!(due.snapshot.result, None, "the game as it stood");
    assert_eq!(due.snapshot.moves.white, 1, "with its press");
    assert_eq!(
        index_of(&rig, |ev| matches!(ev, SessionOutput::NewGame { .. })),
        at + 1,
        "due just before the journal starts anew"
    );
    assert_eq!(
        rig.session.pgn_info().get("Date"),
        None,
        "the next game has no day yet"
    );
    // A new game replacing one not started writes nothing.
    rig.request(Request::NewGame).expect("new game");
    assert_eq!(dues(&rig).len(), 1);
}

#[test]
fn a_roll_over_keeps_the_played_round() {
    let mut rig = under_way();
    // The supervisor moves the clock on to the next round while its game runs.
    rig.request(Request::Place { round: 2, board: 5 })
        .expect("placed");
    rig.request(Request::SetResult(GameResult::Draw))
        .expect("a result");
    rig.run_until(rig.now + 1_000);
    assert_eq!(dues(&rig)[0].1.round, Some(1), "the round it was played in");
    // The next game is played in the clock's round.
    rig.request(Request::NewGame).expect("new game");
    rig.start();
    rig.run_until(rig.now + 1_000);
    rig.request(Request::SetResult(GameResult::Draw))
        .expect("a result");
    rig.run_until(rig.now + 1_000);
    assert_eq!(dues(&rig)[1].1.round, Some(2));
}

#[test]
fn a_clock_detached_with_its_game_under_way_notes_it_then_its_record_is_due() {
    let mut rig = under_way();
    rig.session.detach(rig.at());
    rig.run_until(rig.now + 10);
    let said = dues(&rig);
    assert_eq!(said.len(), 1);
    let (at, due) = &said[0];
    assert!(due.under_way_only);
    assert_eq!(due.snapshot.moves.white, 1);
    assert_eq!(
        index_of(&rig, |ev| matches!(
            ev,
            SessionOutput::Note {
                note: Note::Detached,
                record: true,
                ..
            }
        )),
        at - 1,
        "the note is journaled first"
    );
    // An ended game's record was written with its result: a detach adds nothing.
    let mut rig = under_way();
    rig.request(Request::SetResult(GameResult::BlackWins))
        .expect("a result");
    rig.run_until(rig.now + 1_000);
    rig.session.detach(rig.at());
    rig.run_until(rig.now + 10);
    assert_eq!(dues(&rig).len(), 1);
    assert!(!rig.events.iter().any(|(_, ev)| matches!(
        ev,
        SessionOutput::Note {
            note: Note::Detached,
            ..
        }
    )));
}

#[test]
fn a_clock_that_keeps_no_record_says_none_due_and_its_game_has_no_date() {
    let mut rig = Rig::ready("G/3", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 1_000);
    rig.press();
    assert_eq!(rig.session.pgn_info().get("Date"), None);
    rig.request(Request::SetResult(GameResult::WhiteWins))
        .expect("a result");
    rig.request(Request::NewGame).expect("new game");
    rig.session.detach(rig.at());
    rig.run_until(rig.now + 1_000);
    assert!(dues(&rig).is_empty());
}
