//! The journal writer ([`Journals`]): one thread for every clock's journal and game records
//! (of one supervisor: it is handed to each clock, not found in a global). A game's record
//! is folded from the records it keeps of the game ([`super::record`]), and goes to
//! `games/round-R/` of the round the clock names for it (the actor's: the round the game
//! started in), or `games/` without one.
//!
//! Jobs from all clocks arrive on one channel, a clock's jobs of one wake-up in one message
//! (one wake-up of this thread for them), and are handled in batches: the batch's
//! records are written, each touched journal is fsynced once (group commit), and only then
//! are the batch's requests answered, so "written before acknowledged" holds with one fsync
//! per batch instead of one per record. A journal whose write or fsync failed takes no more
//! appends (that would leave a gap); the writer keeps the game's records in memory and
//! rewrites the journal whole (snapshot of every record, then an empty journal) after every
//! batch until that succeeds. Until then every request is answered with an error that says
//! the action took effect but is not durable. A detached clock's store is removed once the
//! jobs sent before (its game's record) are done ([`Job::Retire`]). Owns the thread and its
//! per-clock state only.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, OnceLock};

use chessclock_game::Rendered;
use tokio::sync::oneshot;

use super::restore::{Restored, restore};
use super::stamp::{Now, wall_ms};
use super::{Archive, Entry, GameStart, Journaled, SnapshotFile};
use crate::store::{self, Journal, StoreError};
use chessclock_device::session::interface::{DeviceError, Reply};

/// Messages (each a clock's jobs of one wake-up) handled in one batch at most (then the
/// batch is synced and answered).
const MAX_BATCH: usize = 512;

/// The store's number, its journal's path, the game to resume, and the damage found on
/// opening it (in words).
type Opened = Result<(u64, PathBuf, Option<Restored>, Vec<String>), StoreError>;

/// What the writer is asked to do.
pub(super) enum Job {
    Open {
        dir: PathBuf,
        name: String,
        fallback: Box<GameStart>,
        reply: std_mpsc::Sender<Opened>,
    },
    Append {
        id: u64,
        entry: Entry,
    },
    NewGame {
        id: u64,
        start: Box<Entry>,
    },
    Done {
        id: u64,
        reply: oneshot::Sender<Result<Reply, DeviceError>>,
        answer: Result<Reply, DeviceError>,
    },
    /// Write the game's record, folded from the journal's records of the game.
    Record {
        id: u64,
        archive: Box<Archive>,
        round: Option<u32>,
    },
    Close {
        id: u64,
    },
    /// The clock is detached: once everything sent before (its game's record) is written,
    /// remove its journal and snapshot, then answer.
    Retire {
        id: u64,
        reply: oneshot::Sender<Result<Reply, DeviceError>>,
        answer: Result<Reply, DeviceError>,
    },
    /// A game moves to another port: the closed store `from` becomes `to`
    /// (`store::move_store`), after everything sent before (the two clocks' closes).
    Move {
        dir: PathBuf,
        from: String,
        to: String,
        reply: oneshot::Sender<Result<(), StoreError>>,
    },
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Job")
    }
}

/// The journal writer of a supervisor's clocks: one thread for all of them, started on
/// first use (never without a journaled clock). Cloned to every clock it serves; the
/// thread ends when the last clone and the last journal are gone.
#[derive(Clone, Default)]
pub(crate) struct Journals(Arc<OnceLock<Option<std_mpsc::Sender<Vec<Job>>>>>);

impl std::fmt::Debug for Journals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Journals")
    }
}

impl Journals {
    /// Move the store `from` in `dir` to `to` on the writer, after every job sent before
    /// (the closes of the two clocks' journals); answered once it is durable.
    pub(crate) async fn move_store(
        &self,
        dir: &Path,
        from: &str,
        to: &str,
    ) -> Result<(), StoreError> {
        let (reply, answer) = oneshot::channel();
        let gone = || {
            StoreError::io(
                "reach the writer of",
                dir,
                std::io::Error::other("the journal writer thread stopped"),
            )
        };
        self.sender()?
            .send(vec![Job::Move {
                dir: dir.to_path_buf(),
                from: from.to_owned(),
                to: to.to_owned(),
                reply,
            }])
            .map_err(|_| gone())?;
        answer.await.map_err(|_| gone())?
    }

