//! `chessclock-bench`: the real `chessclockd` with N emulated DGT boards on ptys and a
//! private D-Bus, under scripted games (presses every 2-8 s) with and without a client polling
//! `chessclockctl status --json`; it reports press → display latency, display fidelity,
//! conservation, dropped presses, CPU, memory, threads, status latency, signal and byte rates
//! (issue 11 item 6; figures in `docs/benchmarks.md`).
//!
//! A benchmark, not a test: it measures and reports, it asserts nothing about the figures.

pub mod analysis;
pub mod board;
pub mod bridge;
pub mod bus;
pub mod daemon;
pub mod fidelity;
pub mod floor;
pub mod procstat;
pub mod reader_floor;
pub mod report;
pub mod run;
pub mod stats;

/// CLOCK_MONOTONIC now, µs: the time base of the daemon's `as_of_us` (the API crate's).
pub use chessclock_api::monotonic::monotonic_us as mono_us;

/// Clock `id` now, µs.
pub fn clock_us(id: rustix::time::ClockId) -> u64 {
    let t = rustix::time::clock_gettime(id);
    (t.tv_sec as u64) * 1_000_000 + (t.tv_nsec as u64) / 1000
}
