//! The live PGN files, in the layout LiveChess writes and the Lichess Broadcaster app uploads
//! (`live/round-R/game-B.pgn`, one per board, and `live/round-R/games.pgn`, every board of the
//! round in board order; the actor names the folder and the file): one writer thread
//! ([`LiveFiles`]) for every clock of a supervisor, handed to each clock, not a global.
//!
//! Actors hand over a clock's whole PGN after each change; the writer replaces that clock's
//! file within [`REST`] (the latest text of the changes that came meanwhile) and `games.pgn`
//! at most every [`ALL_EVERY`], from the texts it holds in memory
//! (read from the directory once, on its first use, so clocks that have not changed since a
//! restart are there too). Files are replaced atomically (a reader sees the old or the new
//! file) but not fsynced: they are a feed for broadcast tools, and the journal, not they, is
//! what survives a power loss. Temporary files end in `.tmp`, never `.pgn`, so a folder watcher
//! uploads no half-written game. Under load many changes cost one `games.pgn` write, not one
//! each, and never a read of the directory. It must not know games or clocks: texts in,
//! files out.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The file of every board's game of a round (the Broadcaster uploads a file whose name ends
/// in `games.pgn` as the round's games, every other `.pgn` as one game).
pub(crate) const ALL: &str = "games.pgn";

/// `games.pgn` is rewritten at most this often (it holds every clock's game: at 128 boards a
/// rewrite per press would be most of the daemon's work).
pub(crate) const ALL_EVERY: Duration = Duration::from_millis(500);

/// After writing, the writer rests this long before it takes the next changes: a clock's
/// file is written at most this late, and at 128 boards the thread wakes a few times a
/// second instead of once for every press (docs/benchmarks.md, "The live writer rests").
pub(crate) const REST: Duration = Duration::from_millis(250);

/// A clock's game changed: its file in `dir` is `file` (a name, no path), its text `text`
/// (`None`: the file is removed: its board was renumbered, or its game left the round).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Update {
    pub(crate) dir: PathBuf,
    pub(crate) file: String,
    pub(crate) text: Option<String>,
}

/// What the writer is handed: a change, or a request to write everything handed over before
/// it and say so (the daemon stops: the writer may be resting with changes in hand).
#[derive(Debug)]
pub(crate) enum Job {
    Update(Update),
    Flush(tokio::sync::oneshot::Sender<()>),
}

/// The live-file writer of a supervisor's clocks: one thread for all of them, started on
/// first use. Cloned to every clock; the thread ends when the last clone is gone.
#[derive(Clone, Default)]
pub(crate) struct LiveFiles(Arc<OnceLock<Option<Sender<Job>>>>);

impl std::fmt::Debug for LiveFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LiveFiles")
    }
}

impl LiveFiles {
    /// A sink whose updates go to `tx` instead of a writer thread (a test reads them).
    #[cfg(test)]
    pub(crate) fn to(tx: Sender<Job>) -> LiveFiles {
        LiveFiles(Arc::new(OnceLock::from(Some(tx))))
    }

    fn sender(&self) -> Option<&Sender<Job>> {
        self.0
            .get_or_init(|| {
                let (tx, rx) = channel();
                std::thread::Builder::new()
                    .name("chessclock-live".into())
                    .spawn(move || {
                        crate::device::io::runtime::defer_to_devices("live writer");
                        run(&rx)
                    })
                    .map_err(|e| tracing::error!("cannot start the live PGN writer: {e}"))
                    .ok()
                    .map(|_| tx)
            })
            .as_ref()
    }

    /// Hand over the live PGN of the clock whose file in `dir` is `file`; written soon after.
    pub(crate) fn update(&self, dir: PathBuf, file: String, text: String) {
        if let Some(tx) = self.sender() {
            let _ = tx.send(Job::Update(Update {
                dir,
                file,
                text: Some(text),
            }));
        }
    }

    /// Once everything handed over so far is written (at most [`REST`] and the writing
    /// later); at once when nothing was ever handed over, or the writer is gone.
    pub(crate) async fn flush(&self) {
        let Some(Some(tx)) = self.0.get() else {
            return;
        };
        let (done, written) = tokio::sync::oneshot::channel();
        if tx.send(Job::Flush(done)).is_ok() {
            let _ = written.await;
        }
    }

    /// Remove the live PGN `file` in `dir` (its board has another number now, or its game
    /// left the round).
    pub(crate) fn remove(&self, dir: PathBuf, file: String) {
        if let Some(tx) = self.sender() {
            let _ = tx.send(Job::Update(Update {
                dir,
                file,
                text: None,
            }));
        }
    }
}

