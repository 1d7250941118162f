//! The board game: moves paired with the clock's presses, results, flags, and the game
//! kept when the players reset the pieces afterwards.

use chessclock_game::placement::raw_fields;
use chessclock_game::shakmaty::{Board, Color};
use chessclock_game::{BoardGame, GameResult, TrackerConfig};
use chessclock_protocol::{
    Board as DgtBoard, ClockReport, ClockSide, ClockTime, Message, Orientation, Piece, Square,
};

fn report(left: u32, right: u32, right_high: bool, right_flag: bool) -> Message {
    let side = |s, flag| ClockSide {
        time: ClockTime::from_total_seconds(s).expect("small"),
        flag: false,
        final_flag: flag,
        time_per_move: false,
    };
    let status = 0x01 | if right_high { 0x12 } else { 0x08 };
    Message::ClockReport(ClockReport::from_status(
        side(left, false),
        side(right, right_flag),
        status,
    ))
}

fn update(sq: &str, piece: Option<Piece>) -> Message {
    Message::FieldUpdate {
        square: sq.parse::<Square>().expect("square"),
        piece,
    }
}

fn start_dump() -> Message {
    Message::BoardDump(DgtBoard {
        fields: raw_fields(&Board::default(), Orientation::Normal),
    })
}

#[test]
fn presses_give_each_move_its_clock_and_a_reset_keeps_the_finished_game() {
    let mut rec = BoardGame::new(TrackerConfig::default());
    let now = std::cell::Cell::new(0);
    let feed = |rec: &mut BoardGame, m: Message| {
        now.set(now.get() + 100);
        rec.on_message(now.get(), &m, None);
    };
    feed(&mut rec, start_dump());
    feed(&mut rec, report(300, 300, false, false)); // left (White) runs
    feed(&mut rec, report(295, 300, false, false));
    feed(&mut rec, update("e2", None));
    feed(&mut rec, update("e4", Some(Piece::WhitePawn)));
    feed(&mut rec, report(293, 300, false, false));
    feed(&mut rec, report(296, 300, true, false)); // White presses: +3 s
    feed(&mut rec, report(296, 290, true, false));
    feed(&mut rec, update("e7", None));
    feed(&mut rec, update("e5", Some(Piece::BlackPawn)));
    feed(&mut rec, report(296, 293, false, false)); // Black presses
    let clocks: Vec<Option<u64>> = rec.moves().iter().map(|m| m.clock_ms).collect();
    assert_eq!(clocks, [Some(296_000), Some(293_000)]);
    assert_eq!(rec.moves()[0].elapsed_ms, Some(7_000));
    assert_eq!(rec.moves()[1].elapsed_ms, Some(10_000));

    // Kings to d5/e4: 1-0. Then the pieces go back: a new game with no moves.
    feed(&mut rec, update("e1", None));
    feed(&mut rec, update("e8", None));
    feed(&mut rec, update("d5", Some(Piece::WhiteKing)));
    feed(&mut rec, update("e4", None));
    feed(&mut rec, update("e4", Some(Piece::BlackKing)));
    assert_eq!(
        rec.result(),
        None,
        "the signal stands for the settle time first"
    );
    now.set(now.get() + 1_500);
    rec.handle_timeout(now.get(), None);
    assert_eq!(rec.result(), Some(GameResult::WhiteWins));
    feed(&mut rec, start_dump());
    assert!(rec.moves().is_empty());
    let game = rec.main_game();
    assert_eq!(game.moves.len(), 2);
    assert_eq!(game.result(), Some(GameResult::WhiteWins));
    assert_eq!(rec.earlier_with_moves(), 1);
}

#[test]
fn a_final_flag_names_the_side_and_mate_is_a_result() {
    let mut rec = BoardGame::new(TrackerConfig::default());
    let mut now = 0;
    let mut feed = |rec: &mut BoardGame, m: Message| {
        now += 100;
        rec.on_message(now, &m, None);
    };
    feed(&mut rec, start_dump());
    feed(&mut rec, report(60, 60, false, false));
    // Fool's mate: 1. f3 e5 2. g4 Qh4#
    for (from, to, p) in [
        ("f2", "f3", Piece::WhitePawn),
        ("e7", "e5", Piece::BlackPawn),
        ("g2", "g4", Piece::WhitePawn),
        ("d8", "h4", Piece::BlackQueen),
    ] {
        feed(&mut rec, update(from, None));
        feed(&mut rec, update(to, Some(p)));
    }
    assert_eq!(
        rec.moves().last().map(|m| m.event.san.as_str()),
        Some("Qh4#")
    );
    assert_eq!(rec.result(), Some(GameResult::BlackWins));
    feed(&mut rec, report(40, 0, false, true));
    assert_eq!(rec.record().flag, Some(Color::Black));
}
