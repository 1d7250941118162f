//! The virtual board's task: the sans-IO [`Emulator`] on a byte stream (a pty, or one end of a
//! `tokio::io::duplex`), woken at its deadlines, with the physical actions of
//! [`VirtualControl`] and autoplay.
//!
//! Owns the emulator, the line it is plugged into and what a replug does (a new pty, or a new
//! duplex whose host end is left for the host to take). Time is `tokio::time::Instant` since
//! start, handed to the emulator as milliseconds, so paused-time tests work. It must not contain
//! protocol behaviour (that is `chessclock_protocol::emulator`'s) nor open a pty itself (that
//! is [`super::pty`]'s).

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use chessclock_protocol::Command;
use chessclock_protocol::emulator::{ClockView, Emulator, Lcg, Running};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::sync::{broadcast, mpsc, watch};
use tokio::time::{Instant, sleep_until};

use super::pty::Pty;
use super::{HostEnd, VirtualControl};

/// How often the pty's exclusive flag is cleared (see [`Pty::unlock`]).
const UNLOCK_EVERY: Duration = Duration::from_secs(1);

/// How long a write may block before the output is dropped (nobody reads the port, as on a
/// real serial line without a listener).
const WRITE_TIMEOUT: Duration = Duration::from_millis(200);

/// How often a flooding board sends its noise, and how much each time.
const FLOOD_EVERY: Duration = Duration::from_millis(20);
const FLOOD_BYTES: usize = 256;

/// Bytes an in-memory line holds in each direction before a write waits.
pub(super) const DUPLEX_BUFFER: usize = 4096;

/// The stream the board is plugged into.
pub(super) enum Line {
    Pty(Pty),
    Memory(DuplexStream),
}

impl Line {
    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Line::Pty(p) => p.master.read(buf).await,
            Line::Memory(s) => s.read(buf).await,
        }
    }

    async fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Line::Pty(p) => p.master.write_all(bytes).await,
            Line::Memory(s) => s.write_all(bytes).await,
        }
    }
}

/// What a replug plugs the board into.
pub(super) enum Socket {
    /// A new pty (the link, if any, re-pointed to it); its path is published.
    Pty {
        link: Option<PathBuf>,
        path: watch::Sender<Option<PathBuf>>,
    },
    /// A new duplex; its host end waits in the [`HostEnd`] for the host to take.
    Memory(HostEnd),
}

/// A new in-memory line: the board's end, with the host's end left in `host`.
pub(super) fn memory_line(host: &HostEnd) -> Line {
    let (near, far) = tokio::io::duplex(DUPLEX_BUFFER);
    host.put(Some(near));
    Line::Memory(far)
}

/// Deterministic think times for autoplay (1-4 s).
#[derive(Debug)]
pub(super) struct Autoplay {
    seed: u64,
    press_at: Option<u64>,
}

impl Default for Autoplay {
    fn default() -> Self {
        Autoplay {
            seed: 0x2545_F491_4F6C_DD1D,
            press_at: None,
        }
    }
}

impl Autoplay {
    fn think_ms(&mut self) -> u64 {
        self.seed = self
            .seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        1000 + (self.seed >> 33) % 3001
    }

    /// While a half runs with its lever end up (its player is to move), one press is planned;
    /// a player can only press the lever down on their own side. Further set-and-runs for the
    /// same half (display refreshes) do not postpone it.
    fn update(&mut self, view: &ClockView, now: u64) {
        let own_side_up = match view.running {
            Running::Left => !view.right_high,
            Running::Right => view.right_high,
            Running::None => false,
        };
        if !own_side_up {
            self.press_at = None;
        } else if self.press_at.is_none() {
            self.press_at = Some(now + self.think_ms());
        }
    }
}

pub(super) struct Task {
    pub(super) emu: Emulator,
    pub(super) start: Instant,
    /// The line the board is plugged into (`None` while unplugged).
    pub(super) line: Option<Line>,
    pub(super) socket: Socket,
    pub(super) autoplay: Option<Autoplay>,
    pub(super) view: watch::Sender<ClockView>,
    pub(super) commands: broadcast::Sender<(u64, Command)>,
    pub(super) muted: bool,
    /// Flooding: the noise generator's state.
    pub(super) flood: Option<Lcg>,
    pub(super) stalled: bool,
}

impl Task {
    fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn instant(&self, ms: u64) -> Instant {
        self.start + Duration::from_millis(ms)
    }

