//! The protocol crate's integration tests, one binary: the real captures, the emulator (its
//! clock, link, pieces and faults) and the wire properties. One module per former test file.

mod captures;
mod emulator;
mod emulator_ee_log;
mod emulator_faults;
mod emulator_link;
mod emulator_pieces;
#[cfg(feature = "emulator")]
mod emulator_support;
mod properties;
