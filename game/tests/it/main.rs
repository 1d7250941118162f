//! The game crate's integration tests, one binary: board behaviours, the emulated board, the
//! recorder, PGN read back by python-chess, properties. One module per former test file.

mod behaviours;
mod corrections;
mod emulated_board;
mod pgn_python;
mod properties;
mod recorder;
mod replay;
mod signal;
mod support;
