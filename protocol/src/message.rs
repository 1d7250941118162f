//! Board messages (board → PC, spec §4 and §5): ids, typed values, parse and encode.
//!
//! Owns the high-level view of a frame: [`Message::parse`] turns a checked frame into a value
//! and [`Message::encode`] emits the exact frame bytes (used by round-trip tests and the
//! emulator). Unknown ids are values, not errors. Framing and resync live in
//! [`crate::frame`] and [`crate::decoder`]; this module must not buffer bytes.

use nom::Parser;
use nom::bytes::complete::take;
use nom::combinator::all_consuming;
use nom::number::complete::u8 as byte;

use crate::ack::{ClockAck, is_ack_payload};
use crate::board::{Board, Piece, Square, piece_code};
use crate::error::{DecodeError, PayloadError};
use crate::frame::Frame;
use crate::report::ClockReport;

macro_rules! message_ids {
    ($( $(#[$doc:meta])* $name:ident = $byte:literal, $snake:literal, $min:expr, $max:expr; )*) => {
        /// A board message id (the first frame byte, high bit set). Unknown ids are kept.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum MessageId {
            $( $(#[$doc])* $name, )*
            /// Any other id byte.
            Unknown(u8),
        }

        impl From<u8> for MessageId {
            fn from(b: u8) -> Self {
                match b {
                    $( $byte => MessageId::$name, )*
                    other => MessageId::Unknown(other),
                }
            }
        }

        impl From<MessageId> for u8 {
            fn from(id: MessageId) -> u8 {
                match id {
                    $( MessageId::$name => $byte, )*
                    MessageId::Unknown(b) => b,
                }
            }
        }

        impl MessageId {
            /// snake_case name (`board_dump`, `bwtime`, ... `unknown`).
            pub fn name(self) -> &'static str {
                match self {
                    $( MessageId::$name => $snake, )*
                    MessageId::Unknown(_) => "unknown",
                }
            }

            /// Accepted values of the header's total-length field for this id. The decoder
            /// rejects other lengths before reading (or allocating for) the payload.
            pub fn frame_len_bounds(self) -> (usize, usize) {
                match self {
                    $( MessageId::$name => ($min, $max), )*
                    MessageId::Unknown(_) => (3, MAX_UNKNOWN_FRAME_LEN),
                }
            }
        }
    };
}

/// Longest frame accepted for an unknown id: any the length field can express; its payload
/// is skipped whole (spec §2.2).
pub const MAX_UNKNOWN_FRAME_LEN: usize = MAX_FRAME_LEN;
/// Longest frame the length field can express (14 bits).
pub const MAX_FRAME_LEN: usize = 0x3FFF;
/// Frame length for messages whose real size is unverified: the largest known message (67).
const SMALL: usize = 67;

message_ids! {
    /// `0x86` BOARD_DUMP, 64 piece codes.
    BoardDump = 0x86, "board_dump", 67, 67;
    /// `0x8D` BWTIME: clock report or clock ack.
    Bwtime = 0x8D, "bwtime", 10, 10;
    /// `0x8E` FIELD_UPDATE.
    FieldUpdate = 0x8E, "field_update", 5, 5;
    /// `0x8F` EE_MOVES (internal log dump, up to ~8 KB).
    EeMoves = 0x8F, "ee_moves", 3, MAX_FRAME_LEN;
    /// `0x90` BUSADRES.
    BusAddress = 0x90, "bus_address", 5, 5;
    /// `0x91` SERIALNR (5 digits; 1998 boards added " 1.0").
    SerialNumber = 0x91, "serial_number", 3, SMALL;
    /// `0x92` TRADEMARK text.
    Trademark = 0x92, "trademark", 3, 1024;
    /// `0x93` VERSION `[major][minor]`.
    Version = 0x93, "version", 5, 5;
    /// `0x94` BOARD_DUMP_50B (draughts).
    BoardDump50B = 0x94, "board_dump_50b", 53, 53;
    /// `0x95` BOARD_DUMP_50W (draughts).
    BoardDump50W = 0x95, "board_dump_50w", 53, 53;
    /// `0x96` HARDWARE_VERSION (P1.0, unverified).
    HardwareVersion = 0x96, "hardware_version", 3, SMALL;
    /// `0xA0` BATTERY_STATUS (9 bytes).
    BatteryStatus = 0xA0, "battery_status", 3, SMALL;
    /// `0xA2` LONG_SERIALNR (10 digits).
    LongSerialNumber = 0xA2, "long_serial_number", 3, SMALL;
    /// `0xA3` I2C_CLOCK (P1.0, format unknown).
    I2cClock = 0xA3, "i2c_clock", 3, SMALL;
}

/// Battery status payload (`0xA0`). `0x7F` in the "left" fields means not available.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatteryStatus {
    /// Capacity in percent.
    pub percent: u8,
    /// Hours left.
    pub hours_left: u8,
    /// Minutes left.
    pub minutes_left: u8,
    /// On-time hours.
    pub on_hours: u8,
    /// On-time minutes.
    pub on_minutes: u8,
    /// Standby days.
    pub standby_days: u8,
    /// Standby hours.
    pub standby_hours: u8,
    /// Standby minutes.
    pub standby_minutes: u8,
    /// Status bits: bit0 charging, bit1 discharging.
    pub status: u8,
}

impl From<[u8; 9]> for BatteryStatus {
    /// The payload's nine bytes, in the order of the fields.
    fn from(b: [u8; 9]) -> BatteryStatus {
        BatteryStatus {
            percent: b[0],
            hours_left: b[1],
            minutes_left: b[2],
            on_hours: b[3],
            on_minutes: b[4],
            standby_days: b[5],
            standby_hours: b[6],
            standby_minutes: b[7],
            status: b[8],
        }
    }
}

/// A decoded board message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// Full board dump.
    BoardDump(Board),
    /// BWTIME carrying a clock report.
    ClockReport(ClockReport),
    /// BWTIME carrying a clock acknowledgement.
    ClockAck(ClockAck),
    /// BWTIME with an all-zero payload (Bluetooth boards send it after clock commands,
    /// spec §5.1). Carries no information; ignore it.
    EmptyClockReport,
    /// One square changed.
    FieldUpdate {
        /// The square (normal orientation; rotate with [`Square::from_field_oriented`]).
        square: Square,
        /// What is on it now (`None` = it became empty).
        piece: Option<Piece>,
    },
    /// EE_MOVES dump, raw.
    EeMoves(Vec<u8>),
    /// Bus address (14 bits).
    BusAddress(u16),
    /// Serial number text.
    SerialNumber(String),
    /// Trademark text.
    Trademark(String),
    /// Board firmware version.
    Version {
        /// Major.
        major: u8,
        /// Minor.
        minor: u8,
    },
    /// Draughts dump (black), 50 raw bytes.
    BoardDump50B(Vec<u8>),
    /// Draughts dump (white), 50 raw bytes.
    BoardDump50W(Vec<u8>),
    /// Hardware version (P1.0, unverified layout): raw payload.
    HardwareVersion(Vec<u8>),
    /// Battery status.
    BatteryStatus(BatteryStatus),
    /// Long serial number text.
    LongSerialNumber(String),
    /// I2C clock data (P1.0, format unknown): raw payload.
    I2cClock(Vec<u8>),
    /// A message id this crate does not know.
    Unknown {
        /// The id byte as received (high bit set).
        id: u8,
        /// The payload.
        payload: Vec<u8>,
    },
}

