//! The pseudo-terminal a [`super::VirtualBoard`] is served on: creating the pair, the link to
//! its slave path, and clearing the exclusive flag a killed daemon leaves behind.
//!
//! Owns the pty's file descriptors and nothing else. It must not know the emulator or the
//! protocol: it only gives the task a byte stream with a path.

use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};
use serialport::{SerialPort as _, TTYPort};
use tokio_serial::SerialStream;

/// The master side of one pty, with the slave kept open so the master never sees EIO when the
/// daemon closes and reopens the port.
pub(super) struct Pty {
    pub(super) master: SerialStream,
    _slave: TTYPort,
    /// A second slave fd (no controlling tty, no lock) to clear TIOCEXCL through.
    guard: OwnedFd,
    pub(super) path: PathBuf,
}

impl std::fmt::Debug for Pty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pty").field("path", &self.path).finish()
    }
}

impl Pty {
    /// Create a pty; point `link` (if any) at its slave path.
    pub(super) fn open(link: Option<&Path>) -> io::Result<Pty> {
        let (master, slave) = TTYPort::pair().map_err(|e| {
            io::Error::other(format!(
                "cannot create a pseudo-terminal for the virtual board: {e} (is /dev/ptmx \
                 available?)"
            ))
        })?;
        // The slave from `pair()` carries neither TIOCEXCL nor a flock, so the daemon can open
        // the path exclusively while we hold it. (`set_exclusive(false)` would take a shared
        // flock and make the daemon's exclusive open fail, so it is deliberately not called.)
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

    /// Clear TIOCEXCL. A daemon opens the port exclusively; if it is killed, the kernel keeps
    /// the flag (our slave fds keep the tty alive) and the restarted daemon, unless root, gets
    /// EBUSY. Its flock (released when it dies) still keeps two daemons apart.
    pub(super) fn unlock(&self) {
        if let Err(e) = rustix::termios::ioctl_tiocnxcl(&self.guard) {
            tracing::debug!("virtual board: cannot clear TIOCEXCL: {e}");
        }
    }
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
