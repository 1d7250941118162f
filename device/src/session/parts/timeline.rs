//! The session's time line: engine time from the driver's instant, and the latest instant
//! seen. Only the mapping and its `now`: it reads no clock.

use crate::link::driver::Instant;
use chessclock_engine::Time;

/// The session's time line: engine time is the driver's instant plus `offset_ms`.
/// Invariant: `now` is the latest instant passed in, and never goes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Timeline {
    /// Engine time at the driver's epoch (non-zero for a game resumed from the journal).
    offset_ms: u64,
    /// The latest `now` passed in.
    now: Instant,
}

impl Timeline {
    /// A time line whose driver epoch is engine time `offset_ms`.
    pub(crate) fn starting_at(offset_ms: u64) -> Timeline {
        Timeline {
            offset_ms,
            now: Instant::ZERO,
        }
    }

    /// A wake-up at `now`; an earlier instant than one passed before changes nothing.
    pub(crate) fn advance(&mut self, now: Instant) {
        self.now = self.now.max(now);
    }

    /// The latest instant passed in.
    pub(crate) fn now(&self) -> Instant {
        self.now
    }

    /// Engine time at `at`.
    pub(crate) fn engine_time(&self, at: Instant) -> Time {
        Time::from_ms(at.as_ms().saturating_add(self.offset_ms))
    }

    /// The instant of engine time `t` (the driver's epoch for a time before it).
    pub(crate) fn instant_of(&self, t: Time) -> Instant {
        Instant::from_epoch(std::time::Duration::from_millis(
            t.as_ms().saturating_sub(self.offset_ms),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::Timeline;
    use crate::link::driver::Instant;
    use chessclock_engine::Time;

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
}
