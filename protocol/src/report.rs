//! Clock times and the BWTIME clock report (spec §5.2).
//!
//! Owns [`ClockTime`] (h:m:s as plain numbers, at most 9:59:59 because the hardware has one
//! hours digit), the clock's two [`Half`]s and which one the lever raises, the per-side flag
//! bits, the status byte and the BCD encoding reports use.
//! Set-and-run commands encode the same [`ClockTime`] in binary instead (spec §7.10 item 10);
//! that encoding lives with the command. This module must not interpret which half is White.

use std::fmt;

use crate::error::PayloadError;

/// A time shown by a DGT clock half: hours 0..=9, minutes and seconds 0..=59.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ClockTime {
    hours: u8,
    minutes: u8,
    seconds: u8,
}

/// The largest time a DGT clock can show or be set to: 9:59:59 (one hours digit).
pub const MAX_CLOCK_SECONDS: u32 = 9 * 3600 + 59 * 60 + 59;

impl ClockTime {
    /// Build from parts; `None` unless hours <= 9, minutes <= 59 and seconds <= 59.
    pub fn new(hours: u8, minutes: u8, seconds: u8) -> Option<ClockTime> {
        (hours <= 9 && minutes <= 59 && seconds <= 59).then_some(ClockTime {
            hours,
            minutes,
            seconds,
        })
    }

    /// Build from total seconds; `None` above [`MAX_CLOCK_SECONDS`] (the 9-hour limit).
    pub fn from_total_seconds(total: u32) -> Option<ClockTime> {
        if total > MAX_CLOCK_SECONDS {
            return None;
        }
        // total <= 35999, so every part fits in a u8.
        let part = |v: u32| u8::try_from(v).unwrap_or(u8::MAX);
        Some(ClockTime {
            hours: part(total / 3600),
            minutes: part(total / 60 % 60),
            seconds: part(total % 60),
        })
    }

    /// Like [`ClockTime::from_total_seconds`], but clamps to 9:59:59 instead of failing. Use it
    /// for display pushes of longer times; the engine keeps the real value.
    pub fn saturating_from_total_seconds(total: u32) -> ClockTime {
        ClockTime::from_total_seconds(total.min(MAX_CLOCK_SECONDS)).unwrap_or_default()
    }

    /// Hours, 0..=9.
    pub fn hours(self) -> u8 {
        self.hours
    }

    /// Minutes, 0..=59.
    pub fn minutes(self) -> u8 {
        self.minutes
    }

    /// Seconds, 0..=59.
    pub fn seconds(self) -> u8 {
        self.seconds
    }

    /// `hours * 3600 + minutes * 60 + seconds`.
    pub fn total_seconds(self) -> u32 {
        u32::from(self.hours) * 3600 + u32::from(self.minutes) * 60 + u32::from(self.seconds)
    }
}

impl fmt::Display for ClockTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{:02}:{:02}", self.hours, self.minutes, self.seconds)
    }
}

/// Decode one packed-BCD byte limited to 0..=59 (minutes or seconds in a report).
pub fn bcd_to_sexagesimal(byte: u8, what: &'static str) -> Result<u8, PayloadError> {
    let (hi, lo) = (byte >> 4, byte & 0x0F);
    if hi > 5 || lo > 9 {
        return Err(PayloadError::Time {
            what,
            byte,
            kind: "BCD 00..59",
        });
    }
    Ok(hi * 10 + lo)
}

/// Encode 0..=99 as packed BCD.
pub fn to_bcd(value: u8) -> u8 {
    ((value / 10) << 4) | (value % 10)
}

/// One half of the clock as reported in BWTIME.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockSide {
    /// The time shown.
    pub time: ClockTime,
    /// Bit 6: the flag is shown for this side (the clock may still run into a next period).
    pub flag: bool,
    /// Bit 4: the flag fell and the clock is blocked at zero for this side.
    pub final_flag: bool,
    /// Bit 5: time-per-move indicator (Fischer/Bronstein/delay period active).
    pub time_per_move: bool,
}

