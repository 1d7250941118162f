//! The daemon crate's integration tests, one binary: configuration, the store's journal, the
//! bus error names and the virtual board on a real pty. One module per former test file.

mod bus_error_names;
mod common;
mod config_clocks;
mod config_load;
mod store_journal;
#[cfg(feature = "virtual-board")]
mod virtual_board;
