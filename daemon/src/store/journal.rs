//! The append-only journal: checksummed lines, fsync per append (or one per group of writes),
//! torn/corrupt tail repair on open, compaction into a snapshot, removal of the whole store.
//!
//! Owns `NAME.journal` and its lock. It must not interpret records.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::error::StoreError;
use super::line;
use super::snapshot::{read_snapshot, snapshot_path, sync_dir, write_snapshot};

/// One journal entry as recovered on open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Numbered<R> {
    /// Sequence number (consecutive across the life of the store, including compactions).
    pub seq: u64,
    /// The record as the daemon wrote it.
    pub data: R,
}

/// A damaged tail that was cut off on open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TailRepair {
    /// Byte offset in the journal where the damage starts (the journal now ends here).
    pub offset: u64,
    /// How many bytes were cut.
    pub cut_bytes: u64,
    /// What was wrong with the first cut entry.
    pub reason: String,
    /// Where the cut bytes were saved.
    pub saved_to: PathBuf,
}

/// What [`Journal::open`] found: the snapshot, then the records written after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovered<R, S> {
    /// The last snapshot, if any.
    pub snapshot: Option<S>,
    /// The journal entries newer than the snapshot, in order.
    pub records: Vec<Numbered<R>>,
    /// Set when a torn or corrupt tail was found and cut (log it as a warning).
    pub repair: Option<TailRepair>,
}

/// An open journal. Appends are durable (fsynced) when [`Journal::append`] returns.
#[derive(Debug)]
pub struct Journal<R> {
    dir: PathBuf,
    name: String,
    path: PathBuf,
    file: File,
    len: u64,
    next_seq: u64,
    poisoned: bool,
    _record: PhantomData<fn(R)>,
}

/// Tries before a held lock is reported: a lock is also held, for an instant, by a child
/// process between its fork and its exec (the descriptor is shared until exec closes it), so
/// a journal closed just before may still look held.
const LOCK_TRIES: u32 = 20;
/// Wait between tries (at most ~0.2 s in all).
const LOCK_RETRY: std::time::Duration = std::time::Duration::from_millis(10);

/// Take the journal's exclusive lock: another owner (a second daemon on the same state
/// directory) is [`StoreError::Locked`].
fn lock(file: &File, path: &Path) -> Result<(), StoreError> {
    for _ in 1..LOCK_TRIES {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(fs::TryLockError::WouldBlock) => std::thread::sleep(LOCK_RETRY),
            Err(fs::TryLockError::Error(e)) => return Err(StoreError::io("lock", path, e)),
        }
    }
    file.try_lock().map_err(|e| match e {
        fs::TryLockError::WouldBlock => StoreError::Locked {
            path: path.to_path_buf(),
        },
        fs::TryLockError::Error(e) => StoreError::io("lock", path, e),
    })
}

