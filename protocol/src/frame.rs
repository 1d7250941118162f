//! The frame view: header checks over a byte slice (spec §2.2).
//!
//! Owns the `[id|0x80][len hi7][len lo7][payload]` layout: the header is parsed first (nom,
//! streaming, so a short buffer reads as "incomplete" rather than "bad"), the declared length
//! is checked against the id's bounds, and only then is the payload looked at. It must not
//! buffer or resync; [`crate::decoder`] does that.

use nom::Parser;
use nom::combinator::verify;
use nom::number::streaming::u8 as byte;

use crate::message::MessageId;

/// Why a byte slice is not (yet) a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// More bytes are needed; `needed` is the frame's total length when the header is
    /// known, otherwise 3.
    #[error("incomplete frame: {have} of {needed} bytes")]
    Incomplete {
        /// Bytes present.
        have: usize,
        /// Bytes the frame needs (3 while the header is incomplete).
        needed: usize,
    },
    /// The first byte lacks the high bit, so it cannot start a message.
    #[error("byte 0x{0:02X} cannot start a message (message ids have the high bit set)")]
    NotAnId(u8),
    /// A length byte has the high bit set (it must be 7-bit).
    #[error("length byte {offset} is 0x{byte:02X}; length bytes are 7-bit")]
    LengthHighBit {
        /// 1 or 2.
        offset: usize,
        /// The byte.
        byte: u8,
    },
    /// The declared total length is impossible for this id.
    #[error("message id 0x{id:02X} declares {total} bytes; {min}..={max} expected")]
    BadLength {
        /// Message id byte.
        id: u8,
        /// Declared total length.
        total: usize,
        /// Smallest accepted.
        min: usize,
        /// Largest accepted.
        max: usize,
    },
    /// A payload byte has the high bit set: a new message started inside this one.
    #[error(
        "payload byte at offset {offset} is 0x{byte:02X}; payload bytes are 7-bit (a new message starts there)"
    )]
    PayloadHighBit {
        /// Offset in the frame.
        offset: usize,
        /// The byte.
        byte: u8,
    },
}

/// A checked frame over a byte slice: header valid, length within bounds, payload 7-bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    bytes: &'a [u8],
}

/// Check the 3-byte header at the start of `buf`; returns (id, total length).
#[inline]
pub(crate) fn check_header(buf: &[u8]) -> Result<(u8, usize), FrameError> {
    let hi7 = |b: &u8| b & 0x80 == 0;
    let res: nom::IResult<&[u8], (u8, u8, u8)> = (
        verify(byte, |b: &u8| b & 0x80 != 0),
        verify(byte, hi7),
        verify(byte, hi7),
    )
        .parse(buf);
    let (id, hi, lo) = match res {
        Ok((_, h)) => h,
        Err(nom::Err::Incomplete(_)) => {
            // A short header can still be invalid already.
            return match buf {
                [] => Err(FrameError::Incomplete { have: 0, needed: 3 }),
                [b, ..] if b & 0x80 == 0 => Err(FrameError::NotAnId(*b)),
                [_, b, ..] if b & 0x80 != 0 => Err(FrameError::LengthHighBit {
                    offset: 1,
                    byte: *b,
                }),
                _ => Err(FrameError::Incomplete {
                    have: buf.len(),
                    needed: 3,
                }),
            };
        }
        Err(_) => {
            return Err(match buf {
                [b, ..] if b & 0x80 == 0 => FrameError::NotAnId(*b),
                [_, b, ..] if b & 0x80 != 0 => FrameError::LengthHighBit {
                    offset: 1,
                    byte: *b,
                },
                [_, _, b, ..] => FrameError::LengthHighBit {
                    offset: 2,
                    byte: *b,
                },
                _ => FrameError::Incomplete {
                    have: buf.len(),
                    needed: 3,
                },
            });
        }
    };
    let total = (usize::from(hi) << 7) | usize::from(lo);
    let (min, max) = MessageId::from(id).frame_len_bounds();
    if total < min || total > max {
        return Err(FrameError::BadLength {
            id,
            total,
            min,
            max,
        });
    }
    Ok((id, total))
}

/// Offset of the first byte with the high bit set, if any.
#[inline]
pub(crate) fn first_high(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|b| b & 0x80 != 0)
}

impl<'a> Frame<'a> {
    /// Check that `buf` starts with a complete, valid frame; the view covers exactly that
    /// frame (trailing bytes are ignored; see [`Frame::len`]).
    pub fn new_checked(buf: &'a [u8]) -> Result<Frame<'a>, FrameError> {
        let (_, total) = check_header(buf)?;
        let end = total.min(buf.len());
        if let Some(i) = first_high(&buf[3..end]) {
            return Err(FrameError::PayloadHighBit {
                offset: i + 3,
                byte: buf[i + 3],
            });
        }
        match buf.get(..total) {
            Some(bytes) => Ok(Frame { bytes }),
            None => Err(FrameError::Incomplete {
                have: buf.len(),
                needed: total,
            }),
        }
    }

    /// A frame the caller has already checked (header, bounds, 7-bit payload, exact length).
    pub(crate) fn from_checked_parts(bytes: &'a [u8]) -> Frame<'a> {
        debug_assert!(Frame::new_checked(bytes).is_ok_and(|f| f.len() == bytes.len()));
        Frame { bytes }
    }

    /// The id byte (high bit set).
    pub fn id(&self) -> u8 {
        self.bytes[0]
    }

    /// Total frame length, header included.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Always false: a frame has at least its 3 header bytes.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The payload (bytes after the header).
    pub fn payload(&self) -> &'a [u8] {
        &self.bytes[3..]
    }

    /// The whole frame.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_checks() {
        let frame = Frame::new_checked(&[0x8E, 0x00, 0x05, 0x34, 0x00, 0x8D]).expect("valid");
        assert_eq!(
            (frame.id(), frame.len(), frame.payload()),
            (0x8E, 5, &[0x34, 0x00][..])
        );
        assert_eq!(
            Frame::new_checked(&[0x8E]),
            Err(FrameError::Incomplete { have: 1, needed: 3 })
        );
        assert_eq!(
            Frame::new_checked(&[0x8E, 0, 5, 1]),
            Err(FrameError::Incomplete { have: 4, needed: 5 })
        );
        assert_eq!(
            Frame::new_checked(&[0x0E, 0, 5]),
            Err(FrameError::NotAnId(0x0E))
        );
        assert_eq!(
            Frame::new_checked(&[0x8E, 0x80]),
            Err(FrameError::LengthHighBit {
                offset: 1,
                byte: 0x80
            })
        );
        assert_eq!(
            Frame::new_checked(&[0x8E, 0, 0x8D]),
            Err(FrameError::LengthHighBit {
                offset: 2,
                byte: 0x8D
            })
        );
        assert_eq!(
            Frame::new_checked(&[0x8D, 0x7F, 0x7F]),
            Err(FrameError::BadLength {
                id: 0x8D,
                total: 16383,
                min: 10,
                max: 10
            })
        );
        assert_eq!(
            Frame::new_checked(&[0x8E, 0, 5, 0x8D, 0]),
            Err(FrameError::PayloadHighBit {
                offset: 3,
                byte: 0x8D
            })
        );
    }
}
