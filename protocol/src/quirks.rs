//! Helpers for the hardware quirks of spec §7.10, for the daemon to use.
//!
//! Owns small, pure policies that need no IO: the Bluetooth duplicate-ack filter (time is
//! passed in as milliseconds of any monotonic clock), the empty-report test and the display
//! rounding under the 9-hour limit. The other quirks are handled by types elsewhere:
//!
//! - all-zero BWTIME → [`crate::Message::EmptyClockReport`], see [`is_ignorable`];
//! - BCD in reports vs binary in set-and-run → [`crate::ClockTime`] holds plain numbers and
//!   each side of the wire does its own encoding ([`crate::ClockReport::decode_payload`],
//!   [`crate::SetAndRun`]);
//! - 9-hour limit → [`crate::ClockTime`] rejects more than 9:59:59, [`display_time`] clamps;
//! - left/right swap and disputed status bits 3/4 → reports expose `left`/`right` halves and
//!   keep bits 3/4 only in the raw `status` byte;
//! - ack0 `0x20` (unknown, seen on an XL) → [`crate::AckMeaning::Error`] with its code.
//!
//! It must not hold game state or read a clock.

use crate::ack::ClockAck;
use crate::message::Message;
use crate::report::{ClockTime, MAX_CLOCK_SECONDS};

/// Window within which a repeated identical ack is treated as the Bluetooth duplicate (§7.3).
pub const DUPLICATE_ACK_WINDOW_MS: u64 = 1000;

/// True for messages that carry no information and should be ignored (the all-zero BWTIME
/// Bluetooth boards send after clock commands).
pub fn is_ignorable(message: &Message) -> bool {
    matches!(message, Message::EmptyClockReport)
}

/// Drops an ack that repeats the previous one within a time window (Bluetooth boards may
/// answer a clock request with the last ack again for up to ~1 s).
#[derive(Debug, Clone)]
pub struct DuplicateAckFilter {
    window_ms: u64,
    last: Option<(ClockAck, u64)>,
}

impl Default for DuplicateAckFilter {
    fn default() -> Self {
        DuplicateAckFilter::new(DUPLICATE_ACK_WINDOW_MS)
    }
}

impl DuplicateAckFilter {
    /// A filter with the given window.
    pub fn new(window_ms: u64) -> DuplicateAckFilter {
        DuplicateAckFilter {
            window_ms,
            last: None,
        }
    }

    /// Record `ack` seen at `now_ms`; true if it is a duplicate to drop. A duplicate does not
    /// extend the window. Button events (ack1 0x88) are never duplicates: pressing the same
    /// button twice is two presses.
    pub fn is_duplicate(&mut self, ack: &ClockAck, now_ms: u64) -> bool {
        let dup = ack.bytes[1] != 0x88
            && self.last.is_some_and(|(last, at)| {
                last == *ack && now_ms.saturating_sub(at) < self.window_ms
            });
        if !dup {
            self.last = Some((*ack, now_ms));
        }
        dup
    }

    /// Forget the last ack (e.g. after sending a new command).
    pub fn reset(&mut self) {
        self.last = None;
    }
}

/// The time to show for `remaining_ms`: whole seconds rounded up (a clock showing 0:00:00
/// means the time is really gone), clamped to 9:59:59.
pub fn display_time(remaining_ms: u64) -> ClockTime {
    let secs = remaining_ms
        .div_ceil(1000)
        .min(u64::from(MAX_CLOCK_SECONDS));
    ClockTime::saturating_from_total_seconds(u32::try_from(secs).unwrap_or(MAX_CLOCK_SECONDS))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock_command::ClockCommandId;

    #[test]
    fn duplicate_acks_within_window_are_dropped() {
        let mut f = DuplicateAckFilter::default();
        let ack = ClockAck::ok(ClockCommandId::SetAndRun);
        assert!(!f.is_duplicate(&ack, 10_000));
        assert!(f.is_duplicate(&ack, 10_500));
        assert!(!f.is_duplicate(&ack, 11_200));
        assert!(!f.is_duplicate(&ClockAck::ok(ClockCommandId::Ascii), 11_300));
        let button = ClockAck {
            bytes: [0x10, 0x88, 0x05, 0x31],
        };
        assert!(!f.is_duplicate(&button, 12_000));
        assert!(!f.is_duplicate(&button, 12_100));
    }

    #[test]
    fn display_rounds_up_and_clamps() {
        assert_eq!(display_time(0).total_seconds(), 0);
        assert_eq!(display_time(1).total_seconds(), 1);
        assert_eq!(display_time(180_000).total_seconds(), 180);
        assert_eq!(display_time(180_001).total_seconds(), 181);
        assert_eq!(display_time(u64::MAX).total_seconds(), MAX_CLOCK_SECONDS);
    }
}
