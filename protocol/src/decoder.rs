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
    fn a_long_unknown_frame_is_skipped_whole_as_a_value() {
        // Spec §2.2: unknown ids are skipped by their declared total, up to 16383.
        let total: usize = 2000;
        let mut frame = vec![0xC7, (total >> 7) as u8, (total & 0x7F) as u8];
        frame.resize(total, 0x11);
        let mut d = Decoder::new();
        d.push(&frame);
        d.push(&FIELD);
        let items = drain(&mut d);
        assert_eq!(items.len(), 2, "{items:?}");
        let Ok(Decoded::Message(Message::Unknown { id, payload })) = &items[0] else {
            panic!("expected an unknown message, got {:?}", items[0]);
        };
        assert_eq!((*id, payload.len()), (0xC7, total - 3));
        assert_eq!(d.dropped_total(), 0);
    }

    /// An EE_MOVES frame of `total` bytes (payload 0x00..0x7F repeating).
    fn ee_moves(total: usize) -> Vec<u8> {
        let mut frame = vec![0x8F, (total >> 7) as u8, (total & 0x7F) as u8];
        frame.extend((0..total - 3).map(|i| (i % 0x80) as u8));
        frame
    }

    fn byte_by_byte(input: &[u8]) -> Vec<Result<Decoded, DecodeError>> {
        let mut d = Decoder::new();
        let mut items = Vec::new();
        for &b in input {
            d.push(&[b]);
            items.extend(d.by_ref());
        }
        d.finish();
        items.extend(d.by_ref());
        items
    }

    fn all_at_once(input: &[u8]) -> Vec<Result<Decoded, DecodeError>> {
        let mut d = Decoder::new();
        d.push(input);
        d.finish();
        drain(&mut d)
    }

    #[test]
    fn a_long_frame_fed_byte_by_byte_is_decoded_once_and_whole() {
        // The ~8 KB EE_MOVES dump of spec §2.2 / §7.10 item 6, one byte per push.
        let frame = ee_moves(7939);
        let mut input = frame.clone();
        input.extend_from_slice(&FIELD);
        let mut d = Decoder::new();
        for (i, &b) in frame.iter().enumerate() {
            d.push(&[b]);
            if i + 1 < frame.len() {
                assert!(
                    d.next().is_none(),
                    "nothing before byte {i} completes the frame"
                );
                assert_eq!(d.buffered_len(), i + 1);
            }
        }
        let Some(Ok(Decoded::Message(Message::EeMoves(payload)))) = d.next() else {
            panic!("expected the EE_MOVES dump");
        };
        assert_eq!(payload, frame[3..]);
        assert!(d.next().is_none());
        assert_eq!((d.buffered_len(), d.dropped_total()), (0, 0));
        // And the same items as in one push, followed frame included.
        assert_eq!(byte_by_byte(&input), all_at_once(&input));
        assert_eq!(all_at_once(&input).len(), 2);
    }

    #[test]
    fn a_high_bit_late_in_a_long_frame_fed_byte_by_byte_still_resyncs() {
        // The remembered "checked so far" must not hide a high-bit byte that arrives later,
        // nor survive into the next frame.
        let mut input = ee_moves(7939);
        input.truncate(5000);
        input.extend_from_slice(&FIELD); // a new message starts inside the dump
        input.extend_from_slice(&ee_moves(300)[..200]);
        input.extend_from_slice(&ee_moves(4000));
        input.extend_from_slice(&FIELD);
        let items = byte_by_byte(&input);
        assert_eq!(items, all_at_once(&input));
        let kinds: Vec<String> = items
            .iter()
            .map(|i| match i {
                Ok(Decoded::Dropped(x)) => format!("dropped {}", x.count),
                Ok(Decoded::Message(m)) => m.type_name().to_owned(),
                Err(e) => format!("error {e}"),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "dropped 5000",
                "field_update",
                "dropped 200",
                "ee_moves",
                "field_update"
            ]
        );
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
        assert!(d.next().is_none());
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
    fn undrained_input_is_capped() {
        let mut d = Decoder::new();
        let chunk = FIELD.repeat(1000);
        for _ in 0..100 {
            d.push(&chunk);
        }
        assert!(d.buffered_len() <= MAX_BUFFERED + chunk.len());
        assert_eq!(
            d.dropped_total() as usize + d.buffered_len(),
            100 * chunk.len()
        );
        assert!(d.dropped_total() > 0);
        let whole = FIELD.repeat(50_000);
        let mut d = Decoder::new();
        d.push(&whole);
        assert_eq!(
            d.by_ref().count(),
            50_000,
            "one large push is accepted whole"
        );
    }

    /// What `items` say, in order: message type names and `dropped N`.
    fn kinds(items: &[Result<Decoded, DecodeError>]) -> Vec<String> {
        items
            .iter()
            .map(|i| match i {
                Ok(Decoded::Dropped(x)) => format!("dropped {}", x.count),
                Ok(Decoded::Message(m)) => m.type_name().to_owned(),
                Err(e) => format!("error {e}"),
            })
            .collect()
    }

    #[test]
    fn input_refused_at_the_cap_is_reported_after_the_older_buffered_frames() {
        // Fill the buffer past MAX_BUFFERED without draining, ending in half a frame.
        let frames = MAX_BUFFERED / FIELD.len();
        let mut d = Decoder::new();
        d.push(&[0x11, 0x22]); // junk before everything: reported first
        d.push(&FIELD.repeat(frames));
        d.push(&FIELD[..3]);
        assert_eq!(d.dropped_total(), 0, "all accepted so far");
        assert!(d.buffered_len() > MAX_BUFFERED);
        // Refused: the rest of that frame and two whole ones.
        let mut refused = FIELD[3..].to_vec();
        refused.extend(FIELD.repeat(2));
        d.push(&refused);
        assert_eq!(d.dropped_total(), refused.len() as u64);
        let items = drain(&mut d);
        let want_head = ["dropped 2".to_owned(), "field_update".to_owned()];
        assert_eq!(kinds(&items[..2]), want_head);
        assert_eq!(
            items.len(),
            1 + frames,
            "nothing after the buffered frames yet"
        );
        // Draining frees room: the next push is accepted, behind the refused bytes. The refused
        // bytes and the half frame they cut off come out as one report, after every older frame
        // and before the newer one.
        d.push(&FIELD);
        let items = drain(&mut d);
        assert_eq!(
            kinds(&items),
            [
                format!("dropped {}", 3 + refused.len()),
                "field_update".into()
            ]
        );
        let Ok(Decoded::Dropped(x)) = &items[0] else {
            unreachable!()
        };
        assert_eq!(
            x.bytes[..3],
            FIELD[..3],
            "the cut-off frame's start comes first"
        );
        assert_eq!(x.bytes[3..5], FIELD[3..], "then the refused bytes");
        assert_eq!(d.dropped_total(), 2 + 3 + refused.len() as u64);
        assert_eq!(d.buffered_len(), 0);
    }

    #[test]
    fn each_refused_push_is_reported_in_its_own_place() {
        const VERSION: [u8; 5] = [0x93, 0x00, 0x05, 0x03, 0x0A];
        let frames = MAX_BUFFERED / FIELD.len() + 1;
        let mut d = Decoder::new();
        d.push(&FIELD.repeat(frames)); // one push is accepted whole, past the cap
        d.push(&[0x8E]); // refused (first gap)
        let mut items: Vec<_> = d.by_ref().take(3).collect();
        d.push(&VERSION); // room again: accepted, behind the first gap
        d.push(&[0x11]);
        d.push(&FIELD);
        d.push(&[0x22, 0x33]); // over the cap again: refused (second gap)
        d.finish();
        items.extend(d.by_ref());
        let mut want = vec!["field_update".to_owned(); frames];
        want.extend(
            [
                "dropped 1",
                "version",
                "dropped 1",
                "field_update",
                "dropped 2",
            ]
            .map(String::from),
        );
        assert_eq!(kinds(&items), want);
        assert_eq!(d.dropped_total(), 4);
        let samples: Vec<&[u8]> = items
            .iter()
            .filter_map(|i| match i {
                Ok(Decoded::Dropped(x)) => Some(&x.bytes[..]),
                _ => None,
            })
            .collect();
        assert_eq!(samples, [&[0x8E][..], &[0x11], &[0x22, 0x33]]);
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
