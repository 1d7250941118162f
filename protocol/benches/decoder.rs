//! Decoder throughput in bytes per second: the real captures (fed as recorded and all at
//! once), a synthetic stream with every common message kind plus some junk, and one ~8 KB
//! EE_MOVES dump pushed byte by byte (the cost of a long frame arriving slowly).
//!
//! Run: `cargo bench -p chessclock-protocol --bench decoder`.

use std::hint::black_box;

use base64::Engine;
use chessclock_protocol::{
    Board, ClockAck, ClockCommandId, ClockReport, ClockSide, ClockTime, Decoder, Message, Piece,
    Square,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/captures/dgt/");

fn capture_chunks() -> Vec<Vec<u8>> {
    ["1", "2"]
        .iter()
        .flat_map(|name| {
            let path = format!("{DIR}{name}.inbytes");
            let text =
                std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
            text.lines()
                .filter(|l| !l.is_empty())
                .map(|l| {
                    base64::engine::general_purpose::STANDARD
                        .decode(l)
                        .expect("capture is base64")
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn synthetic(len: usize) -> Vec<u8> {
    let t = |s| ClockTime::from_total_seconds(s).expect("in range");
    let side = |s| ClockSide {
        time: t(s),
        flag: false,
        final_flag: false,
        time_per_move: true,
    };
    let mut out = Vec::with_capacity(len + 100);
    let mut i: u32 = 0;
    let mut start = Board::empty();
    for (f, slot) in start.fields.iter_mut().enumerate().take(16) {
        *slot = Piece::from_code(1 + (f % 12) as u8).expect("valid code");
    }
    while out.len() < len {
        let msg = match i % 8 {
            0 | 2 | 4 | 6 => Message::ClockReport(ClockReport::from_status(
                side(180 - i % 180),
                side(170),
                0x09,
            )),
            1 | 5 => Message::FieldUpdate {
                square: Square::from_field((i % 64) as u8).expect("in range"),
                piece: Piece::from_code((i % 13) as u8).expect("valid"),
            },
            3 => Message::ClockAck(ClockAck::ok(ClockCommandId::SetAndRun)),
            _ if i % 64 == 7 => Message::BoardDump(start.clone()),
            _ => {
                out.extend_from_slice(&[0x11, 0x22]); // a little junk now and then
                Message::Version {
                    major: 3,
                    minor: 10,
                }
            }
        };
        out.extend(msg.encode());
        i += 1;
    }
    out
}

/// The accidental EE_MOVES dump of spec §2.2: 7939 bytes in one frame.
fn ee_moves_dump() -> Vec<u8> {
    Message::EeMoves((0..7936).map(|i| (i % 0x80) as u8).collect()).encode()
}

fn drain(d: &mut Decoder) -> usize {
    d.by_ref().map(|i| black_box(i).is_ok() as usize).sum()
}

fn bench(c: &mut Criterion) {
    let chunks = capture_chunks();
    let all: Vec<u8> = chunks.concat();
    let synth = synthetic(1 << 20);

    let mut g = c.benchmark_group("decoder");
    g.throughput(Throughput::Bytes(all.len() as u64));
    g.bench_function("captures_as_recorded", |b| {
        b.iter(|| {
            let mut d = Decoder::new();
            let mut n = 0;
            for chunk in &chunks {
                d.push(black_box(chunk));
                n += drain(&mut d);
            }
            n
        })
    });
    g.bench_function("captures_all_at_once", |b| {
        b.iter(|| {
            let mut d = Decoder::new();
            d.push(black_box(&all));
            drain(&mut d)
        })
    });
    g.throughput(Throughput::Bytes(synth.len() as u64));
    g.bench_function("synthetic_1MiB_4KiB_reads", |b| {
        b.iter(|| {
            let mut d = Decoder::new();
            let mut n = 0;
            for chunk in synth.chunks(4096) {
                d.push(black_box(chunk));
                n += drain(&mut d);
            }
            n
        })
    });
    let dump = ee_moves_dump();
    g.throughput(Throughput::Bytes(dump.len() as u64));
    g.bench_function("ee_moves_8KB_byte_by_byte", |b| {
        b.iter(|| {
            let mut d = Decoder::new();
            let mut n = 0;
            for byte in &dump {
                d.push(black_box(std::slice::from_ref(byte)));
                n += drain(&mut d);
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