impl ClockSide {
    /// Total seconds shown.
    pub fn total_seconds(&self) -> u32 {
        self.time.total_seconds()
    }

    #[inline]
    fn decode(bytes: [u8; 3], half: Half) -> Result<ClockSide, PayloadError> {
        let [flags, minutes, seconds] = bytes;
        let hours = flags & 0x0F;
        let names = half.names();
        if hours > 9 {
            return Err(PayloadError::Time {
                what: names[0],
                byte: flags,
                kind: "hours 0..9 in the low nibble",
            });
        }
        let minutes = bcd_to_sexagesimal(minutes, names[1])?;
        let seconds = bcd_to_sexagesimal(seconds, names[2])?;
        Ok(ClockSide {
            time: ClockTime {
                hours,
                minutes,
                seconds,
            },
            flag: flags & 0x40 != 0,
            final_flag: flags & 0x10 != 0,
            time_per_move: flags & 0x20 != 0,
        })
    }

    fn encode(&self) -> [u8; 3] {
        let mut flags = self.time.hours;
        if self.final_flag {
            flags |= 0x10;
        }
        if self.time_per_move {
            flags |= 0x20;
        }
        if self.flag {
            flags |= 0x40;
        }
        [flags, to_bcd(self.time.minutes), to_bcd(self.time.seconds)]
    }
}

/// A half of the clock, as seen from its front. Which half is White is not in the protocol
/// (the daemon's setting of it is a `Half` too, [`Half::Left`] unless set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Half {
    /// Left half (report bytes 6-8).
    #[default]
    Left,
    /// Right half (report bytes 3-5).
    Right,
}

impl std::fmt::Display for Half {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Half {
    /// The spellings of [`Half::as_str`], in the order of the variants.
    pub const NAMES: [&'static str; 2] = ["left", "right"];

    /// `left` or `right`.
    pub fn as_str(self) -> &'static str {
        match self {
            Half::Left => "left",
            Half::Right => "right",
        }
    }

    /// The other half.
    pub fn other(self) -> Half {
        match self {
            Half::Left => Half::Right,
            Half::Right => Half::Left,
        }
    }

    fn names(self) -> [&'static str; 3] {
        match self {
            Half::Left => ["left hours", "left minutes", "left seconds"],
            Half::Right => ["right hours", "right minutes", "right seconds"],
        }
    }
}

/// Status byte bit 0: clock running.
pub const STATUS_RUNNING: u8 = 0x01;
/// Status byte bit 1: lever with the right side high.
pub const STATUS_RIGHT_HIGH: u8 = 0x02;
/// Status byte bit 2: battery low.
pub const STATUS_BATTERY_LOW: u8 = 0x04;
/// Status byte bit 3: left player's turn (reading disputed, spec §5.2 — do not drive logic from it).
pub const STATUS_LEFT_TURN: u8 = 0x08;
/// Status byte bit 4: right player's turn (reading disputed, spec §5.2 — do not drive logic from it).
pub const STATUS_RIGHT_TURN: u8 = 0x10;
/// Status byte bit 5: no clock connected; the times in the report are invalid.
pub const STATUS_NO_CLOCK: u8 = 0x20;

/// A BWTIME clock report: both halves and the status byte.
///
/// Bytes 3-5 of the message are the right half, 6-8 the left half (spec §5.2). Which half
/// is White is not in the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockReport {
    /// Left half of the clock, seen from the front.
    pub left: ClockSide,
    /// Right half of the clock.
    pub right: ClockSide,
    /// Status bit 0: the clock is running (not paused).
    pub running: bool,
    /// Status bit 1: the lever's right end is up (the right half runs when running).
    pub right_high: bool,
    /// Status bit 2: the clock shows battery low.
    pub battery_low: bool,
    /// Status bit 5 clear: a clock is connected. When false the times are not valid.
    pub clock_connected: bool,
    /// The status byte as received. Bits 3/4 ("left/right turn") are kept here only; their
    /// meaning is disputed (spec §5.2). [`ClockReport::encode_payload`] takes bits 3, 4 and 6
    /// from it and the other bits from the fields above.
    pub status: u8,
}

