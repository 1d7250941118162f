//! The DGT e-board and clock serial protocol, sans IO.
//!
//! This crate owns the wire format: framing, typed board messages, clock reports and
//! acknowledgements, host commands and clock sub-commands. It must not do IO, spawn tasks or
//! read a clock: bytes and time are handed in by the caller.
//!
//! - Board → host: feed bytes to a [`Decoder`]; it yields [`Decoded`] items (a [`Message`] or
//!   a report of [`Dropped`] garbage). BWTIME comes out as [`Message::ClockReport`],
//!   [`Message::ClockAck`] or [`Message::EmptyClockReport`].
//! - Host → board: build a [`Command`] (or a [`ClockCommand`], wrapped in
//!   [`Command::Clock`]) and write [`Command::encode`].
//! - Two views, smoltcp style: [`Frame`] is a checked view over bytes, [`Message`] the typed
//!   value with [`Message::parse`] and [`Message::encode`].
//! - The board's own move log (an EE_MOVES payload) decodes with [`ee_log::decode`].
//! - Quirk helpers for the daemon are in [`quirks`].
//!
//! See `docs/protocol.md` for the limits and the quirks handled.
#![deny(missing_docs)]

pub mod ack;
pub mod board;
pub mod clock_command;
pub mod clock_text;
pub mod command;
pub mod decoder;
mod display;
pub mod ee_log;
#[cfg(feature = "emulator")]
pub mod emulator;
pub mod error;
pub mod frame;
pub mod message;
pub mod quirks;
pub mod report;

pub use ack::{AckMeaning, Button, ClockAck, ClockModel, HeldButtons};
pub use board::{Board, Orientation, Piece, Square};
pub use clock_command::{ClockCommand, ClockCommandId, RunFlags, RunSide, SetAndRun};
pub use command::Command;
pub use decoder::{Decoded, Decoder, Dropped};
pub use ee_log::{EeLog, EeRecord};
pub use error::{CommandError, DecodeError, EeLogError, PayloadError};
pub use frame::{Frame, FrameError};
pub use message::{BatteryStatus, Message, MessageId};
pub use report::{ClockReport, ClockSide, ClockTime, Half};

/// Lower-case hex of `bytes`, no separators (as used in error messages and JSON output).
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}
