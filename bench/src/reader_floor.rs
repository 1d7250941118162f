//! The CPU floor of reading the boards: the least CPU per board message that a reader with
//! the daemon's IO stack pays on this machine before it does anything with the message.
//!
//! N spare pty pairs; a writer thread sends 7-byte messages to their masters round robin at
//! the rate the boards sent in the run; one thread runs a current-thread tokio runtime with a
//! task per slave (tokio-serial streams on tokio's reactor, as the daemon's device thread
//! has) that reads and counts. The reader thread's CPU time over the messages read is the
//! kernel's wake-up, epoll and read plus tokio's scheduling: a floor under the daemon's
//! "CPU per board message". Owns this measurement only; no daemon is involved.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use serde::Serialize;
use serialport::TTYPort;
use tokio::io::AsyncReadExt;
use tokio_serial::SerialStream;

use crate::clock_us;
use crate::floor::MSG;

/// What the reader paid.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ReaderFloor {
    /// Ports read.
    pub ports: usize,
    /// Messages per second written (all ports together).
    pub rate_per_s: f64,
    /// Whole messages read.
    pub messages: u64,
    /// The reader thread's CPU µs per message read.
    pub cpu_us_per_message: f64,
}

/// CPU time of the calling thread, µs.
fn thread_cpu_us() -> u64 {
    clock_us(rustix::time::ClockId::ThreadCPUTime)
}

/// Read `ports` ptys for `duration` while `rate_per_s` messages a second arrive on them.
pub fn measure(ports: usize, rate_per_s: f64, duration: Duration) -> Result<ReaderFloor> {
    if ports == 0 || rate_per_s <= 0.0 {
        return Err(anyhow!("the reader floor needs ports and a message rate"));
    }
    let mut masters = Vec::with_capacity(ports);
    let mut slaves = Vec::with_capacity(ports);
    for _ in 0..ports {
        let (master, slave) =
            TTYPort::pair().context("cannot create a pseudo-terminal for the reader floor")?;
        masters.push(master);
        slaves.push(slave);
    }
    let bytes = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (bytes, done) = (bytes.clone(), done.clone());
        std::thread::Builder::new()
            .name("bench-reader".into())
            .spawn(move || read_all(slaves, &bytes, &done, duration))
            .context("cannot start the reader floor's thread")?
    };
    let interval = Duration::from_secs_f64(1.0 / rate_per_s);
    let start = Instant::now();
    let mut next = start;
    let mut i = 0usize;
    while !done.load(Ordering::Relaxed) {
        masters[i % ports]
            .write_all(&MSG)
            .context("reader floor: write")?;
        i += 1;
        next += interval;
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    let cpu_us = reader
        .join()
        .map_err(|_| anyhow!("the reader floor's thread panicked"))??;
    let messages = bytes.load(Ordering::Relaxed) / MSG.len() as u64;
    Ok(ReaderFloor {
        ports,
        rate_per_s,
        messages,
        cpu_us_per_message: cpu_us as f64 / messages.max(1) as f64,
    })
}

/// The reader: a task per slave on a current-thread runtime, for `duration`; returns its
/// thread's CPU µs over that time.
fn read_all(
    slaves: Vec<TTYPort>,
    bytes: &Arc<AtomicU64>,
    done: &AtomicBool,
    duration: Duration,
) -> Result<u64> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the reader floor's runtime")?;
    let cpu = rt.block_on(async {
        for slave in slaves {
            let mut stream = SerialStream::try_from(slave).context("reader floor: pty stream")?;
            let bytes = bytes.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 64];
                while let Ok(n @ 1..) = stream.read(&mut buf).await {
                    bytes.fetch_add(n as u64, Ordering::Relaxed);
                }
            });
        }
        let t0 = thread_cpu_us();
        tokio::time::sleep(duration).await;
        anyhow::Ok(thread_cpu_us() - t0)
    });
    done.store(true, Ordering::Relaxed);
    cpu
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_written_is_read_and_costs_some_cpu() {
        let f = measure(4, 200.0, Duration::from_millis(300)).unwrap();
        assert_eq!(f.ports, 4);
        // Not a timing: at 200/s for 0.3 s some messages arrive, and reading them costs CPU.
        assert!(f.messages > 0, "{f:?}");
        assert!(f.cpu_us_per_message > 0.0, "{f:?}");
    }

    #[test]
    fn nothing_to_read_is_refused() {
        assert!(measure(0, 10.0, Duration::from_millis(10)).is_err());
        assert!(measure(2, 0.0, Duration::from_millis(10)).is_err());
    }
}
