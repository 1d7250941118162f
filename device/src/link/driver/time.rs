//! The driver's timers: the one [`Timers`] table of everything the link waits for, at
//! [`Instant`]s.
//!
//! Owns the deadlines, nothing else: which timer fires means what is decided in the driver.
//! Pure: it never reads a clock; the caller passes `now` in, so tests run in virtual time.

pub(crate) use crate::link::instant::Instant;

/// Everything the link waits for. One deadline each, at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Timer {
    /// (Re)send the board handshake (until the board answers).
    Probe,
    /// The clock command in flight is given up on (resend or "not responding").
    Ack,
    /// After silence: ask for the serial number; after a keep-alive: give the link up.
    KeepAlive,
    /// While the clock is not in PC mode: try a set-and-run again.
    PcModeRecheck,
    /// Text on the display until then; times are shown again afterwards.
    TextUntil,
    /// Push the times once more so the device's countdown ticks in phase with the engine.
    Resync,
    /// The device's own countdown changes what it shows (its next whole second).
    DeviceTick,
    /// The pieces stood still after a field update: ask for the whole board.
    BoardSettle,
    /// The clock identified itself, its lever not reported yet: ask again, then go on.
    LeverWait,
}

impl Timer {
    /// Every timer, in the order expired ones are handled.
    pub(crate) const ALL: [Timer; 9] = [
        Timer::KeepAlive,
        Timer::Probe,
        Timer::Ack,
        Timer::PcModeRecheck,
        Timer::TextUntil,
        Timer::Resync,
        Timer::DeviceTick,
        Timer::BoardSettle,
        Timer::LeverWait,
    ];

    fn index(self) -> usize {
        self as usize
    }
}

/// One deadline per [`Timer`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Timers([Option<Instant>; Timer::ALL.len()]);

impl Timers {
    /// Arm `timer` for `at` (replacing any earlier deadline).
    pub(crate) fn set(&mut self, timer: Timer, at: Instant) {
        self.0[timer.index()] = Some(at);
    }

    /// Disarm `timer`.
    pub(crate) fn stop(&mut self, timer: Timer) {
        self.0[timer.index()] = None;
    }

    /// The deadline of `timer`, if armed.
    pub(crate) fn get(&self, timer: Timer) -> Option<Instant> {
        self.0[timer.index()]
    }

    /// Whether `timer` is armed.
    pub(crate) fn is_set(&self, timer: Timer) -> bool {
        self.get(timer).is_some()
    }

    /// Disarm `timer` if it is due at `now`; true if it was.
    pub(crate) fn take_expired(&mut self, timer: Timer, now: Instant) -> bool {
        let due = self.get(timer).is_some_and(|at| at <= now);
        if due {
            self.stop(timer);
        }
        due
    }

    /// The earliest deadline of all.
    pub(crate) fn next(&self) -> Option<Instant> {
        self.0.iter().flatten().min().copied()
    }

    /// Disarm everything.
    pub(crate) fn clear(&mut self) {
        self.0 = Default::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_earliest_armed_deadline_is_next_and_expiry_disarms() {
        let mut t = Timers::default();
        assert_eq!(t.next(), None);
        t.set(Timer::Probe, Instant::from_ms(2000));
        t.set(Timer::Ack, Instant::from_ms(500));
        assert_eq!(t.next(), Some(Instant::from_ms(500)));
        assert!(!t.take_expired(Timer::Ack, Instant::from_ms(499)));
        assert!(t.take_expired(Timer::Ack, Instant::from_ms(500)));
        assert!(!t.is_set(Timer::Ack));
        assert_eq!(t.next(), Some(Instant::from_ms(2000)));
        t.clear();
        assert_eq!(t.next(), None);
    }
}
