//! Restoring games from journal entries, in virtual time: where the game starts, what is
//! replayed, what is refused and kept aside, and how the restart gap is charged.

use super::*;
use crate::device::io::persist::stamp::Boot;
use crate::engine::notation;
use crate::engine::{Input, Side};

const BOOT: &str = "6f0e0c7e-1111-4c5e-9a3b-000000000001";

fn start_at(wall_ms: u64, boot_ms: Option<u64>) -> Entry {
    Entry {
        rec: Journaled::Start(Box::new(GameStart {
            control: notation::parse("G/5").expect("notation").control,
            t_ms: 0,
            wall_ms,
            game_id: None,
        })),
        boot: boot_ms.map(|ms| Boot {
            id: BOOT.into(),
            ms,
        }),
    }
}

fn input(t_ms: u64, input: Input) -> Entry {
    Entry {
        rec: Journaled::Input {
            t_ms,
            wall_ms: 1_000_000 + t_ms,
            input,
        },
        boot: Some(Boot {
            id: BOOT.into(),
            ms: 500_000 + t_ms,
        }),
    }
}

/// White starts at 0, presses at 10 s; Black runs from then on.
fn game() -> Vec<Entry> {
    vec![
        input(0, Input::Start { side: Side::White }),
        input(10_000, Input::Press { side: Side::White }),
    ]
}

fn now(wall_ms: u64, boot_ms: Option<u64>) -> Now {
    Now {
        wall_ms,
        boot: boot_ms.map(|ms| Boot {
            id: BOOT.into(),
            ms,
        }),
    }
}

fn fallback() -> GameStart {
    GameStart {
        control: notation::parse("G/90 inc/30").expect("notation").control,
        t_ms: 0,
        wall_ms: 0,
        game_id: None,
    }
}

/// The same inputs fed to an engine directly, read at `t_ms`.
fn expected(t_ms: u64) -> String {
    let mut e = Engine::new(notation::parse("G/5").expect("notation").control).expect("engine");
    e.handle_input(Time::from_ms(0), Input::Start { side: Side::White })
        .expect("start");
    e.handle_input(Time::from_ms(10_000), Input::Press { side: Side::White })
        .expect("press");
    format!("{:?}", e.snapshot(Time::from_ms(t_ms)))
}

#[test]
fn replays_the_inputs_and_charges_the_gap_on_the_boot_clock() {
    // 4 s later on the boot clock; the wall clock agrees.
    let r = restore(
        Some(start_at(1_000_000, Some(500_000))),
        game(),
        &fallback(),
        &now(1_014_000, Some(514_000)),
    )
    .expect("a game to resume");
    assert_eq!(r.now_ms, 14_000);
    assert_eq!(
        format!("{:?}", r.engine.snapshot(Time::from_ms(14_000))),
        expected(14_000)
    );
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    assert_eq!(r.records.len(), 2);
}

#[test]
fn a_wall_clock_set_while_down_is_reported_and_not_charged() {
    // The boot clock says 4 s; the wall clock was set an hour forward meanwhile.
    let r = restore(
        Some(start_at(1_000_000, Some(500_000))),
        game(),
        &fallback(),
        &now(1_014_000 + 3_600_000, Some(514_000)),
    )
    .expect("a game");
    assert_eq!(r.now_ms, 14_000);
    assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
    assert!(
        r.problems[0].contains("set forward by 3600 s"),
        "{:?}",
        r.problems
    );
}

#[test]
fn across_a_reboot_the_wall_clock_is_used_and_never_goes_back() {
    let other_boot = |wall_ms| Now {
        wall_ms,
        boot: Some(Boot {
            id: "another-boot".into(),
            ms: 3_000,
        }),
    };
    let r = restore(
        None,
        [vec![start_at(1_000_000, None)], game()].concat(),
        &fallback(),
        &other_boot(1_030_000),
    )
    .expect("a game");
    assert_eq!(r.now_ms, 30_000, "wall gap of 20 s after the press at 10 s");
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    let r = restore(
        None,
        [vec![start_at(1_000_000, None)], game()].concat(),
        &fallback(),
        &other_boot(900_000),
    )
    .expect("a game");
    assert_eq!(
        r.now_ms, 10_000,
        "nothing charged for a clock that went back"
    );
    assert!(
        r.problems[0].contains("behind the last journal entry"),
        "{:?}",
        r.problems
    );
}

#[test]
fn a_lost_snapshot_resumes_from_the_journals_start_record() {
    let entries = [vec![start_at(1_000_000, Some(500_000))], game()].concat();
    let r = restore(None, entries, &fallback(), &now(1_010_000, Some(510_000)))
        .expect("the start record is enough");
    assert_eq!(
        format!("{:?}", r.engine.snapshot(Time::from_ms(10_000))),
        expected(10_000)
    );
    assert!(r.problems.is_empty(), "{:?}", r.problems);
}

