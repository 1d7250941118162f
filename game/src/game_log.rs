//! The record a clock's game leaves (architecture §7): its events as they happened, rendered
//! when the game ends, or when an operator discards it with a new game, as a PGN and a JSON
//! event log. The daemon folds it from the game's journal entries when it writes it: it is
//! never fed beside the journal.
//!
//! Owns the typed event log ([`LogEntry`]: a [`LogEvent`] with its engine time `t_ms` and
//! wall time `wall_ms`) and its two renderings. The PGN is the board's game when the caller
//! has one with moves (read from the pieces), else the presses: each with the mover's time
//! after it as `[%clk]` and no move (see [`crate::pgn`]). The JSON is the clock, port, time
//! control, start, result and reason, every event and the final snapshot (the shape
//! `docs/operations.md` describes). Pure: events and times are passed in, the texts
//! returned; writing the files is the daemon's journal writer's job. It must not know the
//! daemon's types: the game's events are the one [`ClockEvent`] the daemon signals too.

use chessclock_engine::{GameResult, ResultReason, Side, Snapshot, StatusCause};
use serde::Serialize;

use crate::clock_event::ClockEvent;
use crate::pgn::{self, GameInfo, PgnGame, PgnMove};

/// One event of the record, as the JSON log writes it (`"event"` names the kind): an event
/// of the clock's game ([`ClockEvent`]), or a note.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum LogEvent {
    /// Something external (a disconnect, an arbiter action).
    Note {
        /// What, in words.
        what: String,
    },
    /// An event of the game, written as the event itself.
    #[serde(untagged)]
    Clock(ClockEvent),
}

impl From<ClockEvent> for LogEvent {
    fn from(ev: ClockEvent) -> LogEvent {
        LogEvent::Clock(ev)
    }
}

/// One event with its times.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogEntry {
    /// The event (its fields are the entry's, beside the times).
    #[serde(flatten)]
    pub event: LogEvent,
    /// Engine time, ms.
    pub t_ms: u64,
    /// Wall time, Unix ms.
    pub wall_ms: u64,
}

/// One game's events so far.
#[derive(Debug, Clone)]
pub struct GameLog {
    name: String,
    port: String,
    control: String,
    started_wall_ms: u64,
    entries: Vec<LogEntry>,
    result: Option<(GameResult, ResultReason)>,
}

/// The rendered record: file stem, PGN text, JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// `<YYYYmmddTHHMMSSZ>-round-R-board-B` (from the game's `Round "R.B"` and `Board`
    /// tags), else `<YYYYmmddTHHMMSSZ>-<clock name>`, file-name safe.
    pub stem: String,
    /// The game as PGN.
    pub pgn: String,
    /// The event log as JSON.
    pub json: String,
}

/// The JSON document of a record.
#[derive(Serialize)]
struct LogJson<'a> {
    clock: &'a str,
    port: &'a str,
    time_control: &'a str,
    started_wall_ms: u64,
    result: Option<GameResult>,
    reason: Option<ResultReason>,
    events: &'a [LogEntry],
    #[serde(rename = "final")]
    final_snapshot: Option<&'a Snapshot>,
}

impl GameLog {
    /// A new, empty game on clock `name` at `port` with the canonical `control`.
    pub fn new(name: &str, port: &str, control: &str, wall_ms: u64) -> GameLog {
        GameLog {
            name: name.to_owned(),
            port: port.to_owned(),
            control: control.to_owned(),
            started_wall_ms: wall_ms,
            entries: Vec::new(),
            result: None,
        }
    }

    /// Whether anything happened that is worth a record (the game was started).
    pub fn started(&self) -> bool {
        !self.entries.is_empty()
    }

    /// Whether the game has a result already (its record is written then).
    pub fn finished(&self) -> bool {
        self.result.is_some()
    }

    /// The PGN `Date` of the game's start (`2026.11.26`, UTC), once it started.
    pub fn start_date(&self) -> Option<String> {
        Some(pgn_date(self.entries.first()?.wall_ms))
    }

    /// Whether `event` starts a game's record (the clock started): nothing before it
    /// belongs to the game.
    pub fn starts(event: &ClockEvent) -> bool {
        matches!(event, ClockEvent::StateChanged { reason, .. } if *reason == StatusCause::Start)
    }

    /// The events so far.
    pub fn entries(&self) -> &[LogEntry] {
        &self.entries
    }

    /// Add an event at engine time `t_ms`; nothing before the start belongs to a game.
    pub fn event(&mut self, t_ms: u64, wall_ms: u64, event: impl Into<LogEvent>) {
        let event = event.into();
        let start = matches!(&event, LogEvent::Clock(ev) if GameLog::starts(ev));
        if self.entries.is_empty() && !start {
            return;
        }
        if let LogEvent::Clock(ClockEvent::Result { result, reason }) = event {
            self.result = Some((result, reason));
        }
        self.entries.push(LogEntry {
            event,
            t_ms,
            wall_ms,
        });
    }

    /// Add a note (disconnects, arbiter actions) at engine time `t_ms`.
    pub fn note(&mut self, t_ms: u64, wall_ms: u64, what: &str) {
        if self.started() {
            self.entries.push(LogEntry {
                event: LogEvent::Note {
                    what: what.to_owned(),
                },
                t_ms,
                wall_ms,
            });
        }
    }

