//! "Nothing lost": a clock's game as journal entries, written by the journal writer, and
//! rebuilt after a crash or power loss. The journal is the game's one record: the archived
//! record in `games/` is folded from it ([`record`]).
//!
//! Every accepted engine input (lever presses, operator and arbiter actions) and every change
//! of the board's game (moves read, corrections, results, game information: the game crate's
//! steps) is appended, fsynced, before the request that caused it is answered. A new game compacts the journal
//! into a snapshot holding its start, and the start is also the journal's first record, so a
//! lost snapshot loses nothing. On start the game is replayed with the original engine times
//! ([`restore`]), and the time between the last record and now is charged to the side that
//! was running, as the hardware clock kept running. Owns the record format and the handle
//! the actor uses; [`writer`] owns the thread that writes every clock's journal; the store
//! owns the files. Promises and their tests: `docs/reliability.md`.

#[cfg(test)]
mod durability_tests;
pub(crate) mod game_id;
mod record;
mod restore;
mod stamp;
mod writer;

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::mpsc as std_mpsc;

use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use crate::engine::Input;
use crate::engine::params::TimeControl;
use chessclock_device::session::interface::{DeviceError, Reply};
use writer::Job;
pub(crate) use writer::Journals;

use chessclock_device::session::SessionOutput;
use chessclock_device::session::note::Note;
pub(crate) use record::Archive;
pub(crate) use restore::Restored;
#[cfg(test)]
pub(crate) use restore::restore;
#[cfg(test)]
pub(crate) use stamp::Now;
pub(crate) use stamp::wall_ms;

/// How a game starts: its control and when (engine and wall time), and its id (the PGN
/// `GameId`, [`game_id`]; journals written before ids have none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct GameStart {
    pub control: TimeControl,
    pub t_ms: u64,
    pub wall_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_id: Option<String>,
}

/// What a journal entry holds: an input, a note, a board step or a game's start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Journaled {
    /// An input the engine accepted, at engine time `t_ms`.
    Input {
        t_ms: u64,
        wall_ms: u64,
        input: Input,
    },
    /// Something that happened but is derived or external (connect, disconnect, flag):
    /// not replayed; the game's record keeps it if `record` (older journals: it does not).
    Note {
        t_ms: u64,
        wall_ms: u64,
        what: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        record: bool,
    },
    /// A change of the board's game at engine time `t_ms` (a move read from the pieces, a
    /// correction, a result, a press's times, game information): replayed over the board's
    /// game on restore, in order with the inputs.
    Board {
        t_ms: u64,
        wall_ms: u64,
        step: chessclock_game::Step,
    },
    /// A new game started (the journal's first record after a compaction).
    Start(Box<GameStart>),
}

impl Journaled {
    /// The record the session's event `ev` is journaled as, at wall time `wall_ms`: its
    /// inputs, the board's steps and its notes; `None` for the others.
    pub(crate) fn of(ev: &SessionOutput, wall_ms: u64) -> Option<Journaled> {
        Some(match ev {
            SessionOutput::Input { t_ms, input } => Journaled::Input {
                t_ms: *t_ms,
                wall_ms,
                input: input.clone(),
            },
            SessionOutput::Board { t_ms, step } => Journaled::Board {
                t_ms: *t_ms,
                wall_ms,
                step: step.clone(),
            },
            SessionOutput::Note { t_ms, note, record } => Journaled::Note {
                t_ms: *t_ms,
                wall_ms,
                what: note.to_string(),
                record: *record,
            },
            _ => return None,
        })
    }

    /// Engine and wall time of the record.
    pub(crate) fn times(&self) -> (u64, u64) {
        match self {
            Journaled::Input { t_ms, wall_ms, .. }
            | Journaled::Note { t_ms, wall_ms, .. }
            | Journaled::Board { t_ms, wall_ms, .. } => (*t_ms, *wall_ms),
            Journaled::Start(s) => (s.t_ms, s.wall_ms),
        }
    }
}

/// A record as it is journaled: stamped with the boot clock, so the gap across a restart is
/// measured on a clock that never steps. Journals written before the stamp read as `None`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Entry {
    #[serde(flatten)]
    pub rec: Journaled,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot: Option<stamp::Boot>,
}

impl Entry {
    fn now(rec: Journaled) -> Entry {
        Entry {
            rec,
            boot: stamp::boot_now(),
        }
    }
}

