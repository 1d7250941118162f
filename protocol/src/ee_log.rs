//! The board's own move log: the payload of an EE_MOVES dump (`0x8F`, spec §8a) as typed
//! records, and back.
//!
//! Owns the record layout (a field change `piece, square` with its quick bit, a clock time,
//! and the one-byte tags: POWERUP, EOF, the set-up tags, NOPs), the checks of a whole dump
//! (7-bit bytes, the final `0x6B`) and the resync at its start, where the ring may begin with
//! the tail of a half-overwritten record. It must not interpret the records as chess (which
//! moves they make is the game crate's) nor do IO.

use nom::Parser;
use nom::bytes::complete::take;
use nom::number::complete::u8 as byte;

use crate::board::{Piece, Square, piece_code};
use crate::error::EeLogError;

/// The end marker, the last payload byte of every dump.
pub const EE_EOF: u8 = 0x6B;

/// One record of the board's log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EeRecord {
    /// A square changed: `piece` now stands on it (`None`: it was emptied). `square` is the
    /// board's own field number (0 = a8 in normal orientation), as in FIELD_UPDATE.
    Field {
        /// What stands on the square now.
        piece: Option<Piece>,
        /// The board's field.
        square: Square,
        /// The `r` bit: less than ~250 ms since the previous field record.
        quick: bool,
    },
    /// A clock time, written at a lever press for the side that stopped.
    Clock {
        /// The left display as seen from the front (`f` = 1).
        left: bool,
        /// Hours, 0-9.
        hours: u8,
        /// Minutes, 0-59.
        minutes: u8,
        /// Seconds, 0-59.
        seconds: u8,
    },
    /// `0x6A`: the board powered up; one field record per occupied square follows.
    PowerUp,
    /// `0x6B` inside the log (the final one ends the dump and is not a record).
    Eof,
    /// `0x6C`: the home ranks full but not the standard set-up.
    FourRows,
    /// `0x6D`: the board emptied.
    EmptyBoard,
    /// `0x6E`: an earlier download happened here.
    Downloaded,
    /// `0x6F`: the standard start position, connector at White's left.
    BeginPos,
    /// `0x7A`: the start position on a board turned round.
    BeginPosRot,
    /// `0x7B`: bus mode's start of a game; one field record per piece follows.
    StartTag,
    /// `0x7C`: the watchdog reset the board; the power-up sequence follows.
    Watchdog,
    /// `0x7D` or `0x7E`: reserved.
    Reserved(u8),
    /// `0x7F`: no operation (three come before POWERUP).
    Nop,
    /// `0x00`: the 2012 firmware's second no-operation.
    Nop2,
}

/// A decoded dump: the records, oldest first, and how many bytes at its start were skipped
/// to reach the first byte that can only start a record.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EeLog {
    /// The records, oldest first, without the final EOF.
    pub records: Vec<EeRecord>,
    /// Bytes skipped at the start (the tail of an overwritten record, or an ambiguous start).
    pub skipped: usize,
}

/// How many bytes a record starting with `first` takes; `None`: no record starts so.
fn record_len(first: u8) -> Option<usize> {
    match first {
        0x40..=0x5F => Some(2),
        0x60..=0x69 | 0x70..=0x79 => Some(3),
        0x00 | 0x6A..=0x6F | 0x7A..=0x7F => Some(1),
        _ => None,
    }
}

/// Whether only a record, never the inside of one, can start with `b` (`0x40`-`0x59` may be
/// a BCD minute or second, `0x00`-`0x3F` a square).
pub fn only_starts_a_record(b: u8) -> bool {
    (0x5A..=0x7F).contains(&b)
}

fn bcd(b: u8) -> Option<u8> {
    let (hi, lo) = (b >> 4, b & 0x0F);
    (hi <= 5 && lo <= 9).then_some(hi * 10 + lo)
}

/// One record at `offset` (its bytes are `bytes`, of the length `record_len` gave).
fn typed(offset: usize, bytes: &[u8]) -> Result<EeRecord, EeLogError> {
    Ok(match *bytes {
        [b @ 0x40..=0x5F, sq] => {
            let piece = Piece::from_code(b & 0x0F).map_err(|_| EeLogError::Record {
                offset,
                reason: "piece code out of range",
            })?;
            let square = Square::from_field(sq).ok_or(EeLogError::Square { offset, byte: sq })?;
            EeRecord::Field {
                piece,
                square,
                quick: b & 0x10 != 0,
            }
        }
        [b, m, s] => {
            let bad = |what, byte| EeLogError::Clock { offset, what, byte };
            EeRecord::Clock {
                left: b & 0x10 != 0,
                hours: b & 0x0F,
                minutes: bcd(m).ok_or(bad("minutes", m))?,
                seconds: bcd(s).ok_or(bad("seconds", s))?,
            }
        }
        [b] => match b {
            0x00 => EeRecord::Nop2,
            0x6A => EeRecord::PowerUp,
            EE_EOF => EeRecord::Eof,
            0x6C => EeRecord::FourRows,
            0x6D => EeRecord::EmptyBoard,
            0x6E => EeRecord::Downloaded,
            0x6F => EeRecord::BeginPos,
            0x7A => EeRecord::BeginPosRot,
            0x7B => EeRecord::StartTag,
            0x7C => EeRecord::Watchdog,
            0x7F => EeRecord::Nop,
            r => EeRecord::Reserved(r),
        },
        _ => {
            return Err(EeLogError::Record {
                offset,
                reason: "record of a length no record has",
            });
        }
    })
}