    /// The writer's channel, starting the thread on first use.
    pub(super) fn sender(&self) -> Result<std_mpsc::Sender<Vec<Job>>, StoreError> {
        self.0
            .get_or_init(|| {
                let (tx, rx) = std_mpsc::channel();
                std::thread::Builder::new()
                    .name("journal-writer".into())
                    .spawn(move || {
                        crate::device::io::runtime::defer_to_devices("journal writer");
                        run(&rx)
                    })
                    .ok()
                    .map(|_| tx)
            })
            .clone()
            .ok_or_else(|| {
                StoreError::io(
                    "start",
                    Path::new("the journal writer"),
                    std::io::Error::other("cannot start a thread"),
                )
            })
    }
}

fn run(rx: &std_mpsc::Receiver<Vec<Job>>) {
    let mut stores: BTreeMap<u64, Store> = BTreeMap::new();
    let mut next_id = 0u64;
    while let Ok(first) = rx.recv() {
        let mut dirty = BTreeSet::new();
        let mut answers = Vec::new();
        for job in std::iter::once(first)
            .chain(rx.try_iter().take(MAX_BATCH))
            .flatten()
        {
            match job {
                Job::Open {
                    dir,
                    name,
                    fallback,
                    reply,
                } => {
                    let opened =
                        Store::open(&dir, &name, &fallback).map(|(store, restored, damage)| {
                            next_id += 1;
                            let path = store.journal.path().to_path_buf();
                            stores.insert(next_id, store);
                            (next_id, path, restored, damage)
                        });
                    let _ = reply.send(opened);
                }
                Job::Append { id, entry } => {
                    if let Some(s) = stores.get_mut(&id) {
                        s.append(entry);
                        dirty.insert(id);
                    }
                }
                Job::NewGame { id, start } => {
                    if let Some(s) = stores.get_mut(&id) {
                        s.new_game(*start);
                        dirty.insert(id);
                    }
                }
                Job::Done { id, reply, answer } => answers.push((id, reply, answer)),
                Job::Record { id, archive, round } => {
                    if let Some(s) = stores.get(&id)
                        && let Some(record) = archive.render(&s.start, &s.records)
                    {
                        let dir = match round {
                            Some(r) => s.games.join(format!("round-{r}")),
                            None => s.games.clone(),
                        };
                        match write_record(&dir, &record) {
                            Ok(pgn) => tracing::info!("game record written: {}", pgn.display()),
                            Err(e) => tracing::error!("game record {}: {e}", record.stem),
                        }
                    }
                }
                Job::Close { id } => {
                    if let Some(mut s) = stores.remove(&id) {
                        s.settle();
                    }
                    dirty.remove(&id);
                }
                Job::Retire { id, reply, answer } => {
                    dirty.remove(&id);
                    if let Some(s) = stores.remove(&id) {
                        s.remove();
                    }
                    let _ = reply.send(answer);
                }
                Job::Move {
                    dir,
                    from,
                    to,
                    reply,
                } => {
                    let _ = reply.send(store::move_store(&dir, &from, &to));
                }
            }
        }
        for id in dirty {
            if let Some(s) = stores.get_mut(&id) {
                s.settle();
            }
        }
        for (id, reply, answer) in answers {
            let answer = match stores.get_mut(&id) {
                Some(s) => s.durability.answer(answer),
                None => answer,
            };
            let _ = reply.send(answer);
        }
    }
}

/// One clock's journal and, for rewriting it whole, its game so far.
struct Store {
    journal: Journal<Entry>,
    games: PathBuf,
    start: Entry,
    records: Vec<Entry>,
    /// The last `unwritten` of `records` go to the journal at the end of the batch, in one
    /// write.
    unwritten: usize,
    /// Appends go to the journal; false after a failed write until a rewrite succeeds.
    healthy: bool,
    durability: Durability,
}

