//! Clock sub-commands sent inside the `0x2B` clock message (spec §6).
//!
//! Owns the sub-command ids, their payload layouts, the `2B LEN 03 CMD ... 00` wrapper and the
//! binary time encoding of set-and-run (text helpers are in [`crate::clock_text`]). It must not
//! decide pacing or retries (one command in flight is the device actor's job).

use std::fmt;

use crate::error::{CommandError, PayloadError};
use crate::report::ClockTime;

/// The host command byte that wraps a clock sub-command.
pub const CLOCK_MESSAGE: u8 = 0x2B;
/// Start marker after the length byte.
pub const CLOCK_START: u8 = 0x03;
/// End marker closing a clock message.
pub const CLOCK_END: u8 = 0x00;

/// Clock sub-command id (the `CMD` byte; also ack1 of its acknowledgement).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClockCommandId {
    /// 0x01 DGT XL 7-segment display.
    Display,
    /// 0x02 icons.
    Icons,
    /// 0x03 end display, show times again.
    End,
    /// 0x08 button query.
    Button,
    /// 0x09 version query.
    Version,
    /// 0x0A set times and run.
    SetAndRun,
    /// 0x0B beep.
    Beep,
    /// 0x0C DGT 3000 ASCII text (8 characters).
    Ascii,
    /// 0x0D Revelation II ASCII text (11 characters).
    Rev2Ascii,
    /// Any other id.
    Unknown(u8),
}

impl From<u8> for ClockCommandId {
    fn from(b: u8) -> Self {
        match b {
            0x01 => ClockCommandId::Display,
            0x02 => ClockCommandId::Icons,
            0x03 => ClockCommandId::End,
            0x08 => ClockCommandId::Button,
            0x09 => ClockCommandId::Version,
            0x0A => ClockCommandId::SetAndRun,
            0x0B => ClockCommandId::Beep,
            0x0C => ClockCommandId::Ascii,
            0x0D => ClockCommandId::Rev2Ascii,
            other => ClockCommandId::Unknown(other),
        }
    }
}

impl From<ClockCommandId> for u8 {
    fn from(id: ClockCommandId) -> u8 {
        match id {
            ClockCommandId::Display => 0x01,
            ClockCommandId::Icons => 0x02,
            ClockCommandId::End => 0x03,
            ClockCommandId::Button => 0x08,
            ClockCommandId::Version => 0x09,
            ClockCommandId::SetAndRun => 0x0A,
            ClockCommandId::Beep => 0x0B,
            ClockCommandId::Ascii => 0x0C,
            ClockCommandId::Rev2Ascii => 0x0D,
            ClockCommandId::Unknown(b) => b,
        }
    }
}

impl fmt::Display for ClockCommandId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            ClockCommandId::Display => "display",
            ClockCommandId::Icons => "icons",
            ClockCommandId::End => "end",
            ClockCommandId::Button => "button",
            ClockCommandId::Version => "version",
            ClockCommandId::SetAndRun => "set_and_run",
            ClockCommandId::Beep => "beep",
            ClockCommandId::Ascii => "ascii",
            ClockCommandId::Rev2Ascii => "rev2_ascii",
            ClockCommandId::Unknown(b) => return write!(f, "command 0x{b:02X}"),
        };
        f.write_str(name)
    }
}

/// Set-and-run run flags (the FLAGS byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RunFlags(pub u8);

impl RunFlags {
    /// Left half counts down, right stopped.
    pub const LEFT_RUNS: RunFlags = RunFlags(0x01);
    /// Right half counts down, left stopped.
    pub const RIGHT_RUNS: RunFlags = RunFlags(0x02);
    /// Both halves stopped (pause) with the given times.
    pub const PAUSED: RunFlags = RunFlags(0x04);
    /// Bit 0x08: let the clock toggle the running side on lever presses (behaviour unverified).
    pub const TOGGLE_ON_LEVER: u8 = 0x08;
}

/// Which half runs after a set-and-run (the three flag values working drivers use).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunSide {
    /// Left counts down.
    Left,
    /// Right counts down.
    Right,
    /// Both stopped.
    Paused,
}

