//! The record a game leaves (architecture §7): its events as they happened, rendered when the
//! game ends, or when an operator discards it with a new game, as a PGN with `[%clk]` after
//! each move and a JSON event log.
//!
//! Pure: events and times are passed in; the texts are returned. Writing the files is the
//! journal writer's job ([`super::persist`]).

use serde_json::{Value, json};

use super::handle::ClockEvent;
use crate::engine::{GameResult, ResultReason, Side, Snapshot};
use crate::store::pgn::{self, PgnGame, PgnMove, PgnResult};

/// One game's events so far.
#[derive(Debug, Clone)]
pub(crate) struct GameLog {
    name: String,
    port: String,
    control: String,
    started_wall_ms: u64,
    first_mover: Option<Side>,
    moves: Vec<PgnMove>,
    entries: Vec<Value>,
    result: Option<(GameResult, ResultReason)>,
}

/// The rendered record: file stem, PGN text, JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rendered {
    /// `<YYYYmmddTHHMMSSZ>-<clock name>`, file-name safe.
    pub stem: String,
    pub pgn: String,
    pub json: String,
}

/// The PGN `Termination` of a result for `reason`.
pub(crate) fn termination_of(reason: ResultReason) -> &'static str {
    match reason {
        ResultReason::Flag(_)
        | ResultReason::BothMainTimesExpired
        | ResultReason::InsufficientMaterial => "time forfeit",
        ResultReason::Board
        | ResultReason::DrawClaimOpponentInExtra
        | ResultReason::WinnerInExtraTime
        | ResultReason::Checkmate
        | ResultReason::Stalemate
        | ResultReason::BoardSignal
        | ResultReason::FivefoldRepetition
        | ResultReason::SeventyFiveMoves
        | ResultReason::ThreefoldRepetition
        | ResultReason::FiftyMoves
        | ResultReason::InsufficientLosingChances => "normal",
    }
}

impl GameLog {
    /// A new, empty game on clock `name` at `port` with the canonical `control`.
    pub(crate) fn new(name: &str, port: &str, control: &str, wall_ms: u64) -> GameLog {
        GameLog {
            name: name.to_owned(),
            port: port.to_owned(),
            control: control.to_owned(),
            started_wall_ms: wall_ms,
            first_mover: None,
            moves: Vec::new(),
            entries: Vec::new(),
            result: None,
        }
    }

    /// The clock was renamed: the record is written under the new name.
    pub(crate) fn set_name(&mut self, name: &str) {
        name.clone_into(&mut self.name);
    }

    /// The control changed mid-game (kept in the record as an event too).
    pub(crate) fn set_control(&mut self, control: &str) {
        self.control = control.to_owned();
    }

    /// Whether anything happened that is worth a record (the game was started).
    pub(crate) fn started(&self) -> bool {
        !self.entries.is_empty()
    }

    /// Whether the game has a result already (its record is written then).
    pub(crate) fn finished(&self) -> bool {
        self.result.is_some()
    }

    /// Add an event at engine time `t_ms`.
    pub(crate) fn event(&mut self, t_ms: u64, wall_ms: u64, ev: &ClockEvent) {
        // The record begins with the start; nothing before it belongs to a game.
        let start = matches!(ev, ClockEvent::StateChanged { reason, .. } if reason == "start");
        if self.entries.is_empty() && !start {
            return;
        }
        if let ClockEvent::Pressed {
            side,
            white_ms,
            black_ms,
            ..
        } = ev
        {
            self.first_mover.get_or_insert(*side);
            self.moves.push(PgnMove {
                san: None,
                clock_ms: match side {
                    Side::White => *white_ms,
                    Side::Black => *black_ms,
                },
            });
        }
        if let ClockEvent::Result { result, reason } = ev {
            self.result = Some((*result, *reason));
        }
        let mut entry = serde_json::to_value(ev).unwrap_or(Value::Null);
        if let Some(o) = entry.as_object_mut() {
            o.insert("t_ms".into(), json!(t_ms));
            o.insert("wall_ms".into(), json!(wall_ms));
        }
        self.entries.push(entry);
    }

    /// Add a note (disconnects, arbiter actions) at engine time `t_ms`.
    pub(crate) fn note(&mut self, t_ms: u64, wall_ms: u64, what: &str) {
        if self.started() {
            self.entries
                .push(json!({"event": "note", "what": what, "t_ms": t_ms, "wall_ms": wall_ms}));
        }
    }

