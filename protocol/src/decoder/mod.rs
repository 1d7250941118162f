//! The incremental board-message decoder: bytes in, messages out, with resync.
//!
//! Owns buffering of partial frames, the resync rule of spec §2.2 (a byte with the high bit
//! set always starts a new message; a header or payload that breaks the rules is dropped up to
//! the next such byte) and the accounting of dropped bytes, which are reported once, as a
//! [`Decoded::Dropped`] item, just before the next frame (tokio-modbus style). It must not do
//! IO or keep time.
//!
//! Frames are decoded lazily, straight from the input buffer, when the caller asks for the
//! next item. Memory is bounded: a frame's declared length is checked against its id's
//! bounds ([`crate::message::MessageId::frame_len_bounds`], at most 16383) before the decoder
//! waits for its payload, and a caller that stops draining cannot grow the buffer beyond
//! [`MAX_BUFFERED`] plus one pushed slice.

use std::collections::VecDeque;

use crate::error::DecodeError;
use crate::frame::{Frame, FrameError, check_header, first_high};
use crate::message::Message;

/// How many dropped bytes are kept for the report (the count covers all of them).
pub const MAX_DROPPED_KEPT: usize = 64;
/// Undrained input above which [`Decoder::push`] drops new bytes (counted as dropped) instead
/// of buffering them, so the buffer never exceeds this plus one pushed slice. A single push
/// of any size is accepted whole; a caller that drains after every push never reaches it.
/// Refused bytes are reported where they were in the stream: after the frames buffered before
/// them, together with the partial frame they cut off.
pub const MAX_BUFFERED: usize = 64 * 1024 + 0x3FFF;
/// Consumed bytes at the front of the buffer that trigger compaction on the next push.
const COMPACT_AT: usize = 4096;

/// Bytes the decoder skipped because they did not form a valid frame.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Dropped {
    /// How many bytes were dropped in this run.
    pub count: usize,
    /// The first of them, at most [`MAX_DROPPED_KEPT`].
    pub bytes: Vec<u8>,
}

/// One output item of the [`Decoder`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// A decoded message.
    Message(Message),
    /// Garbage skipped before the next item (log it; the stream continues).
    Dropped(Dropped),
}

/// Incremental decoder of board → host traffic.
///
/// Feed bytes with [`Decoder::push`] as they arrive, in chunks of any size, then drain items
/// with [`Iterator::next`] until it returns `None`. The same items come out however the input
/// is split. An `Err` item is a well-framed message with a bad payload; decoding goes on.
///
/// ```
/// use chessclock_protocol::{Decoded, Decoder, Message};
/// let mut d = Decoder::new();
/// d.push(&[0x12, 0x8E, 0x00]); // a junk byte, then half a field update
/// assert!(d.next().is_none());
/// d.push(&[0x05, 0x24, 0x01]);
/// assert!(matches!(d.next(), Some(Ok(Decoded::Dropped(ref x))) if x.bytes == [0x12]));
/// assert!(matches!(d.next(), Some(Ok(Decoded::Message(Message::FieldUpdate { .. })))));
/// assert_eq!(d.dropped_total(), 1);
/// ```
#[derive(Debug, Default)]
pub struct Decoder {
    buf: Vec<u8>,
    pos: usize,
    /// Bytes of the partial frame at `pos` already known to be 7-bit (header included), so a
    /// long frame arriving in small pieces is scanned once, not once per push. Relative to
    /// `pos`; zero whenever `pos` moves.
    checked: usize,
    pending_drop: Dropped,
    dropped_total: u64,
    /// Input refused at the cap, in stream order, each at the buffer offset where it belongs.
    /// Frames before a gap come out first; the gap is reported when decoding reaches it.
    gaps: VecDeque<Gap>,
    ready: Option<Result<Decoded, DecodeError>>,
    finished: bool,
}

