//! The `chessclockd` binary.
fn main() {
    eprintln!("chessclockd: not implemented yet");
    std::process::exit(1);
}
