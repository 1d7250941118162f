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

use super::handle::{DeviceError, Reply};
use crate::engine::params::TimeControl;
use crate::engine::{AdjustOp, Engine, GameResult, Input, Side, Time};
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
        input: InputRecord,
    },
    /// Something that happened but is derived or external (connect, disconnect, flag):
    /// kept for the record, not replayed.
    Note {
        t_ms: u64,
        wall_ms: u64,
        what: String,
    },
}

/// The serialisable form of an engine input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub(crate) enum InputRecord {
    Start {
        side: Side,
    },
    Press {
        side: Side,
    },
    Pause,
    Resume,
    Adjust {
        side: Side,
        field: String,
        set: bool,
        ms: i64,
    },
    SetMoves {
        side: Side,
        moves: u32,
    },
    ClaimDraw {
        side: Side,
    },
    BoardResult {
        result: String,
    },
    Reconfigure {
        control: Box<TimeControl>,
    },
}

impl InputRecord {
    pub(crate) fn from_input(input: &Input) -> InputRecord {
        match input {
            Input::Start { side } => InputRecord::Start { side: *side },
            Input::Press { side } => InputRecord::Press { side: *side },
            Input::Pause => InputRecord::Pause,
            Input::Resume => InputRecord::Resume,
            Input::Adjust {
                side,
                field,
                op,
                ms,
            } => InputRecord::Adjust {
                side: *side,
                field: field.clone(),
                set: *op == AdjustOp::Set,
                ms: *ms,
            },
            Input::SetMoves { side, moves } => InputRecord::SetMoves {
                side: *side,
                moves: *moves,
            },
            Input::ClaimDraw { side } => InputRecord::ClaimDraw { side: *side },
            Input::BoardResult { result } => InputRecord::BoardResult {
                result: result.to_string(),
            },
            Input::Reconfigure(control) => InputRecord::Reconfigure {
                control: control.clone(),
            },
        }
    }

    fn to_input(&self) -> Option<Input> {
        Some(match self {
            InputRecord::Start { side } => Input::Start { side: *side },
            InputRecord::Press { side } => Input::Press { side: *side },
            InputRecord::Pause => Input::Pause,
            InputRecord::Resume => Input::Resume,
            InputRecord::Adjust {
                side,
                field,
                set,
                ms,
            } => Input::Adjust {
                side: *side,
                field: field.clone(),
                op: if *set { AdjustOp::Set } else { AdjustOp::Add },
                ms: *ms,
            },
            InputRecord::SetMoves { side, moves } => Input::SetMoves {
                side: *side,
                moves: *moves,
            },
            InputRecord::ClaimDraw { side } => Input::ClaimDraw { side: *side },
            InputRecord::BoardResult { result } => Input::BoardResult {
                result: GameResult::parse(result)?,
            },
            InputRecord::Reconfigure { control } => Input::Reconfigure(control.clone()),
        })
    }
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
}

enum Job {
    Append(GameRecord),
    NewGame(Box<GameStart>),
    Done(
        oneshot::Sender<Result<Reply, DeviceError>>,
        Result<Reply, DeviceError>,
    ),
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
            for rec in &recovered.records {
                match &rec.data {
                    GameRecord::Input {
                        t_ms,
                        wall_ms,
                        input,
                    } => {
                        if let Some(input) = input.to_input() {
                            let _ = engine.handle_input(Time::from_ms(*t_ms), input);
                        }
                        (last_t, last_wall) = (*t_ms, *wall_ms);
                    }
                    GameRecord::Note { t_ms, wall_ms, .. } => {
                        (last_t, last_wall) = (*t_ms, *wall_ms)
                    }
                }
            }
            let gap = wall_ms().saturating_sub(last_wall);
            let now_ms = last_t.saturating_add(gap);
            engine.handle_timeout(Time::from_ms(now_ms));
            while engine.poll_event().is_some() {}
            Some(Restored { engine, now_ms })
        });
        let path = journal.path().to_path_buf();
        let (tx, rx) = std_mpsc::channel::<Job>();
        let thread_path = path.clone();
        std::thread::Builder::new()
            .name(format!("journal-{name}"))
            .spawn(move || {
                for job in rx {
                    match job {
                        Job::Append(rec) => {
                            if let Err(e) = journal.append(&rec) {
                                tracing::error!("journal {}: {e}", thread_path.display());
                            }
                        }
                        Job::NewGame(start) => {
                            if let Err(e) = journal.compact(&*start) {
                                tracing::error!("journal {}: {e}", thread_path.display());
                            }
                        }
                        Job::Done(tx, answer) => {
                            let _ = tx.send(answer);
                        }
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