/// Pushed bytes [`Decoder::push`] refused because too much input was waiting undrained.
#[derive(Debug)]
struct Gap {
    /// Offset in `buf` where the refused bytes would have been (between the bytes accepted
    /// before and after them).
    at: usize,
    /// The refused bytes (already counted in `dropped_total`).
    dropped: Dropped,
}

impl Decoder {
    /// A decoder with empty buffers.
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// Feed received bytes. Items become available through [`Iterator::next`].
    pub fn push(&mut self, input: &[u8]) {
        self.finished = false;
        if self.pos == self.buf.len() {
            self.buf.clear();
            self.consumed_front();
        } else if self.pos >= COMPACT_AT {
            self.buf.drain(..self.pos);
            self.consumed_front();
        }
        if self.buf.len() - self.pos > MAX_BUFFERED {
            // The caller keeps pushing without draining: refuse to grow further. The refused
            // bytes are a gap at the end of the buffer, reported in their place in the stream:
            // after the frames buffered before them.
            if input.is_empty() {
                return;
            }
            let at = self.buf.len();
            if self.gaps.back().is_none_or(|g| g.at != at) {
                self.gaps.push_back(Gap {
                    at,
                    dropped: Dropped::default(),
                });
            }
            if let Some(gap) = self.gaps.back_mut() {
                note_drop(&mut gap.dropped, &mut self.dropped_total, input);
            }
        } else {
            self.buf.extend_from_slice(input);
        }
    }

    /// The bytes before `pos` were removed from the buffer: offsets move down.
    fn consumed_front(&mut self) {
        if !self.gaps.is_empty() {
            for gap in &mut self.gaps {
                gap.at -= self.pos;
            }
        }
        self.pos = 0;
    }

    /// End of input: once the complete frames are drained, the buffered partial frame (which
    /// can never complete) and any pending dropped bytes come out as a final
    /// [`Decoded::Dropped`] item. A later [`Decoder::push`] starts a new stream.
    pub fn finish(&mut self) {
        self.finished = true;
    }

    /// Total bytes dropped since creation (including those not yet reported).
    pub fn dropped_total(&self) -> u64 {
        self.dropped_total
    }

