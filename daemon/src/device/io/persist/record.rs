//! The game's record (architecture §7) as a fold over its journal: the archived record in
//! `games/` is the [`GameLog`] of the current game's journal entries, folded by the same
//! [`replay`] that rebuilds the game on start. No event is kept twice: while the game runs,
//! its record is its journal; the record is folded and rendered only when it is written.
//!
//! Owns [`Archive`] (what only the session knows when the record is written: the final
//! snapshot, the board's game, its tags) and the fold. Pure: the records are passed in.

use chessclock_game::pgn::{GameInfo, PgnGame};
use chessclock_game::{BoardGame, ClockEvent, GameLog, RecordChange, Rendered};

use super::restore::{Replayed, replay};
use super::{Entry, Journaled};
use crate::engine::Snapshot;
use crate::engine::notation;
use chessclock_device::session::{clock_event, move_event};

/// A game's record to write: what the session says of the game as it stands (the journal
/// writer has its records).
#[derive(Debug, Clone)]
pub(crate) struct Archive {
    /// The clock's name and port now.
    pub name: String,
    pub port: String,
    /// The engine's snapshot at the end.
    pub snapshot: Snapshot,
    /// The board's game, when moves were read from the pieces (its PGN is the record's).
    pub board: Option<PgnGame>,
    /// The game's information (players, round, ...).
    pub info: GameInfo,
    /// Written only if the game is under way (started, without a result): a game replaced
    /// by a new one, or a clock detached. Else written as it stands (the game ended).
    pub under_way_only: bool,
}

impl Archive {
    /// The record of the game that started with `start` and has `records` since, rendered;
    /// `None` if it is not to be written (see [`Archive::under_way_only`]).
    pub(crate) fn render(self, start: &Entry, records: &[Entry]) -> Option<Rendered> {
        let log = game_log(&self.name, &self.port, start, records)?;
        if self.under_way_only && (!log.started() || log.finished()) {
            return None;
        }
        Some(log.render(Some(&self.snapshot), self.board, &self.info))
    }
}

/// The record of the game on clock `name` at `port` that started with `start` and has
/// `records` since: the engine's events of their replay, the moves of the board's steps
/// folded over a board game, an observed clock's presses (the engine times none of them),
/// and the notes the record keeps, in journal order. `None`: the
/// start is not a start, or its control cannot be used (the restore said so).
pub(crate) fn game_log(
    name: &str,
    port: &str,
    start: &Entry,
    records: &[Entry],
) -> Option<GameLog> {
    let Journaled::Start(game) = &start.rec else {
        return None;
    };
    let fold = replay(&game.control, records).ok()?;
    let control = notation::canonical(fold.engine.control());
    let mut log = GameLog::new(name, port, &control, game.wall_ms);
    // The board's game, only for its moves: a step that does not fit stops it there, as
    // the session's rebuild does.
    let mut board = Some(BoardGame::default());
    for (t_ms, wall_ms, item) in fold.replayed {
        match item {
            Replayed::Engine(ev) => {
                if let Some(ev) = clock_event(ev) {
                    log.event(t_ms, wall_ms, ev);
                }
            }
            Replayed::Board(step) => {
                let Some(game) = board.as_mut() else {
                    continue;
                };
                if game.replay(t_ms, &step).is_err() {
                    board = None;
                    continue;
                }
                while let Some(change) = game.poll_change() {
                    if let RecordChange::Move(m) = change {
                        log.event(t_ms, wall_ms, move_event(&m));
                    }
                }
            }
            Replayed::Observed(press) => log.event(t_ms, wall_ms, ClockEvent::Pressed(press)),
            Replayed::Note(what) => log.note(t_ms, wall_ms, &what),
        }
    }
    Some(log)
}

#[cfg(test)]
mod tests {
    use chessclock_game::{LogEvent, Step};

    use super::*;
    use crate::device::io::persist::GameStart;
    use crate::engine::{Input, Press, Side, notation};

    fn entry(rec: Journaled) -> Entry {
        Entry { rec, boot: None }
    }

    fn press(t_ms: u64, white: bool, clock_ms: u64, elapsed_ms: u64) -> Entry {
        entry(Journaled::Board {
            t_ms,
            wall_ms: 1_000_000 + t_ms,
            step: Step::Press {
                white,
                clock_ms,
                elapsed_ms: Some(elapsed_ms),
            },
        })
    }

    /// Presses on a clock switched to observe mode are the record's events, with both
    /// clocks and each player's press count, as the session said them (the board's steps
    /// alone gave the PGN its times but left the JSON's event list without them).
    #[test]
    fn an_observed_clock_s_presses_are_in_the_record_s_events() {
        let start = entry(Journaled::Start(Box::new(GameStart {
            control: notation::parse("G/5").expect("notation").control,
            t_ms: 0,
            wall_ms: 1_000_000,
            game_id: None,
        })));
        let input = |t_ms, input| {
            entry(Journaled::Input {
                t_ms,
                wall_ms: 1_000_000 + t_ms,
                input,
            })
        };
        // Driven for 3 s, paused, then observed.
        let records = [
            input(0, Input::Start { side: Side::White }),
            input(3_000, Input::Pause),
            entry(Journaled::Note {
                t_ms: 4_000,
                wall_ms: 1_004_000,
                what: "mode observe".into(),
                record: true,
            }),
            press(5_000, true, 295_000, 5_000),
            press(15_000, false, 290_000, 10_000),
            press(17_000, true, 293_000, 2_000),
        ];
        let log = game_log("Board 1", "/dev/ttyACM0", &start, &records).expect("a record");
        let presses: Vec<Press> = log
            .entries()
            .iter()
            .filter_map(|e| match &e.event {
                LogEvent::Clock(ClockEvent::Pressed(p)) => Some(*p),
                _ => None,
            })
            .collect();
        let p = |side, move_number, move_ms, white_ms, black_ms| Press {
            side,
            move_number,
            move_ms,
            white_ms,
            black_ms,
        };
        assert_eq!(
            presses,
            [
                p(Side::White, 1, 5_000, 295_000, 300_000),
                p(Side::Black, 1, 10_000, 295_000, 290_000),
                p(Side::White, 2, 2_000, 293_000, 290_000),
            ]
        );
    }
}
