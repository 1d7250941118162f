//! Virtual time for the tests of the pure layers: a host machine and the emulated board
//! stepped together, time jumping from the earlier of their deadlines to the next
//! (quinn-proto's `Pair`). Shared by the driver's `Pair` and the session's `Rig`.
//!
//! Test-only; it reads no clock and must not sleep.

/// Two machines stepped at one virtual instant.
pub(crate) trait Stepped {
    /// Virtual now, in ms.
    fn now_ms(&self) -> u64;
    /// Move virtual now to `ms` (never backwards: the caller checks).
    fn set_now_ms(&mut self, ms: u64);
    /// Exchange everything due at now until both sides are quiet.
    fn step(&mut self);
    /// The earlier of both machines' deadlines.
    fn next_deadline(&self) -> Option<u64>;
}

/// Run `pair` until virtual time `until_ms`, jumping from deadline to deadline; more than
/// `max_steps` steps fail the test as a livelock.
pub(crate) fn run_until(pair: &mut impl Stepped, until_ms: u64, max_steps: usize) {
    for _ in 0..max_steps {
        pair.step();
        let now = pair.now_ms();
        match pair.next_deadline() {
            Some(t) if t <= until_ms => pair.set_now_ms(t.max(now)),
            _ => {
                pair.set_now_ms(until_ms.max(now));
                pair.step();
                return;
            }
        }
    }
    panic!("more than {max_steps} steps before {until_ms} ms: livelock");
}
