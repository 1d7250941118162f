//! The engine crate's integration tests, one binary: the time-control engine and the notation,
//! against the vectors, the spec's examples and properties. One module per former test file.

mod controls_vectors;
mod engine_adjust;
mod engine_board_moves;
mod engine_events;
mod engine_extremes;
mod engine_flag_modes;
mod engine_invariants;
mod engine_reconfigure;
mod engine_snapshot;
mod engine_vectors;
mod notation_conformance;
mod notation_forms;
mod notation_pgn;
mod notation_properties;
mod rating;
mod spec_examples;
mod support;