/// The texts of one live directory.
#[derive(Default)]
struct Dir {
    games: BTreeMap<String, String>,
}

fn run(rx: &Receiver<Job>) {
    let mut dirs: BTreeMap<PathBuf, Dir> = BTreeMap::new();
    let mut touched = BTreeSet::new();
    // When games.pgn may next be written.
    let mut next_all = Instant::now();
    loop {
        // Wait for a change; with games.pgn behind, only until it is due.
        let got = if touched.is_empty() {
            rx.recv().map_err(|_| RecvTimeoutError::Disconnected)
        } else {
            rx.recv_timeout(next_all.saturating_duration_since(Instant::now()))
        };
        let open = match got {
            Ok(first) => {
                // Everything that came meanwhile, a file's latest text only.
                let mut latest = BTreeMap::new();
                let mut flushes = Vec::new();
                for job in std::iter::once(first).chain(rx.try_iter()) {
                    match job {
                        Job::Update(u) => {
                            latest.insert((u.dir, u.file), u.text);
                        }
                        Job::Flush(done) => flushes.push(done),
                    }
                }
                for ((dir, file), text) in latest {
                    write_game(&mut dirs, &dir, file, text);
                    touched.insert(dir);
                }
                if !flushes.is_empty() {
                    write_games_pgn(&dirs, std::mem::take(&mut touched));
                    for done in flushes {
                        let _ = done.send(());
                    }
                }
                true
            }
            Err(RecvTimeoutError::Timeout) => true,
            Err(RecvTimeoutError::Disconnected) => false,
        };
        if !touched.is_empty() && (!open || Instant::now() >= next_all) {
            next_all = Instant::now() + ALL_EVERY;
            write_games_pgn(&dirs, std::mem::take(&mut touched));
        }
        if !open {
            break;
        }
        // Rest: the changes of the next moments wait in the channel, which wakes nobody
        // while this thread sleeps, and are written together.
        std::thread::sleep(REST);
    }
}

/// Rewrite `games.pgn` of each folder in `touched`.
fn write_games_pgn(dirs: &BTreeMap<PathBuf, Dir>, touched: BTreeSet<PathBuf>) {
    for path in touched {
        if let Some(dir) = dirs.get(&path)
            && let Err(e) = replace(&path.join(ALL), dir.all().as_bytes())
        {
            tracing::warn!(
                "cannot write the live PGN {}: {e}",
                path.join(ALL).display()
            );
        }
    }
}

/// Replace (`Some`) or remove (`None`) the live file `file` in `dir`, and its text in `dirs`.
fn write_game(dirs: &mut BTreeMap<PathBuf, Dir>, dir: &Path, file: String, text: Option<String>) {
    let games = &mut dirs
        .entry(dir.to_path_buf())
        .or_insert_with(|| Dir::load(dir))
        .games;
    let path = dir.join(&file);
    match text {
        Some(text) => {
            if let Err(e) = replace(&path, text.as_bytes()) {
                tracing::warn!("cannot write the live PGN {}: {e}", path.display());
            }
            games.insert(file, text);
        }
        None => {
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => tracing::warn!("cannot remove the live PGN {}: {e}", path.display()),
            }
            games.remove(&file);
        }
    }
}

impl Dir {
    /// The games already in `dir` (from before a restart), by file name.
    fn load(dir: &Path) -> Dir {
        let mut games = BTreeMap::new();
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.ends_with(".pgn")
                    && name != ALL
                    && let Ok(text) = std::fs::read_to_string(e.path())
                {
                    games.insert(name, text);
                }
            }
        }
        Dir { games }
    }

    /// Every game, one blank line apart, in board order (the number in the file name:
    /// `game-2.pgn` before `game-10.pgn`).
    fn all(&self) -> String {
        let number = |name: &str| -> u64 {
            let digits: String = name
                .chars()
                .skip_while(|c| !c.is_ascii_digit())
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().unwrap_or(u64::MAX)
        };
        let mut games: Vec<(&String, &String)> = self.games.iter().collect();
        games.sort_by_cached_key(|(name, _)| (number(name), *name));
        let mut all = String::new();
        for (_, text) in games {
            all.push_str(text.trim_end());
            all.push_str("\n\n");
        }
        all
    }
}

