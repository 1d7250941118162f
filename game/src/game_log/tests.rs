//! The record of a clock's game: what it keeps, its PGN and its JSON.

use chessclock_engine::{Engine, FlagReason, Input, Status, Time, notation};
use serde_json::Value;

use super::*;

fn press(side: Side, n: u32, white_ms: u64, black_ms: u64) -> ClockEvent {
    ClockEvent::Pressed(chessclock_engine::Press {
        side,
        move_number: n,
        move_ms: 1000,
        white_ms,
        black_ms,
    })
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
        ClockEvent::StateChanged {
            old: chessclock_engine::Status::Ready,
            new: chessclock_engine::Status::Running,
            reason: chessclock_engine::StatusCause::Start,
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
fn the_date_is_the_start_s_not_the_clock_s_creation() {
    let log = GameLog::new("Table 1", "/dev/ttyACM0", "G/3 inc/2", 0);
    assert_eq!(log.start_date(), None, "a game not started has no date yet");
    // 1_763_892_000_000 ms is 2025-11-23 10:00 UTC.
    assert_eq!(started().start_date().as_deref(), Some("2025.11.23"));
}

#[test]
fn a_finished_game_has_clk_comments_a_result_and_every_event() {
    let mut log = started();
    log.event(5000, 0, press(Side::White, 1, 179_000, 182_000));
    log.event(6000, 0, press(Side::Black, 1, 179_000, 183_000));
    log.event(
        9000,
        0,
        ClockEvent::Result {
            result: GameResult::BlackWins,
            reason: ResultReason::Flag(FlagReason::Time),
        },
    );
    assert!(log.finished());
    let r = log.render(Some(&flagged_snapshot()), None, &GameInfo::new());
    assert!(r.pgn.contains("[Result \"0-1\"]"), "{}", r.pgn);
    assert!(
        r.pgn.contains("[Termination \"time forfeit\"]"),
        "{}",
        r.pgn
    );
    assert!(r.pgn.contains("1. {[%clk 0:02:59]}"), "{}", r.pgn);
    assert!(r.pgn.contains("1... {[%clk 0:03:03]}"), "{}", r.pgn);
    assert!(r.pgn.trim_end().ends_with("0-1"), "{}", r.pgn);
    let v: Value = serde_json::from_str(&r.json).expect("json");
    assert_eq!(v["events"].as_array().map(Vec::len), Some(4));
    assert_eq!(v["events"][1]["event"], "pressed");
    assert_eq!(v["events"][1]["t_ms"], 5000);
    assert_eq!(v["final"]["status"], "flagged");
    assert!(r.stem.ends_with("Z-Table_1"), "{}", r.stem);
}

#[test]
fn the_json_keeps_the_shape_of_the_untyped_log() {
    let mut log = started();
    log.event(5000, 7, press(Side::White, 1, 179_000, 182_000));
    log.note(6000, 8, "disconnected: end of file");
    log.event(
        9000,
        9,
        ClockEvent::Result {
            result: GameResult::Draw,
            reason: ResultReason::Board,
        },
    );
    let v: Value =
        serde_json::from_str(&log.render(None, None, &GameInfo::new()).json).expect("json");
    let keys = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().expect("object").keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(
        keys(&v),
        [
            "clock",
            "events",
            "final",
            "port",
            "reason",
            "result",
            "started_wall_ms",
            "time_control"
        ]
    );
    assert_eq!(
        (&v["clock"], &v["port"], &v["time_control"], &v["final"]),
        (
            &Value::from("Table 1"),
            &Value::from("/dev/ttyACM0"),
            &Value::from("G/3 inc/2"),
            &Value::Null
        )
    );
    assert_eq!(v["result"], "1/2-1/2");
    assert_eq!(
        v["events"][1],
        serde_json::json!({"event": "pressed", "side": "white", "move": 1,
            "move_ms": 1000, "white_ms": 179_000, "black_ms": 182_000, "t_ms": 5000, "wall_ms": 7})
    );
    // One spelling with monitor, SSE and MQTT (`move`); a record written before (with
    // `move_number`) still reads as the same press.
    let old = serde_json::json!({"side": "white", "move_number": 1, "move_ms": 1000,
        "white_ms": 179_000, "black_ms": 182_000});
    let new: chessclock_engine::Press =
        serde_json::from_value(v["events"][1].clone()).expect("the press as written");
    assert_eq!(
        serde_json::from_value::<chessclock_engine::Press>(old).expect("an old record"),
        new
    );
    assert_eq!(
        v["events"][2],
        serde_json::json!({"event": "note", "what": "disconnected: end of file", "t_ms": 6000,
            "wall_ms": 8})
    );
}

#[test]
fn nothing_is_recorded_before_the_start_and_a_discarded_game_is_abandoned() {
    let mut log = GameLog::new("c", "/dev/x", "G/5", 0);
    log.note(0, 0, "disconnected");
    log.event(0, 0, press(Side::White, 1, 1, 1));
    assert!(!log.started());
    let mut log = started();
    log.note(10, 0, "disconnected: end of file");
    let r = log.render(None, None, &GameInfo::new());
    assert!(r.pgn.contains("[Result \"*\"]"), "{}", r.pgn);
    assert!(r.pgn.contains("[Termination \"abandoned\"]"), "{}", r.pgn);
}

#[test]
fn a_game_black_started_begins_with_black_and_a_board_game_is_the_pgn() {
    let mut log = started();
    log.event(5000, 0, press(Side::Black, 1, 180_000, 179_000));
    let r = log.render(None, None, &GameInfo::new());
    assert!(
        r.pgn.replace('\n', " ").contains("1... {[%clk 0:02:59]} *"),
        "{}",
        r.pgn
    );
    let board = PgnGame {
        moves: vec![PgnMove {
            san: Some("e4".into()),
            clock_ms: Some(179_000),
            elapsed_ms: None,
        }],
        ..PgnGame::default()
    };
    let r = log.render(None, Some(board.clone()), &GameInfo::new());
    assert_eq!(r.pgn, pgn::write(&board));
}

/// The record writes a game's event as the event itself: the same JSON, variant for variant.
#[test]
fn a_clock_event_and_its_record_event_have_the_same_json() {
    use chessclock_engine::ResultReason;
    let events = [
        ClockEvent::Move {
            ply: 1,
            san: "e4".into(),
            uci: "e2e4".into(),
            fen: "8/8/8/8/8/8/8/8 b - - 0 1".into(),
            mover_ms: 299_000,
        },
        ClockEvent::StateChanged {
            old: Status::Ready,
            new: Status::Running,
            reason: StatusCause::Start,
        },
        ClockEvent::Pressed(chessclock_engine::Press {
            side: Side::Black,
            move_number: 3,
            move_ms: 1500,
            white_ms: 290_000,
            black_ms: 280_000,
        }),
        ClockEvent::Flag {
            side: Side::White,
            reason: FlagReason::Time,
        },
        ClockEvent::Result {
            result: GameResult::BlackWins,
            reason: ResultReason::Flag(FlagReason::Time),
        },
    ];
    for ev in events {
        let clock = serde_json::to_value(&ev).expect("clock event");
        assert!(clock["event"].is_string(), "{clock}");
        let record = serde_json::to_value(LogEvent::from(ev)).expect("record event");
        assert_eq!(record, clock);
    }
    let note = serde_json::to_value(LogEvent::Note { what: "x".into() }).expect("note");
    assert_eq!(note, serde_json::json!({"event": "note", "what": "x"}));
}

#[test]
fn a_record_of_presses_carries_the_game_s_information() {
    let mut log = GameLog::new("b1", "virtual:b1", "G/5", 0);
    log.event(
        0,
        0,
        ClockEvent::StateChanged {
            old: Status::Ready,
            new: Status::Running,
            reason: StatusCause::Start,
        },
    );
    log.event(1_000, 1_000, press(Side::White, 1, 299_000, 300_000));
    let mut info = GameInfo::new();
    info.set("White", "Ann").expect("tag");
    info.set("Round", "4.1").expect("tag");
    info.set("Event", "Club").expect("tag");
    let pgn = log.render(None, None, &info).pgn;
    for tag in [
        "[White \"Ann\"]",
        "[Round \"4.1\"]",
        "[Event \"Club\"]",
        "[Site \"b1\"]",
    ] {
        assert!(pgn.contains(tag), "{tag}: {pgn}");
    }
    assert!(
        !pgn.contains("chessclockd: G/5"),
        "the game's Event wins: {pgn}"
    );
}

#[test]
fn a_record_of_a_round_is_named_by_round_and_board() {
    let log = started();
    let mut info = GameInfo::new();
    info.set_all(&crate::pairings::board_tags(3, 12))
        .expect("tags");
    let r = log.render(None, None, &info);
    assert!(r.stem.ends_with("Z-round-3-board-12"), "{}", r.stem);
    let mut info = GameInfo::new();
    info.set("Board", "4").expect("tag");
    assert!(log.render(None, None, &info).stem.ends_with("Z-board-4"));
    let mut info = GameInfo::new();
    info.set("Round", "?").expect("tag");
    assert!(log.render(None, None, &info).stem.ends_with("Z-Table_1"));
}
