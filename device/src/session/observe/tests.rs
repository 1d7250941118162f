//! Observe mode's pure follower (`observe.rs`): reports, lever presses and the overlay of
//! the clock's own times on the engine snapshot, without IO.

use chessclock_protocol::{ClockSide, ClockTime};

use super::*;
use chessclock_engine::{Engine, Time, notation};

fn side(seconds: u32, final_flag: bool) -> ClockSide {
    ClockSide {
        time: ClockTime::from_total_seconds(seconds).expect("time"),
        flag: final_flag,
        final_flag,
        time_per_move: false,
    }
}

/// A report: left and right seconds, running, right end up.
fn report(left: u32, right: u32, running: bool, right_high: bool) -> ClockReport {
    ClockReport {
        left: side(left, false),
        right: side(right, false),
        running,
        right_high,
        battery_low: false,
        clock_connected: true,
        status: u8::from(running) | if right_high { 2 } else { 0 },
    }
}

fn at(ms: u64) -> driver::Instant {
    driver::Instant::from_ms(ms)
}

#[test]
fn modes_parse_in_any_case_and_print_lowercase() {
    assert_eq!(Mode::parse("Observe"), Some(Mode::Observe));
    assert_eq!(Mode::parse("drive"), Some(Mode::Drive));
    assert_eq!(Mode::parse("watch"), None);
    assert_eq!(Mode::Observe.as_str(), "observe");
}

#[test]
fn times_and_the_runner_come_from_the_report_by_white_side() {
    let mut o = Observed::default();
    assert_eq!(o.value(Side::White, BoardSide::Left), None);
    assert_eq!(o.status(), Status::Ready);
    // Left 4:59 running (left end up: right_high false), right 5:00.
    o.on_report(report(299, 300, true, false), at(1_000), BoardSide::Left);
    assert_eq!(o.value(Side::White, BoardSide::Left), Some(299_000));
    assert_eq!(o.value(Side::Black, BoardSide::Left), Some(300_000));
    assert_eq!(o.running(BoardSide::Left), Some(Side::White));
    // White on the right half: the same report reads the other way round.
    assert_eq!(o.value(Side::White, BoardSide::Right), Some(300_000));
    assert_eq!(o.running(BoardSide::Right), Some(Side::Black));
    assert_eq!(o.status(), Status::Running);
}

#[test]
fn a_lever_press_ends_the_movers_turn_with_its_time() {
    let mut o = Observed::default();
    // The clock stands: a press ends no move.
    o.on_report(report(300, 300, false, false), at(0), BoardSide::Left);
    assert_eq!(o.on_lever(Side::Black, at(500), BoardSide::Left), None);
    // The arbiter starts it: White (left) runs from 1 s.
    o.on_report(report(300, 300, true, false), at(1_000), BoardSide::Left);
    // White presses at 8.2 s: the report carrying it shows White 4:53, Black to run.
    o.on_report(report(293, 300, true, true), at(8_200), BoardSide::Left);
    let press = o
        .on_lever(Side::White, at(8_200), BoardSide::Left)
        .expect("a press");
    assert_eq!(
        press,
        ObservedPress {
            side: Side::White,
            move_number: 1,
            move_ms: 7_200,
            white_ms: 293_000,
            black_ms: 300_000,
        }
    );
    o.on_report(report(293, 296, true, false), at(12_000), BoardSide::Left);
    let press = o.on_lever(Side::Black, at(12_000), BoardSide::Left);
    assert_eq!(press.map(|p| (p.move_number, p.move_ms)), Some((1, 3_800)));
}

#[test]
fn the_snapshot_shows_the_clock_not_the_engine() {
    let control = notation::parse("G/5").expect("control").control;
    let engine = Engine::new(control).expect("engine");
    let mut snap = engine.snapshot(Time::from_ms(0));
    let mut o = Observed::default();
    o.on_report(report(300, 300, true, false), at(0), BoardSide::Left);
    o.on_report(report(281, 300, true, true), at(19_000), BoardSide::Left);
    o.on_lever(Side::White, at(19_000), BoardSide::Left);
    o.overlay(&mut snap, BoardSide::Left);
    assert_eq!((snap.white_ms, snap.black_ms), (281_000, 300_000));
    assert_eq!(snap.text.white, "4:41");
    assert_eq!(snap.running, Some(Side::Black));
    assert_eq!(snap.status, Status::Running);
    assert_eq!(snap.moves.white, 1);

    // The clock stops: paused; a final flag: flagged; the arbiter's result: ended.
    o.on_report(report(281, 250, false, true), at(70_000), BoardSide::Left);
    o.overlay(&mut snap, BoardSide::Left);
    assert_eq!((snap.status, snap.running), (Status::Paused, None));
    let mut flagged = report(281, 0, false, true);
    flagged.right.final_flag = true;
    o.on_report(flagged, at(90_000), BoardSide::Left);
    assert_eq!(o.status(), Status::Flagged);
    o.result = Some(GameResult::WhiteWins);
    o.overlay(&mut snap, BoardSide::Left);
    assert_eq!(snap.status, Status::Ended);
    assert_eq!(snap.result, Some(GameResult::WhiteWins));
    o.reset();
    assert_eq!(o.status(), Status::Ready);
}

/// The control's start times are judged from the reports before the first press; a game
/// whose start was not seen is not judged.
#[test]
fn the_start_is_judged_only_when_it_was_seen() {
    let control = notation::parse("G/5").expect("control").control;
    let mut o = Observed::default();
    o.on_report(report(240, 240, false, false), at(0), BoardSide::Left);
    let text = o
        .check
        .problem(&control, "3")
        .expect("4:00 is not G/5's start");
    assert!(text.contains("started at 4:00 - 4:00"), "{text}");
    // The clock is set right and started: no problem.
    o.on_report(report(300, 300, true, false), at(1_000), BoardSide::Left);
    assert_eq!(o.check.problem(&control, "3"), None);

    let mut o = Observed::default();
    assert!(o.check.is_fresh());
    o.check.start_unseen();
    o.on_report(report(120, 200, true, false), at(0), BoardSide::Left);
    assert_eq!(o.check.problem(&control, "3"), None, "a game under way");
}

/// Time added outside a press is kept for the side's last `[%clk]` until its next press,
/// also in a game whose start was not seen; a running side's own second is not added time.
#[test]
fn time_added_outside_a_press_lasts_until_the_sides_next_press() {
    let mut o = Observed::default();
    o.check.start_unseen();
    o.on_report(report(100, 200, true, false), at(0), BoardSide::Left);
    // White's half runs out and its clock adds a minute.
    o.on_report(report(99, 200, true, false), at(1_000), BoardSide::Left);
    assert_eq!(o.check.added_since_press(Side::White), 0, "a tick");
    o.on_report(report(160, 200, true, false), at(2_000), BoardSide::Left);
    assert_eq!(o.check.added_since_press(Side::White), 61_000);
    assert_eq!(o.check.added_since_press(Side::Black), 0);
    // White presses: its clock is given anew.
    o.on_report(report(158, 200, true, true), at(4_000), BoardSide::Left);
    o.on_lever(Side::White, at(4_000), BoardSide::Left);
    assert_eq!(o.check.added_since_press(Side::White), 0);
}
