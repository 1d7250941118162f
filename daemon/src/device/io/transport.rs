//! What a device actor runs on: an opened board line ([`Transport`]: the stream, how to
//! open it again after a replug, how the port is shown, where its game is journaled, what
//! the line does with the clock's published state), and how a tty becomes one
//! ([`Transport::tty`]). The in-memory virtual board makes its own
//! (`virtual_board::transport`); the supervisor chooses which.
//!
//! Owns opening a tty for an actor and naming its journal (the tty's by-path identity); it
//! must not start the actor or know a board's protocol.

use std::path::{Path, PathBuf};

use super::port::Tty;

use super::identity;
use super::port::{self, BoardIo, Opener};
use crate::device::options::{DeviceOptions, SpawnError};

/// An opened board line for one actor.
pub(crate) struct Transport<P: BoardIo> {
    /// The open line; `None`: not there yet (the actor starts disconnected and reopens).
    pub(crate) stream: Option<P>,
    /// Opens the line again after it was lost.
    pub(crate) reopen: Opener<P>,
    /// The port as the clock shows it: a tty's path, a virtual clock's `virtual:NAME`.
    pub(crate) port: PathBuf,
    /// The journal's store in the state directory (`None`: no state directory).
    pub(crate) journal: Option<String>,
    /// Lives as long as the actor (a virtual clock's board).
    pub(crate) keep: Option<Box<dyn Send>>,
    /// Given the clock's published state once the actor has it, before the actor runs (a
    /// virtual clock's board sets its pieces as the game stands: `virtual_board::follow`).
    pub(crate) follow: Option<Follow>,
}

/// What a line does with the clock's published state.
pub(crate) type Follow = Box<
    dyn FnOnce(tokio::sync::watch::Receiver<chessclock_device::session::interface::ClockState>)
        + Send,
>;

impl Transport<Tty> {
    /// Open the tty `path` of clock `index`; one that is not there yet is waited for if
    /// the options say so (the actor starts disconnected). Its game is journaled under its
    /// port's stable (by-path) name.
    pub(crate) fn tty(
        index: u32,
        path: &Path,
        options: &DeviceOptions,
    ) -> Result<Transport<Tty>, SpawnError> {
        let stream = open_or_wait(index, path, options)?;
        let journal = options.state_dir.as_ref().map(|dir| {
            let dirs = identity::BY_PATH_DIRS.map(Path::new);
            identity::store_for(dir, path, &dirs)
        });
        let reopen_path = path.to_path_buf();
        Ok(Transport {
            stream,
            reopen: Box::new(move || port::open_tty(&reopen_path)),
            port: path.to_path_buf(),
            journal,
            keep: None,
            follow: None,
        })
    }
}

/// Open a tty; one that is not there yet is waited for if the options say so (`None`).
fn open_or_wait(
    index: u32,
    path: &Path,
    options: &DeviceOptions,
) -> Result<Option<Tty>, SpawnError> {
    match port::open_tty(path) {
        Ok(stream) => {
            port::discard_old_input(&stream, path);
            Ok(Some(stream))
        }
        // Not there yet, or held for a moment by another program (ModemManager probing a
        // new tty): a configured or remembered board is waited for all the same.
        Err(e)
            if options.wait_for_port
                && matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::ResourceBusy
                ) =>
        {
            tracing::warn!(
                clock = index,
                "{e}; the clock waits for it, disconnected, checking every {:?}",
                options.reopen_interval
            );
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}
