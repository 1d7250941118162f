//! An emulated DGT board + clock (the sans-IO [`Emulator`]) served as a byte stream: on a real
//! pseudo-terminal ([`VirtualBoard`], for `chessclockd --demo`, `chessclock-emu` and tests, where
//! another program opens a path) or in memory over `tokio::io::duplex` ([`MemoryBoard`], for
//! `AddVirtual` clocks, which only the daemon's own actor talks to: `transport`).
//!
//! Owns the IO around the emulator: [`task`] runs it on its line, [`pty`] makes ptys and links,
//! [`follow`] sets a virtual clock's pieces as its game stands; and the serial number a
//! virtual clock's board reports ([`board_serial`]).
//! Unplug/replug work on both (a pty is replaced and its link re-pointed atomically, as
//! `/dev/serial/by-path` does on a real replug; an in-memory line is replaced and its host end
//! handed out again), and autoplay for the demo. It must not contain protocol behaviour: that
//! is all in `chessclock_protocol::emulator`.

mod follow;
mod pty;
mod task;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use chessclock_protocol::emulator::{ClockView, EmuConfig, Emulator};
use chessclock_protocol::{Button, ClockModel, Command};
use tokio::io::DuplexStream;
use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::device::io::persist::virtual_store_name;
use crate::device::{DeviceOptions, Transport};
use pty::Pty;
use task::{Autoplay, Line, Socket, Task};

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
    /// A symlink to create (and re-point on replug) to the pty's slave path (a pty board only).
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VirtualControl {
    /// Press the lever.
    Lever,
    /// Press a clock button.
    Button(Button),
    /// Switch the clock on or off.
    ClockPower(bool),
    /// Select or leave the clock's PC mode.
    PcMode(bool),
    /// The arbiter sets the clock to its own mode (seconds a side, maybe a period it adds)
    /// and starts it.
    OwnGame(chessclock_protocol::emulator::OwnPreset),
    /// Pull the USB cable: the pty (or the in-memory line) goes away, the daemon reads EOF/EIO.
    Unplug,
    /// Plug it back in: a new pty (the link, if any, points to it) or a new in-memory line; the
    /// board starts IDLE.
    Replug,
    /// The link dies without the port closing (a Bluetooth board out of range): everything
    /// the board would send is lost until unmuted.
    Mute(bool),
    /// Move pieces on the board (each change is a FIELD_UPDATE).
    Pieces(chessclock_protocol::emulator::PieceAction),
    /// Set the pieces as this position (by chess square): each square that differs is
    /// lifted, then the pieces are set down, each change a FIELD_UPDATE
    /// ([`follow::arrange_steps`]). A virtual clock's board follows its game so.
    Arrange(chessclock_protocol::Board),
    /// The board's output turns into noise (a wrong line speed, a faulty board): 256 bytes
    /// that form no message every 20 ms instead of its messages, until switched off.
    Flood(bool),
    /// The board hangs: it reads nothing and sends nothing; what it would have sent comes out
    /// at once when it goes on.
    Stall(bool),
}

/// The task and channels every virtual board has. Dropping it stops the task.
#[derive(Debug)]
struct Core {
    control: mpsc::UnboundedSender<VirtualControl>,
    view: watch::Receiver<ClockView>,
    commands: broadcast::Sender<(u64, Command)>,
    task: JoinHandle<()>,
}

impl Core {
    /// Start the emulator task on `line`; a replug plugs it into `socket`.
    fn start(opts: &VirtualOptions, line: Line, socket: Socket) -> Core {
        let emu = Emulator::new(EmuConfig {
            model: opts.model,
            pc_mode: opts.pc_mode,
            clock_on: opts.clock_on,
            ..opts.emu.clone()
        });
        let (control, control_rx) = mpsc::unbounded_channel();
        let (view_tx, view) = watch::channel(emu.view());
        let (commands, _) = broadcast::channel(256);
        let task = tokio::spawn(
            Task {
                emu,
                start: Instant::now(),
                line: Some(line),
                socket,
                autoplay: opts.autoplay.then(Autoplay::default),
                view: view_tx,
                commands: commands.clone(),
                muted: false,
                flood: None,
                stalled: false,
            }
            .run(control_rx),
        );
        Core {
            control,
            view,
            commands,
            task,
        }
    }
}

