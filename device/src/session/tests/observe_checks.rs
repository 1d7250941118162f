//! Observe mode against the declared control (`observe/check.rs`), in virtual time on the
//! emulated clock running its own presets: a clock set wrong at the start, a period added
//! wrong, and time added on the flag reaching the PGN at once.

use chessclock_protocol::emulator::{EmuConfig, OwnPeriod, OwnPreset};

use super::{Rig, control};
use crate::session::interface::Request;
use crate::session::observe::Mode;

/// A rig observing its clock, with `declared` declared.
fn observing(declared: &str) -> Rig {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.request(Request::SetMode(Mode::Observe))
        .expect("observe a clock that is not running");
    rig.request(Request::SetTimeControl(control(declared)))
        .expect("declare the control");
    rig.run_until(rig.now + 100);
    rig
}

/// The clock's problem against the declared control (`ClockProblem`); the board's own
/// problem stays empty meanwhile: the pieces are fine.
fn problem(rig: &mut Rig) -> String {
    let published = rig.published().clock;
    assert_eq!(published.board_problem, "", "not the board's problem");
    published.clock_problem
}

/// The move on the pieces, then the lever, `think_ms` after the turn began.
fn play(rig: &mut Rig, uci: &str, think_ms: u64) {
    rig.run_until(rig.now + think_ms.saturating_sub(300));
    rig.move_piece(uci);
    rig.run_until(rig.now + 300);
    rig.press();
    rig.run_until(rig.now + 100);
}

fn preset(seconds: u32, add: u32, at_move: Option<u32>) -> OwnPreset {
    OwnPreset {
        seconds,
        period: Some(OwnPeriod { add, at_move }),
    }
}

#[test]
fn a_clock_started_at_other_times_than_the_declared_control_is_a_clock_problem() {
    let mut rig = observing("G/5");
    // The arbiter starts the clock at 4 minutes a side.
    rig.emu.start_own_game(rig.now, 240);
    rig.run_until(rig.now + 500);
    let text = problem(&mut rig);
    assert!(
        text.contains("started at 4:00 - 4:00")
            && text.contains("control G/5")
            && text.contains("starts at 5:00 - 5:00"),
        "both the clock's times and the control's: {text}"
    );
    assert!(
        text.contains("; fix: ") && text.contains("chessclockctl set 7 CONTROL"),
        "{text}"
    );
    // The game moving on does not clear it: the record would name the wrong control.
    play(&mut rig, "e2e4", 1_000);
    assert!(problem(&mut rig).contains("4:00 - 4:00"));
    // The operator declares what the clock runs: the game is judged again, and it fits.
    rig.request(Request::SetTimeControl(control("G/4")))
        .expect("declare");
    assert_eq!(problem(&mut rig), "");
}

#[test]
fn a_clock_set_right_before_the_first_move_clears_the_start_problem() {
    let mut rig = observing("G/5 inc/2");
    // Without the FIDE increment at the start (5:00 where the control starts at 5:02).
    rig.emu.start_own_game(rig.now, 300);
    rig.run_until(rig.now + 500);
    assert!(
        problem(&mut rig).contains("starts at 5:02 - 5:02"),
        "{}",
        problem(&mut rig)
    );
    // The arbiter sets it again, right, before the first move.
    rig.emu.start_own_game(rig.now, 302);
    rig.run_until(rig.now + 500);
    assert_eq!(problem(&mut rig), "");
}

#[test]
fn a_clock_started_right_shows_no_problem_through_its_periods() {
    // 2 moves in 5 minutes, then 1 minute: the clock adds 1:00 at each player's 2nd move.
    let mut rig = observing("2/5 SD/1");
    rig.emu.start_own_preset(rig.now, preset(300, 60, Some(2)));
    rig.run_until(rig.now + 500);
    assert_eq!(problem(&mut rig), "");
    for uci in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"] {
        play(&mut rig, uci, 1_500);
        assert_eq!(problem(&mut rig), "", "after {uci}");
    }
}

#[test]
fn a_period_of_the_wrong_amount_is_a_clock_problem_naming_both() {
    let mut rig = observing("2/5 SD/1");
    // The clock's preset adds 30 s, not a minute.
    rig.emu.start_own_preset(rig.now, preset(300, 30, Some(2)));
    rig.run_until(rig.now + 500);
    play(&mut rig, "e2e4", 1_500);
    play(&mut rig, "e7e5", 1_500);
    assert_eq!(problem(&mut rig), "");
    play(&mut rig, "g1f3", 1_500);
    let text = problem(&mut rig);
    assert!(
        text.contains("at white's move 2 the clock added +0:30")
            && text.contains("control 2/5 SD/1")
            && text.contains("adds +1:00 there"),
        "{text}"
    );
}

#[test]
fn a_period_at_the_wrong_move_is_a_clock_problem() {
    let mut rig = observing("2/5 SD/1");
    // The clock's preset adds its minute at the first move.
    rig.emu.start_own_preset(rig.now, preset(300, 60, Some(1)));
    rig.run_until(rig.now + 500);
    play(&mut rig, "e2e4", 1_500);
    let text = problem(&mut rig);
    assert!(
        text.contains("at white's move 1 the clock added +") && text.contains("adds +0:00 there"),
        "{text}"
    );
}

#[test]
fn time_added_on_the_flag_goes_on_the_players_last_clock_in_the_pgn_at_once() {
    let mut rig = observing("G/5");
    // 5 s a side, a minute added when a side's time runs out.
    rig.emu.start_own_preset(rig.now, preset(5, 60, None));
    play(&mut rig, "e2e4", 1_000);
    play(&mut rig, "e7e5", 1_000);
    let clk = |rig: &Rig| -> Vec<String> {
        let pgn = rig.session.pgn(rig.at());
        pgn.split("[%clk ")
            .skip(1)
            .map(|s| s.split(']').next().unwrap_or_default().to_owned())
            .collect()
    };
    let before = clk(&rig);
    assert_eq!(before.len(), 2, "{before:?}");
    // White thinks until the flag: the clock adds a minute to White's time.
    rig.run_until(rig.now + 6_000);
    let white_ms = rig.session.snapshot(rig.at()).white_ms;
    assert!(white_ms > 55_000, "the clock added a minute: {white_ms}");
    let after = clk(&rig);
    assert_eq!(after[1], before[1], "Black's clock stands");
    let secs = |t: &str| {
        t.split(':')
            .fold(0u64, |acc, p| acc * 60 + p.parse::<u64>().expect("number"))
    };
    // The reports have whole seconds: the rise seen is the minute less the second that
    // ran out before it.
    let added = secs(&after[0]) - secs(&before[0]);
    assert!(
        (59..=60).contains(&added),
        "White's e4 shows the minute at once: {before:?} -> {after:?}"
    );
}