    /// The record as it stands; `final_snapshot` is the engine's snapshot at the end, `board`
    /// the board's game when moves were read from the pieces (its PGN is then the record's),
    /// `info` the game's information (players, round, ...) for a record of presses.
    pub fn render(
        &self,
        final_snapshot: Option<&Snapshot>,
        board: Option<PgnGame>,
        info: &GameInfo,
    ) -> Rendered {
        let (y, mo, d, h, mi, s) = utc(self.started_wall_ms);
        let drawn_by = final_snapshot.and_then(|s| s.drawn_by);
        let game = board
            .unwrap_or_else(|| self.presses_pgn(pgn_date(self.started_wall_ms), info, drawn_by));
        let json = LogJson {
            clock: &self.name,
            port: &self.port,
            time_control: &self.control,
            started_wall_ms: self.started_wall_ms,
            result: self.result.map(|(r, _)| r),
            reason: self.result.map(|(_, why)| why),
            events: &self.entries,
            final_snapshot,
        };
        // Named by round and board (`Round "R.B"`, `Board` tags) when the game has them, so a
        // folder of records reads as the round's boards; else by the clock's name.
        let tag = |name: &str| game.info.get(name).map(str::trim).filter(|v| !v.is_empty());
        let board = tag("Board")
            .or_else(|| tag("Round").and_then(|r| r.split_once('.').map(|(_, b)| b)))
            .filter(|b| b.parse::<u32>().is_ok());
        let round = tag("Round")
            .map(|r| r.split_once('.').map_or(r, |(r, _)| r))
            .filter(|r| r.parse::<u32>().is_ok());
        let label = match (round, board) {
            (Some(r), Some(b)) => format!("round-{r}-board-{b}"),
            (None, Some(b)) => format!("board-{b}"),
            _ => self.name.clone(),
        };
        let safe: String = label
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        Rendered {
            stem: format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z-{safe}"),
            pgn: pgn::write(&game),
            json: serde_json::to_string_pretty(&json).unwrap_or_default() + "\n",
        }
    }

    /// The clock's own PGN game: the presses, each with the mover's time after it, under the
    /// game's information (`Event`, `Site` and `Date` from the clock where it has none);
    /// `drawn_by` says how an Armageddon game was drawn (the final snapshot's).
    fn presses_pgn(
        &self,
        date: String,
        game_info: &GameInfo,
        drawn_by: Option<ResultReason>,
    ) -> PgnGame {
        let mut info = game_info.clone();
        let one_line = |v: &str| v.replace(['\n', '\r'], " ");
        for (tag, value) in [
            ("Event", format!("chessclockd: {}", self.control)),
            ("Site", self.name.clone()),
            ("Date", date),
        ] {
            if info.get(tag).is_some() {
                continue;
            }
            // Names are letters and values one line: the tags cannot be refused.
            let _ = info.set(tag, &one_line(&value));
        }
        let mut first = None;
        let moves = self
            .entries
            .iter()
            .filter_map(|e| match e.event {
                LogEvent::Clock(ClockEvent::Pressed(chessclock_engine::Press {
                    side,
                    white_ms,
                    black_ms,
                    ..
                })) => {
                    first.get_or_insert(side);
                    Some(PgnMove {
                        san: None,
                        clock_ms: Some(match side {
                            Side::White => white_ms,
                            Side::Black => black_ms,
                        }),
                        elapsed_ms: None,
                    })
                }
                _ => None,
            })
            .collect();
        PgnGame {
            info,
            control_notation: Some(self.control.clone()),
            moves,
            black_first: first == Some(Side::Black),
            result: self.result.map(|(r, _)| r),
            termination: Some(
                self.result
                    .map_or("abandoned", |(_, why)| pgn::termination(why))
                    .to_owned(),
            ),
            result_comment: self
                .result
                .and_then(|(_, why)| pgn::result_comment(why, drawn_by)),
            ..PgnGame::default()
        }
    }
}

/// The PGN `Date` (`2026.11.26`, UTC) of Unix milliseconds `wall_ms`.
pub fn pgn_date(wall_ms: u64) -> String {
    let (y, mo, d, ..) = utc(wall_ms);
    format!("{y:04}.{mo:02}.{d:02}")
}

/// Civil UTC date and time of Unix milliseconds (jiff's calendar; no leap seconds): year,
/// month, day, hour, minute, second. A time past jiff's range reads as the epoch.
fn utc(wall_ms: u64) -> (i64, u32, u32, u64, u64, u64) {
    let at = i64::try_from(wall_ms)
        .ok()
        .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let dt = at.to_zoned_datetime(jiff::tz::TimeZone::UTC).datetime();
    let n = |v: i8| u64::try_from(v).unwrap_or(0);
    (
        i64::from(dt.year()),
        u32::try_from(dt.month()).unwrap_or(1),
        u32::try_from(dt.day()).unwrap_or(1),
        n(dt.hour()),
        n(dt.minute()),
        n(dt.second()),
    )
}

#[cfg(test)]
mod tests;
