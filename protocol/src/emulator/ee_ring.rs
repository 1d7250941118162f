//! The emulated board's own move log (spec §8a): the cyclic memory a DGT e-board writes every
//! piece movement to, whether or not a host listens, and that `0x49` dumps.
//!
//! Owns the ring (a fixed number of payload bytes, the oldest overwritten first, so the oldest
//! bytes of a full ring may be the tail of a record), the records the board writes (a field
//! record per lift and per placement with its quick bit, the power-up inventory, the set-up
//! tags with their re-arm rule, a clock record at a lever press) and the dump (the ring,
//! oldest first, then `0x6B`). It must not decide when the board sees something (the
//! [`super::Emulator`] tells it) nor emit messages.

use std::collections::VecDeque;

use crate::board::{Board, Orientation, Piece, Square};
use crate::ee_log::{EE_EOF, EeRecord};

use super::board::{raw_dump, start_position};

/// Payload bytes of an 8 KB board's dump, the final `0x6B` included (spec §8a: 0x1F00).
pub const EE_LOG_BYTES: usize = 0x1F00;

/// A field record written less than this after the previous one has its quick bit set.
const QUICK_MS: u64 = 250;

/// The board's move log. See the module docs.
#[derive(Debug, Clone)]
pub struct EeRing {
    bytes: VecDeque<u8>,
    /// Ring bytes kept (the dump's payload less its final `0x6B`).
    capacity: usize,
    last_field_ms: Option<u64>,
    /// The set-up last tagged, until more than two squares have left it (the re-arm rule).
    tagged: Option<Board>,
}

impl EeRing {
    /// An empty log whose dump holds at most `payload_bytes` bytes (the final `0x6B`
    /// included; at least that one).
    pub fn new(payload_bytes: usize) -> EeRing {
        let capacity = payload_bytes.saturating_sub(1);
        EeRing {
            bytes: VecDeque::with_capacity(capacity),
            capacity,
            last_field_ms: None,
            tagged: None,
        }
    }

    /// The payload a `0x49` is answered with: the ring, oldest first, then `0x6B`. A board
    /// that has not yet filled its ring sends only what it wrote.
    pub fn dump(&self) -> Vec<u8> {
        let mut out: Vec<u8> = self.bytes.iter().copied().collect();
        out.push(EE_EOF);
        out
    }

    /// The board powered up at `now_ms` with these fields (its own numbering): three NOPs,
    /// POWERUP, one field record per occupied square, then a set-up tag if one applies.
    pub fn power_up(&mut self, now_ms: u64, raw: &Board) {
        for _ in 0..3 {
            self.push(EeRecord::Nop);
        }
        self.push(EeRecord::PowerUp);
        self.tagged = None;
        for field in 0..64u8 {
            if let (Some(square), Some(piece)) =
                (Square::from_field(field), raw.fields[usize::from(field)])
            {
                self.field_record(now_ms, square, Some(piece));
            }
        }
        self.tag(raw);
    }

    /// The board saw field `square` (its own numbering) change to `piece` at `now_ms`; `raw`
    /// is the board after the change.
    pub fn field(&mut self, now_ms: u64, square: Square, piece: Option<Piece>, raw: &Board) {
        self.field_record(now_ms, square, piece);
        self.tag(raw);
    }

    /// A lever press stopped a half showing `seconds` (`left`: the left display seen from the
    /// front).
    pub fn clock(&mut self, left: bool, seconds: u32) {
        let hours = u8::try_from((seconds / 3600).min(9)).unwrap_or(9);
        let minutes = u8::try_from(seconds / 60 % 60).unwrap_or(0);
        let secs = u8::try_from(seconds % 60).unwrap_or(0);
        self.push(EeRecord::Clock {
            left,
            hours,
            minutes,
            seconds: secs,
        });
    }

    fn field_record(&mut self, now_ms: u64, square: Square, piece: Option<Piece>) {
        let quick = self
            .last_field_ms
            .is_some_and(|t| now_ms.saturating_sub(t) < QUICK_MS);
        self.last_field_ms = Some(now_ms);
        self.push(EeRecord::Field {
            piece,
            square,
            quick,
        });
    }

    /// Write a set-up tag when the board shows one and the tags are armed; re-arm once more
    /// than two squares differ from the set-up last tagged.
    fn tag(&mut self, raw: &Board) {
        if let Some(tagged) = &self.tagged {
            let moved = (0..64)
                .filter(|&i| tagged.fields[i] != raw.fields[i])
                .count();
            if moved <= 2 {
                return;
            }
            self.tagged = None;
        }
        let Some(tag) = set_up_tag(raw) else {
            return;
        };
        self.push(tag);
        self.tagged = Some(raw.clone());
    }

    fn push(&mut self, record: EeRecord) {
        let mut bytes = Vec::with_capacity(3);
        record.encode_into(&mut bytes);
        for b in bytes {
            if self.bytes.len() == self.capacity {
                self.bytes.pop_front();
            }
            if self.capacity > 0 {
                self.bytes.push_back(b);
            }
        }
    }
}

/// The set-up tag a board with these fields (its own numbering) writes, if any.
fn set_up_tag(raw: &Board) -> Option<EeRecord> {
    let start = start_position();
    if *raw == start {
        return Some(EeRecord::BeginPos);
    }
    if *raw == raw_dump(&start, Orientation::Rotated) {
        return Some(EeRecord::BeginPosRot);
    }
    let f = &raw.fields;
    if f.iter().all(Option::is_none) {
        return Some(EeRecord::EmptyBoard);
    }
    let home = f[..16].iter().chain(&f[48..]).all(Option::is_some);
    let middle_empty = f[16..48].iter().all(Option::is_none);
    (home && middle_empty).then_some(EeRecord::FourRows)
}
