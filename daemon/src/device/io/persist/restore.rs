//! Rebuilding a game from its journal: find where the game started, replay every accepted
//! input with its original engine time, hand back the board's steps in order with the
//! engine's events (the session folds them over the board's game), and charge the gap since
//! the last record.
//!
//! Pure: the journal's entries and "now" are passed in; no IO, no clock reads. What could not
//! be rebuilt exactly is returned as `problems` (sentences for the log and the operator),
//! never hidden.

use super::stamp::Now;
use super::{Entry, GameRecord, GameStart, Note};
use crate::device::link::display::BoardSide;
use crate::device::session::note::lever_noted_after;
use crate::device::session::observe::Mode;
use crate::engine::{Engine, Event, Time};

/// A wall clock that disagrees with the boot clock by more than this across a restart was
/// set (stepped) in between.
const STEP_TOLERANCE_MS: i128 = 2_000;

/// One thing the replay of a journal gives back, in journal order: the game's record and the
/// board's game are folds over these.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Replayed {
    /// An event of the engine's replay.
    Engine(Event),
    /// A step of the board's game, to fold over the session's.
    Board(chessclock_game::Step),
}

/// A game rebuilt from the journal.
#[derive(Debug)]
pub(crate) struct Restored {
    pub engine: Engine,
    /// Engine time now (including the gap since the last record).
    pub now_ms: u64,
    /// When the game started (wall time), for its record.
    pub started_wall_ms: u64,
    /// The engine's events and the board's steps of the replay, with engine and wall time,
    /// in journal order: the game's record and the board's game are rebuilt from them.
    pub replayed: Vec<(u64, u64, Replayed)>,
    /// Which half was White's when the journal last said so (`SetWhiteSide`).
    pub white_side: Option<BoardSide>,
    /// The serial number of the board the game was last played on, if the journal said.
    pub board_serial: Option<String>,
    /// Driven or observed, as the journal last said.
    pub mode: Option<Mode>,
    /// The control the operator declared for an observed clock (canonical notation), as the
    /// journal last said.
    pub declared: Option<String>,
    /// Whether the lever was in step with the running player when the journal last said,
    /// if nothing changed since: `None` when it did not say, or when an input that may
    /// change whose clock runs (a press, a start, a resume: [`lever_noted_after`]) or White's
    /// half came after it. The session notes the lever right after every such input, so an
    /// input without its note is a journal cut between the two (or a journal of a version
    /// that noted only changes): not known.
    pub lever_in_step: Option<bool>,
    /// Entries the engine refused on replay (kept aside by the caller, never dropped
    /// silently).
    pub rejected: Vec<Entry>,
    /// What could not be restored exactly, in words.
    pub problems: Vec<String>,
    /// The game's start and the records since, as the journal writer keeps them.
    pub(super) start: Entry,
    pub(super) records: Vec<Entry>,
}