#[test]
fn a_journal_without_any_start_replays_under_the_fallback_and_says_so() {
    let r = restore(None, game(), &fallback(), &now(1_010_000, Some(510_000)))
        .expect("records are never dropped silently");
    assert_eq!(r.engine.control(), &fallback().control);
    assert!(
        r.problems[0].contains("snapshot is missing"),
        "{:?}",
        r.problems
    );
    assert!(r.problems[0].contains("2 records"), "{:?}", r.problems);
}

#[test]
fn the_last_start_wins_and_nothing_means_nothing_to_resume() {
    let entries = [
        vec![start_at(0, None)],
        game(),
        vec![start_at(1_020_000, Some(520_000))],
    ]
    .concat();
    let r = restore(None, entries, &fallback(), &now(1_020_000, Some(520_000))).expect("a game");
    assert!(r.records.is_empty(), "the new game has no moves yet");
    assert!(restore(None, Vec::new(), &fallback(), &now(0, None)).is_none());
}

#[test]
fn refused_inputs_are_kept_aside_and_later_ones_still_replay() {
    let entries = vec![
        input(0, Input::Start { side: Side::White }),
        // A second start while running: the engine refuses it.
        input(5_000, Input::Start { side: Side::Black }),
        input(10_000, Input::Press { side: Side::White }),
    ];
    let r = restore(
        Some(start_at(1_000_000, Some(500_000))),
        entries,
        &fallback(),
        &now(1_014_000, Some(514_000)),
    )
    .expect("a game");
    assert_eq!(r.rejected.len(), 1);
    assert_eq!(r.records.len(), 2);
    assert!(
        r.problems[0].contains("5000 ms could not be replayed"),
        "{:?}",
        r.problems
    );
    assert_eq!(
        format!("{:?}", r.engine.snapshot(Time::from_ms(14_000))),
        expected(14_000)
    );
}

#[test]
fn the_last_board_serial_the_journal_names_is_the_game_s_board() {
    let note = |t_ms: u64, what: String| Entry {
        rec: Journaled::Note {
            t_ms,
            wall_ms: 1_000_000 + t_ms,
            what,
            record: false,
        },
        boot: None,
    };
    let mut entries = game();
    entries.insert(
        1,
        note(
            5,
            chessclock_device::session::note::Note::BoardSerial("11111".into()).to_string(),
        ),
    );
    entries.push(note(
        11_000,
        chessclock_device::session::note::Note::BoardSerial("22222".into()).to_string(),
    ));
    let r = restore(
        Some(start_at(1_000_000, Some(500_000))),
        entries,
        &fallback(),
        &now(1_014_000, Some(514_000)),
    )
    .expect("a game to resume");
    assert_eq!(r.board_serial.as_deref(), Some("22222"));
    let r = restore(
        Some(start_at(1_000_000, Some(500_000))),
        game(),
        &fallback(),
        &now(1_014_000, Some(514_000)),
    )
    .expect("a game to resume");
    assert_eq!(r.board_serial, None, "a journal that never said");
}

fn note(t_ms: u64, what: &str) -> Entry {
    Entry {
        rec: Journaled::Note {
            t_ms,
            wall_ms: 1_000_000 + t_ms,
            what: what.into(),
            record: false,
        },
        boot: Some(Boot {
            id: BOOT.into(),
            ms: 500_000 + t_ms,
        }),
    }
}

#[test]
fn the_lever_s_last_journaled_state_is_read_back_unless_white_s_half_or_an_input_came_after() {
    let at = |entries: Vec<Entry>| {
        restore(
            Some(start_at(1_000_000, Some(500_000))),
            entries,
            &fallback(),
            &now(1_014_000, Some(514_000)),
        )
        .expect("a game to resume")
        .lever_in_step
    };
    assert_eq!(at(game()), None, "never said");
    let mut said = game();
    said.push(note(10_500, "lever in step"));
    assert_eq!(at(said.clone()), Some(true));
    said.push(note(11_000, "lever out of step"));
    assert_eq!(at(said.clone()), Some(false), "the last one counts");
    said.push(note(11_500, "lever in step"));
    said.push(note(12_000, "white_side right"));
    assert_eq!(at(said), None, "the halves mean other players now");
    // The note of the press (the same batch) says it; a journal cut between a press and its
    // note, or a journal of a version that noted only changes, leaves the press after the
    // last note: not known (a press over the bus may have put the lever out of step).
    let mut pressed = game();
    pressed.insert(1, note(9_000, "lever in step"));
    assert_eq!(at(pressed.clone()), None, "a press after the last note");
    pressed.push(note(10_000, "lever out of step"));
    assert_eq!(at(pressed.clone()), Some(false), "the press's own note");
    pressed.push(input(11_000, Input::Press { side: Side::Black }));
    assert_eq!(
        at(pressed.clone()),
        None,
        "cut before the second press's note"
    );
    pressed.push(note(11_000, "lever in step"));
    assert_eq!(at(pressed), Some(true));
}
