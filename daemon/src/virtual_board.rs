//! An emulated DGT board + clock served on a real pseudo-terminal (for `AddVirtual`,
//! `chessclockd --demo`, `chessclock-emu` and tests).
//!
//! Owns the IO around the sans-IO [`Emulator`]: a pty pair whose slave path a daemon opens like
//! any tty, a tokio task that feeds host bytes in, writes board bytes out and wakes the emulator
//! at its deadlines, unplug/replug (with an optional symlink re-pointed atomically, as
//! `/dev/serial/by-path` does on a real replug), and autoplay for the demo. Time is
//! `tokio::time::Instant` since start, handed to the emulator as milliseconds, so paused-time
//! tests work. It must not contain protocol behaviour: that is all in
//! `chessclock_protocol::emulator`.

use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chessclock_protocol::emulator::{ClockView, EmuConfig, Emulator, Running};
use chessclock_protocol::{Button, ClockModel, Command};
use rustix::fs::{Mode, OFlags};
use serialport::{SerialPort as _, TTYPort};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep_until};
use tokio_serial::SerialStream;

/// How often the pty's exclusive flag is cleared (see [`Task::unlock`]).
const UNLOCK_EVERY: Duration = Duration::from_secs(1);

/// How long a write to the pty may block before the output is dropped (nobody reads the port,
/// as on a real serial line without a listener).
const WRITE_TIMEOUT: Duration = Duration::from_millis(200);

/// How the virtual board is set up.
#[derive(Debug, Clone)]
pub struct VirtualOptions {
    /// Clock model (overrides `emu.model`). Default DGT 3000.
    pub model: ClockModel,
    /// Clock in PC mode (overrides `emu.pc_mode`). Default true.
    pub pc_mode: bool,
    /// Clock switched on at start (overrides `emu.clock_on`). Default true.
    pub clock_on: bool,
    /// Press the lever by itself after a pseudo-random think time (1-4 s) whenever a half runs.
    pub autoplay: bool,
    /// A symlink to create (and re-point on replug) to the pty's slave path.
    pub link: Option<PathBuf>,
    /// Delays, quirks and faults.
    pub emu: EmuConfig,
}

impl Default for VirtualOptions {
    fn default() -> Self {
        VirtualOptions {
            model: ClockModel::Dgt3000,
            pc_mode: true,
            clock_on: true,
            autoplay: false,
            link: None,
            emu: EmuConfig::default(),
        }
    }
}

/// Physical actions on the virtual board and clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VirtualControl {
    /// Press the lever.
    Lever,
    /// Press a clock button.
    Button(Button),
    /// Switch the clock on or off.
    ClockPower(bool),
    /// Select or leave the clock's PC mode.
    PcMode(bool),
    /// The arbiter sets the clock to its own mode with this many seconds a side and starts it.
    OwnGame(u32),
    /// Pull the USB cable: the pty goes away, the daemon reads EOF/EIO.
    Unplug,
    /// Plug it back in: a new pty (the link, if any, points to it); the board starts IDLE.
    Replug,
    /// The link dies without the port closing (a Bluetooth board out of range): everything
    /// the board would send is lost until unmuted.
    Mute(bool),
    /// Move pieces on the board (each change is a FIELD_UPDATE).
    Pieces(chessclock_protocol::emulator::PieceAction),
    /// The board's output turns into noise (a wrong line speed, a faulty board): 256 bytes
    /// that form no message every 20 ms instead of its messages, until switched off.
    Flood(bool),
    /// The board hangs: it reads nothing and sends nothing; what it would have sent comes out
    /// at once when it goes on.
    Stall(bool),
}

/// A running virtual board. Dropping it stops the task, closes the pty and removes the link.
#[derive(Debug)]
pub struct VirtualBoard {
    path: PathBuf,
    link: Option<PathBuf>,
    control: mpsc::UnboundedSender<VirtualControl>,
    view: watch::Receiver<ClockView>,
    pty: watch::Receiver<Option<PathBuf>>,
    host: broadcast::Sender<(u64, Command)>,
    task: JoinHandle<()>,
}

/// The master side of one pty, with the slave kept open so the master never sees EIO when the
/// daemon closes and reopens the port.
struct Pty {
    master: SerialStream,
    _slave: TTYPort,
    /// A second slave fd (no controlling tty, no lock) to clear TIOCEXCL through.
    guard: OwnedFd,
    path: PathBuf,
}

