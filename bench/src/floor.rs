//! The harness floor that needs no daemon: how long the kernel's pty layer takes to carry a
//! message one way (master write → slave read), measured on a spare pty pair.
//!
//! Owns that measurement only; the bench's own CPU during a run is measured in [`crate::run`].

use std::io::{Read, Write};
use std::time::Duration;

use anyhow::{Context, Result};
use serialport::{SerialPort as _, TTYPort};

use crate::mono_us;
use crate::stats::{Summary, summarize};

/// `rounds` one-way transfers of a 7-byte message (the size of a clock report frame's payload
/// plus header), in µs.
pub fn pty_one_way(rounds: usize) -> Result<Summary> {
    let (mut master, mut slave) =
        TTYPort::pair().context("cannot create a pseudo-terminal for the floor measurement")?;
    master.set_timeout(Duration::from_secs(1))?;
    slave.set_timeout(Duration::from_secs(1))?;
    let msg = [0x8d, 0x00, 0x0a, 0x01, 0x02, 0x03, 0x04];
    let mut buf = [0u8; 7];
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t0 = mono_us();
        master.write_all(&msg).context("pty floor: write")?;
        slave.read_exact(&mut buf).context("pty floor: read")?;
        samples.push((mono_us() - t0) as f64);
        std::thread::sleep(Duration::from_millis(2));
    }
    Ok(summarize(&samples))
}