/// The snapshot file: the game's start and every record since (written whole after a write
/// failure), or, from older versions, only the start.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
enum SnapshotFile {
    Game { start: Entry, records: Vec<Entry> },
    Legacy(Box<GameStart>),
}

/// A clock's journal, written by the journal writer thread.
#[derive(Debug)]
pub(crate) struct Persist {
    tx: std_mpsc::Sender<Vec<Job>>,
    id: u64,
    path: PathBuf,
    damage: Vec<String>,
    /// Jobs not handed to the writer yet: a wake-up of the actor sends its jobs together
    /// ([`Persist::flush`]), so the writer's thread wakes once for them, not once each.
    queued: RefCell<Vec<Job>>,
}

/// A file-name-safe store name for a port.
pub(crate) fn store_name(port: &Path) -> String {
    let raw = port.display().to_string();
    let cleaned: String = raw
        .trim_start_matches('/')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("clock-{cleaned}")
}

/// A file-name-safe store name for a virtual clock named `name`, one to one: letters, digits,
/// `-` and `.` stay; every other byte (an `_` too) is written `_xx` in hex, so two names never
/// share a journal.
#[cfg(any(test, feature = "virtual-board"))]
pub(crate) fn virtual_store_name(name: &str) -> String {
    let mut out = String::from("virtual-");
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'.' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("_{b:02x}"));
        }
    }
    out
}

impl Persist {
    /// Open the journal `name` in `dir` on the writer `journals`; returns the handle and the restored game, if any.
    /// `fallback` (the clock's configured control, now) is used only for a journal that no
    /// longer says how its game started. Problems of the restore are logged here and kept in
    /// [`Restored::problems`].
    pub(crate) fn open(
        journals: &Journals,
        dir: &Path,
        name: &str,
        fallback: GameStart,
    ) -> Result<(Persist, Option<Restored>), crate::store::StoreError> {
        let tx = journals.sender()?;
        let (reply, answer) = std_mpsc::channel();
        let gone = || {
            crate::store::StoreError::io(
                "reach the writer of",
                dir,
                std::io::Error::other("the journal writer thread stopped"),
            )
        };
        tx.send(vec![Job::Open {
            dir: dir.to_path_buf(),
            name: name.to_owned(),
            fallback: Box::new(fallback),
            reply,
        }])
        .map_err(|_| gone())?;
        let (id, path, restored, damage) = answer.recv().map_err(|_| gone())??;
        if let Some(r) = &restored {
            for problem in &r.problems {
                tracing::warn!("journal {}: {problem}", path.display());
            }
        }
        Ok((
            Persist {
                tx,
                id,
                path,
                damage,
                queued: RefCell::default(),
            },
            restored,
        ))
    }

    /// The damage found in the files on opening them (a damaged snapshot set aside, a cut
    /// tail, a journal that could not be resumed), in words; logged already.
    pub(crate) fn damage(&self) -> &[String] {
        &self.damage
    }

    /// Queue `job` for the writer; it goes with the others at the next [`Persist::flush`].
    fn send(&self, job: Job) {
        self.queued.borrow_mut().push(job);
    }

    /// Hand the queued jobs to the writer in one message. The actor calls it at the end of
    /// every wake-up; an answer waiting on the journal ([`Persist::reply_when_durable`]) and
    /// the end of the handle call it too. Without a writer, the answers are given as they
    /// are (the records are lost, and said so).
    pub(crate) fn flush(&self) {
        let jobs = std::mem::take(&mut *self.queued.borrow_mut());
        if jobs.is_empty() {
            return;
        }
        if let Err(std_mpsc::SendError(jobs)) = self.tx.send(jobs) {
            tracing::error!("the journal writer is gone ({})", self.path.display());
            for job in jobs {
                if let Job::Done { reply, answer, .. } | Job::Retire { reply, answer, .. } = job {
                    let _ = reply.send(answer);
                }
            }
        }
    }

    /// Append a record (durable once the writer has fsynced it).
    pub(crate) fn append(&self, rec: Journaled) {
        self.send(Job::Append {
            id: self.id,
            entry: Entry::now(rec),
        });
    }

    /// Write a game's record (PGN and JSON event log, folded from the game's journal
    /// records) into the `games` directory: `games/round-R/` of the round it was played in,
    /// `games/` without one.
    pub(crate) fn write_record(&self, archive: Archive, round: Option<u32>) {
        self.send(Job::Record {
            id: self.id,
            archive: Box::new(archive),
            round,
        });
    }