impl std::fmt::Debug for Pty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pty").field("path", &self.path).finish()
    }
}

fn open_pty(link: Option<&Path>) -> io::Result<Pty> {
    let (master, slave) = TTYPort::pair().map_err(|e| {
        io::Error::other(format!(
            "cannot create a pseudo-terminal for the virtual board: {e} (is /dev/ptmx available?)"
        ))
    })?;
    // The slave from `pair()` carries neither TIOCEXCL nor a flock, so the daemon can open the
    // path exclusively while we hold it. (`set_exclusive(false)` would take a shared flock and
    // make the daemon's exclusive open fail, so it is deliberately not called.)
    let path = slave
        .name()
        .map(PathBuf::from)
        .ok_or_else(|| io::Error::other("the new pseudo-terminal has no slave path"))?;
    let master = SerialStream::try_from(master).map_err(|e| {
        io::Error::other(format!(
            "cannot drive the pty master {}: {e}",
            path.display()
        ))
    })?;
    let guard = rustix::fs::open(
        &path,
        OFlags::RDWR | OFlags::NOCTTY | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| io::Error::other(format!("cannot open {}: {e}", path.display())))?;
    if let Some(link) = link {
        point_link(link, &path)?;
    }
    Ok(Pty {
        master,
        _slave: slave,
        guard,
        path,
    })
}

/// Make `link` point to `target`, replacing any old link atomically (symlink + rename).
fn point_link(link: &Path, target: &Path) -> io::Result<()> {
    let mut tmp = link.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp)
        .and_then(|()| std::fs::rename(&tmp, link))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            io::Error::new(
                e.kind(),
                format!(
                    "cannot point the link {} at {}: {e} (does its directory exist and is it writable?)",
                    link.display(),
                    target.display()
                ),
            )
        })
}

impl VirtualBoard {
    /// Create the pty and start the emulator task. Must be called within a tokio runtime.
    pub fn start(opts: VirtualOptions) -> io::Result<VirtualBoard> {
        let pty = open_pty(opts.link.as_deref())?;
        let path = opts.link.clone().unwrap_or_else(|| pty.path.clone());
        let emu = Emulator::new(EmuConfig {
            model: opts.model,
            pc_mode: opts.pc_mode,
            clock_on: opts.clock_on,
            ..opts.emu.clone()
        });
        let (control, control_rx) = mpsc::unbounded_channel();
        let (view_tx, view) = watch::channel(emu.view());
        let (pty_tx, pty_rx) = watch::channel(Some(pty.path.clone()));
        let (host, _) = broadcast::channel(256);
        let task = tokio::spawn(
            Task {
                emu,
                start: Instant::now(),
                pty: Some(pty),
                link: opts.link.clone(),
                autoplay: opts.autoplay.then(Autoplay::default),
                view: view_tx,
                pty_path: pty_tx,
                host: host.clone(),
                muted: false,
                flood: None,
                stalled: false,
            }
            .run(control_rx),
        );
        Ok(VirtualBoard {
            path,
            link: opts.link,
            control,
            view,
            pty: pty_rx,
            host,
            task,
        })
    }

    /// The path a daemon opens: the link if one was asked for, else the first `/dev/pts/N`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The pty slave path in use now (`None` while unplugged); changes on replug.
    pub fn current_pty(&self) -> Option<PathBuf> {
        self.pty.borrow().clone()
    }

    /// Send physical actions.
    pub fn control(&self) -> mpsc::UnboundedSender<VirtualControl> {
        self.control.clone()
    }

    /// What the clock displays now (updated at least on every change).
    pub fn view(&self) -> watch::Receiver<ClockView> {
        self.view.clone()
    }

    /// What the host sent, with milliseconds since start.
    pub fn host_commands(&self) -> broadcast::Receiver<(u64, Command)> {
        self.host.subscribe()
    }
}

impl Drop for VirtualBoard {
    fn drop(&mut self) {
        self.task.abort();
        if let Some(link) = &self.link {
            let _ = std::fs::remove_file(link);
        }
    }
}

