//! The harness floor that needs no daemon: how long the kernel's pty layer takes to carry a
//! message one way (master write → slave read), measured on a spare pty pair — once before
//! the run without load ([`pty_one_way`]), and during the run by a [`Probe`] in its own
//! thread, under the same load as the boards and the daemon. The probe's figure includes
//! the kernel worker that pushes the tty flip buffer and the bench's reading thread waking
//! up, so it bounds from below what the bench can see of press → display in each window.
//!
//! Owns these measurements only; the bench's own CPU during a run is measured in
//! [`crate::run`], the windows are cut there too (with [`in_window`]).

use std::io::{Read, Write};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use serialport::{SerialPort as _, TTYPort};

use crate::mono_us;
use crate::stats::{Summary, summarize};

/// The message carried: 7 bytes, the size of a clock report frame's payload plus header.
pub(crate) const MSG: [u8; 7] = [0x8d, 0x00, 0x0a, 0x01, 0x02, 0x03, 0x04];

/// A spare pty pair (master, slave) with 1 s timeouts.
fn pair() -> Result<(TTYPort, TTYPort)> {
    let (mut master, mut slave) =
        TTYPort::pair().context("cannot create a pseudo-terminal for the floor measurement")?;
    master.set_timeout(Duration::from_secs(1))?;
    slave.set_timeout(Duration::from_secs(1))?;
    Ok((master, slave))
}

/// One transfer: [`MSG`] written on `master` and read whole on `slave`. Returns the instant
/// of the write (CLOCK_MONOTONIC, µs) and the one-way time, µs.
fn one_way(master: &mut TTYPort, slave: &mut TTYPort) -> Result<(u64, u64)> {
    let mut buf = [0u8; MSG.len()];
    let t0 = mono_us();
    master.write_all(&MSG).context("pty floor: write")?;
    slave.read_exact(&mut buf).context("pty floor: read")?;
    Ok((t0, mono_us() - t0))
}

/// `rounds` one-way transfers 2 ms apart, without load, in µs.
pub fn pty_one_way(rounds: usize) -> Result<Summary> {
    let (mut master, mut slave) = pair()?;
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        samples.push(one_way(&mut master, &mut slave)?.1 as f64);
        std::thread::sleep(Duration::from_millis(2));
    }
    Ok(summarize(&samples))
}

/// One sample of a [`Probe`]: (instant of the write, one-way time), both µs.
pub type FloorSample = (u64, u64);

/// The pty floor measured in a thread of its own (`bench-floor`) while the run goes on: one
/// transfer, then a wait of `every`, until [`Probe::stop`]. Dropping it stops it too (the
/// thread ends after its current transfer).
#[derive(Debug)]
pub struct Probe {
    stop: Sender<()>,
    thread: JoinHandle<Result<Vec<FloorSample>>>,
}

impl Probe {
    /// Open a spare pty pair and start the thread; its first transfer is at once.
    pub fn start(every: Duration) -> Result<Probe> {
        let (mut master, mut slave) = pair()?;
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("bench-floor".into())
            .spawn(move || {
                let mut samples = Vec::new();
                loop {
                    samples.push(one_way(&mut master, &mut slave)?);
                    match stopped.recv_timeout(every) {
                        Err(RecvTimeoutError::Timeout) => {}
                        Ok(()) | Err(RecvTimeoutError::Disconnected) => return Ok(samples),
                    }
                }
            })
            .context("cannot start the pty floor probe's thread")?;
        Ok(Probe { stop, thread })
    }

    /// Stop the probe (its wait ends at once) and return its samples in the order taken, at
    /// least one; an error if a transfer failed (1 s without the message).
    pub fn stop(self) -> Result<Vec<FloorSample>> {
        let _ = self.stop.send(());
        self.thread
            .join()
            .map_err(|_| anyhow!("the pty floor probe panicked"))?
    }
}

/// The one-way times of the samples written in `from..to` (µs instants), in ms.
pub fn in_window(samples: &[FloorSample], from: u64, to: u64) -> Summary {
    let ms: Vec<f64> = samples
        .iter()
        .filter(|(t, _)| (from..to).contains(t))
        .map(|&(_, us)| us as f64 / 1000.0)
        .collect();
    summarize(&ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_stops_when_told_even_mid_wait() {
        let before = mono_us();
        // A wait far longer than any test: only the stop can end it.
        let probe = Probe::start(Duration::from_secs(3600)).unwrap();
        let samples = probe.stop().unwrap();
        assert_eq!(samples.len(), 1, "one transfer, then stopped in its wait");
        let (t, _) = samples[0];
        assert!(t >= before && t <= mono_us(), "the write's instant is now");
    }

    #[test]
    fn a_running_probe_returns_its_samples_in_order() {
        let probe = Probe::start(Duration::ZERO).unwrap();
        // Not a timing: the unloaded measurement just gives the probe's thread time to run.
        let unloaded = pty_one_way(5).unwrap();
        assert_eq!(unloaded.count, 5);
        let samples = probe.stop().unwrap();
        assert!(
            samples.windows(2).all(|w| w[0].0 < w[1].0),
            "samples in the order taken, one transfer after the other: {samples:?}"
        );
    }

    #[test]
    fn a_window_keeps_its_own_samples_in_ms() {
        let samples = [(100, 5_000), (200, 20), (300, 40), (400, 9_000)];
        let s = in_window(&samples, 200, 400);
        assert_eq!(s.count, 2);
        assert_eq!((s.p50, s.max), (Some(0.02), Some(0.04)));
        assert_eq!(in_window(&samples, 0, 100).count, 0);
        assert_eq!(in_window(&samples, 0, 1_000).max, Some(9.0));
    }
}