impl Drop for Core {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A running virtual board on a pty. Dropping it stops the task, closes the pty and removes
/// the link.
#[derive(Debug)]
pub struct VirtualBoard {
    core: Core,
    path: PathBuf,
    link: Option<PathBuf>,
    pty: watch::Receiver<Option<PathBuf>>,
}

impl VirtualBoard {
    /// Create the pty and start the emulator task. Must be called within a tokio runtime.
    pub fn start(opts: VirtualOptions) -> io::Result<VirtualBoard> {
        let pty = Pty::open(opts.link.as_deref())?;
        let path = opts.link.clone().unwrap_or_else(|| pty.path.clone());
        let (pty_tx, pty_rx) = watch::channel(Some(pty.path.clone()));
        let socket = Socket::Pty {
            link: opts.link.clone(),
            path: pty_tx,
        };
        let core = Core::start(&opts, Line::Pty(pty), socket);
        Ok(VirtualBoard {
            core,
            path,
            link: opts.link,
            pty: pty_rx,
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
        self.core.control.clone()
    }

    /// What the clock displays now (updated at least on every change).
    pub fn view(&self) -> watch::Receiver<ClockView> {
        self.core.view.clone()
    }

    /// What the host sent, with milliseconds since start.
    pub fn host_commands(&self) -> broadcast::Receiver<(u64, Command)> {
        self.core.commands.subscribe()
    }
}

impl Drop for VirtualBoard {
    fn drop(&mut self) {
        self.core.task.abort();
        if let Some(link) = &self.link {
            let _ = std::fs::remove_file(link);
        }
    }
}

/// A running virtual board in memory: the emulator on one end of a `tokio::io::duplex`, the
/// host's end in a [`HostEnd`]. No pty, no path, no file descriptors. Dropping it stops the
/// task; the host then reads end of file.
#[derive(Debug)]
pub struct MemoryBoard {
    core: Core,
}

impl MemoryBoard {
    /// Start the emulator task (`opts.link` is not used). Returns the board and where the
    /// host takes its end of the line: now, and again after each replug. Must be called
    /// within a tokio runtime.
    pub fn start(opts: &VirtualOptions) -> (MemoryBoard, HostEnd) {
        let host = HostEnd::default();
        let line = task::memory_line(&host);
        let core = Core::start(opts, line, Socket::Memory(host.clone()));
        (MemoryBoard { core }, host)
    }

    /// Send physical actions.
    pub fn control(&self) -> mpsc::UnboundedSender<VirtualControl> {
        self.core.control.clone()
    }

    /// What the clock displays now (updated at least on every change).
    pub fn view(&self) -> watch::Receiver<ClockView> {
        self.core.view.clone()
    }

    /// What the host sent, with milliseconds since start.
    pub fn host_commands(&self) -> broadcast::Receiver<(u64, Command)> {
        self.core.commands.subscribe()
    }
}

/// A virtual clock's line for its device actor: a [`MemoryBoard`] with the default setup in
/// memory, its host end replugged from the board's, the board kept as long as the actor, its
/// pieces set as the clock's game stands ([`follow`]). Its game is journaled under its name. Must be called within a tokio runtime (the actors').
pub(crate) fn transport(name: &str, options: &DeviceOptions) -> Transport<DuplexStream> {
    let (serial, long_serial) = serials(name);
    let mut setup = VirtualOptions::default();
    setup.emu.board.serial_number = serial;
    setup.emu.board.long_serial_number = long_serial;
    let (board, host) = MemoryBoard::start(&setup);
    let stream = host.take();
    let control = board.control();
    Transport {
        stream,
        reopen: Box::new(move || {
            host.take().ok_or_else(|| {
                io::Error::new(io::ErrorKind::NotFound, "the virtual board is unplugged")
            })
        }),
        port: PathBuf::from(format!("virtual:{name}")),
        journal: options.state_dir.as_ref().map(|_| virtual_store_name(name)),
        keep: Some(Box::new(board)),
        // Its pieces follow the game: nobody else can set them.
        follow: Some(Box::new(move |state| follow::follow_game(control, state))),
    }
}

/// The serial number a virtual clock's board reports (`0x45`), from the clock's name: `V`
/// and four letters or digits, the same for the same name across restarts, and never a real
/// DGT board's (theirs are five digits), so that `status` tells an emulated board from a
/// real one, and two virtual clocks do not report one board (unless their names' hashes
/// meet: one in 1.6 million).
pub fn board_serial(name: &str) -> String {
    serials(name).0
}

/// The serial number (5 characters) and the long serial number (10: `V` and nine) of the
/// board of the virtual clock `name`; the first is the second's `V` and its last four.
fn serials(name: &str) -> (String, String) {
    // FNV-1a (64 bits): stable across versions and machines, unlike the std hasher.
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    const DIGITS: &[u8; 36] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut long = String::from("V");
    let mut rest = hash % 36u64.pow(9);
    let mut tail = Vec::with_capacity(9);
    for _ in 0..9 {
        tail.push(char::from(DIGITS[(rest % 36) as usize]));
        rest /= 36;
    }
    long.extend(tail.iter().rev());
    let short = format!("V{}", &long[6..]);
    (short, long)
}

/// The host's end of a [`MemoryBoard`]'s line, waiting to be taken: once at the start and
/// once after each replug (an unplug takes back an end nobody took).
#[derive(Debug, Clone, Default)]
pub struct HostEnd(Arc<Mutex<Option<DuplexStream>>>);

impl HostEnd {
    /// The host's end of the current line, if it is plugged in and not taken yet.
    pub fn take(&self) -> Option<DuplexStream> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    fn put(&self, end: Option<DuplexStream>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = end;
    }
}

#[cfg(test)]
mod tests;