/// The next record's bytes (nom: the first byte says how many follow).
fn raw_record(input: &[u8]) -> nom::IResult<&[u8], (u8, &[u8])> {
    let (_, first) = byte(input)?;
    let len = record_len(first).ok_or(nom::Err::Error(nom::error::Error::new(
        input,
        nom::error::ErrorKind::Tag,
    )))?;
    take(len).map(|b| (first, b)).parse(input)
}

/// Decode an EE_MOVES payload (the bytes after the 3-byte header).
///
/// The payload must end with [`EE_EOF`] and hold no byte ≥ `0x80`. Decoding starts at the
/// first byte that can only start a record ([`only_starts_a_record`]); the bytes before it are
/// counted in [`EeLog::skipped`]. After that every byte must belong to a well-formed record:
/// an error names the offset and what is wrong.
pub fn decode(payload: &[u8]) -> Result<EeLog, EeLogError> {
    let Some((&last, body)) = payload.split_last() else {
        return Err(EeLogError::Empty);
    };
    if let Some(offset) = payload.iter().position(|b| b & 0x80 != 0) {
        return Err(EeLogError::HighBit {
            offset,
            byte: payload[offset],
        });
    }
    if last != EE_EOF {
        return Err(EeLogError::NoEof { last });
    }
    let skipped = body
        .iter()
        .position(|b| only_starts_a_record(*b))
        .unwrap_or(body.len());
    let mut records = Vec::new();
    let mut rest = &body[skipped..];
    while !rest.is_empty() {
        let offset = body.len() - rest.len();
        match raw_record(rest) {
            Ok((after, (_, bytes))) => {
                records.push(typed(offset, bytes)?);
                rest = after;
            }
            Err(_) => {
                let first = rest[0];
                return Err(match record_len(first) {
                    None => EeLogError::NotARecord {
                        offset,
                        byte: first,
                    },
                    Some(needed) => EeLogError::Truncated {
                        offset,
                        needed,
                        have: rest.len(),
                    },
                });
            }
        }
    }
    Ok(EeLog { records, skipped })
}

impl EeRecord {
    /// Append the record's bytes to `out`. Clock hours above 9 and minutes or seconds above
    /// 59 are clamped (a record cannot say more).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        let to_bcd = |v: u8| {
            let v = v.min(59);
            ((v / 10) << 4) | (v % 10)
        };
        match *self {
            EeRecord::Field {
                piece,
                square,
                quick,
            } => {
                out.push(0x40 | (u8::from(quick) << 4) | piece_code(piece));
                out.push(square.field());
            }
            EeRecord::Clock {
                left,
                hours,
                minutes,
                seconds,
            } => {
                out.push(0x60 | (u8::from(left) << 4) | hours.min(9));
                out.push(to_bcd(minutes));
                out.push(to_bcd(seconds));
            }
            other => out.push(match other {
                EeRecord::PowerUp => 0x6A,
                EeRecord::Eof => EE_EOF,
                EeRecord::FourRows => 0x6C,
                EeRecord::EmptyBoard => 0x6D,
                EeRecord::Downloaded => 0x6E,
                EeRecord::BeginPos => 0x6F,
                EeRecord::BeginPosRot => 0x7A,
                EeRecord::StartTag => 0x7B,
                EeRecord::Watchdog => 0x7C,
                EeRecord::Reserved(r) if matches!(r, 0x7D | 0x7E) => r,
                EeRecord::Nop2 => 0x00,
                _ => 0x7F,
            }),
        }
    }
}

/// The payload of a dump holding `records`, oldest first, and the final [`EE_EOF`].
pub fn encode(records: &[EeRecord]) -> Vec<u8> {
    let mut out = Vec::with_capacity(records.len() * 2 + 1);
    for r in records {
        r.encode_into(&mut out);
    }
    out.push(EE_EOF);
    out
}

#[cfg(test)]
mod tests;