impl ClockReport {
    /// Build a report from two sides and a status byte, deriving the flag fields from it.
    pub fn from_status(left: ClockSide, right: ClockSide, status: u8) -> ClockReport {
        ClockReport {
            left,
            right,
            running: status & STATUS_RUNNING != 0,
            right_high: status & STATUS_RIGHT_HIGH != 0,
            battery_low: status & STATUS_BATTERY_LOW != 0,
            clock_connected: status & STATUS_NO_CLOCK == 0,
            status,
        }
    }

    /// The half whose lever end is up (status bit 1): the half that runs while the clock runs.
    pub fn lever_up(&self) -> Half {
        if self.right_high {
            Half::Right
        } else {
            Half::Left
        }
    }

    /// The report of one half.
    pub fn half(&self, half: Half) -> &ClockSide {
        match half {
            Half::Left => &self.left,
            Half::Right => &self.right,
        }
    }

    /// Status bit 3, disputed meaning (see [`STATUS_LEFT_TURN`]).
    pub fn left_turn(&self) -> bool {
        self.status & STATUS_LEFT_TURN != 0
    }

    /// Status bit 4, disputed meaning (see [`STATUS_RIGHT_TURN`]).
    pub fn right_turn(&self) -> bool {
        self.status & STATUS_RIGHT_TURN != 0
    }

    /// Decode the 7-byte BWTIME payload of a report (not an ack; see
    /// [`crate::ack::is_ack_payload`]).
    #[inline]
    pub fn decode_payload(p: [u8; 7]) -> Result<ClockReport, PayloadError> {
        let valid_hours = |b: u8| b & 0x0F <= 9;
        let valid_bcd = |b: u8| b >> 4 <= 5 && b & 0x0F <= 9;
        if !(valid_hours(p[0])
            && valid_bcd(p[1])
            && valid_bcd(p[2])
            && valid_hours(p[3])
            && valid_bcd(p[4])
            && valid_bcd(p[5]))
        {
            if p[6] & STATUS_NO_CLOCK != 0 {
                // No clock: the time bytes carry nothing (spec §5.2). Still a report, so a
                // reader learns that the clock is gone; the times read as zero.
                let none = ClockSide::default();
                return Ok(ClockReport::from_status(none, none, p[6] & 0x7F));
            }
            // Slow path, only to say which byte is wrong.
            ClockSide::decode([p[0], p[1], p[2]], Half::Right)?;
            ClockSide::decode([p[3], p[4], p[5]], Half::Left)?;
        }
        let side = |flags: u8, m: u8, s: u8| ClockSide {
            time: ClockTime {
                hours: flags & 0x0F,
                minutes: (m >> 4) * 10 + (m & 0x0F),
                seconds: (s >> 4) * 10 + (s & 0x0F),
            },
            flag: flags & 0x40 != 0,
            final_flag: flags & 0x10 != 0,
            time_per_move: flags & 0x20 != 0,
        };
        Ok(ClockReport::from_status(
            side(p[3], p[4], p[5]),
            side(p[0], p[1], p[2]),
            p[6] & 0x7F,
        ))
    }

