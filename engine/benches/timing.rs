//! Engine cost per press, per snapshot and per display read, across methods.
//! Run: `cargo bench -p chessclock-engine --bench timing`. Figures: docs/benchmarks.md.

use std::hint::black_box;

use chessclock_engine::notation;
use chessclock_engine::{Engine, Input, Side, Time};
use criterion::{Criterion, criterion_group, criterion_main};

const CONTROLS: &[(&str, &str)] = &[
    ("sudden_death", "G/600 d/0"),
    ("fischer", "G/600 inc/2"),
    ("us_delay", "G/600 d/5"),
    ("segments", "40/600 SD/300 inc/30"),
    ("hourglass", "HG/600"),
    ("byoyomi", "G/600 byo/5x30"),
    ("double_flag", "G/600 df/60:10:hybrid"),
    ("phased_swing", "G/600 swing/30:40 cap/900"),
];

fn started(control: &str) -> Engine {
    let parsed = notation::parse(control).expect("valid control");
    let mut e = Engine::new(parsed.control).expect("valid engine");
    e.handle_input(Time::ZERO, Input::Start { side: Side::White })
        .expect("start");
    e
}

fn bench(c: &mut Criterion) {
    for (name, control) in CONTROLS {
        let mut g = c.benchmark_group(*name);
        g.bench_function("press", |b| {
            let mut e = started(control);
            let mut t = 0u64;
            let mut side = Side::White;
            b.iter(|| {
                t += 100;
                // Reset long before any clock can run out.
                if t > 60_000_000 {
                    e = started(control);
                    t = 100;
                    side = Side::White;
                }
                let _ = e.handle_input(Time::from_ms(t), Input::Press { side });
                while e.poll_event().is_some() {}
                side = side.other();
            });
        });
        let e = started(control);
        g.bench_function("snapshot", |b| {
            b.iter(|| black_box(e.snapshot(Time::from_ms(black_box(1_234)))))
        });
        // As the session reads it: the engine already advanced to the instant it is read at.
        let mut there = started(control);
        there.handle_timeout(Time::from_ms(1_234));
        g.bench_function("snapshot at its own time", |b| {
            b.iter(|| black_box(there.snapshot(Time::from_ms(black_box(1_234)))))
        });
        g.bench_function("display", |b| {
            b.iter(|| black_box(e.display(Time::from_ms(black_box(1_234)))))
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
