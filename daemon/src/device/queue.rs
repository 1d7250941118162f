//! The clock command queue: one clock command in flight, completion by matching ack,
//! timeouts with bounded retries, then "not responding" (dgt-protocol §7.3).
//!
//! Pure logic: the actor passes `now` in and writes the bytes this returns. A set-and-run is
//! never dropped, only superseded by a newer one; text is coalesced (only the latest
//! matters); an error ack (`0x40`: clock not in PC mode) is final, never blindly retried.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

/// What a queued clock command is, for priorities and reporting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Set times and run flags.
    SetAndRun,
    /// Text on the display.
    Text,
    /// Back to the time display after text.
    End,
    /// Beep.
    Beep,
    /// Version query (probe).
    Version,
}

/// One encoded clock command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClockCmd {
    pub kind: Kind,
    /// The `0x2B` sub-command id the ack will name in ack1.
    pub subcmd: u8,
    /// Bytes to write.
    pub bytes: Vec<u8>,
}

#[derive(Debug)]
struct InFlight {
    cmd: ClockCmd,
    sent_at: Instant,
    attempts: u32,
}

/// Outcome of an incoming ack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AckOutcome {
    /// The command in flight completed.
    Completed(Kind),
    /// The clock refused the command in flight (ack0 `0x40`: not in PC mode).
    Refused(Kind),
    /// The same ack again within the duplicate window (Bluetooth quirk); ignored.
    Duplicate,
    /// An ack that matches nothing in flight (late, or for another command); ignored.
    Unmatched,
}

/// Outcome of a timeout check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TimeoutOutcome {
    /// Send these bytes again.
    Resend(Vec<u8>),
    /// The retries are used up: the clock is not responding.
    GaveUp(Kind),
}

use chessclock_protocol::ack::ACK_ERROR_NOT_IN_PC_MODE as ACK_ERROR;
/// Window in which an identical ack is taken as a duplicate.
const DUPLICATE_WINDOW: Duration = Duration::from_millis(1000);

/// The single-slot queue.
#[derive(Debug)]
pub(crate) struct Queue {
    in_flight: Option<InFlight>,
    set_and_run: Option<ClockCmd>,
    text: Option<ClockCmd>,
    other: VecDeque<ClockCmd>,
    timeout: Duration,
    retries: u32,
    last_ack: Option<([u8; 4], Instant)>,
}

impl Queue {
    /// A queue that waits `timeout` for each ack and resends at most `retries` times.
    pub(crate) fn new(timeout: Duration, retries: u32) -> Self {
        Queue {
            in_flight: None,
            set_and_run: None,
            text: None,
            other: VecDeque::new(),
            timeout,
            retries,
            last_ack: None,
        }
    }

    /// New timeout and retry count; they apply from the next command sent.
    pub(crate) fn set_limits(&mut self, timeout: Duration, retries: u32) {
        self.timeout = timeout;
        self.retries = retries;
    }

    /// Queue a command. A newer set-and-run supersedes a queued one; newer text replaces
    /// queued text.
    pub(crate) fn push(&mut self, cmd: ClockCmd) {
        match cmd.kind {
            Kind::SetAndRun => self.set_and_run = Some(cmd),
            Kind::Text => self.text = Some(cmd),
            _ => {
                if !self.other.contains(&cmd) {
                    self.other.push_back(cmd);
                }
            }
        }
    }

    /// Whether a command is waiting for its ack.
    pub(crate) fn busy(&self) -> bool {
        self.in_flight.is_some()
    }

    /// Whether anything is queued or in flight.
    #[cfg(test)]
    pub(crate) fn is_idle(&self) -> bool {
        self.in_flight.is_none()
            && self.set_and_run.is_none()
            && self.text.is_none()
            && self.other.is_empty()
    }

    /// The next bytes to write, if nothing is in flight. Set-and-run goes first.
    pub(crate) fn poll_send(&mut self, now: Instant) -> Option<Vec<u8>> {
        if self.in_flight.is_some() {
            return None;
        }
        let cmd = self
            .set_and_run
            .take()
            .or_else(|| self.other.pop_front())
            .or_else(|| self.text.take())?;
        let bytes = cmd.bytes.clone();
        self.in_flight = Some(InFlight {
            cmd,
            sent_at: now,
            attempts: 1,
        });
        Some(bytes)
    }

    /// An ack arrived (`ack` = the four reassembled ack bytes).
    pub(crate) fn on_ack(&mut self, now: Instant, ack: [u8; 4]) -> AckOutcome {
        if let Some(flight) = &self.in_flight {
            let kind = flight.cmd.kind;
            // Error acks do not reliably name the command; take them for the one in flight.
            let outcome = if ack[0] == ACK_ERROR {
                Some(AckOutcome::Refused(kind))
            } else if ack[1] == flight.cmd.subcmd {
                Some(AckOutcome::Completed(kind))
            } else {
                None
            };
            if let Some(outcome) = outcome {
                self.in_flight = None;
                self.last_ack = Some((ack, now));
                return outcome;
            }
        }
        match self.last_ack {
            Some((last, at))
                if last == ack && now.saturating_duration_since(at) < DUPLICATE_WINDOW =>
            {
                AckOutcome::Duplicate
            }
            _ => AckOutcome::Unmatched,
        }
    }

