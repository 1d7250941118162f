//! An open tty as the device actor reads and writes it ([`Tty`]): opened and set up here
//! (9600 baud, 8N1, raw, no flow control, exclusive: `TIOCEXCL` and an exclusive `flock`),
//! and registered with the reactor for reading only.
//!
//! A DGT command is at most a few dozen bytes and a tty's output buffer 4 KiB, so a write
//! is made at once without waiting for write readiness; registering a tty for writing too
//! woke the device thread once more after every command, when the line had sent the bytes
//! (measured at N = 128: 43 % of the device thread's `epoll_wait` returns carried only
//! `EPOLLOUT`, docs/benchmarks.md). A write the tty refuses (its buffer full: a board that
//! no longer reads) is tried again after [`WRITE_RETRY`], within the actor's write timeout.
//! Owns this IO only; what is written is the session's.

use std::fs::File;
use std::future::Future;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use rustix::fs::{FlockOperation, Mode, OFlags};
use rustix::io::Errno;
use rustix::termios::{ControlModes, InputModes, OptionalActions, QueueSelector};
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};

/// How long a write the tty refused waits before it is tried again.
pub(crate) const WRITE_RETRY: Duration = Duration::from_millis(5);

/// An open board tty, read through the reactor, written directly.
#[derive(Debug)]
pub(crate) struct Tty {
    fd: AsyncFd<File>,
    /// A write the tty refused waits for this before it is tried again.
    retry: Option<Pin<Box<tokio::time::Sleep>>>,
}

/// How opening failed: the `open(2)` or `flock(2)` (explained by the caller from its
/// errno), or setting the line up.
#[derive(Debug)]
pub(crate) enum OpenError {
    /// `open(2)` failed.
    Open(Errno),
    /// Another program holds the port's exclusive lock.
    Busy,
    /// The port opened but could not be set up as a serial line.
    Setup(io::Error),
}

impl Tty {
    /// Open `path` and set it up as a DGT board's line. The caller checked it is a free
    /// terminal ([`super::check_free`]).
    pub(crate) fn open(path: &Path) -> Result<Tty, OpenError> {
        let fd = rustix::fs::open(
            path,
            OFlags::RDWR | OFlags::NOCTTY | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(OpenError::Open)?;
        rustix::termios::ioctl_tiocexcl(&fd).map_err(|e| OpenError::Setup(e.into()))?;
        match rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => {}
            Err(Errno::WOULDBLOCK) => return Err(OpenError::Busy),
            Err(e) => return Err(OpenError::Open(e)),
        }
        setup_line(&fd).map_err(OpenError::Setup)?;
        // Deprecated for any `AsRawFd` whose descriptor could change or close under the
        // reactor (tokio #8587); a `File` owns its descriptor for as long as it lives, which
        // is what `register_with_interest` (unsafe, and this workspace forbids unsafe code)
        // asks of its caller.
        #[allow(deprecated)]
        let fd =
            AsyncFd::with_interest(File::from(fd), Interest::READABLE).map_err(OpenError::Setup)?;
        Ok(Tty { fd, retry: None })
    }

    /// Discard what the board sent and nobody read yet.
    pub(crate) fn discard_input(&self) -> io::Result<()> {
        rustix::termios::tcflush(self.fd.get_ref(), QueueSelector::IFlush).map_err(Into::into)
    }
}

impl Drop for Tty {
    fn drop(&mut self) {
        // Our exclusivity goes with our descriptor: a pty's slave keeps `TIOCEXCL` while its
        // master is open, and the next open (ours after a replug, a probe's, another
        // program's) must not find the port held by nobody.
        let _ = rustix::termios::ioctl_tiocnxcl(self.fd.get_ref());
    }
}

impl AsFd for Tty {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.get_ref().as_fd()
    }
}

/// 9600 baud, 8 data bits, no parity, one stop bit, raw, no flow control, the modem lines
/// ignored.
fn setup_line(fd: &OwnedFd) -> io::Result<()> {
    let mut t = rustix::termios::tcgetattr(fd)?;
    t.make_raw();
    t.control_modes |= ControlModes::CREAD | ControlModes::CLOCAL;
    t.control_modes -= ControlModes::PARENB | ControlModes::CSTOPB | ControlModes::CRTSCTS;
    t.input_modes -= InputModes::IXON | InputModes::IXOFF | InputModes::IXANY;
    t.set_speed(9600)?;
    rustix::termios::tcsetattr(fd, OptionalActions::Now, &t)?;
    Ok(())
}

impl AsyncRead for Tty {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            let mut guard = ready!(self.fd.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            let room = unfilled.len();
            match guard.try_io(|fd| fd.get_ref().read(unfilled)) {
                Ok(Ok(n)) => {
                    // A read that left room took all the line discipline had: the next
                    // read waits for the reactor's next edge (new bytes bring one) instead
                    // of calling read() only to be told EAGAIN, as tokio's sockets do.
                    if n > 0 && n < room {
                        guard.clear_ready();
                    }
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(e)) => return Poll::Ready(Err(e)),
                // Not readable after all: readiness cleared, wait again.
                Err(_would_block) => continue,
            }
        }
    }
}

impl AsyncWrite for Tty {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            if let Some(retry) = self.retry.as_mut() {
                ready!(retry.as_mut().poll(cx));
                self.retry = None;
            }
            match self.fd.get_ref().write(data) {
                Ok(n) => return Poll::Ready(Ok(n)),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.retry = Some(Box::pin(tokio::time::sleep(WRITE_RETRY)));
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Written straight to the tty: nothing is held here. Waiting for the line to send
        // the bytes (`tcdrain`) would block every board on the device thread.
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
