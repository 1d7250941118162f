//! Errors of the store. Each says which file, what went wrong and what to do.

use std::path::PathBuf;

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A filesystem operation failed.
    #[error(
        "cannot {action} {path}: {source}; check that the state directory exists, is writable by the daemon's user and is not full"
    )]
    Io {
        /// What was being done ("open", "append to", ...).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// Another process holds the journal.
    #[error(
        "{path} is locked by another process; stop the other chessclockd (systemctl stop chessclockd) first"
    )]
    Locked {
        /// The journal file.
        path: PathBuf,
    },
    /// A record or snapshot could not be turned into JSON.
    #[error("cannot encode a {what} as JSON: {source}")]
    Encode {
        /// "record" or "snapshot".
        what: &'static str,
        /// The serializer's error.
        source: serde_json::Error,
    },
    /// A checksummed entry is intact but does not match the record type (another version wrote it).
    #[error(
        "{path}: entry {seq} at byte {offset} is intact but cannot be read: {reason}; it was written by a different chessclockd version: run that version or move the file aside (nothing was changed)"
    )]
    Decode {
        /// The file.
        path: PathBuf,
        /// The entry's sequence number.
        seq: u64,
        /// Byte offset of the entry.
        offset: u64,
        /// The deserializer's description.
        reason: String,
    },
    /// The snapshot file is damaged (snapshots are replaced atomically, so this means media damage).
    #[error(
        "{path} is damaged: {reason}; move it aside to start from the journal alone (the games it held are then lost)"
    )]
    CorruptSnapshot {
        /// The snapshot file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// An earlier append failed and could not be rolled back; the journal must be reopened.
    #[error(
        "{path}: an earlier write failed half-way and could not be undone; restart the daemon so the journal is repaired on open"
    )]
    Poisoned {
        /// The journal file.
        path: PathBuf,
    },
}

impl StoreError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> StoreError {
        StoreError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
