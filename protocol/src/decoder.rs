//! The incremental board-message decoder: bytes in, messages out, with resync.
//!
//! Owns buffering of partial frames, the resync rule of spec §2.2 (a byte with the high bit
//! set always starts a new message; a header or payload that breaks the rules is dropped up to
//! the next such byte) and the accounting of dropped bytes, which are reported once, as a
//! [`Decoded::Dropped`] item, just before the next frame (tokio-modbus style). It must not do
//! IO or keep time.
//!
//! Memory is bounded: only the unfinished tail of the input is buffered, and its length is
//! bounded by the largest frame length any id accepts ([`crate::message::MessageId::frame_len_bounds`])
//! plus one input chunk of at most 4 KiB.

use std::collections::VecDeque;

use crate::error::DecodeError;
use crate::frame::{Frame, FrameError, check_header, first_high};
use crate::message::Message;

/// How many dropped bytes are kept for the report (the count covers all of them).
pub const MAX_DROPPED_KEPT: usize = 64;
/// Bytes appended to the partial-frame buffer at a time.
const CHUNK: usize = 4096;

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
    partial: Vec<u8>,
    out: VecDeque<Result<Decoded, DecodeError>>,
    pending_drop: Dropped,
    dropped_total: u64,
}

impl Decoder {
    /// A decoder with empty buffers.
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// Feed received bytes. Items become available through [`Iterator::next`].
    pub fn push(&mut self, mut input: &[u8]) {
        while !input.is_empty() {
            if self.partial.is_empty() {
                let used = self.scan(input);
                self.partial.extend_from_slice(&input[used..]);
                return;
            }
            let take = input.len().min(CHUNK);
            self.partial.extend_from_slice(&input[..take]);
            input = &input[take..];
            let partial = std::mem::take(&mut self.partial);
            let used = self.scan(&partial);
            self.partial = partial;
            self.partial.drain(..used);
        }
    }

    /// End of input: the buffered partial frame can never complete. Report it and any
    /// pending dropped bytes as a final [`Decoded::Dropped`] item.
    pub fn finish(&mut self) {
        let partial = std::mem::take(&mut self.partial);
        self.drop_bytes(&partial);
        self.flush_dropped();
    }

    /// Total bytes dropped since creation (including those not yet reported).
    pub fn dropped_total(&self) -> u64 {
        self.dropped_total
    }

    /// Bytes buffered as the start of an unfinished frame.
    pub fn buffered_len(&self) -> usize {
        self.partial.len()
    }

    /// Decode as much of `data` as possible; returns how many bytes were used. The rest is a
    /// valid prefix of a frame.
    fn scan(&mut self, data: &[u8]) -> usize {
        let mut i = 0;
        while i < data.len() {
            let rest = &data[i..];
            match check_header(rest) {
                Ok((_, total)) => {
                    let end = total.min(rest.len());
                    if let Some(k) = first_high(&rest[3..end]) {
                        self.drop_bytes(&rest[..3 + k]);
                        i += 3 + k;
                        continue;
                    }
                    let Some(bytes) = rest.get(..total) else {
                        return i;
                    };
                    let item = Message::parse(&Frame::from_checked_parts(bytes));
                    self.emit(item.map(Decoded::Message));
                    i += total;
                }
                Err(FrameError::Incomplete { .. }) => return i,
                Err(FrameError::NotAnId(_)) => {
                    let skip = first_high(rest).unwrap_or(rest.len());
                    self.drop_bytes(&rest[..skip]);
                    i += skip;
                }
                Err(_) => {
                    self.drop_bytes(&rest[..1]);
                    i += 1;
                }
            }
        }
        i
    }

    fn drop_bytes(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let d = &mut self.pending_drop;
        let room = MAX_DROPPED_KEPT.saturating_sub(d.bytes.len());
        d.bytes.extend_from_slice(&bytes[..room.min(bytes.len())]);
        d.count += bytes.len();
        self.dropped_total += bytes.len() as u64;
    }

    fn flush_dropped(&mut self) {
        if self.pending_drop.count > 0 {
            let d = std::mem::take(&mut self.pending_drop);
            self.out.push_back(Ok(Decoded::Dropped(d)));
        }
    }

    fn emit(&mut self, item: Result<Decoded, DecodeError>) {
        self.flush_dropped();
        self.out.push_back(item);
    }
}

impl Iterator for Decoder {
    type Item = Result<Decoded, DecodeError>;

    /// The next decoded item, or `None` until more bytes are pushed.
    fn next(&mut self) -> Option<Self::Item> {
        self.out.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(d: &mut Decoder) -> Vec<Result<Decoded, DecodeError>> {
        std::iter::from_fn(|| d.next()).collect()
    }

    const FIELD: [u8; 5] = [0x8E, 0x00, 0x05, 0x24, 0x01];

    #[test]
    fn decode_partly_received_frame_waits() {
        let mut d = Decoder::new();
        d.push(&FIELD[..4]);
        assert!(d.next().is_none());
        assert_eq!(d.buffered_len(), 4);
        d.push(&FIELD[4..]);
        assert!(matches!(
            d.next(),
            Some(Ok(Decoded::Message(Message::FieldUpdate { .. })))
        ));
        assert_eq!(d.buffered_len(), 0);
    }

    #[test]
    fn high_bit_in_payload_abandons_frame() {
        let mut d = Decoder::new();
        d.push(&[0x86, 0x00, 0x43, 0x01, 0x02]);
        d.push(&FIELD);
        let items = drain(&mut d);
        assert_eq!(items.len(), 2, "{items:?}");
        assert_eq!(
            items[0],
            Ok(Decoded::Dropped(Dropped {
                count: 5,
                bytes: vec![0x86, 0x00, 0x43, 0x01, 0x02]
            }))
        );
        assert_eq!(d.dropped_total(), 5);
    }

    #[test]
    fn impossible_length_is_rejected_before_waiting() {
        let mut d = Decoder::new();
        d.push(&[0x8D, 0x7F, 0x7F]);
        assert_eq!(
            d.buffered_len(),
            0,
            "a 16383-byte BWTIME must not be buffered"
        );
        assert_eq!(d.dropped_total(), 3);
        d.push(&FIELD);
        let items = drain(&mut d);
        assert_eq!(items.len(), 2);
    }

    #[test]
    fn finish_reports_trailing_partial_frame() {
        let mut d = Decoder::new();
        d.push(&FIELD);
        d.push(&FIELD[..2]);
        d.finish();
        let items = drain(&mut d);
        assert_eq!(items.len(), 2);
        assert_eq!(
            items[1],
            Ok(Decoded::Dropped(Dropped {
                count: 2,
                bytes: vec![0x8E, 0x00]
            }))
        );
    }

    #[test]
    fn bad_payload_is_an_error_item_and_decoding_continues() {
        let mut d = Decoder::new();
        d.push(&[0x8E, 0x00, 0x05, 0x40, 0x01]);
        d.push(&FIELD);
        let items = drain(&mut d);
        assert!(items[0].is_err());
        assert!(items[1].is_ok());
    }

    #[test]
    fn dropped_sample_is_capped_but_counted() {
        let mut d = Decoder::new();
        d.push(&[0x11; 1000]);
        d.push(&FIELD);
        let Some(Ok(Decoded::Dropped(x))) = d.next() else {
            panic!("expected a dropped item")
        };
        assert_eq!((x.count, x.bytes.len()), (1000, MAX_DROPPED_KEPT));
    }
}
