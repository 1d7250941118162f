//! The game crate's integration tests, one binary: board behaviours, the emulated board, the
//! board game, PGN read back by python-chess, properties. One module per former test file.

mod behaviours;
mod board_game;
mod corrections;
mod emulated_board;
mod laws_python;
mod pgn_python;
mod properties;
mod replay;
mod signal;
mod support;
mod winnable_python;
