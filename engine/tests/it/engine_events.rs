//! Engine events: every phase change is reported once, whether it happens at a boundary the
//! engine arms a timer for or inside the running evolution; so is every new byo-yomi period.

use crate::support::engine;
use chessclock_engine::{Engine, Event, Input, Phase, Side, Time};

/// Phase changes reported up to `t_ms`, polling every `step_ms` as a daemon would.
fn phase_changes(e: &mut Engine, until_ms: u64, step_ms: u64) -> Vec<(Side, Phase, Phase)> {
    let mut out = Vec::new();
    let mut t = 0;
    while t <= until_ms {
        e.handle_timeout(Time::from_ms(t));
        while let Some(ev) = e.poll_event() {
            if let Event::PhaseChanged { side, old, new } = ev {
                out.push((side, old, new));
            }
        }
        t += step_ms;
    }
    out
}

#[test]
fn main_time_running_into_byoyomi_is_a_phase_change() {
    for step in [1, 7, 250, 1000, 5000] {
        let mut e = engine("G/1s byo/3x30");
        e.handle_input(Time::from_ms(0), Input::Start { side: Side::White })
            .expect("start");
        let changes = phase_changes(&mut e, 10_000, step);
        assert_eq!(
            changes,
            vec![(Side::White, Phase::Main, Phase::Byoyomi)],
            "polled every {step} ms"
        );
    }
}

#[test]
fn double_flag_first_flag_and_phased_reserve_are_phase_changes() {
    for (control, new) in [
        ("G/1s df/20:5:hybrid", Phase::Extra),
        ("G/1s rsv/10", Phase::Reserve),
    ] {
        let mut e = engine(control);
        e.handle_input(Time::from_ms(0), Input::Start { side: Side::White })
            .expect("start");
        let changes = phase_changes(&mut e, 3_000, 100);
        assert_eq!(changes, vec![(Side::White, Phase::Main, new)], "{control}");
    }
}

#[test]
fn each_new_byoyomi_period_is_an_event() {
    let mut e = engine("G/1s byo/3x30");
    e.handle_input(Time::from_ms(0), Input::Start { side: Side::White })
        .expect("start");
    let mut periods = Vec::new();
    for t in (0..=80_000).step_by(500) {
        e.handle_timeout(Time::from_ms(t));
        while let Some(ev) = e.poll_event() {
            if let Event::PeriodChanged { side, periods_left } = ev {
                periods.push((t, side, periods_left));
            }
        }
    }
    // Main time ends at 1 s (a phase change, not a period change); the periods roll at
    // 31 s and 61 s.
    assert_eq!(
        periods,
        [(31_000, Side::White, 2), (61_000, Side::White, 1)]
    );
}