    pub(super) async fn run(mut self, mut control: mpsc::UnboundedReceiver<VirtualControl>) {
        let mut buf = [0u8; 256];
        let mut unlock = tokio::time::interval(UNLOCK_EVERY);
        let mut flood = tokio::time::interval(FLOOD_EVERY);
        loop {
            let deadline = [
                self.emu.poll_timeout(),
                self.autoplay.as_ref().and_then(|a| a.press_at),
            ]
            .into_iter()
            .flatten()
            .min();
            let far = self.start + Duration::from_secs(365 * 24 * 3600);
            let wake = deadline.map_or(far, |ms| self.instant(ms));
            let on_pty = matches!(self.line, Some(Line::Pty(_)));
            // Physical actions first: one sent before the host's bytes arrived (the pieces
            // of a game resumed after a restart) is on the board before it answers them.
            tokio::select! {
                biased;
                msg = control.recv() => match msg {
                    Some(c) => self.control(c),
                    None => break,
                },
                read = read_line(self.line.as_mut(), &mut buf), if !self.stalled => match read {
                    Ok(n) => {
                        let now = self.now();
                        self.emu.on_host_bytes(now, &buf[..n]);
                    }
                    Err(e) => {
                        tracing::debug!("virtual board: read failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                },
                _ = unlock.tick(), if on_pty => {
                    if let Some(Line::Pty(p)) = &self.line {
                        p.unlock();
                    }
                }
                _ = flood.tick(), if self.flood.is_some() => self.noise().await,
                () = sleep_until(wake) => {
                    let now = self.now();
                    self.emu.handle_timeout(now);
                    if let Some(a) = self.autoplay.as_mut()
                        && a.press_at.is_some_and(|t| t <= now)
                    {
                        a.press_at = None;
                        self.emu.press_lever(now);
                    }
                }
            }
            self.flush().await;
        }
    }

    fn control(&mut self, c: VirtualControl) {
        let now = self.now();
        match c {
            VirtualControl::Lever => self.emu.press_lever(now),
            VirtualControl::Button(b) => self.emu.press_button(now, b),
            VirtualControl::ClockPower(on) => self.emu.set_clock_power(now, on),
            VirtualControl::PcMode(on) => self.emu.set_pc_mode(now, on),
            VirtualControl::OwnGame(preset) => self.emu.start_own_preset(now, preset),
            VirtualControl::Mute(on) => self.muted = on,
            VirtualControl::Flood(on) => self.flood = on.then(|| Lcg::new(self.now())),
            VirtualControl::Stall(on) => self.stalled = on,
            VirtualControl::Pieces(action) => {
                if let Err(e) = self.emu.piece_action(now, action) {
                    tracing::warn!("virtual board: {e}");
                }
            }
            VirtualControl::Arrange(board) => {
                for step in super::follow::arrange_steps(self.emu.pieces(), &board) {
                    if let Err(e) = self.emu.piece_action(now, step) {
                        tracing::warn!("virtual board: {e}");
                    }
                }
            }
            VirtualControl::Unplug => {
                self.line = None;
                match &self.socket {
                    Socket::Pty { path, .. } => {
                        path.send_replace(None);
                    }
                    // A host end not taken yet goes with the cable.
                    Socket::Memory(host) => host.put(None),
                }
            }
            VirtualControl::Replug => {
                if self.line.is_some() {
                    return;
                }
                match &self.socket {
                    Socket::Pty { link, path } => match Pty::open(link.as_deref()) {
                        Ok(pty) => {
                            path.send_replace(Some(pty.path.clone()));
                            self.line = Some(Line::Pty(pty));
                        }
                        Err(e) => {
                            tracing::warn!("virtual board: replug failed: {e}");
                            return;
                        }
                    },
                    Socket::Memory(host) => self.line = Some(memory_line(host)),
                }
                self.emu.reset_board(now);
            }
        }
    }

    /// A flooding board's noise: bytes below 0x80, which start no message.
    async fn noise(&mut self) {
        let Some(rng) = self.flood.as_mut() else {
            return;
        };
        let noise = rng.noise(FLOOD_BYTES);
        if let Some(line) = self.line.as_mut()
            && !self.stalled
            && !self.muted
            && tokio::time::timeout(WRITE_TIMEOUT, line.write_all(&noise))
                .await
                .is_err()
        {
            tracing::debug!("virtual board: nobody reads the port; noise dropped");
        }
    }

    /// Write due output, publish the view and the host commands received.
    async fn flush(&mut self) {
        let now = self.now();
        // A hung board keeps what it would send; a flooding one sends noise instead.
        let out = if self.stalled {
            Vec::new()
        } else {
            self.emu.poll_output(now)
        };
        if let Some(line) = self.line.as_mut()
            && !out.is_empty()
            && !self.muted
            && self.flood.is_none()
        {
            match tokio::time::timeout(WRITE_TIMEOUT, line.write_all(&out)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::debug!("virtual board: write failed: {e}"),
                Err(_) => tracing::debug!("virtual board: nobody reads the port; output dropped"),
            }
        }
        for entry in self.emu.drain_host_log() {
            let _ = self.commands.send((entry.at_ms, entry.command));
        }
        let view = self.emu.view();
        if let Some(a) = self.autoplay.as_mut() {
            a.update(&view, now);
        }
        self.view.send_if_modified(|v| {
            let changed = *v != view;
            if changed {
                *v = view;
            }
            changed
        });
    }
}

async fn read_line(line: Option<&mut Line>, buf: &mut [u8]) -> io::Result<usize> {
    match line {
        Some(l) => match l.read(buf).await {
            Ok(0) => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the host's end is closed",
            )),
            other => other,
        },
        None => std::future::pending().await,
    }
}
