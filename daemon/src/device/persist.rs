//! "Nothing lost": a clock's game as journal records, written by a dedicated thread, and
//! rebuilt after a crash or power loss.
//!
//! Every accepted engine input (lever presses, operator and arbiter actions) is appended,
//! fsynced, before the request that caused it is answered. A new game compacts the journal
//! into a snapshot holding only the control. On start the game is replayed with the original
//! engine times, and the time between the last record and now is charged to the side that
//! was running, as the hardware clock kept running. Owns the record format; the store owns
//! the files.

use std::path::{Path, PathBuf};
use std::sync::mpsc as std_mpsc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use super::handle::{BoardSide, DeviceError, Reply};
use super::record::Rendered;
use crate::engine::params::TimeControl;
use crate::engine::{Engine, Event, Input, Time};
use crate::store::Journal;

/// How a game starts: its control and when (engine and wall time).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct GameStart {
    pub control: TimeControl,
    pub t_ms: u64,
    pub wall_ms: u64,
}

/// One journal record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum GameRecord {
    /// An input the engine accepted, at engine time `t_ms`.
    Input {
        t_ms: u64,
        wall_ms: u64,
        input: Input,
    },
    /// Something that happened but is derived or external (connect, disconnect, flag):
    /// kept for the record, not replayed.
    Note {
        t_ms: u64,
        wall_ms: u64,
        what: String,
    },
}

/// Wall-clock milliseconds since the Unix epoch (only used to measure the gap across a
/// restart; the engine itself runs on monotonic time).
pub(crate) fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A game rebuilt from the journal.
#[derive(Debug)]
pub(crate) struct Restored {
    pub engine: Engine,
    /// Engine time now (including the gap since the last record).
    pub now_ms: u64,
    /// When the game started (wall time), for its record.
    pub started_wall_ms: u64,
    /// The events of the replay, with engine and wall time, for the game's record.
    pub replayed: Vec<(u64, u64, Event)>,
    /// Which half was White's when the journal last said so (`SetWhiteSide`).
    pub white_side: Option<BoardSide>,
}

const WHITE_SIDE_NOTE: &str = "white_side ";

/// The journal note that records which half of the clock is White's.
pub(crate) fn white_side_note(side: BoardSide) -> String {
    format!("{WHITE_SIDE_NOTE}{}", side.as_str())
}

enum Job {
    Append(GameRecord),
    NewGame(Box<GameStart>),
    Done(
        oneshot::Sender<Result<Reply, DeviceError>>,
        Result<Reply, DeviceError>,
    ),
    Record(Box<Rendered>),
}

/// The journal of one clock, written by its own thread.
#[derive(Debug)]
pub(crate) struct Persist {
    tx: std_mpsc::Sender<Job>,
    path: PathBuf,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Job")
    }
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

