//! A stand-in for systemd's notification socket: tests run the daemon with
//! `NOTIFY_SOCKET=<path>` (and `WATCHDOG_USEC`) and read what it reports (`READY=1`,
//! `STATUS=…`, `WATCHDOG=1`, `STOPPING=1`), without systemd.
//!
//! Owns one datagram socket in a temp dir. It does not interpret the messages beyond
//! splitting them into `KEY=VALUE` lines.

use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::tempdir::TempDir;

/// A bound notification socket; removed on drop.
#[derive(Debug)]
pub struct NotifySocket {
    socket: UnixDatagram,
    path: PathBuf,
    _dir: TempDir,
}

impl NotifySocket {
    /// Bind a fresh socket; pass [`NotifySocket::path`] as `NOTIFY_SOCKET` to the daemon.
    pub fn bind() -> Result<NotifySocket> {
        use std::os::unix::fs::PermissionsExt;
        let dir = TempDir::new("notify").context("cannot create a temp dir for NOTIFY_SOCKET")?;
        let path = dir.path().join("notify.sock");
        let socket =
            UnixDatagram::bind(&path).with_context(|| format!("cannot bind {}", path.display()))?;
        // The daemon may run as another user in tests.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777))
            .with_context(|| format!("cannot open up {}", path.display()))?;
        Ok(NotifySocket {
            socket,
            path,
            _dir: dir,
        })
    }

    /// The socket path, for `NOTIFY_SOCKET`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next datagram, or `None` after `timeout`.
    pub fn recv(&self, timeout: Duration) -> Option<String> {
        self.socket
            .set_read_timeout(Some(timeout.max(Duration::from_millis(1))))
            .ok()?;
        let mut buf = vec![0u8; 4096];
        let n = self.socket.recv(&mut buf).ok()?;
        Some(String::from_utf8_lossy(&buf[..n]).into_owned())
    }

    /// Wait until a datagram contains the line `line` (e.g. `READY=1`); returns every
    /// message received up to and including it, or `None` after `timeout`.
    pub fn wait_for_line(&self, line: &str, timeout: Duration) -> Option<Vec<String>> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let msg = self.recv(left)?;
            let hit = msg.lines().any(|l| l == line);
            seen.push(msg);
            if hit {
                return Some(seen);
            }
        }
    }
}