impl<R: Serialize + DeserializeOwned> Journal<R> {
    /// Open (or create) the store `name` in `dir`, lock it, repair a damaged tail and return
    /// the snapshot plus every record after it.
    pub fn open<S: DeserializeOwned>(
        dir: &Path,
        name: &str,
    ) -> Result<(Journal<R>, Recovered<R, S>), StoreError> {
        let path = dir.join(format!("{name}.journal"));
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(|e| StoreError::io("open", &path, e))?;
        lock(&file, &path)?;
        sync_dir(dir)?;
        let snapshot = read_snapshot::<S>(dir, name)?;
        let snap_seq = snapshot.as_ref().map(|(seq, _)| *seq);

        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| StoreError::io("read", &path, e))?;
        let scan = scan::<R>(&path, &bytes)?;
        let mut repair = None;
        if let Some((offset, reason)) = scan.damage {
            repair = Some(cut_tail(dir, &path, &file, &bytes, offset, reason)?);
        }
        let last = scan.records.last().map(|r| r.seq);
        let next_seq = last.max(snap_seq).map_or(1, |s| s.saturating_add(1));
        let records = scan
            .records
            .into_iter()
            .filter(|r| snap_seq.is_none_or(|s| r.seq > s))
            .collect();
        let journal = Journal {
            dir: dir.to_path_buf(),
            name: name.to_owned(),
            path,
            file,
            len: scan.good_len,
            next_seq,
            poisoned: false,
            _record: PhantomData,
        };
        Ok((
            journal,
            Recovered {
                snapshot: snapshot.map(|(_, s)| s),
                records,
                repair,
            },
        ))
    }

    /// Append `record` and fsync; returns its sequence number. On failure nothing is
    /// appended (a partial write is rolled back), or the journal refuses further appends.
    pub fn append(&mut self, record: &R) -> Result<u64, StoreError> {
        let seq = self.write(record)?;
        self.sync()?;
        Ok(seq)
    }

    /// Append `record` without waiting for the disk: durable after the next successful
    /// [`Journal::sync`] (several writes, one fsync: group commit). On failure nothing is
    /// appended (a partial write is rolled back), or the journal refuses further writes until
    /// a [`Journal::compact`] rewrites it.
    pub fn write(&mut self, record: &R) -> Result<u64, StoreError> {
        let seq = self.next_seq;
        self.write_all(std::slice::from_ref(record))?;
        Ok(seq)
    }

    /// Append `records` in one write (their lines together), as [`Journal::write`] appends
    /// one: all of them or, on failure, none.
    pub fn write_all(&mut self, records: &[R]) -> Result<(), StoreError> {
        if self.poisoned {
            return Err(StoreError::Poisoned {
                path: self.path.clone(),
            });
        }
        let mut bytes = Vec::new();
        for (seq, record) in (self.next_seq..).zip(records) {
            let json = super::line::to_json(record).map_err(|source| StoreError::Encode {
                what: "record",
                source,
            })?;
            bytes.extend_from_slice(&line::encode(seq, &json));
        }
        if let Err(e) =
            full_disk::check(&self.dir, || self.file.write_all(&bytes[..bytes.len() / 2]))
                .and_then(|()| self.file.write_all(&bytes))
        {
            self.roll_back();
            return Err(StoreError::io("append to", &self.path, e));
        }
        self.len += bytes.len() as u64;
        self.next_seq += records.len() as u64;
        Ok(())
    }

    /// Make every write so far durable. After a failure the state of the unsynced writes is
    /// unknown (the kernel may have dropped them), so the journal refuses further writes
    /// until a [`Journal::compact`] rewrites it from what the caller still holds.
    pub fn sync(&mut self) -> Result<(), StoreError> {
        let synced = full_disk::check(&self.dir, || Ok(())).and_then(|()| self.file.sync_data());
        synced.map_err(|e| {
            self.poisoned = true;
            StoreError::io("sync", &self.path, e)
        })
    }

    /// Cut a failed write off again; if even that fails, refuse further writes.
    fn roll_back(&mut self) {
        if self
            .file
            .set_len(self.len)
            .and_then(|()| self.file.sync_data())
            .is_err()
        {
            self.poisoned = true;
        }
    }

    /// Write `state` as the snapshot covering every record appended so far, then empty the
    /// journal. A crash in between is safe: records the snapshot covers are skipped on open.
    /// This is also how a journal that refused writes recovers: the caller passes a state
    /// that holds everything, and once both steps succeed the journal takes writes again.
    pub fn compact<S: Serialize>(&mut self, state: &S) -> Result<(), StoreError> {
        full_disk::check(&self.dir, || Ok(()))
            .map_err(|e| StoreError::io("write the snapshot in", &self.dir, e))?;
        write_snapshot(&self.dir, &self.name, self.next_seq - 1, state)?;
        self.file
            .set_len(0)
            .and_then(|()| self.file.sync_all())
            .map_err(|e| StoreError::io("truncate", &self.path, e))?;
        self.len = 0;
        self.poisoned = false;
        Ok(())
    }

    /// Whether the journal refuses writes until the next [`Journal::compact`].
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }

    /// The sequence number the next append will get.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Bytes in the journal file (records since the last compaction).
    pub fn len_bytes(&self) -> u64 {
        self.len
    }

    /// The journal file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Delete the store: its snapshot, then the journal (still locked, so no other owner
    /// opens it in between), and make that durable. The caller keeps what it needs first (a
    /// detached clock's game is in `games/`). Files set aside beside it (`*.bad-*`, ...)
    /// stay. Missing files are fine: the store is gone either way.
    pub fn remove(self) -> Result<(), StoreError> {
        let snapshot = snapshot_path(&self.dir, &self.name);
        for path in [&snapshot, &self.path] {
            match fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(StoreError::io("remove", path, e)),
            }
        }
        sync_dir(&self.dir)
    }
}

/// Move the store `from` in `dir` to the name `to` (a game that moves to another board's
/// port): `to`'s own files go first, then `from`'s journal and its snapshot take `to`'s
/// names, and that is made durable. The journal goes before the snapshot: a crash between
/// leaves the game whole under `to` (a journal starts with its game's start) and only a
/// start under `from`. `from`'s journal must not be open (it is locked to check).
pub fn move_store(dir: &Path, from: &str, to: &str) -> Result<(), StoreError> {
    let journal = |name: &str| dir.join(format!("{name}.journal"));
    let source = journal(from);
    let file = match OpenOptions::new().read(true).open(&source) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(StoreError::io("move", &source, e));
        }
        Err(e) => return Err(StoreError::io("open", &source, e)),
    };
    lock(&file, &source)?;
    for path in [snapshot_path(dir, to), journal(to)] {
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(StoreError::io("remove", &path, e)),
        }
    }
    fs::rename(&source, journal(to)).map_err(|e| StoreError::io("rename", &source, e))?;
    let snapshot = snapshot_path(dir, from);
    match fs::rename(&snapshot, snapshot_path(dir, to)) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(StoreError::io("rename", &snapshot, e)),
    }
    drop(file);
    sync_dir(dir)
}

