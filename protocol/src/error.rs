//! Error types of the protocol crate.
//!
//! Owns every error a caller can see. Errors carry the offending bytes or values and say how to
//! read them; they never carry parser-library types.

use thiserror::Error;

/// A well-framed board message whose payload does not make sense for its id.
///
/// The frame itself was consumed; the decoder continues with the next byte after it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("bad {name} message (id 0x{id:02X}, payload {payload_hex}): {reason}", payload_hex = crate::hex(payload))]
pub struct DecodeError {
    /// The message id byte as received (with the high bit set).
    pub id: u8,
    /// The message name, for readable errors.
    pub name: &'static str,
    /// The payload bytes (after the 3-byte header).
    pub payload: Vec<u8>,
    /// What is wrong with the payload.
    pub reason: PayloadError,
}

impl DecodeError {
    /// The error for a message with id byte `id` and this payload.
    #[cold]
    pub(crate) fn new(id: u8, payload: &[u8], reason: PayloadError) -> DecodeError {
        DecodeError {
            id,
            name: crate::MessageId::from(id).name(),
            payload: payload.to_vec(),
            reason,
        }
    }
}

/// What is wrong inside a message payload or a command.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PayloadError {
    /// The payload has the wrong number of bytes.
    #[error("expected {expected} payload bytes, got {got}")]
    Length {
        /// Bytes expected.
        expected: usize,
        /// Bytes present.
        got: usize,
    },
    /// A piece code outside 0..=15.
    #[error("piece code 0x{code:02X} at offset {offset} is not a DGT piece code (0x00..=0x0F)")]
    PieceCode {
        /// The code.
        code: u8,
        /// Payload offset of the code.
        offset: usize,
    },
    /// A field (square) index outside 0..=63.
    #[error("field index {0} is outside 0..=63")]
    Field(u8),
    /// A BCD byte whose digits are not decimal, or a value out of range.
    #[error("{what} byte 0x{byte:02X} is not a valid {kind} value")]
    Time {
        /// Which field ("left minutes", ...).
        what: &'static str,
        /// The raw byte.
        byte: u8,
        /// "BCD 00..59", "binary 0..59", "hours 0..9".
        kind: &'static str,
    },
}

/// A host command that could not be built or parsed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CommandError {
    /// The byte is not a known host command.
    #[error("0x{0:02X} is not a known DGT host command byte")]
    UnknownCommand(u8),
    /// A clock message (`0x2B`) is malformed.
    #[error("bad clock message: {0}")]
    BadClockMessage(String),
    /// A clock message (`0x2B`) is well framed but its sub-command is invalid.
    #[error("clock message of {frame_len} bytes: {source}")]
    InvalidClockCommand {
        /// Bytes the message takes, start marker to end marker: skip them all.
        frame_len: usize,
        /// What is wrong with the sub-command.
        source: Box<CommandError>,
    },
    /// A SET_LEDS command (`0x60`) is malformed.
    #[error("bad SET_LEDS command: {0}")]
    BadSetLeds(String),
    /// A field of the command is invalid.
    #[error(transparent)]
    Payload(#[from] PayloadError),
    /// Text for the clock display cannot be sent.
    #[error("clock text {text:?}: {reason}")]
    Text {
        /// The text given.
        text: String,
        /// Why it cannot be sent.
        reason: String,
    },
}

impl CommandError {
    /// How many bytes a reader should skip before trying the next command: the whole message
    /// for a well-framed clock message with a bad sub-command, else one byte.
    pub fn skip_len(&self) -> usize {
        match self {
            CommandError::InvalidClockCommand { frame_len, .. } => *frame_len,
            _ => 1,
        }
    }
}

/// An EE_MOVES payload (the board's move log, spec §8a) that cannot be read as records.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum EeLogError {
    /// No payload at all.
    #[error("the move log is empty: a dump ends with the end marker 0x6B")]
    Empty,
    /// The last byte is not the end marker: the dump was cut short (retry the dump).
    #[error(
        "the move log ends with 0x{last:02X}, not the end marker 0x6B: the dump was cut short; \
         ask for it again"
    )]
    NoEof {
        /// The last byte.
        last: u8,
    },
    /// A byte with the high bit set: not part of a log.
    #[error("byte 0x{byte:02X} at offset {offset} of the move log has the high bit set")]
    HighBit {
        /// Payload offset.
        offset: usize,
        /// The byte.
        byte: u8,
    },
    /// A byte where a record should start that starts none (0x01-0x3F, 0x80 and up).
    #[error("byte 0x{byte:02X} at offset {offset} of the move log starts no record")]
    NotARecord {
        /// Payload offset.
        offset: usize,
        /// The byte.
        byte: u8,
    },
    /// A record cut off by the end of the log.
    #[error(
        "the record at offset {offset} of the move log needs {needed} bytes, only {have} are left"
    )]
    Truncated {
        /// Payload offset.
        offset: usize,
        /// Bytes the record takes.
        needed: usize,
        /// Bytes left before the end marker.
        have: usize,
    },
    /// A field record whose square is not 0-63.
    #[error("the field record at offset {offset} of the move log names square {byte}, not 0-63")]
    Square {
        /// Payload offset of the record.
        offset: usize,
        /// The square byte.
        byte: u8,
    },
    /// A clock record whose minutes or seconds are not BCD 00-59.
    #[error(
        "the clock record at offset {offset} of the move log has {what} 0x{byte:02X}, not BCD 00-59"
    )]
    Clock {
        /// Payload offset of the record.
        offset: usize,
        /// "minutes" or "seconds".
        what: &'static str,
        /// The byte.
        byte: u8,
    },
    /// Any other malformed record.
    #[error("the record at offset {offset} of the move log is malformed: {reason}")]
    Record {
        /// Payload offset of the record.
        offset: usize,
        /// What is wrong.
        reason: &'static str,
    },
}
