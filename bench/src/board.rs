//! One emulated DGT board + clock served on the master side of a pty inside the bench, with
//! the instrumentation the report needs: when each lever change was written, when each
//! set-and-run arrived, what the clock showed and when, and the bytes and messages in each
//! direction.
//!
//! Owns the IO around the sans-IO [`Emulator`] (no wire delay) and the scripted player
//! (a press 2-8 s after its half starts running, from a seeded RNG). Timestamps are
//! CLOCK_MONOTONIC µs ([`crate::mono_us`]), the time base of the daemon's `as_of_us`. It must
//! not judge what it records: that is [`crate::analysis`].

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use chessclock_protocol::emulator::{ClockView, EmuConfig, Emulator, Running};
use chessclock_protocol::{ClockCommand, Command, Decoded, Decoder};
use serialport::{SerialPort as _, TTYPort};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::watch;
use tokio_serial::SerialStream;

use crate::fidelity::Shown;
use crate::mono_us;

/// A half of the clock (the protocol's). Where the bench records which half a set-and-run
/// or a press makes run, `None` is both stopped (or a run mode the bench does not follow).
pub use chessclock_protocol::Half;

/// The half a set-and-run's flags make run.
fn run_half(flags: u8) -> Option<Half> {
    match flags {
        f if f & 0x04 != 0 => None,
        f if f & 0x03 == 0x01 => Some(Half::Left),
        f if f & 0x03 == 0x02 => Some(Half::Right),
        _ => None,
    }
}

/// What the boards do now (one value shared by all board tasks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Serve the daemon, press nothing.
    Serve,
    /// Serve and press the lever as the scripted players.
    Play,
    /// Stop and hand the log back.
    Stop,
}

/// A press the scripted player made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Press {
    /// When the lever change was written to the pty, µs.
    pub t_us: u64,
    /// The half that should run after it (`None`: the clock stood).
    pub expect: Option<Half>,
}

/// Everything one board recorded.
#[derive(Debug, Clone, Default)]
pub struct BoardLog {
    /// Lever presses, in order.
    pub presses: Vec<Press>,
    /// Set-and-run commands received: when their last byte was read, and the half they run.
    pub set_and_runs: Vec<(u64, Option<Half>)>,
    /// Display changes (the first entry is the display when the board started).
    pub shown: Vec<Shown>,
    /// Bytes host → board, with the instant of each read.
    pub bytes_in: Vec<(u64, u32)>,
    /// Bytes board → host, with the instant of each write.
    pub bytes_out: Vec<(u64, u32)>,
    /// Whole messages board → host (decoded from what was written), with the instant of
    /// each write.
    pub messages_out: Vec<(u64, u32)>,
}

/// A board's pty: serve it with [`ServedBoard::run`].
pub struct ServedBoard {
    master: SerialStream,
    _slave: TTYPort,
    path: PathBuf,
    emu: Emulator,
    rng: fastrand::Rng,
    base_us: u64,
    log: BoardLog,
    decoder: Decoder,
    press_at: Option<u64>,
}

impl std::fmt::Debug for ServedBoard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServedBoard")
            .field("path", &self.path)
            .finish()
    }
}

impl ServedBoard {
    /// Open a pty for a board whose player draws think times from `seed`. Must be called
    /// within a tokio runtime.
    pub fn open(seed: u64, base_us: u64) -> Result<ServedBoard> {
        let (master, slave) = TTYPort::pair().context(
            "cannot create a pseudo-terminal for an emulated board (is /dev/ptmx available?)",
        )?;
        let path = slave
            .name()
            .map(PathBuf::from)
            .context("the new pseudo-terminal has no slave path")?;
        let master = SerialStream::try_from(master)
            .with_context(|| format!("cannot drive the pty master of {}", path.display()))?;
        let emu = Emulator::new(EmuConfig {
            ack_delay_ms: 0,
            report_lag_ms: 0,
            reply_delay_ms: 0,
            ..EmuConfig::default()
        });
        let mut log = BoardLog::default();
        let v = emu.view();
        log.shown.push(Shown {
            t_us: mono_us(),
            left_s: v.left_seconds,
            right_s: v.right_seconds,
        });
        Ok(ServedBoard {
            master,
            _slave: slave,
            path,
            emu,
            rng: fastrand::Rng::with_seed(seed),
            base_us,
            log,
            decoder: Decoder::new(),
            press_at: None,
        })
    }

