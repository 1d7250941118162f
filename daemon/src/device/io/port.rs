//! Opening serial ports: ttys (and the ptys of emulated boards) at 9600 8N1 raw, as a
//! [`Tty`] registered with the reactor for reading only.
//!
//! The only place that opens a tty. Errors say what to do (permissions, a port in use; a
//! refused open names what refused it, [`denied`]). Also
//! what the device actor needs of a port at all ([`BoardIo`], [`Opener`]), so it runs as well
//! on an in-memory stream.
//!
//! A port another program holds is never taken over and its exclusivity never cleared:
//! [`open_tty`] first asks the port itself (our own descriptor: open, is it a terminal, the
//! exclusive lock free) and closes that descriptor plainly, and only then opens it
//! exclusively as a [`Tty`] (`TIOCEXCL` and an exclusive `flock`), whose drop clears the
//! exclusivity it set.

use std::io;
use std::path::Path;

use rustix::fs::{FlockOperation, Mode, OFlags};
use rustix::io::Errno;
use tokio::io::{AsyncRead, AsyncWrite};

/// A byte stream to a board: a tty, or one end of a `tokio::io::duplex` for an emulated one.
pub(crate) trait BoardIo: AsyncRead + AsyncWrite + Unpin + Send + 'static {}

impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> BoardIo for T {}

/// Opens a board's stream again after it was lost (a replug).
pub(crate) type Opener<P> = Box<dyn FnMut() -> io::Result<P> + Send>;

/// Open `path` as a DGT board: 9600 baud, 8N1, no flow control, exclusive.
///
/// Errors: `NotFound` (nothing there), `PermissionDenied`, `ResourceBusy` (another program
/// holds it), `InvalidInput` (not a terminal); each message says what to do.
pub(crate) fn open_tty(path: &Path) -> io::Result<Tty> {
    // Never open read-write what is not a terminal (a regular file, a FIFO, a disk).
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::FileTypeExt;
        if !meta.file_type().is_char_device() {
            return Err(not_a_tty(path));
        }
    }
    check_free(path)?;
    Tty::open(path).map_err(|e| match e {
        OpenError::Open(errno) => explain_os_error(path, errno),
        OpenError::Busy => busy(path),
        OpenError::Setup(e) => io::Error::new(
            e.kind(),
            format!("cannot set {} up as a serial line: {e}", shown(path)),
        ),
    })
}

/// Discard what the board sent before the daemon's first open of `path` (to a daemon that
/// has stopped since): it tells a past state, and the first report read must be the board's
/// present one (a lever pressed while the daemon was down is judged by it,
/// docs/reliability.md). A reopen after a loss keeps what came meanwhile.
pub(crate) fn discard_old_input(stream: &Tty, path: &Path) {
    if let Err(e) = stream.discard_input() {
        tracing::debug!("{}: old input not discarded: {e}", shown(path));
    }
}

/// Whether `path` can be ours: it opens (a tty held with `TIOCEXCL` does not, for an
/// unprivileged daemon: `EBUSY`), is a terminal, and nobody holds its exclusive `flock`
/// (serialport and programs built on it take one). The descriptor is closed plainly, so
/// nothing of another owner's is changed.
fn check_free(path: &Path) -> io::Result<()> {
    let fd = rustix::fs::open(
        path,
        OFlags::RDWR | OFlags::NOCTTY | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| explain_os_error(path, e))?;
    if !rustix::termios::isatty(&fd) {
        return Err(not_a_tty(path));
    }
    match rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(()),
        Err(Errno::WOULDBLOCK) => Err(busy(path)),
        Err(e) => Err(explain_os_error(path, e)),
    }
    // `fd` closes here, releasing the lock; no TIOCNXCL.
}

/// `path` for a message, cut to about 100 characters.
fn shown(path: &Path) -> String {
    chessclock_engine::words::cut(&path.to_string_lossy()).into_owned()
}

fn not_a_tty(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is not a serial device; give the board's tty, such as /dev/ttyACM0, \
             /dev/rfcomm0 or a /dev/dgt/ link",
            shown(path)
        ),
    )
}

fn busy(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::ResourceBusy,
        format!(
            "{} is busy: another program has it open (ModemManager? install the udev rules \
             that set ID_MM_DEVICE_IGNORE, or stop the other program: `fuser -v {0}`)",
            shown(path)
        ),
    )
}

/// An error of the `open(2)` or `flock(2)` we make ourselves, by errno.
fn explain_os_error(path: &Path, errno: Errno) -> io::Error {
    let shown = shown(path);
    match errno {
        Errno::NOENT => io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "{shown} does not exist; check the board is plugged in \
                 (`ls /dev/ttyACM* /dev/ttyUSB* /dev/rfcomm*`)"
            ),
        ),
        Errno::ACCESS | Errno::PERM => {
            let (file, caller, names) = denied::facts(path);
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                denied::explain(&shown, errno == Errno::PERM, file.as_ref(), &caller, &names),
            )
        }
        Errno::BUSY => busy(path),
        _ => {
            let io = io::Error::from(errno);
            io::Error::new(io.kind(), format!("cannot open {shown}: {io}"))
        }
    }
}

mod denied;
mod tty;

use tty::OpenError;
pub(crate) use tty::Tty;

#[cfg(test)]
mod tests;
