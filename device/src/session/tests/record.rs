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

/// The game's `GameId` in its PGN now.
fn game_id(rig: &Rig) -> String {
    rig.session
        .pgn_info()
        .get("GameId")
        .expect("every game has its id")
        .to_owned()
}

/// The steps of the board's game the journal holds now (those since it last started anew),
/// with their engine time.
fn steps(rig: &Rig) -> Vec<(u64, chessclock_game::Step)> {
    let from = rig
        .events
        .iter()
        .rposition(|(_, ev)| matches!(ev, SessionOutput::NewGame { .. }))
        .map_or(0, |i| i + 1);
    rig.events[from..]
        .iter()
        .filter_map(|(_, ev)| match ev {
            SessionOutput::Board { t_ms, step } => Some((*t_ms, step.clone())),
            _ => None,
        })
        .collect()
}

/// The id of the game a restart rebuilds from `rig`'s journal, whose start keeps `base`: a
/// new session, its id set before the steps are replayed (as the actor starts one).
fn restarted_id(rig: &Rig, base: &str) -> String {
    let mut session = crate::session::Session::new(
        super::config(),
        crate::link::driver::DriverConfig::default(),
        super::engine("G/5"),
        0,
        None,
    );
    session.set_game_id(base.to_owned(), 7);
    session.resume_board(steps(rig));
    session
        .pgn_info()
        .get("GameId")
        .unwrap_or_default()
        .to_owned()
}

fn play(rig: &mut Rig, uci: &str) {
    rig.move_piece(uci);
    rig.run_until(rig.now + 500);
    rig.press();
    rig.run_until(rig.now + 500);
}

/// A game's id stays what it is whatever its tags become, through corrections and a
/// restart (the journal's steps replayed under the journal start's id), and a new game gets
/// another: a new game on the clock once the game had begun, a new game set up on the pieces.
#[test]
fn a_game_keeps_its_id_through_renames_swaps_renumbering_corrections_and_restarts() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.session.set_game_id("00000000000000aa".into(), 99);
    rig.request(Request::Place { round: 1, board: 3 })
        .expect("placed");
    let first = game_id(&rig);
    assert_eq!(first, "00000000000000aa");
    // A new game on a clock that never started keeps the id (an empty game never changes it).
    rig.request(Request::NewGame).expect("new game");
    assert_eq!(game_id(&rig), first);
    assert_eq!(rig.session.journal_game_id(), first);
    rig.start();
    play(&mut rig, "e2e4");
    play(&mut rig, "e7e5");
    let info = |pairs: &[(&str, &str)]| {
        Request::SetGameInfo(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
    };
    rig.request(info(&[("White", "Ann"), ("Black", "Bo")]))
        .expect("info");
    rig.request(info(&[("White", "Bo"), ("Black", "Ann")]))
        .expect("colours swapped");
    rig.request(info(&[("White", "Cy")])).expect("a substitute");
    rig.request(Request::Rename("table 9".into()))
        .expect("renamed");
    rig.request(Request::Place {
        round: 1,
        board: 12,
    })
    .expect("renumbered");
    rig.request(Request::Correct(chessclock_game::Correction::Undo(1)))
        .expect("undo");
    rig.request(Request::Correct(chessclock_game::Correction::Force(
        "c7c5".into(),
    )))
    .expect("force");
    assert_eq!(game_id(&rig), first, "one game");
    let pgn = rig.session.pgn(rig.at());
    assert_eq!(
        pgn.matches("[GameId \"00000000000000aa\"]").count(),
        1,
        "{pgn}"
    );

    // A restart: the journal's steps replayed over a new session with the start's id.
    assert_eq!(
        restarted_id(&rig, &first),
        first,
        "the same id after a restart"
    );

    // A new game set up on the pieces: another id, the same after a restart.
    rig.emu
        .piece_action(rig.now, chessclock_protocol::emulator::PieceAction::Setup)
        .expect("set up");
    rig.run_until(rig.now + 2_000);
    let second = game_id(&rig);
    assert_ne!(second, first, "a new game on the pieces");
    assert_eq!(restarted_id(&rig, &first), second);

    // A new game on the clock after a begun game: another id, kept by the journal's start.
    rig.request(Request::NewGame).expect("new game");
    let third = game_id(&rig);
    assert!(
        third != first && third != second,
        "{first} {second} {third}"
    );
    assert_eq!(rig.session.journal_game_id(), third);
    assert_eq!(third.len(), 16);
    // The board's game goes on into the new journal: a restart gives it the new id too.
    assert_eq!(restarted_id(&rig, &third), third);
}
