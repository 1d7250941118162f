//! When to push a round's PGN: changes are gathered for a short quiet time, one push is in
//! flight at a time, and failures back off (longer when Lichess asks us to slow down).
//!
//! Pure: time is passed in as milliseconds on any monotonic base; no IO, no clock reads.

/// Gather changes this long before pushing (a move and its clock report arrive together).
pub(crate) const QUIET_MS: u64 = 500;
/// The first retry after a failure; doubled each time up to [`MAX_BACKOFF_MS`].
pub(crate) const FIRST_BACKOFF_MS: u64 = 1_000;
/// The longest wait between retries of a transient failure.
pub(crate) const MAX_BACKOFF_MS: u64 = 60_000;

/// How a push ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Accepted (or nothing new to send).
    Done,
    /// A transient failure (network, 5xx): retry with backoff.
    Failed,
    /// The server asked to wait (429) or refused what no retry soon will fix (401, 403,
    /// 404): retry after this long.
    WaitFor(u64),
}

/// The push schedule of one round.
#[derive(Debug, Default)]
pub(crate) struct Schedule {
    /// Something changed since the last push began.
    dirty: bool,
    /// A push is in flight.
    busy: bool,
    /// When the next push may start.
    next_at: Option<u64>,
    /// Failures in a row.
    failures: u32,
}

impl Schedule {
    /// Something in the round changed at `now`.
    pub(crate) fn changed(&mut self, now: u64) {
        self.dirty = true;
        if !self.busy && self.next_at.is_none() {
            self.next_at = Some(now + QUIET_MS);
        }
    }

    /// When to wake up next, if anything is pending.
    pub(crate) fn poll_timeout(&self) -> Option<u64> {
        if self.busy || !self.dirty {
            return None;
        }
        self.next_at
    }

    /// Whether a push should start at `now`; if so it is in flight until [`Schedule::done`].
    pub(crate) fn start(&mut self, now: u64) -> bool {
        let due = self.poll_timeout().is_some_and(|t| now >= t);
        if due {
            self.busy = true;
            self.dirty = false;
            self.next_at = None;
        }
        due
    }

    /// The push started last ended at `now` with `outcome`.
    pub(crate) fn done(&mut self, now: u64, outcome: Outcome) {
        self.busy = false;
        match outcome {
            Outcome::Done => {
                self.failures = 0;
                if self.dirty {
                    self.next_at = Some(now + QUIET_MS);
                }
            }
            Outcome::Failed => {
                self.dirty = true;
                let backoff = FIRST_BACKOFF_MS.saturating_mul(1 << self.failures.min(16));
                self.failures = self.failures.saturating_add(1);
                self.next_at = Some(now + backoff.min(MAX_BACKOFF_MS));
            }
            Outcome::WaitFor(ms) => {
                self.dirty = true;
                self.failures = self.failures.saturating_add(1);
                self.next_at = Some(now + ms);
            }
        }
    }

    /// Failures in a row (0 after a success).
    pub(crate) fn failures(&self) -> u32 {
        self.failures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_gathered_for_the_quiet_time_then_pushed_once() {
        let mut s = Schedule::default();
        assert_eq!(s.poll_timeout(), None, "nothing to push yet");
        s.changed(1_000);
        s.changed(1_200);
        assert_eq!(s.poll_timeout(), Some(1_000 + QUIET_MS));
        assert!(!s.start(1_499));
        assert!(s.start(1_500));
        assert!(!s.start(1_500), "one push in flight at a time");
        s.done(1_700, Outcome::Done);
        assert_eq!(s.poll_timeout(), None, "nothing changed meanwhile");
    }

    #[test]
    fn a_change_during_a_push_is_pushed_after_it() {
        let mut s = Schedule::default();
        s.changed(0);
        assert!(s.start(QUIET_MS));
        s.changed(600);
        assert_eq!(s.poll_timeout(), None, "waits for the push in flight");
        s.done(800, Outcome::Done);
        assert_eq!(s.poll_timeout(), Some(800 + QUIET_MS));
    }

    #[test]
    fn failures_back_off_doubling_up_to_a_minute_and_a_success_resets() {
        let mut s = Schedule::default();
        s.changed(0);
        let mut now = QUIET_MS;
        let mut waits = Vec::new();
        for _ in 0..9 {
            assert!(s.start(now));
            s.done(now, Outcome::Failed);
            let next = s.poll_timeout().expect("a retry is scheduled");
            waits.push(next - now);
            now = next;
        }
        assert_eq!(
            waits,
            [
                1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000
            ]
        );
        assert_eq!(s.failures(), 9);
        assert!(s.start(now));
        s.done(now, Outcome::Done);
        assert_eq!(s.failures(), 0);
        assert_eq!(
            s.poll_timeout(),
            None,
            "the failed content went out with the retry"
        );
    }

    #[test]
    fn the_server_can_ask_for_a_longer_wait() {
        let mut s = Schedule::default();
        s.changed(0);
        assert!(s.start(QUIET_MS));
        s.done(1_000, Outcome::WaitFor(60_000));
        assert_eq!(s.poll_timeout(), Some(61_000));
        s.changed(2_000);
        assert_eq!(
            s.poll_timeout(),
            Some(61_000),
            "a change does not cut the wait short"
        );
    }
}
