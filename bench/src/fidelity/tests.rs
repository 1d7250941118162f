//! Unit tests of the fidelity accounting on synthetic snapshots and displays.

use super::*;
use serde_json::json;

const S: u64 = 1_000_000; // one second in µs

fn snap(as_of_us: u64, white_ms: u64, black_ms: u64, running: Option<Side>) -> EngineSnap {
    EngineSnap {
        as_of_us,
        white_ms,
        black_ms,
        running,
        run: running.map(|runner| Run {
            runner,
            delay_left_ms: 0,
            flows_ms: 0,
            counts_up: false,
        }),
    }
}

fn run(runner: Side, delay_left_ms: u64, flows_ms: u64) -> Option<Run> {
    Some(Run {
        runner,
        delay_left_ms,
        flows_ms,
        counts_up: false,
    })
}

fn shown(t_us: u64, left_s: u32, right_s: u32) -> Shown {
    Shown {
        t_us,
        left_s,
        right_s,
    }
}

#[test]
fn snapshots_are_read_with_the_engine_s_run() {
    let delay = json!({"as_of_us": 5, "white_ms": 300000, "black_ms": 299000, "running": "white",
        "phase": {"white": "sd", "black": "sd"},
        "detail": {"white": {"delay_left_ms": 1570, "main_ms": 300000}, "black": {}}});
    let s = EngineSnap::from_json(&delay).expect("a snapshot");
    assert_eq!(s.run, run(Side::White, 1570, 0));
    assert_eq!((s.as_of_us, s.running), (5, Some(Side::White)));
    let hg = json!({"as_of_us": 1, "white_ms": 1, "black_ms": 2, "running": "black",
        "flows_ms": 2, "phase": {"white": "hourglass", "black": "hourglass"}});
    assert_eq!(
        EngineSnap::from_json(&hg).and_then(|s| s.run),
        run(Side::Black, 0, 2)
    );
    let paused = json!({"as_of_us": 1, "white_ms": 1, "black_ms": 2, "running": null});
    assert_eq!(
        EngineSnap::from_json(&paused).map(|s| s.running),
        Some(None)
    );
    assert_eq!(
        EngineSnap::from_json(&json!({"white_ms": 1, "black_ms": 2})),
        None
    );
}

#[test]
fn a_clock_of_status_json_is_read_as_the_client_s_type_with_the_same_run() {
    let status = chessclock_api::ClockStatus {
        clock: "/org/chessclockd/ChessClock1/Clock/0".into(),
        as_of_us: 7,
        white_ms: 299_000,
        black_ms: 300_000,
        running: Some(Side::Black),
        detail: chessclock_api::Sides {
            white: Default::default(),
            black: [("delay_left_ms".to_owned(), json!(2500))].into(),
        },
        ..Default::default()
    };
    let from_status = EngineSnap::of_status(&status);
    assert_eq!(from_status.run, run(Side::Black, 2500, 0));
    // The same clock as `status --json` prints it, read as the signals' snapshots are.
    let printed = serde_json::to_value(&status).expect("status JSON");
    assert_eq!(EngineSnap::from_json(&printed), Some(from_status));
}

#[test]
fn engine_values_follow_the_run() {
    let mut s = snap(10 * S, 60_000, 30_000, Some(Side::White));
    assert_eq!(s.values_at(12 * S), (58_000, 30_000));
    assert_eq!(
        s.values_at(100 * S),
        (0, 30_000),
        "a countdown stops at zero"
    );
    s.run = run(Side::White, 3_000, 0);
    assert_eq!(s.values_at(12 * S), (60_000, 30_000), "inside the delay");
    assert_eq!(s.values_at(15 * S), (58_000, 30_000), "2 s after the delay");
    // Hourglass: everything Black uses flows to White, at most what Black has.
    s.running = Some(Side::Black);
    s.run = run(Side::Black, 0, 30_000);
    assert_eq!(s.values_at(12 * S), (62_000, 28_000));
    assert_eq!(
        s.values_at(100 * S),
        (90_000, 0),
        "gains only what the mover had"
    );
    // Swing: 5 s flow, then the waiting side stands.
    s.run = run(Side::Black, 0, 5_000);
    assert_eq!(s.values_at(12 * S), (62_000, 28_000));
    assert_eq!(
        s.values_at(20 * S),
        (65_000, 20_000),
        "gains stop with the swing"
    );
    s.running = None;
    assert_eq!(
        s.values_at(20 * S),
        (60_000, 30_000),
        "nothing runs: static"
    );
}