impl Store {
    fn open(
        dir: &Path,
        name: &str,
        fallback: &GameStart,
    ) -> Result<(Store, Option<Restored>, Vec<String>), StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| StoreError::io("create", dir, e))?;
        let mut damage = Vec::new();
        let (journal, recovered) = match Journal::<Entry>::open::<SnapshotFile>(dir, name) {
            Err(StoreError::CorruptSnapshot { path, reason }) => {
                let aside = set_aside_snapshot(&path, &reason)?;
                damage.push(format!(
                    "the snapshot was damaged ({reason}); set aside as {} and the game rebuilt \
                     from the journal",
                    aside.display()
                ));
                Journal::<Entry>::open::<SnapshotFile>(dir, name)?
            }
            opened => opened?,
        };
        if let Some(repair) = &recovered.repair {
            let said = format!(
                "the journal had a damaged tail at byte {} ({}); cut and saved to {}",
                repair.offset,
                repair.reason,
                repair.saved_to.display()
            );
            tracing::warn!("journal {}: {said}", journal.path().display());
            damage.push(said);
        }
        let (snapshot_start, mut entries) = match recovered.snapshot {
            Some(SnapshotFile::Game { start, records }) => (Some(start), records),
            Some(SnapshotFile::Legacy(start)) => (
                Some(Entry {
                    rec: Journaled::Start(start),
                    boot: None,
                }),
                Vec::new(),
            ),
            None => (None, Vec::new()),
        };
        entries.extend(recovered.records.into_iter().map(|r| r.data));
        let restored = restore(snapshot_start, entries.clone(), fallback, &Now::read());
        let (start, records) = match &restored {
            Some(r) => (r.start.clone(), r.records.clone()),
            None => {
                if !entries.is_empty() {
                    let kept = keep_aside(journal.path(), "unused", &entries);
                    damage.push(format!(
                        "the journal's {} records could not be resumed; a new game started{}",
                        entries.len(),
                        kept.map(|p| format!(" (they are kept in {})", p.display()))
                            .unwrap_or_default()
                    ));
                }
                (
                    Entry {
                        rec: Journaled::Start(Box::new(fallback.clone())),
                        boot: None,
                    },
                    Vec::new(),
                )
            }
        };
        if let Some(r) = &restored
            && !r.rejected.is_empty()
        {
            keep_aside(journal.path(), "rejected", &r.rejected);
        }
        let store = Store {
            journal,
            games: dir.join("games"),
            start,
            records,
            unwritten: 0,
            healthy: true,
            durability: Durability::default(),
        };
        Ok((store, restored, damage))
    }

    /// Keep `entry`; it is written with the batch's others when the batch settles.
    fn append(&mut self, entry: Entry) {
        self.records.push(entry);
        self.unwritten += 1;
    }

    /// A new game: the snapshot holds its start, and so does the journal's first record.
    fn new_game(&mut self, start: Entry) {
        self.start = start;
        self.records.clear();
        // The last game's unwritten records would be compacted away with the rest.
        self.unwritten = 0;
        let snapshot = SnapshotFile::Game {
            start: self.start.clone(),
            records: Vec::new(),
        };
        let written = self
            .journal
            .compact(&snapshot)
            .and_then(|()| self.journal.write(&self.start).map(|_| ()));
        match written {
            Ok(()) => self.healthy = true,
            Err(e) => self.fail(&e),
        }
    }

    /// The clock is detached and its game is in `games/`: its journal and snapshot go, so
    /// that the state directory holds state only for attached clocks. A failure is logged
    /// (the files stay, and the game would come back if the clock were attached again).
    fn remove(self) {
        let path = self.journal.path().to_path_buf();
        match self.journal.remove() {
            Ok(()) => tracing::info!("journal {} and its snapshot removed", path.display()),
            Err(e) => tracing::error!(
                "journal {}: could not remove it ({e}); remove it and its snapshot by hand",
                path.display()
            ),
        }
    }

    /// End of a batch: make this journal's writes durable, or rewrite it whole.
    fn settle(&mut self) {
        let unwritten = std::mem::take(&mut self.unwritten);
        let from = self.records.len().saturating_sub(unwritten);
        if self.healthy
            && let Err(e) = self
                .journal
                .write_all(&self.records[from..])
                .and_then(|()| self.journal.sync())
        {
            self.fail(&e);
        }
        if self.healthy {
            return;
        }
        let snapshot = SnapshotFile::Game {
            start: self.start.clone(),
            records: self.records.clone(),
        };
        match self.journal.compact(&snapshot) {
            Ok(()) => {
                self.healthy = true;
                tracing::info!(
                    "journal {} is written again: rewritten whole with {} records",
                    self.journal.path().display(),
                    self.records.len()
                );
            }
            Err(e) => self.durability.failed(self.journal.path(), &e),
        }
    }

    fn fail(&mut self, e: &StoreError) {
        if self.healthy {
            tracing::error!("journal {}: {e}", self.journal.path().display());
        }
        self.healthy = false;
        self.durability.failed(self.journal.path(), e);
    }
}