    /// When the command in flight times out.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.in_flight.as_ref().map(|f| f.sent_at + self.timeout)
    }

    /// Check the command in flight against its deadline.
    pub(crate) fn poll_timeout(&mut self, now: Instant) -> Option<TimeoutOutcome> {
        let deadline = self.deadline()?;
        if now < deadline {
            return None;
        }
        let flight = self.in_flight.as_mut()?;
        if flight.attempts > self.retries {
            let kind = flight.cmd.kind;
            let cmd = self.in_flight.take().map(|f| f.cmd);
            // A set-and-run is never dropped: keep it queued unless a newer one exists.
            if let Some(cmd) = cmd
                && cmd.kind == Kind::SetAndRun
                && self.set_and_run.is_none()
            {
                self.set_and_run = Some(cmd);
            }
            return Some(TimeoutOutcome::GaveUp(kind));
        }
        flight.attempts += 1;
        flight.sent_at = now;
        // A newer set-and-run supersedes the one being retried.
        if flight.cmd.kind == Kind::SetAndRun
            && let Some(newer) = self.set_and_run.take()
        {
            flight.cmd = newer;
        }
        Some(TimeoutOutcome::Resend(flight.cmd.bytes.clone()))
    }

    /// Forget the command in flight (link lost), keeping the latest set-and-run queued.
    pub(crate) fn reset_link(&mut self) {
        if let Some(f) = self.in_flight.take()
            && f.cmd.kind == Kind::SetAndRun
            && self.set_and_run.is_none()
        {
            self.set_and_run = Some(f.cmd);
        }
        self.other.clear();
        self.text = None;
        self.last_ack = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessclock_protocol::ack::ACK_OK;

    fn cmd(kind: Kind, subcmd: u8, tag: u8) -> ClockCmd {
        ClockCmd {
            kind,
            subcmd,
            bytes: vec![0x2b, subcmd, tag],
        }
    }

    fn t0() -> Instant {
        Instant::now()
    }

    #[test]
    fn one_in_flight_and_set_and_run_first() {
        let now = t0();
        let mut q = Queue::new(Duration::from_millis(2500), 2);
        q.push(cmd(Kind::Text, 0x0c, 1));
        q.push(cmd(Kind::SetAndRun, 0x0a, 2));
        assert_eq!(q.poll_send(now), Some(vec![0x2b, 0x0a, 2]));
        assert_eq!(q.poll_send(now), None, "only one command in flight");
        assert_eq!(
            q.on_ack(now, [ACK_OK, 0x0a, 0, 0]),
            AckOutcome::Completed(Kind::SetAndRun)
        );
        assert_eq!(q.poll_send(now), Some(vec![0x2b, 0x0c, 1]));
    }

    #[test]
    fn newer_set_and_run_supersedes_queued_one() {
        let now = t0();
        let mut q = Queue::new(Duration::from_millis(2500), 2);
        q.push(cmd(Kind::Beep, 0x0b, 0));
        q.poll_send(now);
        q.push(cmd(Kind::SetAndRun, 0x0a, 1));
        q.push(cmd(Kind::SetAndRun, 0x0a, 2));
        q.on_ack(now, [ACK_OK, 0x0b, 0, 0]);
        assert_eq!(q.poll_send(now), Some(vec![0x2b, 0x0a, 2]));
        q.on_ack(now, [ACK_OK, 0x0a, 0, 0]);
        assert!(q.is_idle());
    }

    #[test]
    fn timeout_retries_then_gives_up_but_keeps_set_and_run() {
        let now = t0();
        let mut q = Queue::new(Duration::from_millis(100), 2);
        q.push(cmd(Kind::SetAndRun, 0x0a, 1));
        q.poll_send(now);
        assert_eq!(q.poll_timeout(now), None);
        let t1 = now + Duration::from_millis(100);
        assert_eq!(
            q.poll_timeout(t1),
            Some(TimeoutOutcome::Resend(vec![0x2b, 0x0a, 1]))
        );
        let t2 = t1 + Duration::from_millis(100);
        assert!(matches!(
            q.poll_timeout(t2),
            Some(TimeoutOutcome::Resend(_))
        ));
        let t3 = t2 + Duration::from_millis(100);
        assert_eq!(
            q.poll_timeout(t3),
            Some(TimeoutOutcome::GaveUp(Kind::SetAndRun))
        );
        assert!(!q.busy());
        assert_eq!(q.poll_send(t3), Some(vec![0x2b, 0x0a, 1]), "kept for later");
    }

    #[test]
    fn error_ack_is_final_and_duplicates_are_ignored() {
        let now = t0();
        let mut q = Queue::new(Duration::from_millis(2500), 2);
        q.push(cmd(Kind::SetAndRun, 0x0a, 1));
        q.poll_send(now);
        assert_eq!(
            q.on_ack(now, [ACK_ERROR, 0x0a, 0, 0]),
            AckOutcome::Refused(Kind::SetAndRun)
        );
        assert_eq!(
            q.on_ack(now, [ACK_ERROR, 0x0a, 0, 0]),
            AckOutcome::Duplicate
        );
        // A second set-and-run soon after is still completed by its own (identical) ack.
        q.push(cmd(Kind::SetAndRun, 0x0a, 2));
        q.poll_send(now);
        assert_eq!(
            q.on_ack(now, [ACK_OK, 0x0a, 0, 0]),
            AckOutcome::Completed(Kind::SetAndRun)
        );
        assert_eq!(q.on_ack(now, [ACK_OK, 0x0a, 0, 0]), AckOutcome::Duplicate);
        assert_eq!(q.poll_timeout(now + Duration::from_secs(10)), None);
    }

    #[test]
    fn unrelated_ack_does_not_complete() {
        let now = t0();
        let mut q = Queue::new(Duration::from_millis(2500), 2);
        q.push(cmd(Kind::Version, 0x09, 0));
        q.poll_send(now);
        assert_eq!(q.on_ack(now, [ACK_OK, 0x0b, 0, 0]), AckOutcome::Unmatched);
        assert!(q.busy());
    }
}
