//! What the engine tests share: an engine from notation, an input at a time, a snapshot as
//! JSON.

use chessclock_engine::{Engine, Input, Side, Time, notation};
use serde_json::Value;

/// A new engine under `control` (notation).
pub(crate) fn engine(control: &str) -> Engine {
    Engine::new(notation::parse(control).expect("valid").control).expect("engine")
}

/// `engine(control)` with White started at 0.
pub(crate) fn started(control: &str) -> Engine {
    let mut e = engine(control);
    at(&mut e, 0, Input::Start { side: Side::White });
    e
}

/// `input` at `t` ms, accepted.
pub(crate) fn at(e: &mut Engine, t: u64, input: Input) {
    e.handle_input(Time::from_ms(t), input)
        .unwrap_or_else(|err| panic!("input at {t}: {err}"));
}

/// The snapshot at `t` ms, as JSON.
pub(crate) fn snap(e: &Engine, t: u64) -> Value {
    serde_json::to_value(e.snapshot(Time::from_ms(t))).expect("a snapshot")
}
