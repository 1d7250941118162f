//! What the CLI tests share: running the real `chessclockctl`.

use std::process::{Command, Output};

/// `chessclockctl ARGS`, run to its end.
pub(crate) fn ctl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chessclockctl"))
        .args(args)
        .output()
        .expect("running chessclockctl")
}