    /// The record as it stands; `final_snapshot` is the engine's snapshot at the end.
    pub(crate) fn render(&self, final_snapshot: Option<&Snapshot>) -> Rendered {
        let (pgn_result, termination) = match self.result {
            None => (PgnResult::Unknown, "abandoned"),
            Some((result, reason)) => (
                match result {
                    GameResult::WhiteWins => PgnResult::WhiteWins,
                    GameResult::BlackWins => PgnResult::BlackWins,
                    GameResult::Draw => PgnResult::Draw,
                },
                termination_of(reason),
            ),
        };
        let reason = self.result.map(|(_, why)| why);
        let (y, mo, d, h, mi, s) = utc(self.started_wall_ms);
        // A game started by Black: PGN's first move is White's, so White's is left empty.
        let mut moves = self.moves.clone();
        if self.first_mover == Some(Side::Black) {
            moves.insert(
                0,
                PgnMove {
                    san: Some("--".into()),
                    clock_ms: 0,
                },
            );
        }
        let game = PgnGame {
            event: Some(format!("chessclockd: {}", self.control)),
            site: Some(self.name.clone()),
            date: Some(format!("{y:04}.{mo:02}.{d:02}")),
            round: None,
            white: None,
            black: None,
            result: pgn_result,
            time_control: None,
            termination: Some(termination.into()),
            moves,
        };
        let json = json!({
            "clock": self.name,
            "port": self.port,
            "time_control": self.control,
            "started_wall_ms": self.started_wall_ms,
            "result": self.result.map(|(r, _)| r),
            "reason": reason,
            "events": self.entries,
            "final": final_snapshot,
        });
        let safe: String = self
            .name
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
            pgn: pgn::render(&game),
            json: serde_json::to_string_pretty(&json).unwrap_or_default() + "\n",
        }
    }
}

/// Civil UTC date and time of Unix milliseconds (proleptic Gregorian; no leap seconds).
fn utc(wall_ms: u64) -> (i64, u32, u32, u64, u64, u64) {
    let secs = wall_ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let m = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, rem / 3600, (rem / 60) % 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Engine, FlagReason, Input, Time, notation};

    fn press(side: Side, n: u32, white_ms: u64, black_ms: u64) -> ClockEvent {
        ClockEvent::Pressed {
            side,
            move_number: n,
            move_ms: 1000,
            white_ms,
            black_ms,
        }
    }

    /// A real engine snapshot of a game lost on time.
    fn flagged_snapshot() -> Snapshot {
        let control = notation::parse("G/1s d/0").expect("control").control;
        let mut e = Engine::new(control).expect("engine");
        e.handle_input(Time::ZERO, Input::Start { side: Side::White })
            .expect("start");
        e.snapshot(Time::from_ms(2_000))
    }

    fn started() -> GameLog {
        let mut log = GameLog::new("Table 1", "/dev/ttyACM0", "G/3 inc/2", 1_763_892_000_000);
        log.event(
            0,
            1_763_892_000_000,
            &ClockEvent::StateChanged {
                old: "ready".into(),
                new: "running".into(),
                reason: "start".into(),
            },
        );
        log
    }

    #[test]
    fn utc_dates_are_civil_dates() {
        assert_eq!(utc(0), (1970, 1, 1, 0, 0, 0));
        // 2026-11-23 10:00:00 UTC
        assert_eq!(utc(1_795_428_000_000), (2026, 11, 23, 10, 0, 0));
        // 2024-02-29 23:59:59 UTC (a leap day)
        assert_eq!(utc(1_709_251_199_000), (2024, 2, 29, 23, 59, 59));
    }

    #[test]
    fn a_finished_game_has_clk_comments_a_result_and_every_event() {
        let mut log = started();
        log.event(5000, 0, &press(Side::White, 1, 179_000, 182_000));
        log.event(6000, 0, &press(Side::Black, 1, 179_000, 183_000));
        log.event(
            9000,
            0,
            &ClockEvent::Result {
                result: GameResult::BlackWins,
                reason: ResultReason::Flag(FlagReason::Time),
            },
        );
        assert!(log.finished());
        let r = log.render(Some(&flagged_snapshot()));
        assert!(r.pgn.contains("[Result \"0-1\"]"), "{}", r.pgn);
        assert!(
            r.pgn.contains("[Termination \"time forfeit\"]"),
            "{}",
            r.pgn
        );
        assert!(r.pgn.contains("[%clk 0:02:59]"), "{}", r.pgn);
        assert!(r.pgn.contains("[%clk 0:03:03]"), "{}", r.pgn);
        assert!(r.pgn.trim_end().ends_with("0-1"), "{}", r.pgn);
        let v: Value = serde_json::from_str(&r.json).expect("json");
        assert_eq!(v["events"].as_array().map(Vec::len), Some(4));
        assert_eq!(v["events"][1]["event"], "pressed");
        assert_eq!(v["events"][1]["t_ms"], 5000);
        assert_eq!(v["final"]["status"], "flagged");
        assert!(r.stem.ends_with("Z-Table_1"), "{}", r.stem);
    }

    #[test]
    fn nothing_is_recorded_before_the_start_and_a_discarded_game_is_abandoned() {
        let mut log = GameLog::new("c", "/dev/x", "G/5", 0);
        log.note(0, 0, "disconnected");
        log.event(0, 0, &press(Side::White, 1, 1, 1));
        assert!(!log.started());
        let mut log = started();
        log.note(10, 0, "disconnected: end of file");
        let r = log.render(None);
        assert!(r.pgn.contains("[Result \"*\"]"), "{}", r.pgn);
        assert!(r.pgn.contains("[Termination \"abandoned\"]"), "{}", r.pgn);
    }
}
