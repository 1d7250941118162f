//! The clock command queue: one clock command in flight, completion by its matching ack,
//! bounded resends, then "not responding" (dgt-protocol §7.3).
//!
//! Owns the order of clock commands: a set-and-run is never dropped on a link, only
//! superseded by a newer one (a lost link forgets its commands: the new link starts with
//! the caller's push at the clock's ready); text is coalesced (only the latest matters); an error ack (`0x40`: clock not in
//! PC mode) is final, never blindly retried. It knows no time: the driver arms the ack timer
//! when it sends and calls [`Queue::on_timeout`] when it fires. Duplicate acks are filtered
//! before they get here.

use std::collections::VecDeque;

use chessclock_protocol::ack::ACK_ERROR_NOT_IN_PC_MODE;
use chessclock_protocol::{ClockAck, ClockCommandId};

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
    /// The flag icons (ICONS). Best effort: tried once, never resent (a clock that ignores
    /// ICONS must not hold the times up for the resends).
    Icons,
    /// Version query (probe).
    Version,
}

/// One encoded clock command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClockCmd {
    pub kind: Kind,
    /// The `0x2B` sub-command the ack will name in ack1.
    pub id: ClockCommandId,
    /// Bytes to write.
    pub bytes: Vec<u8>,
}

#[derive(Debug)]
struct InFlight {
    cmd: ClockCmd,
    attempts: u32,
}

/// Outcome of an incoming ack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AckOutcome {
    /// The command in flight completed.
    Completed(Kind),
    /// The clock refused the command in flight (ack0 `0x40`: not in PC mode).
    Refused(Kind),
    /// An ack that matches nothing in flight (late, or for another command); ignored.
    Unmatched,
}

/// Outcome of the ack timer firing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TimeoutOutcome {
    /// Send these bytes again (the same command, or a newer set-and-run superseding it).
    Resend(Vec<u8>),
    /// The retries are used up: the clock is not responding.
    GaveUp(Kind),
}

/// The single-slot queue.
#[derive(Debug)]
pub(crate) struct Queue {
    in_flight: Option<InFlight>,
    set_and_run: Option<ClockCmd>,
    text: Option<ClockCmd>,
    other: VecDeque<ClockCmd>,
    retries: u32,
}

impl Queue {
    /// A queue that resends an unanswered command at most `retries` times.
    pub(crate) fn new(retries: u32) -> Self {
        Queue {
            in_flight: None,
            set_and_run: None,
            text: None,
            other: VecDeque::new(),
            retries,
        }
    }

    /// A new resend count; it applies from the next timeout.
    pub(crate) fn set_retries(&mut self, retries: u32) {
        self.retries = retries;
    }

    /// Queue a command. A newer set-and-run supersedes a queued one; newer text replaces
    /// queued text; an identical other command already queued is not queued twice.
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

    /// The next bytes to write, if nothing is in flight: set-and-run first, then the other
    /// commands in order, then text.
    pub(crate) fn poll_send(&mut self) -> Option<Vec<u8>> {
        if self.in_flight.is_some() {
            return None;
        }
        let cmd = self
            .set_and_run
            .take()
            .or_else(|| self.other.pop_front())
            .or_else(|| self.text.take())?;
        let bytes = cmd.bytes.clone();
        self.in_flight = Some(InFlight { cmd, attempts: 1 });
        Some(bytes)
    }

    /// An ack (ack1 < 0x80) arrived.
    pub(crate) fn on_ack(&mut self, ack: &ClockAck) -> AckOutcome {
        let Some(flight) = &self.in_flight else {
            return AckOutcome::Unmatched;
        };
        let kind = flight.cmd.kind;
        // Error acks do not reliably name the command; take them for the one in flight.
        let outcome = if ack.bytes[0] == ACK_ERROR_NOT_IN_PC_MODE {
            AckOutcome::Refused(kind)
        } else if ack.answers() == Some(flight.cmd.id) {
            AckOutcome::Completed(kind)
        } else {
            return AckOutcome::Unmatched;
        };
        self.in_flight = None;
        outcome
    }