/// Deterministic think times for autoplay (1-4 s).
#[derive(Debug)]
struct Autoplay {
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

struct Task {
    emu: Emulator,
    start: Instant,
    pty: Option<Pty>,
    link: Option<PathBuf>,
    autoplay: Option<Autoplay>,
    view: watch::Sender<ClockView>,
    pty_path: watch::Sender<Option<PathBuf>>,
    host: broadcast::Sender<(u64, Command)>,
    muted: bool,
    /// Flooding: the noise generator's state.
    flood: Option<u64>,
    stalled: bool,
}

/// How often a flooding board sends its noise, and how much each time.
const FLOOD_EVERY: Duration = Duration::from_millis(20);
const FLOOD_BYTES: usize = 256;

impl Task {
    fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn instant(&self, ms: u64) -> Instant {
        self.start + Duration::from_millis(ms)
    }

    async fn run(mut self, mut control: mpsc::UnboundedReceiver<VirtualControl>) {
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
            tokio::select! {
                read = read_pty(self.pty.as_mut(), &mut buf), if !self.stalled => match read {
                    Ok(n) => {
                        let now = self.now();
                        self.emu.on_host_bytes(now, &buf[..n]);
                    }
                    Err(e) => {
                        tracing::debug!("virtual board: pty read failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                },
                _ = unlock.tick() => self.unlock(),
                _ = flood.tick(), if self.flood.is_some() => self.noise().await,
                msg = control.recv() => match msg {
                    Some(c) => self.control(c),
                    None => break,
                },
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

    /// Clear TIOCEXCL on the pty. A daemon opens the port exclusively; if it is killed, the
    /// kernel keeps the flag (our slave fds keep the tty alive) and the restarted daemon, unless
    /// root, gets EBUSY. Its flock (released when it dies) still keeps two daemons apart.
    fn unlock(&self) {
        if let Some(pty) = &self.pty
            && let Err(e) = rustix::termios::ioctl_tiocnxcl(&pty.guard)
        {
            tracing::debug!("virtual board: cannot clear TIOCEXCL: {e}");
        }
    }

    fn control(&mut self, c: VirtualControl) {
        let now = self.now();
        match c {
            VirtualControl::Lever => self.emu.press_lever(now),
            VirtualControl::Button(b) => self.emu.press_button(now, b),
            VirtualControl::ClockPower(on) => self.emu.set_clock_power(now, on),
            VirtualControl::PcMode(on) => self.emu.set_pc_mode(now, on),
            VirtualControl::OwnGame(seconds) => self.emu.start_own_game(now, seconds),
            VirtualControl::Mute(on) => self.muted = on,
            VirtualControl::Flood(on) => self.flood = on.then_some(self.now() | 1),
            VirtualControl::Stall(on) => self.stalled = on,
            VirtualControl::Pieces(action) => {
                if let Err(e) = self.emu.piece_action(now, action) {
                    tracing::warn!("virtual board: {e}");
                }
            }
            VirtualControl::Unplug => {
                self.pty = None;
                self.pty_path.send_replace(None);
            }
            VirtualControl::Replug => {
                if self.pty.is_some() {
                    return;
                }
                match open_pty(self.link.as_deref()) {
                    Ok(pty) => {
                        self.pty_path.send_replace(Some(pty.path.clone()));
                        self.pty = Some(pty);
                        self.emu.reset_board(now);
                    }
                    Err(e) => tracing::warn!("virtual board: replug failed: {e}"),
                }
            }
        }
    }

    /// A flooding board's noise: bytes below 0x80, which start no message.
    async fn noise(&mut self) {
        let Some(mut seed) = self.flood else { return };
        let noise: Vec<u8> = (0..FLOOD_BYTES)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((seed >> 33) % 0x80) as u8
            })
            .collect();
        self.flood = Some(seed);
        if let Some(pty) = self.pty.as_mut()
            && !self.stalled
            && !self.muted
            && tokio::time::timeout(WRITE_TIMEOUT, pty.master.write_all(&noise))
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
        if let Some(pty) = self.pty.as_mut()
            && !out.is_empty()
            && !self.muted
            && self.flood.is_none()
        {
            match tokio::time::timeout(WRITE_TIMEOUT, pty.master.write_all(&out)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::debug!("virtual board: pty write failed: {e}"),
                Err(_) => tracing::debug!("virtual board: nobody reads the port; output dropped"),
            }
        }
        for entry in self.emu.drain_host_log() {
            let _ = self.host.send((entry.at_ms, entry.command));
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

async fn read_pty(pty: Option<&mut Pty>, buf: &mut [u8]) -> io::Result<usize> {
    match pty {
        Some(p) => match p.master.read(buf).await {
            Ok(0) => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "pty master EOF",
            )),
            other => other,
        },
        None => std::future::pending().await,
    }
}