/// A seam for tests: journals in a directory marked full act as on a full disk (`ENOSPC` from
/// each write, which leaves half its line in the file as a short write does, from each fsync
/// and from each compaction), so that the writer's full-disk handling is tested without a
/// tmpfs, or root. Outside tests `check` is always `Ok` and marks nothing.
pub(crate) mod full_disk {
    use std::path::Path;

    #[cfg(test)]
    static FULL: std::sync::Mutex<std::collections::BTreeSet<std::path::PathBuf>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());

    /// Mark the journals in `dir` full (or give them space again).
    #[cfg(test)]
    pub(crate) fn set(dir: &Path, full: bool) {
        let mut marked = FULL
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if full {
            marked.insert(dir.to_path_buf());
        } else {
            marked.remove(dir);
        }
    }

    /// `ENOSPC` for a journal in a directory marked full, after `partly` (what reaches the
    /// disk before it is full); otherwise `Ok`.
    #[cfg(test)]
    pub(super) fn check(
        dir: &Path,
        partly: impl FnOnce() -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let full = FULL
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains(dir);
        if !full {
            return Ok(());
        }
        partly()?;
        Err(std::io::Error::from_raw_os_error(
            rustix::io::Errno::NOSPC.raw_os_error(),
        ))
    }

    /// Outside tests no disk is marked full.
    #[cfg(not(test))]
    #[inline(always)]
    pub(super) fn check(
        _dir: &Path,
        _partly: impl FnOnce() -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        Ok(())
    }
}

struct Scan<R> {
    records: Vec<Numbered<R>>,
    good_len: u64,
    damage: Option<(u64, String)>,
}

/// Read entries until the end or the first damaged one.
fn scan<R: DeserializeOwned>(path: &Path, bytes: &[u8]) -> Result<Scan<R>, StoreError> {
    let mut records: Vec<Numbered<R>> = Vec::new();
    let mut pos = 0usize;
    while pos < bytes.len() {
        let offset = pos as u64;
        let rest = &bytes[pos..];
        let Some(nl) = rest.iter().position(|&b| b == b'\n') else {
            let reason = format!("torn write: {} bytes without a line end", rest.len());
            return Ok(Scan {
                records,
                good_len: offset,
                damage: Some((offset, reason)),
            });
        };
        let (seq, json) = match line::decode(&rest[..nl]) {
            Ok(entry) => entry,
            Err(reason) => {
                return Ok(Scan {
                    records,
                    good_len: offset,
                    damage: Some((offset, reason)),
                });
            }
        };
        if let Some(prev) = records.last().map(|r| r.seq)
            && seq != prev.saturating_add(1)
        {
            let reason = format!("sequence number {seq} does not follow {prev}");
            return Ok(Scan {
                records,
                good_len: offset,
                damage: Some((offset, reason)),
            });
        }
        let data = super::line::from_json(json).map_err(|e| StoreError::Decode {
            path: path.to_path_buf(),
            seq,
            offset,
            reason: e.to_string(),
        })?;
        records.push(Numbered { seq, data });
        pos += nl + 1;
    }
    Ok(Scan {
        records,
        good_len: bytes.len() as u64,
        damage: None,
    })
}

/// Save the bytes from `offset` to a side file, then truncate the journal to `offset`.
fn cut_tail(
    dir: &Path,
    path: &Path,
    file: &File,
    bytes: &[u8],
    offset: u64,
    reason: String,
) -> Result<TailRepair, StoreError> {
    let tail = bytes.get(offset as usize..).unwrap_or_default();
    let saved_to = PathBuf::from(format!("{}.bad-{offset}", path.display()));
    let mut side = File::create(&saved_to).map_err(|e| StoreError::io("create", &saved_to, e))?;
    side.write_all(tail)
        .and_then(|()| side.sync_all())
        .map_err(|e| StoreError::io("write", &saved_to, e))?;
    sync_dir(dir)?;
    file.set_len(offset)
        .and_then(|()| file.sync_all())
        .map_err(|e| StoreError::io("truncate", path, e))?;
    Ok(TailRepair {
        offset,
        cut_bytes: tail.len() as u64,
        reason,
        saved_to,
    })
}
