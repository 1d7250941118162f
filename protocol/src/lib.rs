//! The DGT e-board and clock serial protocol, sans IO.
//!
//! This crate owns the wire format: framing, typed board messages, clock reports and
//! acknowledgements, host commands and clock sub-commands. It must not do IO, spawn tasks or
//! read a clock: bytes and time are handed in by the caller.
#![deny(missing_docs)]
