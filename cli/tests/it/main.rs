//! The CLI's integration tests, one binary: the real `chessclockctl` on captures, vectors and
//! generated files. One module per former test file.

mod decode;
mod generated;
mod parse;
mod position;
mod replay;
mod simulate_vectors;
mod support;