/// A damaged snapshot (media damage: snapshots are replaced atomically) is renamed to
/// `NAME.snapshot.bad-WALLMS` so that the game can be rebuilt from the journal, which starts
/// with the game's start; the log says so and what may be lost with it.
fn set_aside_snapshot(path: &Path, reason: &str) -> Result<PathBuf, StoreError> {
    let aside = PathBuf::from(format!("{}.bad-{}", path.display(), wall_ms()));
    std::fs::rename(path, &aside).map_err(|e| StoreError::io("set aside", path, e))?;
    if let Some(dir) = path.parent() {
        store::atomic::sync_dir(dir).map_err(|e| StoreError::io("sync directory", dir, e))?;
    }
    tracing::warn!(
        "snapshot {} is damaged ({reason}); set aside as {} and the game rebuilt from the \
         journal alone: records only the snapshot held (written while the disk was full) are \
         lost",
        path.display(),
        aside.display()
    );
    Ok(aside)
}

/// Save entries the game could not use beside the journal (JSON lines), so nothing is lost
/// without a trace; the log says where.
fn keep_aside(journal: &Path, what: &str, entries: &[Entry]) -> Option<PathBuf> {
    let path = PathBuf::from(format!("{}.{what}-{}", journal.display(), wall_ms()));
    let text = store::json_lines(entries);
    match store::atomic::write_atomic(&path, text.as_bytes()) {
        Ok(()) => {
            tracing::warn!(
                "journal {}: {} {what} records kept in {}",
                journal.display(),
                entries.len(),
                path.display()
            );
            Some(path)
        }
        Err(e) => {
            tracing::error!(
                "journal {}: could not keep {} {what} records in {}: {e}",
                journal.display(),
                entries.len(),
                path.display()
            );
            None
        }
    }
}

/// What the writer owes the next caller: a request is answered "done" only if everything
/// written for it since the last answer reached the disk.
#[derive(Debug, Default)]
struct Durability {
    failure: Option<String>,
}

impl Durability {
    fn failed(&mut self, journal: &Path, e: &dyn std::fmt::Display) {
        self.failure.get_or_insert_with(|| {
            format!(
                "the action took effect, but the journal {} could not be written ({e}): the game \
                 would not survive a restart; free space in the state directory or fix its \
                 permissions",
                journal.display()
            )
        });
    }

    fn answer(&mut self, answer: Result<Reply, DeviceError>) -> Result<Reply, DeviceError> {
        match (self.failure.take(), answer) {
            (Some(f), Ok(_)) => Err(DeviceError::Device(f)),
            (_, answer) => answer,
        }
    }
}

/// Write `<stem>.pgn` and `<stem>.json` in `dir` (created if missing), each atomically.
/// Returns the PGN's path.
fn write_record(dir: &Path, r: &Rendered) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let mut stem = r.stem.clone();
    // Two games finishing in the same second on the same clock keep both records.
    for n in 2.. {
        if !dir.join(format!("{stem}.pgn")).exists() {
            break;
        }
        stem = format!("{}-{n}", r.stem);
    }
    for (ext, text) in [("json", &r.json), ("pgn", &r.pgn)] {
        store::atomic::write_atomic(&dir.join(format!("{stem}.{ext}")), text.as_bytes())?;
    }
    Ok(dir.join(format!("{stem}.pgn")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_turns_the_next_done_into_an_error_once() {
        let mut d = Durability::default();
        assert_eq!(d.answer(Ok(Reply::Done)), Ok(Reply::Done));
        d.failed(
            Path::new("/state/clock-x.journal"),
            &"No space left on device",
        );
        d.failed(Path::new("/state/clock-x.journal"), &"second failure");
        let Err(DeviceError::Device(msg)) = d.answer(Ok(Reply::Done)) else {
            panic!("a failed write must not be answered as done");
        };
        assert!(
            msg.contains("No space left") && msg.contains("clock-x.journal"),
            "{msg}"
        );
        // The caller's own error wins, and the failure is reported once.
        assert_eq!(d.answer(Ok(Reply::Done)), Ok(Reply::Done));
        d.failed(Path::new("/j"), &"x");
        let refused = Err(DeviceError::NotAllowed("paused".into()));
        assert_eq!(d.answer(refused.clone()), refused);
    }
}