/// Replace `dest` atomically (a temporary file renamed over it), without fsync. Its folder
/// is made when it is missing (not looked for at every write).
fn replace(dest: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = crate::store::atomic::temp_path(dest);
    let mut f = match std::fs::File::create(&tmp) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(dir) = dest.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::File::create(&tmp)?
        }
        f => f?,
    };
    f.write_all(bytes)?;
    drop(f);
    std::fs::rename(&tmp, dest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cc-live-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    /// Wait (at most 10 s) until `path` holds `want`.
    fn wait_for(path: &Path, want: &str) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            if std::fs::read_to_string(path).is_ok_and(|t| t == want) {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{} never held {want:?}: {:?}",
                path.display(),
                std::fs::read_to_string(path)
            );
            std::thread::yield_now();
        }
    }

    #[test]
    fn every_board_s_latest_game_is_in_games_pgn_in_board_order_with_those_from_before() {
        let dir = scratch("all");
        let live = LiveFiles::default();
        std::fs::create_dir_all(&dir).expect("dir");
        // A board that has not changed since a restart.
        std::fs::write(dir.join("game-2.pgn"), "[Event \"b\"]\n\n*\n").expect("old file");
        live.update(
            dir.clone(),
            "game-10.pgn".into(),
            "[Event \"a1\"]\n\n*\n".into(),
        );
        live.update(
            dir.clone(),
            "game-1.pgn".into(),
            "[Event \"c\"]\n\n*\n".into(),
        );
        live.update(
            dir.clone(),
            "game-10.pgn".into(),
            "[Event \"a2\"]\n\n1. e4 *\n".into(),
        );
        wait_for(
            &dir.join(ALL),
            "[Event \"c\"]\n\n*\n\n[Event \"b\"]\n\n*\n\n[Event \"a2\"]\n\n1. e4 *\n\n",
        );
        wait_for(&dir.join("game-10.pgn"), "[Event \"a2\"]\n\n1. e4 *\n");
        let left: Vec<String> = std::fs::read_dir(&dir)
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".pgn"))
            .collect();
        assert!(left.is_empty(), "no temporary file left: {left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_flush_returns_once_every_change_handed_over_before_it_is_written() {
        let dir = scratch("flush");
        let live = LiveFiles::default();
        // Nothing handed over yet: nothing to wait for, and no writer is started for it.
        live.flush().await;
        assert!(live.0.get().is_none(), "a flush starts no writer");
        // The first change wakes the writer, which writes it, then rests with the next ones
        // in hand (and games.pgn not due for half a second).
        live.update(
            dir.clone(),
            "game-1.pgn".into(),
            "[Event \"a\"]\n\n*\n".into(),
        );
        wait_for(&dir.join("game-1.pgn"), "[Event \"a\"]\n\n*\n");
        live.update(
            dir.clone(),
            "game-1.pgn".into(),
            "[Event \"b\"]\n\n*\n".into(),
        );
        live.update(
            dir.clone(),
            "game-2.pgn".into(),
            "[Event \"c\"]\n\n*\n".into(),
        );
        live.flush().await;
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        assert_eq!(read("game-1.pgn"), "[Event \"b\"]\n\n*\n");
        assert_eq!(read("game-2.pgn"), "[Event \"c\"]\n\n*\n");
        assert_eq!(
            read(ALL),
            "[Event \"b\"]\n\n*\n\n[Event \"c\"]\n\n*\n\n",
            "games.pgn is written by a flush too, not half a second later"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_ends_as_its_last_change_says_whether_it_was_removed_or_written() {
        let dir = scratch("last");
        let live = LiveFiles::default();
        // Handed over together, so the writer takes them in one batch (or in several: the
        // files must end the same way).
        live.update(
            dir.clone(),
            "game-1.pgn".into(),
            "[Event \"1\"]\n\n*\n".into(),
        );
        live.remove(dir.clone(), "game-1.pgn".into());
        live.update(
            dir.clone(),
            "game-2.pgn".into(),
            "[Event \"x\"]\n\n*\n".into(),
        );
        live.remove(dir.clone(), "game-3.pgn".into());
        live.update(
            dir.clone(),
            "game-3.pgn".into(),
            "[Event \"3\"]\n\n*\n".into(),
        );
        live.remove(dir.clone(), "game-2.pgn".into());
        live.update(
            dir.clone(),
            "game-2.pgn".into(),
            "[Event \"2\"]\n\n*\n".into(),
        );
        wait_for(
            &dir.join(ALL),
            "[Event \"2\"]\n\n*\n\n[Event \"3\"]\n\n*\n\n",
        );
        assert!(
            !dir.join("game-1.pgn").exists(),
            "game-1.pgn was removed last"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("game-2.pgn")).expect("game-2.pgn"),
            "[Event \"2\"]\n\n*\n"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
