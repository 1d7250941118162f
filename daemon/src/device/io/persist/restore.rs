//! Rebuilding a game from its journal: find where the game started, replay every accepted
//! input with its original engine time, hand back the board's steps and the record's notes
//! in order with the engine's events (the session folds them over the board's game), and
//! charge the gap since the last record. The replay ([`replay`]) is the one fold of a
//! journal: the game's archived record ([`super::record`]) is made of it too.
//!
//! Pure: the journal's entries and "now" are passed in; no IO, no clock reads. What could not
//! be rebuilt exactly is returned as `problems` (sentences for the log and the operator),
//! never hidden.

use super::stamp::Now;
use super::{Entry, GameStart, Journaled, Note};
use crate::engine::params::TimeControl;
use crate::engine::{Engine, Event, Press, Side, Time};
use chessclock_device::link::display::BoardSide;
use chessclock_device::session::clock_event;
use chessclock_device::session::note::lever_noted_after;
use chessclock_device::session::observe::Mode;
use chessclock_game::GameLog;

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
    /// A note the game's record keeps (a correction, a disconnect, an operator's action).
    Note(String),
    /// A press on an observed clock (its board step [`chessclock_game::Step::Press`] comes
    /// right before): the record lists it as the session said it. The times come from the
    /// journal: the presser's from its step, the other player's as their last press left it
    /// (before it, the engine's).
    Observed(Press),
}

/// A game rebuilt from the journal: the fold of its records ([`Replay`], read through
/// `Deref`), brought up to now.
#[derive(Debug)]
pub(crate) struct Restored {
    /// The journal's records folded over the game's start; its engine has seen the time up
    /// to `now_ms`, and its replay ends with the events of that time.
    pub fold: Replay,
    /// Engine time now (including the gap since the last record).
    pub now_ms: u64,
    /// What could not be restored exactly, in words.
    pub problems: Vec<String>,
    /// The game's start, as the journal writer keeps it (the records are the fold's).
    pub(crate) start: Entry,
}

impl std::ops::Deref for Restored {
    type Target = Replay;

    fn deref(&self) -> &Replay {
        &self.fold
    }
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
        .rposition(|e| matches!(e.rec, Journaled::Start(_)));
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
                rec: Journaled::Start(Box::new(fallback.clone())),
                boot: None,
            };
            (start, entries)
        }
    };
    let Journaled::Start(game) = &start.rec else {
        return None;
    };
    let mut fold = match replay(&game.control, &rest) {
        Ok(fold) => fold,
        Err(e) => {
            problems.push(format!(
                "the journaled control cannot be used ({e}); a new game starts"
            ));
            return None;
        }
    };
    problems.extend(fold.refused.take());
    if fold.rejected.len() > 1 {
        problems.push(format!(
            "{} journaled inputs in all could not be replayed",
            fold.rejected.len()
        ));
    }
    let last = rest.last().unwrap_or(&start);
    let (last_t, _) = last.rec.times();
    let gap = gap_ms(last, now, &mut problems);
    let now_ms = last_t.saturating_add(gap);
    fold.engine.handle_timeout(Time::from_ms(now_ms));
    while let Some(ev) = fold.engine.poll_event() {
        fold.replayed
            .push((now_ms, now.wall_ms, Replayed::Engine(ev)));
    }
    Some(Restored {
        fold,
        now_ms,
        problems,
        start,
    })
}

/// A game's records folded over its start: the engine as they leave it, the engine's events
/// and the board's steps in journal order, and what the notes said. The one fold of a
/// journal: the restore on start and the game's record ([`super::record`]) are made of it.
#[derive(Debug)]
pub(crate) struct Replay {
    pub engine: Engine,
    /// The engine's events, the board's steps and the record's notes, with engine and wall
    /// time, in journal order.
    pub replayed: Vec<(u64, u64, Replayed)>,
    pub white_side: Option<BoardSide>,
    pub lever_in_step: Option<bool>,
    pub board_serial: Option<String>,
    /// The board on the port has yet to show the game's position (a spare swapped in).
    pub pieces_awaited: bool,
    pub mode: Option<Mode>,
    pub declared: Option<String>,
    /// Inputs the engine refused, kept aside by the caller.
    pub rejected: Vec<Entry>,
    /// The records the game keeps (all but the refused inputs).
    pub records: Vec<Entry>,
    /// Why the first refused input was refused, in words.
    pub refused: Option<String>,
    /// Observe mode since the last mode note: each side's presses and clock after its last
    /// press ([`Replayed::Observed`]).
    observed: Option<[(u32, Option<u64>); 2]>,
}

