//! A fixed decoding workload for counting instructions, which unlike wall time is repeatable
//! on a loaded machine: both shared captures, chunk by chunk as recorded, 200 times.
//!
//! Run: `cargo build --release -p chessclock-protocol --example decode_captures &&
//! valgrind --tool=callgrind ./target/release/examples/decode_captures`
//! (figures in docs/benchmarks.md).

use base64::Engine;
use chessclock_protocol::Decoder;

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/captures/dgt/");
    let mut chunks = Vec::new();
    for name in ["1", "2"] {
        let path = format!("{dir}{name}.inbytes");
        let text = std::fs::read_to_string(&path).expect("the shared captures beside the project");
        for line in text.lines().filter(|l| !l.is_empty()) {
            let bytes = base64::engine::general_purpose::STANDARD.decode(line);
            chunks.push(bytes.expect("capture lines are base64"));
        }
    }
    let (mut items, mut bytes) = (0usize, 0usize);
    for _ in 0..200 {
        let mut decoder = Decoder::new();
        for chunk in &chunks {
            decoder.push(chunk);
            bytes += chunk.len();
            items += decoder.by_ref().count();
        }
    }
    println!("{items} items from {bytes} bytes");
}