impl From<RunSide> for RunFlags {
    fn from(side: RunSide) -> RunFlags {
        match side {
            RunSide::Left => RunFlags::LEFT_RUNS,
            RunSide::Right => RunFlags::RIGHT_RUNS,
            RunSide::Paused => RunFlags::PAUSED,
        }
    }
}

/// Set-and-run parameters. Times go on the wire in **binary** (reports come back in BCD).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SetAndRun {
    /// Left half time.
    pub left: ClockTime,
    /// Right half time.
    pub right: ClockTime,
    /// Left half counts up (hours bit 0x10; unsupported on DGT XL <= 1.14, unverified elsewhere).
    pub left_count_up: bool,
    /// Right half counts up.
    pub right_count_up: bool,
    /// Run flags.
    pub flags: RunFlags,
}

impl SetAndRun {
    /// Count-down times with one side running (or paused).
    pub fn new(left: ClockTime, right: ClockTime, run: RunSide) -> SetAndRun {
        SetAndRun {
            left,
            right,
            left_count_up: false,
            right_count_up: false,
            flags: run.into(),
        }
    }
}

/// A clock sub-command. [`ClockCommand::encode`] gives the full `0x2B` message.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ClockCommand {
    /// 0x01: DGT XL 7-segment display `1A:BC 1D:EF`.
    Display {
        /// Segment bytes for digits A, B, C, D, E, F (display order; the wire order C B A F E D
        /// is applied by `encode`).
        segments: [u8; 6],
        /// Icon bits: 0x01 right dot, 0x02 right colon, 0x04 right "1", 0x08 left dot,
        /// 0x10 left colon, 0x20 left "1".
        icons: u8,
        /// 0x03 beep, 0x01 no beep (header values).
        beep: u8,
    },
    /// 0x02: icons.
    Icons {
        /// Left icon byte 1 (TIME, FISCH, DELAY, HGLASS, UPCNT, BYO, END).
        left1: u8,
        /// Right icon byte 1.
        right1: u8,
        /// Left icon byte 2 (periods 1-5, flag).
        left2: u8,
        /// Right icon byte 2.
        right2: u8,
        /// Special byte (bit0 clear all, ..., bit6 persist).
        special: u8,
    },
    /// 0x03: end the display message, show the times again.
    End,
    /// 0x08: ask for the current button.
    Button,
    /// 0x09: ask for the clock version.
    Version,
    /// 0x0A: set times and run.
    SetAndRun(SetAndRun),
    /// 0x0B: beep for `units` x 64 ms.
    Beep {
        /// Duration in 64 ms units.
        units: u8,
    },
    /// 0x0C: DGT 3000 text, 8 ASCII characters.
    Ascii {
        /// The characters, space padded.
        text: [u8; 8],
        /// Beep byte (0 none, 1..=15 per header).
        beep: u8,
    },
    /// 0x0D: Revelation II text, 11 ASCII characters.
    Rev2Ascii {
        /// The characters, space padded.
        text: [u8; 11],
        /// Beep byte.
        beep: u8,
    },
}

impl ClockCommand {
    /// The sub-command id.
    pub fn id(&self) -> ClockCommandId {
        match self {
            ClockCommand::Display { .. } => ClockCommandId::Display,
            ClockCommand::Icons { .. } => ClockCommandId::Icons,
            ClockCommand::End => ClockCommandId::End,
            ClockCommand::Button => ClockCommandId::Button,
            ClockCommand::Version => ClockCommandId::Version,
            ClockCommand::SetAndRun(_) => ClockCommandId::SetAndRun,
            ClockCommand::Beep { .. } => ClockCommandId::Beep,
            ClockCommand::Ascii { .. } => ClockCommandId::Ascii,
            ClockCommand::Rev2Ascii { .. } => ClockCommandId::Rev2Ascii,
        }
    }

