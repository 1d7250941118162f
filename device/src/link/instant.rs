//! The pure layers' notion of time: an [`Instant`], the time since an epoch the caller chose.
//!
//! Pure: it never reads a clock; the caller passes `now` in, so tests run in virtual time.

use std::ops::Add;
use std::time::Duration;

/// A point in time: the duration since an epoch of the caller's choosing (the actor's start,
/// or 0 in a virtual-time test). Monotonic by contract, never read from the OS here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Instant(Duration);

impl Instant {
    /// The epoch itself.
    pub const ZERO: Instant = Instant(Duration::ZERO);

    /// `since` after the epoch.
    pub fn from_epoch(since: Duration) -> Instant {
        Instant(since)
    }

    /// `ms` milliseconds after the epoch.
    #[cfg(any(test, feature = "testing"))]
    pub fn from_ms(ms: u64) -> Instant {
        Instant(Duration::from_millis(ms))
    }

    /// Time since the epoch.
    pub fn since_epoch(self) -> Duration {
        self.0
    }

    /// Whole milliseconds since the epoch.
    pub fn as_ms(self) -> u64 {
        u64::try_from(self.0.as_millis()).unwrap_or(u64::MAX)
    }

    /// Time from `earlier` to `self`, zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Instant) -> Duration {
        self.0.saturating_sub(earlier.0)
    }

    /// `self - d`, not before the epoch.
    pub fn saturating_sub(self, d: Duration) -> Instant {
        Instant(self.0.saturating_sub(d))
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;

    fn add(self, d: Duration) -> Instant {
        Instant(self.0.saturating_add(d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_saturate_at_the_epoch() {
        let a = Instant::from_ms(100);
        assert_eq!(a.saturating_sub(Duration::from_secs(1)), Instant::ZERO);
        assert_eq!(Instant::ZERO.saturating_since(a), Duration::ZERO);
        assert_eq!((a + Duration::from_millis(5)).as_ms(), 105);
    }
}