    /// The ack timer of the command in flight fired; `None` if nothing is in flight.
    pub(crate) fn on_timeout(&mut self) -> Option<TimeoutOutcome> {
        let flight = self.in_flight.as_mut()?;
        if flight.attempts > self.retries || flight.cmd.kind == Kind::Icons {
            let cmd = self.in_flight.take().map(|f| f.cmd)?;
            let kind = cmd.kind;
            // A set-and-run is never dropped: keep it queued unless a newer one exists.
            if kind == Kind::SetAndRun && self.set_and_run.is_none() {
                self.set_and_run = Some(cmd);
            }
            return Some(TimeoutOutcome::GaveUp(kind));
        }
        flight.attempts += 1;
        // A newer set-and-run supersedes the one being retried.
        if flight.cmd.kind == Kind::SetAndRun
            && let Some(newer) = self.set_and_run.take()
        {
            flight.cmd = newer;
        }
        Some(TimeoutOutcome::Resend(flight.cmd.bytes.clone()))
    }

    /// Drop text not sent yet; true if there was some. (Text in flight is on its way: the
    /// caller follows it with END.)
    pub(crate) fn drop_text(&mut self) -> bool {
        self.text.take().is_some()
    }

    /// Forget every display command, queued or in flight (observe mode: the clock runs its
    /// own mode and must get no set-and-run, text, end or beep, not even a resend). A late
    /// ack of the forgotten command is then unmatched, and ignored.
    pub(crate) fn drop_display(&mut self) {
        let display = |k: Kind| k != Kind::Version;
        if self.in_flight.as_ref().is_some_and(|f| display(f.cmd.kind)) {
            self.in_flight = None;
        }
        self.set_and_run = None;
        self.text = None;
        self.other.retain(|c| !display(c.kind));
    }