    /// The sub-command payload (between CMD and the end marker).
    pub fn payload(&self) -> Vec<u8> {
        match self {
            ClockCommand::Display {
                segments: [a, b, c, d, e, f],
                icons,
                beep,
            } => {
                vec![*c, *b, *a, *f, *e, *d, *icons, *beep]
            }
            ClockCommand::Icons {
                left1,
                right1,
                left2,
                right2,
                special,
            } => {
                vec![*left1, *right1, *left2, *right2, *special, 0, 0, 0]
            }
            ClockCommand::End | ClockCommand::Button | ClockCommand::Version => Vec::new(),
            ClockCommand::SetAndRun(s) => {
                let hours = |t: ClockTime, up: bool| t.hours() | if up { 0x10 } else { 0 };
                vec![
                    hours(s.left, s.left_count_up),
                    s.left.minutes(),
                    s.left.seconds(),
                    hours(s.right, s.right_count_up),
                    s.right.minutes(),
                    s.right.seconds(),
                    s.flags.0,
                ]
            }
            ClockCommand::Beep { units } => vec![*units],
            ClockCommand::Ascii { text, beep } => text.iter().chain([beep]).copied().collect(),
            ClockCommand::Rev2Ascii { text, beep } => text.iter().chain([beep]).copied().collect(),
        }
    }

    /// The full host bytes: `2B LEN 03 CMD payload 00`, LEN = payload length + 3.
    pub fn encode(&self) -> Vec<u8> {
        let payload = self.payload();
        let mut out = Vec::with_capacity(payload.len() + 5);
        out.extend_from_slice(&[
            CLOCK_MESSAGE,
            wire_len(payload.len() + 3),
            CLOCK_START,
            self.id().into(),
        ]);
        out.extend_from_slice(&payload);
        out.push(CLOCK_END);
        out
    }

    /// Parse a sub-command from its id byte and payload (as found inside a clock message).
    pub fn decode(cmd: u8, p: &[u8]) -> Result<ClockCommand, CommandError> {
        let id = ClockCommandId::from(cmd);
        let expect = |n: usize| {
            if p.len() == n {
                Ok(())
            } else {
                Err(CommandError::Payload(PayloadError::Length {
                    expected: n,
                    got: p.len(),
                }))
            }
        };
        let arr = |s: &[u8]| -> [u8; 11] {
            let mut a = [b' '; 11];
            a.iter_mut().zip(s).for_each(|(d, s)| *d = *s);
            a
        };
        Ok(match id {
            ClockCommandId::Display => {
                expect(8)?;
                ClockCommand::Display {
                    segments: [p[2], p[1], p[0], p[5], p[4], p[3]],
                    icons: p[6],
                    beep: p[7],
                }
            }
            ClockCommandId::Icons => {
                expect(8)?;
                ClockCommand::Icons {
                    left1: p[0],
                    right1: p[1],
                    left2: p[2],
                    right2: p[3],
                    special: p[4],
                }
            }
            ClockCommandId::End => expect(0).map(|()| ClockCommand::End)?,
            ClockCommandId::Button => expect(0).map(|()| ClockCommand::Button)?,
            ClockCommandId::Version => expect(0).map(|()| ClockCommand::Version)?,
            ClockCommandId::SetAndRun => {
                expect(7)?;
                let time = |h: u8, m: u8, s: u8, side: &'static str| {
                    ClockTime::new(h & 0x0F, m, s).ok_or(PayloadError::Time {
                        what: side,
                        byte: if h & 0x0F > 9 {
                            h
                        } else if m > 59 {
                            m
                        } else {
                            s
                        },
                        kind: "binary h 0..9, m/s 0..59",
                    })
                };
                ClockCommand::SetAndRun(SetAndRun {
                    left: time(p[0], p[1], p[2], "left time")?,
                    right: time(p[3], p[4], p[5], "right time")?,
                    left_count_up: p[0] & 0x10 != 0,
                    right_count_up: p[3] & 0x10 != 0,
                    flags: RunFlags(p[6]),
                })
            }
            ClockCommandId::Beep => expect(1).map(|()| ClockCommand::Beep { units: p[0] })?,
            ClockCommandId::Ascii => {
                expect(9)?;
                let a = arr(&p[..8]);
                ClockCommand::Ascii {
                    text: [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]],
                    beep: p[8],
                }
            }
            ClockCommandId::Rev2Ascii => {
                expect(12)?;
                ClockCommand::Rev2Ascii {
                    text: arr(&p[..11]),
                    beep: p[11],
                }
            }
            ClockCommandId::Unknown(b) => {
                return Err(CommandError::BadClockMessage(format!(
                    "unknown clock sub-command 0x{b:02X}"
                )));
            }
        })
    }
}