#[test]
fn a_display_in_phase_is_never_off() {
    // White (left) runs from 60.000 s: the clock shows ceil, changing at each boundary.
    let snaps = [snap(0, 60_000, 30_000, Some(Side::White))];
    let disp: Vec<Shown> = (0..=10u32)
        .map(|k| shown(u64::from(k) * S, 60 - k, 30))
        .collect();
    let f = sample_board(&snaps, &disp, true, 0, 10 * S, 10_000);
    assert_eq!(f.samples, 1000);
    assert_eq!(f.off, 0);
    assert_eq!(f.longest_episode_ms, 0);
    assert_eq!(f.off_percent(), Some(0.0));
}

#[test]
fn a_display_a_second_high_is_counted_with_its_episode() {
    // Engine: 60 s, White running. The clock only steps at 0.5 s past each boundary, so it is
    // a second high for the first half of every second (from 1 s on: 60 shown for 59.x).
    let snaps = [snap(0, 60_000, 30_000, Some(Side::White))];
    let mut disp = vec![shown(0, 60, 30)];
    disp.extend((1..=10u32).map(|k| shown(u64::from(k) * S + S / 2, 60 - k, 30)));
    let f = sample_board(&snaps, &disp, true, 0, 10 * S, 10_000);
    assert_eq!(f.samples, 1000);
    // At t in [k, k + 0.5) s (k = 1..9) the engine shows 60 - k, the clock 60 - k + 1: 50
    // samples per second; the first second is right.
    assert_eq!(f.off, 9 * 50);
    assert_eq!(f.high, f.off, "the clock was high, never low");
    assert_eq!(f.longest_episode_ms, 500);
}

#[test]
fn swapped_halves_and_idle_games_are_handled() {
    // White on the right: right must follow White.
    let snaps = [
        snap(0, 10_000, 20_000, Some(Side::White)),
        snap(2 * S, 8_000, 20_000, None),
    ];
    let disp = [shown(0, 20, 10)];
    let f = sample_board(&snaps, &disp, false, 0, 4 * S, 100_000);
    // From 0 to 2 s White runs: 10 → 8 s, the clock stays at 10: off once 10 > ceil(engine).
    // From 2 s on the game does not run: no samples.
    assert_eq!(f.samples, 20);
    assert_eq!(f.off, 10, "off from 1 s (engine 9 s) to 2 s");
    assert_eq!(f.high, 10);
    assert_eq!(f.longest_episode_ms, 1000);
    let wrong_side = sample_board(&snaps, &disp, true, 0, 2 * S, 100_000);
    assert_eq!(wrong_side.off, 20, "left is Black's 20 s, not White's 10 s");
    // Left shows 20 for White's 10 (high), right 10 for Black's 20 (low): both count as off.
    assert_eq!(wrong_side.high, 20);
    // A clock a second low only: off but not high.
    let low = sample_board(&snaps, &[shown(0, 9, 20)], true, 0, S / 2, 100_000);
    assert_eq!((low.off, low.high), (5, 0));
}

#[test]
fn fidelities_merge() {
    let mut a = Fidelity {
        samples: 10,
        off: 1,
        high: 1,
        longest_episode_ms: 30,
    };
    a.merge(Fidelity {
        samples: 5,
        off: 4,
        high: 2,
        longest_episode_ms: 20,
    });
    assert_eq!(
        a,
        Fidelity {
            samples: 15,
            off: 5,
            high: 3,
            longest_episode_ms: 30
        }
    );
    assert_eq!(Fidelity::default().off_percent(), None);
}