/// Fold `records` (a game's, after its start) over a new engine on `control`: every input is
/// replayed at its engine time, time passes for the engine up to each record first (a flag
/// due before it falls first), and the board's steps and the record's notes are handed back
/// in order. `Err`: the control cannot be used.
pub(crate) fn replay(
    control: &TimeControl,
    records: &[Entry],
) -> Result<Replay, chessclock_engine::ConfigError> {
    let mut fold = Replay {
        engine: Engine::new(control.clone())?,
        replayed: Vec::new(),
        white_side: None,
        lever_in_step: None,
        board_serial: None,
        pieces_awaited: false,
        mode: None,
        declared: None,
        rejected: Vec::new(),
        records: Vec::with_capacity(records.len()),
        refused: None,
        observed: None,
    };
    for entry in records {
        let (t_ms, wall_ms) = entry.rec.times();
        if matches!(entry.rec, Journaled::Start(_)) {
            continue;
        }
        // Time passes for the engine first: a flag due before the record falls first.
        fold.engine.handle_timeout(Time::from_ms(t_ms));
        fold.drain(t_ms, wall_ms);
        match &entry.rec {
            Journaled::Input { input, .. } => {
                // The lever's note after this input says whether it is still in step.
                if lever_noted_after(input) {
                    fold.lever_in_step = None;
                }
                match fold.engine.handle_input(Time::from_ms(t_ms), input.clone()) {
                    Ok(()) => fold.records.push(entry.clone()),
                    Err(e) => {
                        fold.refused.get_or_insert_with(|| {
                            format!("a journaled input at {t_ms} ms could not be replayed ({e})")
                        });
                        fold.rejected.push(entry.clone());
                    }
                }
                fold.drain(t_ms, wall_ms);
            }
            Journaled::Board { step, .. } => {
                fold.replayed
                    .push((t_ms, wall_ms, Replayed::Board(step.clone())));
                fold.records.push(entry.clone());
                if let Some(press) = fold.observed_press(t_ms, step) {
                    fold.replayed
                        .push((t_ms, wall_ms, Replayed::Observed(press)));
                }
            }
            Journaled::Note { what, record, .. } => {
                match Note::read(what) {
                    Some(Note::WhiteSide(side)) => {
                        fold.white_side = Some(side);
                        // The lever's halves mean other players now.
                        fold.lever_in_step = None;
                    }
                    Some(Note::Lever(in_step)) => fold.lever_in_step = Some(in_step),
                    Some(Note::BoardSerial(serial)) => fold.board_serial = Some(serial),
                    Some(Note::PiecesAwaited(awaited)) => fold.pieces_awaited = awaited,
                    Some(Note::Mode(m)) => {
                        fold.mode = Some(m);
                        // The session counts an observed clock's presses from the switch.
                        fold.observed = (m == Mode::Observe).then_some([(0, None); 2]);
                    }
                    Some(Note::Declared(control)) => fold.declared = Some(control),
                    _ => {}
                }
                if *record {
                    fold.replayed
                        .push((t_ms, wall_ms, Replayed::Note(what.clone())));
                }
                fold.records.push(entry.clone());
            }
            Journaled::Start(_) => {}
        }
    }
    Ok(fold)
}

impl Replay {
    /// The press of an observed clock that `step` is, as the session said it.
    fn observed_press(&mut self, t_ms: u64, step: &chessclock_game::Step) -> Option<Press> {
        let chessclock_game::Step::Press {
            white,
            clock_ms,
            elapsed_ms,
        } = *step
        else {
            return None;
        };
        let observed = self.observed.as_mut()?;
        let (me, other) = if white { (0, 1) } else { (1, 0) };
        observed[me].0 += 1;
        observed[me].1 = Some(clock_ms);
        let snap = self.engine.snapshot(Time::from_ms(t_ms));
        let other_ms =
            observed[other]
                .1
                .unwrap_or(if white { snap.black_ms } else { snap.white_ms });
        let (white_ms, black_ms) = if white {
            (clock_ms, other_ms)
        } else {
            (other_ms, clock_ms)
        };
        Some(Press {
            side: if white { Side::White } else { Side::Black },
            move_number: observed[me].0,
            move_ms: elapsed_ms.unwrap_or_default(),
            white_ms,
            black_ms,
        })
    }

    /// The engine's events so far, at `t_ms`.
    /// The wall time the game's clock started at, if it did (its first starting event).
    pub(crate) fn started_wall_ms(&self) -> Option<u64> {
        self.replayed
            .iter()
            .find_map(|(_, wall_ms, item)| match item {
                Replayed::Engine(ev) => clock_event(ev.clone())
                    .is_some_and(|ev| GameLog::starts(&ev))
                    .then_some(*wall_ms),
                _ => None,
            })
    }

    /// The board's steps with their engine time, in journal order (the session folds them
    /// over its board game).
    pub(crate) fn board_steps(&self) -> Vec<(u64, chessclock_game::Step)> {
        self.replayed
            .iter()
            .filter_map(|(t_ms, _, item)| match item {
                Replayed::Board(step) => Some((*t_ms, step.clone())),
                _ => None,
            })
            .collect()
    }

    fn drain(&mut self, t_ms: u64, wall_ms: u64) {
        while let Some(ev) = self.engine.poll_event() {
            self.replayed.push((t_ms, wall_ms, Replayed::Engine(ev)));
        }
    }
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
            "the system clock is {} s behind the last journal entry (set back, or not yet \
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