fn wire_len(n: usize) -> u8 {
    u8::try_from(n).unwrap_or(u8::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(h: u8, m: u8, s: u8) -> ClockTime {
        ClockTime::new(h, m, s).expect("valid time")
    }

    /// The worked examples of spec §6.3, byte for byte.
    #[test]
    fn spec_worked_examples() {
        let cases: Vec<(ClockCommand, Vec<u8>)> = vec![
            (ClockCommand::Version, vec![0x2B, 0x03, 0x03, 0x09, 0x00]),
            (ClockCommand::End, vec![0x2B, 0x03, 0x03, 0x03, 0x00]),
            (ClockCommand::Button, vec![0x2B, 0x03, 0x03, 0x08, 0x00]),
            (
                ClockCommand::Beep { units: 0x10 },
                vec![0x2B, 0x04, 0x03, 0x0B, 0x10, 0x00],
            ),
            (
                ClockCommand::SetAndRun(SetAndRun::new(t(1, 30, 0), t(0, 5, 7), RunSide::Left)),
                vec![
                    0x2B, 0x0A, 0x03, 0x0A, 0x01, 0x1E, 0x00, 0x00, 0x05, 0x07, 0x01, 0x00,
                ],
            ),
            (
                ClockCommand::SetAndRun(SetAndRun::new(t(1, 30, 0), t(0, 5, 7), RunSide::Right)),
                vec![
                    0x2B, 0x0A, 0x03, 0x0A, 0x01, 0x1E, 0x00, 0x00, 0x05, 0x07, 0x02, 0x00,
                ],
            ),
            (
                ClockCommand::SetAndRun(SetAndRun::new(t(1, 30, 0), t(0, 5, 7), RunSide::Paused)),
                vec![
                    0x2B, 0x0A, 0x03, 0x0A, 0x01, 0x1E, 0x00, 0x00, 0x05, 0x07, 0x04, 0x00,
                ],
            ),
            (
                ClockCommand::ascii("Nf3", 0).expect("fits"),
                vec![
                    0x2B, 0x0C, 0x03, 0x0C, 0x4E, 0x66, 0x33, 0x20, 0x20, 0x20, 0x20, 0x20, 0x00,
                    0x00,
                ],
            ),
            (
                ClockCommand::ascii("e2e4", 3).expect("fits"),
                vec![
                    0x2B, 0x0C, 0x03, 0x0C, 0x65, 0x32, 0x65, 0x34, 0x20, 0x20, 0x20, 0x20, 0x03,
                    0x00,
                ],
            ),
            (
                ClockCommand::xl_text(" e2 e4", false).expect("fits"),
                vec![
                    0x2B, 0x0B, 0x03, 0x01, 0x5B, 0x7B, 0x00, 0x66, 0x7B, 0x00, 0x00, 0x01, 0x00,
                ],
            ),
            (
                ClockCommand::Icons {
                    left1: 0,
                    right1: 0,
                    left2: 0,
                    right2: 0,
                    special: 0x01,
                },
                vec![
                    0x2B, 0x0B, 0x03, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
                ],
            ),
        ];
        for (cmd, bytes) in cases {
            assert_eq!(cmd.encode(), bytes, "{cmd:?}");
            assert_eq!(
                ClockCommand::decode(bytes[3], &bytes[4..bytes.len() - 1]),
                Ok(cmd)
            );
        }
    }

    #[test]
    fn set_and_run_is_binary_not_bcd() {
        // The "wrong" BCD example of §6.3 decodes as 48 minutes, not 30.
        let wrong = [0x01, 0x30, 0x00, 0x00, 0x05, 0x07, 0x01];
        let Ok(ClockCommand::SetAndRun(s)) = ClockCommand::decode(0x0A, &wrong) else {
            panic!("should parse")
        };
        assert_eq!(s.left.minutes(), 48);
    }

    #[test]
    fn bad_text_is_rejected_with_reason() {
        assert!(ClockCommand::ascii("123456789", 0).is_err());
        assert!(ClockCommand::ascii("é", 0).is_err());
        assert!(ClockCommand::xl_text("1234567", false).is_err());
        assert!(ClockCommand::xl_text("e4!", false).is_err());
        assert!(ClockCommand::decode(0x0A, &[0, 60, 0, 0, 0, 0, 1]).is_err());
        assert!(ClockCommand::decode(0x0C, &[0x41]).is_err());
    }
}