    /// The 7-byte BWTIME payload for this report.
    pub fn encode_payload(&self) -> [u8; 7] {
        let [r0, r1, r2] = self.right.encode();
        let [l0, l1, l2] = self.left.encode();
        let mut status = self.status & (STATUS_LEFT_TURN | STATUS_RIGHT_TURN | 0x40);
        for (on, bit) in [
            (self.running, STATUS_RUNNING),
            (self.right_high, STATUS_RIGHT_HIGH),
            (self.battery_low, STATUS_BATTERY_LOW),
            (!self.clock_connected, STATUS_NO_CLOCK),
        ] {
            if on {
                status |= bit;
            }
        }
        [r0, r1, r2, l0, l1, l2, status]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Report from capture 1 (spec §9.1): R 0:03:02, L 0:03:01, running, right high, bit 4.
    const LEVER_PRESSED: [u8; 7] = [0x20, 0x03, 0x02, 0x20, 0x03, 0x01, 0x13];

    #[test]
    fn decodes_report_from_spec_excerpt() {
        let r = ClockReport::decode_payload(LEVER_PRESSED).expect("valid report");
        assert_eq!(r.left.time, ClockTime::new(0, 3, 1).expect("valid"));
        assert_eq!(r.right.total_seconds(), 182);
        assert!(r.left.time_per_move && r.right.time_per_move);
        assert!(!r.left.final_flag && !r.left.flag);
        assert!(r.running && r.right_high && r.clock_connected && !r.battery_low);
        assert!(r.right_turn() && !r.left_turn());
        assert_eq!(r.encode_payload(), LEVER_PRESSED);
    }

    #[test]
    fn the_raised_lever_names_the_running_half() {
        let r = ClockReport::decode_payload(LEVER_PRESSED).expect("valid report");
        assert_eq!(r.lever_up(), Half::Right);
        assert_eq!(r.half(Half::Right).total_seconds(), 182);
        assert_eq!(r.half(Half::Right.other()).total_seconds(), 181);
        let mut low = LEVER_PRESSED;
        low[6] &= !STATUS_RIGHT_HIGH;
        let r = ClockReport::decode_payload(low).expect("valid report");
        assert_eq!(r.lever_up(), Half::Left);
    }

    #[test]
    fn final_flag_and_no_clock_bits() {
        let r =
            ClockReport::decode_payload([0x30, 0x00, 0x00, 0x20, 0x00, 0x16, 0x32]).expect("valid");
        assert!(r.right.final_flag && !r.left.final_flag);
        assert_eq!(r.left.total_seconds(), 16);
        assert!(!r.running && !r.clock_connected);
    }

    #[test]
    fn no_clock_report_with_garbage_times_is_still_a_report() {
        let r = ClockReport::decode_payload([0x0F, 0xFF, 0x7A, 0x0C, 0x99, 0x60, 0x20])
            .expect("a no-clock report is a report whatever its time bytes");
        assert!(!r.clock_connected);
        assert_eq!((r.left.total_seconds(), r.right.total_seconds()), (0, 0));
        // Without the no-clock bit the same bytes are an error naming the bad byte.
        assert!(ClockReport::decode_payload([0x0F, 0xFF, 0x7A, 0x0C, 0x99, 0x60, 0x00]).is_err());
    }

    #[test]
    fn bcd_is_checked() {
        assert_eq!(bcd_to_sexagesimal(0x59, "x"), Ok(59));
        assert!(bcd_to_sexagesimal(0x5A, "x").is_err());
        assert!(bcd_to_sexagesimal(0x60, "x").is_err());
        assert!(ClockReport::decode_payload([0x0B, 0, 0, 0, 0, 0, 0]).is_err());
    }

    #[test]
    fn nine_hour_limit() {
        assert_eq!(
            ClockTime::from_total_seconds(MAX_CLOCK_SECONDS)
                .map(|t| t.to_string())
                .as_deref(),
            Some("9:59:59")
        );
        assert_eq!(ClockTime::from_total_seconds(MAX_CLOCK_SECONDS + 1), None);
        assert_eq!(
            ClockTime::saturating_from_total_seconds(40_000).total_seconds(),
            MAX_CLOCK_SECONDS
        );
        assert_eq!(ClockTime::new(10, 0, 0), None);
    }
}
