//! Each part on its own: how a report's lever is judged, once per first report, and when its
//! agreement is journaled; the board's game marking its PGN and its view; the display's
//! queue and its push; a notice published; the game record's start, round and due result; the live file;
//! the time line.

use super::{
    BoardPart, DisplayWork, GameRecordPart, Lever, LeverVerdict, LiveFeed, Published, Timeline,
};
use crate::link::driver::Instant;
use crate::session::announce::Announcement;
use crate::session::interface::ClockEvent;
use crate::session::tests;
use chessclock_engine::Side::{Black, White};
use chessclock_engine::{GameResult, ResultReason, Status, StatusCause, Time};

#[test]
fn the_time_line_maps_both_ways_and_its_now_never_goes_back() {
    let mut time = Timeline::starting_at(90_000);
    assert_eq!(
        time.engine_time(Instant::from_ms(500)),
        Time::from_ms(90_500)
    );
    assert_eq!(
        time.instant_of(Time::from_ms(90_500)),
        Instant::from_ms(500)
    );
    assert_eq!(
        time.instant_of(Time::from_ms(1_000)),
        Instant::ZERO,
        "before the epoch"
    );
    time.advance(Instant::from_ms(2_000));
    time.advance(Instant::from_ms(1_500));
    assert_eq!(time.now(), Instant::from_ms(2_000), "an earlier wake-up");
    time.advance(Instant::from_ms(2_500));
    assert_eq!(time.now(), Instant::from_ms(2_500));
}

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

#[test]
fn a_change_of_the_board_s_game_marks_its_pgn_and_its_view_once_each() {
    let mut board = BoardPart::default();
    board.changed();
    assert!(board.take_stale());
    assert!(!board.take_stale(), "rebuilt once");
    assert!(board.take_pgn_changed());
    assert!(!board.take_pgn_changed(), "written once");
}

#[test]
fn the_display_keeps_the_latest_three_announcements_and_one_push_answers_all() {
    let mut display = DisplayWork::default();
    for n in 0..5 {
        display.announce(Announcement {
            text: n.to_string(),
            beep: false,
        });
    }
    let texts: Vec<_> = display
        .announcements
        .iter()
        .map(|a| a.text.as_str())
        .collect();
    assert_eq!(texts, ["2", "3", "4"], "the latest few");
    assert!(!display.take_push(false), "nothing to push");
    assert!(display.take_push(true), "the device would show other times");
    display.dirty = true;
    display.refresh = true;
    assert!(display.take_push(false));
    assert!(
        !display.take_push(false),
        "one push answers the change and the refresh"
    );
}

#[test]
fn the_record_starts_with_the_clock_in_its_round_and_a_result_makes_it_due_once() {
    let start = ClockEvent::StateChanged {
        old: Status::Ready,
        new: Status::Running,
        reason: StatusCause::Start,
    };
    let result = ClockEvent::Result {
        result: GameResult::Draw,
        reason: ResultReason::Board,
    };
    let mut record = GameRecordPart::default();
    assert!(
        !record.said(&start, Some(1)),
        "no wall time: no record kept"
    );
    assert!(!record.said(&result, Some(1)));
    assert!(!record.take_ended());
    record.wall_ms = Some(5);
    assert!(record.said(&start, Some(1)), "the start's date");
    record.wall_ms = Some(9);
    assert!(!record.said(&start, Some(2)), "started once");
    assert_eq!(
        (record.started_wall_ms, record.played_round),
        (Some(5), Some(1))
    );
    record.said(&result, Some(2));
    assert!(record.take_ended());
    assert!(!record.take_ended(), "due once");
    record.clear();
    assert_eq!((record.started_wall_ms, record.played_round), (None, None));
}

#[test]
fn a_notice_is_published_with_the_next_state_once() {
    let mut published = Published {
        state: crate::session::publish::first_state(&tests::config(), &tests::engine("G/3"), 0),
        changed: false,
        info: Default::default(),
        journal_serial: None,
    };
    published.notice("board 2 moved".into());
    assert_eq!(published.state.notices, ["board 2 moved"]);
    assert!(published.take_changed());
    assert!(!published.take_changed(), "sent once");
}

#[test]
fn the_live_file_follows_its_game_and_a_renumbered_board_replaces_its_old_file() {
    let mut live = LiveFeed::default();
    assert!(!live.take_due());
    live.changed();
    assert!(live.take_due());
    assert!(!live.take_due(), "due once");
    assert!(!live.written_at((1, 3)));
    assert_eq!(live.write_at((1, 3)), None, "the first file replaces none");
    assert!(live.written_at((1, 3)));
    assert_eq!(live.write_at((1, 3)), None, "the same file again");
    assert_eq!(
        live.write_at((1, 4)),
        Some(3),
        "renumbered within its round"
    );
    assert_eq!(live.write_at((2, 1)), None, "an earlier round's file stays");
}