fn fixed<const N: usize>(p: &[u8]) -> Result<[u8; N], PayloadError> {
    let res: nom::IResult<&[u8], &[u8]> = all_consuming(take(N)).parse(p);
    match res {
        Ok((_, b)) => b.try_into().map_err(|_| PayloadError::Length {
            expected: N,
            got: p.len(),
        }),
        Err(_) => Err(PayloadError::Length {
            expected: N,
            got: p.len(),
        }),
    }
}

fn text(p: &[u8]) -> String {
    p.iter().map(|&b| char::from(b & 0x7F)).collect()
}

impl Message {
    /// The id this message is sent with.
    pub fn id(&self) -> MessageId {
        match self {
            Message::BoardDump(_) => MessageId::BoardDump,
            Message::ClockReport(_) | Message::ClockAck(_) | Message::EmptyClockReport => {
                MessageId::Bwtime
            }
            Message::FieldUpdate { .. } => MessageId::FieldUpdate,
            Message::EeMoves(_) => MessageId::EeMoves,
            Message::BusAddress(_) => MessageId::BusAddress,
            Message::SerialNumber(_) => MessageId::SerialNumber,
            Message::Trademark(_) => MessageId::Trademark,
            Message::Version { .. } => MessageId::Version,
            Message::BoardDump50B(_) => MessageId::BoardDump50B,
            Message::BoardDump50W(_) => MessageId::BoardDump50W,
            Message::HardwareVersion(_) => MessageId::HardwareVersion,
            Message::BatteryStatus(_) => MessageId::BatteryStatus,
            Message::LongSerialNumber(_) => MessageId::LongSerialNumber,
            Message::I2cClock(_) => MessageId::I2cClock,
            Message::Unknown { id, .. } => MessageId::Unknown(*id),
        }
    }