    /// Start a new game: the journal is compacted to just its start.
    pub(crate) fn new_game(&self, start: GameStart) {
        self.send(Job::NewGame {
            id: self.id,
            start: Box::new(Entry::now(Journaled::Start(Box::new(start)))),
        });
    }

    /// Send `answer` on `reply` once everything queued before it is on disk.
    pub(crate) fn reply_when_durable(
        &self,
        reply: oneshot::Sender<Result<Reply, DeviceError>>,
        answer: Result<Reply, DeviceError>,
    ) {
        self.send(Job::Done {
            id: self.id,
            reply,
            answer,
        });
        self.flush();
    }
}

impl Persist {
    /// The clock is detached: its journal and snapshot are removed once everything sent
    /// before (its game's record in `games/`) is written; then `answer` goes to `reply`.
    pub(crate) fn retire(
        self,
        reply: oneshot::Sender<Result<Reply, DeviceError>>,
        answer: Result<Reply, DeviceError>,
    ) {
        self.send(Job::Retire {
            id: self.id,
            reply,
            answer,
        });
        self.flush();
    }
}

impl Drop for Persist {
    /// The writer syncs and closes the journal (and releases its lock) before it handles
    /// anything sent after this, such as the same board's next open.
    fn drop(&mut self) {
        self.send(Job::Close { id: self.id });
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::notation;
    use crate::engine::{AdjustOp, GameResult, Side};
    use crate::store;

    #[test]
    fn journal_records_round_trip_through_json() {
        let control = notation::parse("G/3 inc/2").expect("notation").control;
        for input in [
            Input::Press { side: Side::Black },
            Input::Adjust {
                side: Side::White,
                field: chessclock_engine::AdjustField::MainMs,
                op: AdjustOp::Add,
                ms: -1500,
            },
            Input::BoardResult {
                result: GameResult::Draw,
            },
            Input::Reconfigure {
                control: Box::new(control),
            },
        ] {
            let rec = Journaled::Input {
                t_ms: 42,
                wall_ms: 7,
                input,
            };
            let json = store::to_json(&rec).expect("serialise");
            let back: Journaled = store::from_json(&json).expect("deserialise");
            assert_eq!(back, rec, "{json}");
        }
    }

    #[test]
    fn records_are_stamped_and_older_unstamped_lines_still_read() {
        let entry = Entry::now(Journaled::Note {
            t_ms: 5,
            wall_ms: 6,
            what: "connected".into(),
            record: false,
        });
        let json = store::to_json(&entry).expect("serialise");
        assert!(
            json.contains("\"kind\":\"note\"") && json.contains("\"boot\""),
            "{json}"
        );
        assert_eq!(store::from_json::<Entry>(&json).expect("back"), entry);
        let old = r#"{"kind":"note","t_ms":5,"wall_ms":6,"what":"connected"}"#;
        let back: Entry = store::from_json(old).expect("a line from before the stamp");
        assert_eq!((back.rec, back.boot), (entry.rec, None));
    }

    #[test]
    fn snapshots_of_older_versions_read_as_the_start_only() {
        let control = notation::parse("G/3 inc/2").expect("notation").control;
        let start = GameStart {
            control,
            t_ms: 1,
            wall_ms: 2,
            game_id: None,
        };
        let old = store::to_json(&start).expect("serialise");
        let Ok(SnapshotFile::Legacy(back)) = store::from_json::<SnapshotFile>(&old) else {
            panic!("an old snapshot must read as the start: {old}");
        };
        assert_eq!(*back, start);
        let new = SnapshotFile::Game {
            start: Entry::now(Journaled::Start(Box::new(start))),
            records: Vec::new(),
        };
        let json = store::to_json(&new).expect("serialise");
        assert!(matches!(
            store::from_json::<SnapshotFile>(&json),
            Ok(SnapshotFile::Game { .. })
        ));
    }

    #[test]
    fn virtual_store_names_are_file_safe_and_distinct() {
        assert_eq!(virtual_store_name("Board 1"), "virtual-Board_201");
        assert_eq!(virtual_store_name("a_b"), "virtual-a_5fb");
        assert_ne!(virtual_store_name("a b"), virtual_store_name("a_b"));
        assert_eq!(virtual_store_name("../x"), "virtual-.._2fx");
        assert_eq!(virtual_store_name("é"), "virtual-_c3_a9");
    }

    #[test]
    fn store_names_are_file_safe() {
        assert_eq!(
            store_name(Path::new("/dev/serial/by-path/pci-0:1.2")),
            "clock-dev_serial_by-path_pci-0_1.2"
        );
    }
}