impl Persist {
    /// Open the journal `name` in `dir`; returns the writer and the restored game, if any.
    pub(crate) fn open(
        dir: &Path,
        name: &str,
    ) -> Result<(Persist, Option<Restored>), crate::store::StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| crate::store::StoreError::io("create", dir, e))?;
        let (mut journal, recovered) = Journal::<GameRecord>::open::<GameStart>(dir, name)?;
        if let Some(repair) = &recovered.repair {
            tracing::warn!(
                "journal {} had a damaged tail at byte {} ({}); cut and saved to {}",
                journal.path().display(),
                repair.offset,
                repair.reason,
                repair.saved_to.display()
            );
        }
        let restored = recovered.snapshot.and_then(|start| {
            let mut engine = Engine::new(start.control).ok()?;
            let (mut last_t, mut last_wall) = (start.t_ms, start.wall_ms);
            let mut replayed = Vec::new();
            let mut white_side = None;
            for rec in &recovered.records {
                match &rec.data {
                    GameRecord::Input {
                        t_ms,
                        wall_ms,
                        input,
                    } => {
                        let _ = engine.handle_input(Time::from_ms(*t_ms), input.clone());
                        while let Some(ev) = engine.poll_event() {
                            replayed.push((*t_ms, *wall_ms, ev));
                        }
                        (last_t, last_wall) = (*t_ms, *wall_ms);
                    }
                    GameRecord::Note {
                        t_ms,
                        wall_ms,
                        what,
                    } => {
                        if let Some(side) = what.strip_prefix(WHITE_SIDE_NOTE) {
                            white_side = BoardSide::parse(side).or(white_side);
                        }
                        (last_t, last_wall) = (*t_ms, *wall_ms)
                    }
                }
            }
            let gap = wall_ms().saturating_sub(last_wall);
            let now_ms = last_t.saturating_add(gap);
            engine.handle_timeout(Time::from_ms(now_ms));
            let now_wall = wall_ms();
            while let Some(ev) = engine.poll_event() {
                replayed.push((now_ms, now_wall, ev));
            }
            Some(Restored {
                engine,
                now_ms,
                started_wall_ms: start.wall_ms,
                replayed,
                white_side,
            })
        });
        let path = journal.path().to_path_buf();
        let (tx, rx) = std_mpsc::channel::<Job>();
        let thread_path = path.clone();
        let games = dir.join("games");
        std::thread::Builder::new()
            .name(format!("journal-{name}"))
            .spawn(move || {
                let mut durability = Durability::default();
                for job in rx {
                    match job {
                        Job::Append(rec) => {
                            if let Err(e) = journal.append(&rec) {
                                tracing::error!("journal {}: {e}", thread_path.display());
                                durability.failed(&thread_path, &e);
                            }
                        }
                        Job::NewGame(start) => {
                            if let Err(e) = journal.compact(&*start) {
                                tracing::error!("journal {}: {e}", thread_path.display());
                                durability.failed(&thread_path, &e);
                            }
                        }
                        Job::Done(tx, answer) => {
                            let _ = tx.send(durability.answer(answer));
                        }
                        Job::Record(r) => match write_record(&games, &r) {
                            Ok(pgn) => tracing::info!("game record written: {}", pgn.display()),
                            Err(e) => tracing::error!("game record {}: {e}", r.stem),
                        },
                    }
                }
            })
            .map_err(|e| crate::store::StoreError::io("start the writer of", &path, e))?;
        Ok((Persist { tx, path }, restored))
    }

    /// Append a record (durable once the writer has fsynced it).
    pub(crate) fn append(&self, rec: GameRecord) {
        if self.tx.send(Job::Append(rec)).is_err() {
            tracing::error!("journal writer of {} is gone", self.path.display());
        }
    }

    /// Write a game's record (PGN and JSON event log) into the `games` directory.
    pub(crate) fn write_record(&self, record: Rendered) {
        let _ = self.tx.send(Job::Record(Box::new(record)));
    }

    /// Start a new game: the journal is compacted to just its start.
    pub(crate) fn new_game(&self, start: GameStart) {
        let _ = self.tx.send(Job::NewGame(Box::new(start)));
    }

    /// Send `answer` on `reply` once everything queued before it is on disk.
    pub(crate) fn reply_when_durable(
        &self,
        reply: oneshot::Sender<Result<Reply, DeviceError>>,
        answer: Result<Reply, DeviceError>,
    ) {
        if let Err(std_mpsc::SendError(Job::Done(reply, answer))) =
            self.tx.send(Job::Done(reply, answer))
        {
            let _ = reply.send(answer);
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

/// Write `<stem>.pgn` and `<stem>.json` in `dir` (created if missing), each atomically (temp
/// file, fsync, rename). Returns the PGN's path.
fn write_record(dir: &Path, r: &Rendered) -> std::io::Result<PathBuf> {
    use std::io::Write as _;
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
        let dest = dir.join(format!("{stem}.{ext}"));
        let tmp = dir.join(format!(".{stem}.{ext}.tmp"));
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, &dest)?;
    }
    std::fs::File::open(dir)?.sync_all()?;
    Ok(dir.join(format!("{stem}.pgn")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::notation;
    use crate::engine::{AdjustOp, GameResult, Side};

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
            let rec = GameRecord::Input {
                t_ms: 42,
                wall_ms: 7,
                input,
            };
            let json = serde_json::to_string(&rec).expect("serialise");
            let back: GameRecord = serde_json::from_str(&json).expect("deserialise");
            assert_eq!(back, rec, "{json}");
        }
    }

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

    #[test]
    fn store_names_are_file_safe() {
        assert_eq!(
            store_name(Path::new("/dev/serial/by-path/pci-0:1.2")),
            "clock-dev_serial_by-path_pci-0_1.2"
        );
    }
}