    /// snake_case type name: the id name, except BWTIME which is `clock_report`, `clock_ack`
    /// or `empty_clock_report`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Message::ClockReport(_) => "clock_report",
            Message::ClockAck(_) => "clock_ack",
            Message::EmptyClockReport => "empty_clock_report",
            other => other.id().name(),
        }
    }

    /// Parse a checked frame.
    #[inline]
    pub fn parse(frame: &Frame<'_>) -> Result<Message, DecodeError> {
        let id = frame.id();
        let payload = frame.payload();
        Message::parse_payload(id, payload).map_err(|reason| DecodeError::new(id, payload, reason))
    }

    /// The BWTIME payload (spec §5.1): the all-zero empty report, an ack (marker nibble 0xA in
    /// byte 3 or 6) or a clock report.
    #[inline]
    pub(crate) fn parse_bwtime(p: [u8; 7]) -> Result<Message, PayloadError> {
        Ok(if p == [0; 7] {
            Message::EmptyClockReport
        } else if is_ack_payload(&p) {
            Message::ClockAck(ClockAck::decode_payload(&p))
        } else {
            Message::ClockReport(ClockReport::decode_payload(p)?)
        })
    }

    /// The FIELD_UPDATE payload: field index, piece code.
    #[inline]
    pub(crate) fn parse_field_update(field: u8, code: u8) -> Result<Message, PayloadError> {
        let square = Square::from_field(field).ok_or(PayloadError::Field(field))?;
        let piece =
            Piece::from_code(code).map_err(|_| PayloadError::PieceCode { code, offset: 1 })?;
        Ok(Message::FieldUpdate { square, piece })
    }

    #[inline]
    fn parse_payload(id: u8, p: &[u8]) -> Result<Message, PayloadError> {
        Ok(match MessageId::from(id) {
            MessageId::BoardDump => {
                let codes: [u8; 64] = fixed(p)?;
                let mut board = Board::empty();
                for (offset, (slot, code)) in board.fields.iter_mut().zip(codes).enumerate() {
                    *slot = Piece::from_code(code)
                        .map_err(|_| PayloadError::PieceCode { code, offset })?;
                }
                Message::BoardDump(board)
            }
            MessageId::Bwtime => Message::parse_bwtime(fixed(p)?)?,
            MessageId::FieldUpdate => {
                let res: nom::IResult<&[u8], (u8, u8)> = all_consuming((byte, byte)).parse(p);
                let (field, code) = res.map(|(_, v)| v).map_err(|_| PayloadError::Length {
                    expected: 2,
                    got: p.len(),
                })?;
                Message::parse_field_update(field, code)?
            }
            MessageId::EeMoves => Message::EeMoves(p.to_vec()),
            MessageId::BusAddress => {
                let [hi, lo] = fixed(p)?;
                Message::BusAddress((u16::from(hi) << 7) | u16::from(lo))
            }
            MessageId::SerialNumber => Message::SerialNumber(text(p)),
            MessageId::Trademark => Message::Trademark(text(p)),
            MessageId::Version => {
                let [major, minor] = fixed(p)?;
                Message::Version { major, minor }
            }
            MessageId::BoardDump50B => Message::BoardDump50B(fixed::<50>(p)?.to_vec()),
            MessageId::BoardDump50W => Message::BoardDump50W(fixed::<50>(p)?.to_vec()),
            MessageId::HardwareVersion => Message::HardwareVersion(p.to_vec()),
            MessageId::BatteryStatus => Message::BatteryStatus(BatteryStatus::from(fixed::<9>(p)?)),
            MessageId::LongSerialNumber => Message::LongSerialNumber(text(p)),
            MessageId::I2cClock => Message::I2cClock(p.to_vec()),
            MessageId::Unknown(id) => Message::Unknown {
                id,
                payload: p.to_vec(),
            },
        })
    }

    /// The payload bytes this message is sent with (every byte below 0x80: bytes of raw
    /// payloads and text are masked to 7 bits).
    pub fn payload(&self) -> Vec<u8> {
        let mut p = match self {
            Message::BoardDump(b) => b.fields.iter().map(|&f| piece_code(f)).collect(),
            Message::ClockReport(r) => r.encode_payload().to_vec(),
            Message::ClockAck(a) => a.encode_payload().to_vec(),
            Message::EmptyClockReport => vec![0; 7],
            Message::FieldUpdate { square, piece } => vec![square.field(), piece_code(*piece)],
            Message::BusAddress(a) => vec![((a >> 7) & 0x7F) as u8, (a & 0x7F) as u8],
            Message::SerialNumber(s) | Message::Trademark(s) | Message::LongSerialNumber(s) => s
                .chars()
                .map(|c| if c.is_ascii() { c as u8 } else { b'?' })
                .collect(),
            Message::Version { major, minor } => vec![*major, *minor],
            Message::BatteryStatus(b) => vec![
                b.percent,
                b.hours_left,
                b.minutes_left,
                b.on_hours,
                b.on_minutes,
                b.standby_days,
                b.standby_hours,
                b.standby_minutes,
                b.status,
            ],
            Message::EeMoves(p)
            | Message::BoardDump50B(p)
            | Message::BoardDump50W(p)
            | Message::HardwareVersion(p)
            | Message::I2cClock(p)
            | Message::Unknown { payload: p, .. } => p.clone(),
        };
        p.iter_mut().for_each(|b| *b &= 0x7F);
        p
    }

    /// The complete frame: `[id][len hi 7 bits][len lo 7 bits][payload]`. Payloads longer
    /// than the 14-bit length field allows are truncated.
    pub fn encode(&self) -> Vec<u8> {
        let mut payload = self.payload();
        payload.truncate(MAX_FRAME_LEN - 3);
        let total = payload.len() + 3;
        let mut out = Vec::with_capacity(total);
        out.push(u8::from(self.id()) | 0x80);
        out.push(((total >> 7) & 0x7F) as u8);
        out.push((total & 0x7F) as u8);
        out.extend_from_slice(&payload);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(bytes: &[u8]) -> Result<Message, DecodeError> {
        let frame = Frame::new_checked(bytes).expect("well framed");
        Message::parse(&frame)
    }

    #[test]
    fn field_updates_from_capture_1() {
        assert_eq!(
            parse(&[0x8E, 0x00, 0x05, 0x34, 0x00]),
            Ok(Message::FieldUpdate {
                square: "e2".parse().expect("name"),
                piece: None
            })
        );
        assert_eq!(
            parse(&[0x8E, 0x00, 0x05, 0x24, 0x01]),
            Ok(Message::FieldUpdate {
                square: "e4".parse().expect("name"),
                piece: Some(Piece::WhitePawn)
            })
        );
    }

    #[test]
    fn start_position_dump() {
        let mut bytes = vec![
            0x86, 0x00, 0x43, 0x08, 0x09, 0x0A, 0x0C, 0x0B, 0x0A, 0x09, 0x08,
        ];
        bytes.extend([0x07; 8]);
        bytes.extend([0x00; 32]);
        bytes.extend([0x01; 8]);
        bytes.extend([0x02, 0x03, 0x04, 0x06, 0x05, 0x04, 0x03, 0x02]);
        let Ok(Message::BoardDump(board)) = parse(&bytes) else {
            panic!("not a dump")
        };
        assert_eq!(
            board.to_piece_string(),
            "rnbqkbnrpppppppp................................PPPPPPPPRNBQKBNR"
        );
        assert_eq!(Message::BoardDump(board).encode(), bytes);
    }

    #[test]
    fn bwtime_variants() {
        assert_eq!(
            parse(&[0x8D, 0, 10, 0, 0, 0, 0, 0, 0, 0]),
            Ok(Message::EmptyClockReport)
        );
        let ack = parse(&[0x8D, 0, 10, 0x0A, 0x10, 0x09, 0x0A, 0x20, 0x00, 0x00]);
        assert_eq!(
            ack,
            Ok(Message::ClockAck(ClockAck {
                bytes: [0x10, 0x09, 0x20, 0x00]
            }))
        );
        let report = parse(&[0x8D, 0, 10, 0x20, 0x03, 0x02, 0x20, 0x03, 0x02, 0x08]);
        assert!(matches!(report, Ok(Message::ClockReport(_))), "{report:?}");
    }

    #[test]
    fn version_and_unknown() {
        assert_eq!(
            parse(&[0x93, 0, 5, 3, 10]),
            Ok(Message::Version {
                major: 3,
                minor: 10
            })
        );
        let unk = parse(&[0xB1, 0, 4, 0x55]);
        assert_eq!(
            unk,
            Ok(Message::Unknown {
                id: 0xB1,
                payload: vec![0x55]
            })
        );
    }

    #[test]
    fn bad_payloads_are_errors_naming_the_problem() {
        let e = parse(&[0x8E, 0, 5, 64, 1]).expect_err("field 64");
        assert!(e.to_string().contains("field index 64"), "{e}");
        let e = parse(&[0x8E, 0, 5, 3, 0x10]).expect_err("piece 0x10");
        assert!(e.to_string().contains("piece code 0x10"), "{e}");
        let e =
            parse(&[0x8D, 0, 10, 0x20, 0x03, 0x6A, 0x20, 0x03, 0x02, 0x08]).expect_err("bad BCD");
        assert!(e.to_string().contains("right seconds"), "{e}");
    }
}
