//! CLOCK_MONOTONIC readings in microseconds, the time base of the `as_of_us` field that
//! D-Bus clients use to extrapolate a snapshot: the daemon stamps its snapshots with it and
//! clients (the bridge's `now_us`) read the same clock. Only IO layers call this; the engine
//! never reads a clock.

/// CLOCK_MONOTONIC now, in microseconds.
pub fn monotonic_us() -> u64 {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    let secs = u64::try_from(ts.tv_sec).unwrap_or(0);
    let nanos = u64::try_from(ts.tv_nsec).unwrap_or(0);
    secs.saturating_mul(1_000_000).saturating_add(nanos / 1_000)
}

#[cfg(test)]
mod tests {
    #[test]
    fn monotonic_never_goes_back() {
        let a = super::monotonic_us();
        let b = super::monotonic_us();
        assert!(a > 0 && b >= a);
    }
}