    /// The tty path the daemon opens.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    fn ms(&self, t_us: u64) -> u64 {
        t_us.saturating_sub(self.base_us) / 1000
    }

    /// Serve until the phase says [`Phase::Stop`]; returns the log.
    pub async fn run(mut self, mut phase: watch::Receiver<Phase>) -> BoardLog {
        let mut buf = [0u8; 512];
        loop {
            let playing = *phase.borrow() == Phase::Play;
            if !playing {
                self.press_at = None;
            }
            let next_ms = [self.emu.poll_timeout(), self.press_at]
                .into_iter()
                .flatten()
                .min();
            let wake = next_ms.map_or(Duration::from_secs(3600), |ms| {
                Duration::from_micros((self.base_us + ms * 1000).saturating_sub(mono_us()))
            });
            let mut pressed = None;
            tokio::select! {
                read = self.master.read(&mut buf) => match read {
                    Ok(0) | Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
                    Ok(n) => {
                        let t = mono_us();
                        self.log.bytes_in.push((t, n as u32));
                        self.emu.on_host_bytes(self.ms(t), &buf[..n]);
                        self.take_host_log(t);
                    }
                },
                () = tokio::time::sleep(wake) => {
                    let t = mono_us();
                    let now = self.ms(t);
                    self.emu.handle_timeout(now);
                    if playing && self.press_at.is_some_and(|p| p <= now) {
                        self.press_at = None;
                        let before = self.emu.view().running;
                        self.emu.press_lever(now);
                        pressed = Some(match before {
                            Running::Left => Some(Half::Right),
                            Running::Right => Some(Half::Left),
                            Running::None => None,
                        });
                    }
                }
                changed = phase.changed() => {
                    if changed.is_err() || *phase.borrow() == Phase::Stop {
                        break;
                    }
                }
            }
            self.flush(pressed, playing).await;
        }
        self.log
    }

    fn take_host_log(&mut self, t_us: u64) {
        for entry in self.emu.drain_host_log() {
            if let Command::Clock(ClockCommand::SetAndRun(s)) = entry.command {
                self.log.set_and_runs.push((t_us, run_half(s.flags.0)));
            }
        }
    }

    /// Write due output (timestamping a press after its bytes are written), record display
    /// changes and plan the next press.
    async fn flush(&mut self, pressed: Option<Option<Half>>, playing: bool) {
        let now = self.ms(mono_us());
        let out = self.emu.poll_output(now);
        if !out.is_empty() {
            // A daemon that does not read fills the pty: then the board output is lost, as on
            // a serial line without a listener.
            let write = self.master.write_all(&out);
            let _ = tokio::time::timeout(Duration::from_millis(200), write).await;
            let t = mono_us();
            self.log.bytes_out.push((t, out.len() as u32));
            self.decoder.push(&out);
            let messages = self
                .decoder
                .by_ref()
                .filter(|item| matches!(item, Ok(Decoded::Message(_))))
                .count();
            self.log.messages_out.push((t, messages as u32));
        }
        if let Some(expect) = pressed {
            self.log.presses.push(Press {
                t_us: mono_us(),
                expect,
            });
        }
        let v = self.emu.view();
        self.record_view(&v);
        if playing && self.press_at.is_none() && own_side_up(&v) {
            self.press_at = Some(now + self.rng.u64(2000..=8000));
        }
    }

    fn record_view(&mut self, v: &ClockView) {
        let last = self.log.shown.last().copied();
        if last.is_none_or(|s| (s.left_s, s.right_s) != (v.left_seconds, v.right_seconds)) {
            self.log.shown.push(Shown {
                t_us: mono_us(),
                left_s: v.left_seconds,
                right_s: v.right_seconds,
            });
        }
    }
}

/// A half runs with its end of the lever up: its player is to move and may press.
fn own_side_up(v: &ClockView) -> bool {
    match v.running {
        Running::Left => !v.right_high,
        Running::Right => v.right_high,
        Running::None => false,
    }
}