    /// Forget every command, in flight or queued (link lost). A set-and-run of the old link
    /// is not kept: its times were those of its push, and the clock counted on alone while
    /// the link was down. The new link's first set-and-run is the caller's push once the
    /// clock is ready again (the driver asks for it: `RefreshDisplay`), which supersedes it.
    pub(crate) fn reset_link(&mut self) {
        self.in_flight = None;
        self.set_and_run = None;
        self.other.clear();
        self.text = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropping_the_display_keeps_only_version_requests() {
        let mut q = Queue::new(2);
        q.push(cmd(Kind::SetAndRun, ClockCommandId::SetAndRun, 1));
        assert!(q.poll_send().is_some(), "a set-and-run in flight");
        q.push(cmd(Kind::SetAndRun, ClockCommandId::SetAndRun, 2));
        q.push(cmd(Kind::Beep, ClockCommandId::Beep, 3));
        q.push(cmd(Kind::Version, ClockCommandId::Version, 4));
        q.push(cmd(Kind::Text, ClockCommandId::Ascii, 5));
        q.drop_display();
        assert!(!q.busy(), "the set-and-run in flight is forgotten");
        assert_eq!(
            q.poll_send(),
            Some(vec![0x2b, u8::from(ClockCommandId::Version), 4])
        );
        assert_eq!(
            q.on_timeout(),
            Some(TimeoutOutcome::Resend(vec![0x2b, 0x09, 4]))
        );
    }

    fn cmd(kind: Kind, id: ClockCommandId, tag: u8) -> ClockCmd {
        ClockCmd {
            kind,
            id,
            bytes: vec![0x2b, u8::from(id), tag],
        }
    }

    fn ok(id: ClockCommandId) -> ClockAck {
        ClockAck::ok(id)
    }

    #[test]
    fn one_in_flight_and_set_and_run_first() {
        let mut q = Queue::new(2);
        q.push(cmd(Kind::Text, ClockCommandId::Ascii, 1));
        q.push(cmd(Kind::SetAndRun, ClockCommandId::SetAndRun, 2));
        assert_eq!(q.poll_send(), Some(vec![0x2b, 0x0a, 2]));
        assert_eq!(q.poll_send(), None, "only one command in flight");
        assert_eq!(
            q.on_ack(&ok(ClockCommandId::SetAndRun)),
            AckOutcome::Completed(Kind::SetAndRun)
        );
        assert_eq!(q.poll_send(), Some(vec![0x2b, 0x0c, 1]));
    }

    #[test]
    fn newer_set_and_run_supersedes_queued_one() {
        let mut q = Queue::new(2);
        q.push(cmd(Kind::Beep, ClockCommandId::Beep, 0));
        q.poll_send();
        q.push(cmd(Kind::SetAndRun, ClockCommandId::SetAndRun, 1));
        q.push(cmd(Kind::SetAndRun, ClockCommandId::SetAndRun, 2));
        q.on_ack(&ok(ClockCommandId::Beep));
        assert_eq!(q.poll_send(), Some(vec![0x2b, 0x0a, 2]));
        q.on_ack(&ok(ClockCommandId::SetAndRun));
        assert!(q.is_idle());
    }

    #[test]
    fn timeout_retries_then_gives_up_but_keeps_set_and_run() {
        let mut q = Queue::new(2);
        assert_eq!(q.on_timeout(), None, "nothing in flight");
        q.push(cmd(Kind::SetAndRun, ClockCommandId::SetAndRun, 1));
        q.poll_send();
        assert_eq!(
            q.on_timeout(),
            Some(TimeoutOutcome::Resend(vec![0x2b, 0x0a, 1]))
        );
        q.push(cmd(Kind::SetAndRun, ClockCommandId::SetAndRun, 2));
        assert_eq!(
            q.on_timeout(),
            Some(TimeoutOutcome::Resend(vec![0x2b, 0x0a, 2])),
            "a newer set-and-run supersedes the resend"
        );
        assert_eq!(
            q.on_timeout(),
            Some(TimeoutOutcome::GaveUp(Kind::SetAndRun))
        );
        assert!(!q.busy());
        assert_eq!(q.poll_send(), Some(vec![0x2b, 0x0a, 2]), "kept for later");
    }

    #[test]
    fn error_ack_is_final_and_other_acks_do_not_complete() {
        let mut q = Queue::new(2);
        q.push(cmd(Kind::SetAndRun, ClockCommandId::SetAndRun, 1));
        q.poll_send();
        assert_eq!(
            q.on_ack(&ok(ClockCommandId::Beep)),
            AckOutcome::Unmatched,
            "an ack for another command"
        );
        assert!(q.busy());
        assert_eq!(
            q.on_ack(&ClockAck::error(
                ClockCommandId::SetAndRun,
                ACK_ERROR_NOT_IN_PC_MODE
            )),
            AckOutcome::Refused(Kind::SetAndRun)
        );
        assert!(q.is_idle(), "a refused command is not retried");
        assert_eq!(q.on_timeout(), None);
    }

    #[test]
    fn a_lost_link_forgets_every_command_the_set_and_run_too() {
        let mut q = Queue::new(2);
        q.push(cmd(Kind::SetAndRun, ClockCommandId::SetAndRun, 1));
        q.poll_send();
        q.push(cmd(Kind::SetAndRun, ClockCommandId::SetAndRun, 2));
        q.push(cmd(Kind::Text, ClockCommandId::Ascii, 3));
        q.push(cmd(Kind::Beep, ClockCommandId::Beep, 4));
        q.reset_link();
        assert!(
            q.is_idle(),
            "nothing of the old link is sent on the new one"
        );
        assert_eq!(q.poll_send(), None);
        assert_eq!(q.on_timeout(), None, "nothing in flight");
    }
}