    /// Bytes buffered and not yet decoded (at most one partial frame once drained).
    pub fn buffered_len(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Nothing more can be decoded now: at end of input, report what is left.
    fn stalled(&mut self) -> Option<Result<Decoded, DecodeError>> {
        if self.finished {
            note_drop(
                &mut self.pending_drop,
                &mut self.dropped_total,
                &self.buf[self.pos..],
            );
            self.pos = self.buf.len();
            self.checked = 0;
            if self.pending_drop.count > 0 {
                return Some(Ok(Decoded::Dropped(std::mem::take(&mut self.pending_drop))));
            }
        }
        None
    }

    fn decode_next(&mut self) -> Option<Result<Decoded, DecodeError>> {
        loop {
            // Decode up to the first gap, or to the end of the buffer.
            let limit = self.gaps.front().map_or(self.buf.len(), |g| g.at);
            let rest = &self.buf[self.pos..limit];
            let skip = if rest.is_empty() {
                None
            } else if let Some((total, item)) = decode_common(rest) {
                return Some(self.emit(total, item));
            } else {
                match check_header(rest) {
                    Ok((_, total)) => {
                        let end = total.min(rest.len());
                        // Only the bytes that arrived since the last look need checking.
                        let from = self.checked.max(3);
                        if let Some(k) = first_high(&rest[from..end]) {
                            Some(from + k)
                        } else if let Some(bytes) = rest.get(..total) {
                            let item = Message::parse(&Frame::from_checked_parts(bytes));
                            return Some(self.emit(total, item));
                        } else {
                            self.checked = end;
                            None
                        }
                    }
                    Err(FrameError::Incomplete { .. }) => None,
                    Err(FrameError::NotAnId(_)) => Some(first_high(rest).unwrap_or(rest.len())),
                    Err(_) => Some(1),
                }
            };
            if let Some(skip) = skip {
                note_drop(
                    &mut self.pending_drop,
                    &mut self.dropped_total,
                    &rest[..skip],
                );
                self.pos += skip;
                self.checked = 0;
            } else if self.gaps.is_empty() {
                return self.stalled();
            } else {
                self.cross_gap();
            }
        }
    }

    /// Stalled at the first gap: what is left before it is the start of a frame whose
    /// continuation was refused, so it can never complete. Drop it, then the gap's bytes, in
    /// stream order, and go on after the gap.
    #[cold]
    fn cross_gap(&mut self) {
        let Some(gap) = self.gaps.pop_front() else {
            return;
        };
        note_drop(
            &mut self.pending_drop,
            &mut self.dropped_total,
            &self.buf[self.pos..gap.at],
        );
        self.pos = gap.at;
        self.checked = 0;
        let room = MAX_DROPPED_KEPT.saturating_sub(self.pending_drop.bytes.len());
        let kept = &gap.dropped.bytes;
        self.pending_drop
            .bytes
            .extend_from_slice(&kept[..room.min(kept.len())]);
        self.pending_drop.count += gap.dropped.count;
    }

    /// A frame of `total` bytes at `pos` was decoded: consume it and return its item, or the
    /// pending dropped bytes first (the item then waits in `ready`).
    #[inline(always)]
    fn emit(
        &mut self,
        total: usize,
        item: Result<Message, DecodeError>,
    ) -> Result<Decoded, DecodeError> {
        self.pos += total;
        self.checked = 0;
        let item = item.map(Decoded::Message);
        if self.pending_drop.count > 0 {
            self.ready = Some(item);
            return Ok(Decoded::Dropped(std::mem::take(&mut self.pending_drop)));
        }
        item
    }
}

/// Fast path for the two messages that make up nearly all real traffic (clock reports and
/// field updates, spec §9.1): when `rest` starts with a complete, 7-bit BWTIME or FIELD_UPDATE
/// frame (exact header `8D 00 0A` / `8E 00 05`), its length and item. Anything else (another
/// id or length, a partial frame, a high-bit payload byte) is `None` and goes the general way;
/// the result is the same as the general path's, which checks the header against the id's
/// bounds and scans the payload before calling the same payload parsers.
#[inline]
fn decode_common(rest: &[u8]) -> Option<(usize, Result<Message, DecodeError>)> {
    match rest {
        [0x8D, 0x00, 0x0A, payload @ ..] => {
            let p: [u8; 7] = payload.get(..7)?.try_into().ok()?;
            if p.iter().fold(0, |acc, b| acc | b) & 0x80 != 0 {
                return None;
            }
            let item = Message::parse_bwtime(p).map_err(|r| DecodeError::new(0x8D, &p, r));
            Some((10, item))
        }
        [0x8E, 0x00, 0x05, field, code, ..] if (field | code) & 0x80 == 0 => {
            let item = Message::parse_field_update(*field, *code)
                .map_err(|r| DecodeError::new(0x8E, &[*field, *code], r));
            Some((5, item))
        }
        _ => None,
    }
}

fn note_drop(pending: &mut Dropped, total: &mut u64, bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    let room = MAX_DROPPED_KEPT.saturating_sub(pending.bytes.len());
    pending
        .bytes
        .extend_from_slice(&bytes[..room.min(bytes.len())]);
    pending.count += bytes.len();
    *total += bytes.len() as u64;
}

impl Iterator for Decoder {
    type Item = Result<Decoded, DecodeError>;

    /// The next decoded item, or `None` until more bytes are pushed.
    fn next(&mut self) -> Option<Self::Item> {
        if self.ready.is_some() {
            return self.ready.take();
        }
        self.decode_next()
    }
}

#[cfg(test)]
mod tests;