/// Rebuild the game from `entries` (the snapshot's, then the journal's, in order). The game
/// starts at the last `Start` entry, else at `snapshot_start`; a journal without either is
/// replayed under `fallback` (the clock's configured control) and that is reported. `None`:
/// nothing to resume.
pub(crate) fn restore(
    snapshot_start: Option<Entry>,
    entries: Vec<Entry>,
    fallback: &GameStart,
    now: &Now,
) -> Option<Restored> {
    let mut problems = Vec::new();
    let last_start = entries
        .iter()
        .rposition(|e| matches!(e.rec, GameRecord::Start(_)));
    let (start, rest) = match (last_start, snapshot_start) {
        (Some(i), _) => {
            let mut entries = entries;
            let rest = entries.split_off(i + 1);
            (entries.pop()?, rest)
        }
        (None, Some(start)) => (start, entries),
        (None, None) if entries.is_empty() => return None,
        (None, None) => {
            problems.push(format!(
                "the snapshot is missing and the journal does not say how the game started; its \
                 {} records were replayed under the clock's configured control",
                entries.len()
            ));
            let start = Entry {
                rec: GameRecord::Start(Box::new(fallback.clone())),
                boot: None,
            };
            (start, entries)
        }
    };
    let GameRecord::Start(game) = &start.rec else {
        return None;
    };
    let mut engine = match Engine::new(game.control.clone()) {
        Ok(e) => e,
        Err(e) => {
            problems.push(format!(
                "the journaled control cannot be used ({e}); a new game starts"
            ));
            return None;
        }
    };
    let mut replayed = Vec::new();
    let mut white_side = None;
    let mut lever_in_step = None;
    let mut board_serial = None;
    let mut mode = None;
    let mut declared = None;
    let mut rejected = Vec::new();
    let mut records = Vec::with_capacity(rest.len());
    let mut last = &start;
    for entry in &rest {
        match &entry.rec {
            GameRecord::Input {
                t_ms,
                wall_ms,
                input,
            } => {
                // The lever's note after this input says whether it is still in step.
                if lever_noted_after(input) {
                    lever_in_step = None;
                }
                if let Err(e) = engine.handle_input(Time::from_ms(*t_ms), input.clone()) {
                    if rejected.is_empty() {
                        problems.push(format!(
                            "a journaled input at {} ms could not be replayed ({e})",
                            t_ms
                        ));
                    }
                    rejected.push(entry.clone());
                } else {
                    records.push(entry.clone());
                }
                while let Some(ev) = engine.poll_event() {
                    replayed.push((*t_ms, *wall_ms, Replayed::Engine(ev)));
                }
            }
            GameRecord::Board {
                t_ms,
                wall_ms,
                step,
            } => {
                // Time passes for the engine first: a flag due before the step falls first.
                engine.handle_timeout(Time::from_ms(*t_ms));
                while let Some(ev) = engine.poll_event() {
                    replayed.push((*t_ms, *wall_ms, Replayed::Engine(ev)));
                }
                replayed.push((*t_ms, *wall_ms, Replayed::Board(step.clone())));
                records.push(entry.clone());
            }
            GameRecord::Note { what, .. } => {
                match Note::read(what) {
                    Some(Note::WhiteSide(side)) => {
                        white_side = Some(side);
                        // The lever's halves mean other players now.
                        lever_in_step = None;
                    }
                    Some(Note::Lever(in_step)) => lever_in_step = Some(in_step),
                    Some(Note::BoardSerial(serial)) => board_serial = Some(serial),
                    Some(Note::Mode(m)) => mode = Some(m),
                    Some(Note::Declared(control)) => declared = Some(control),
                    _ => {}
                }
                records.push(entry.clone());
            }
            GameRecord::Start(_) => {}
        }
        last = entry;
    }
    if rejected.len() > 1 {
        problems.push(format!(
            "{} journaled inputs in all could not be replayed",
            rejected.len()
        ));
    }
    let (last_t, _) = last.rec.times();
    let gap = gap_ms(last, now, &mut problems);
    let started_wall_ms = game.wall_ms;
    let now_ms = last_t.saturating_add(gap);
    engine.handle_timeout(Time::from_ms(now_ms));
    while let Some(ev) = engine.poll_event() {
        replayed.push((now_ms, now.wall_ms, Replayed::Engine(ev)));
    }
    Some(Restored {
        engine,
        now_ms,
        started_wall_ms,
        replayed,
        white_side,
        board_serial,
        mode,
        declared,
        lever_in_step,
        rejected,
        problems,
        start,
        records,
    })
}

/// The time between `last` and `now` that the running side is charged (the hardware clock
/// kept running): on the boot clock within one boot; on the wall clock across a reboot, never
/// negative. A wall clock that was set in between is reported.
fn gap_ms(last: &Entry, now: &Now, problems: &mut Vec<String>) -> u64 {
    let (_, last_wall) = last.rec.times();
    let wall_gap = i128::from(now.wall_ms) - i128::from(last_wall);
    if let (Some(then), Some(boot)) = (&last.boot, &now.boot)
        && then.id == boot.id
    {
        let gap = boot.ms.saturating_sub(then.ms);
        let step = wall_gap - i128::from(gap);
        if step.abs() > STEP_TOLERANCE_MS {
            problems.push(format!(
                "the system clock was set {} by {} s while the daemon was down; the restart gap \
                 of {} s was measured on the monotonic clock instead",
                if step > 0 { "forward" } else { "back" },
                step.abs() / 1000,
                gap / 1000
            ));
        }
        return gap;
    }
    if wall_gap < 0 {
        problems.push(format!(
            "the system clock is {} s behind the last journal record (set back, or not yet \
             synchronised after a power loss); nothing was charged for the restart gap: check \
             the time and adjust the clocks if needed",
            -wall_gap / 1000
        ));
        return 0;
    }
    u64::try_from(wall_gap).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests;
