//! The board game fed as the daemon feeds it: both clocks with each board message, presses
//! from its engine.

use chessclock_protocol::{Board, Orientation, Square};

use super::*;
use crate::placement::{field_of_square, raw_fields};

fn start() -> Message {
    Message::BoardDump(Board {
        fields: raw_fields(&shakmaty::Board::default(), Orientation::Normal),
    })
}

fn field(s: &str) -> u8 {
    let sq: shakmaty::Square = s.parse().expect("square");
    field_of_square(sq, Orientation::Normal)
}

/// The field updates of a move `from`-`to` of the piece on `from` in the start position
/// (lift, then place), with both clocks.
fn slide(g: &mut BoardGame, now: &mut u64, from: &str, to: &str, clocks: (u64, u64)) {
    let board = raw_fields(&shakmaty::Board::default(), Orientation::Normal);
    let piece = board[usize::from(field(from))];
    for (f, p) in [(field(from), None), (field(to), piece)] {
        *now += 150;
        let m = Message::FieldUpdate {
            square: Square::from_field(f).expect("field"),
            piece: p,
        };
        let clocks = Clocks {
            white_ms: clocks.0,
            black_ms: clocks.1,
        };
        g.on_message(*now, &m, Some(clocks));
    }
}

#[test]
fn a_move_gets_the_clock_when_seen_then_the_press_that_ends_it() {
    let mut g = BoardGame::default();
    let mut now = 1_000;
    let clocks = Clocks {
        white_ms: 300_000,
        black_ms: 300_000,
    };
    g.on_message(now, &start(), Some(clocks));
    assert_eq!(g.fen(), START_FEN);
    assert_eq!(g.poll_change(), Some(RecordChange::Rewound), "a new game");
    assert_eq!(g.poll_change(), None);
    slide(&mut g, &mut now, "e2", "e4", (297_000, 300_000));
    let Some(RecordChange::Move(m)) = g.poll_change() else {
        panic!("a move");
    };
    assert_eq!(
        (m.event.ply, m.event.san.as_str(), m.event.uci.as_str()),
        (1, "e4", "e2e4")
    );
    assert_eq!(m.event.color, Color::White);
    assert_eq!(
        (m.clock_ms, m.from_press),
        (Some(297_000), false),
        "the clock when seen"
    );
    // White presses: the move gets the press's values; Black's press and a second press by
    // White do not touch it.
    g.on_press(Color::Black, 1, Some(1));
    g.on_press(Color::White, 296_500, Some(3_500));
    g.on_press(Color::White, 1, Some(1));
    let m = &g.moves()[0];
    assert_eq!(
        (m.clock_ms, m.elapsed_ms, m.from_press),
        (Some(296_500), Some(3_500), true)
    );
    assert!(
        g.fen()
            .starts_with("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b")
    );
}

#[test]
fn a_reply_on_the_board_before_the_press_leaves_the_press_to_the_move_it_ends() {
    let mut g = BoardGame::default();
    let mut now = 1_000;
    g.on_message(now, &start(), None);
    slide(&mut g, &mut now, "e2", "e4", (297_000, 300_000));
    slide(&mut g, &mut now, "e7", "e5", (297_000, 299_000));
    g.on_press(Color::White, 296_000, Some(4_000));
    let times: Vec<_> = g
        .moves()
        .iter()
        .map(|m| (m.clock_ms, m.from_press))
        .collect();
    assert_eq!(times, [(Some(296_000), true), (Some(299_000), false)]);
}

#[test]
fn game_info_is_all_or_nothing_and_reaches_the_pgn() {
    let mut g = BoardGame::default();
    let tags = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    };
    g.set_info(&tags(&[("white", "Carlsen, Magnus"), ("Round", "7")]))
        .expect("good tags");
    let err = g
        .set_info(&tags(&[("Black", "Ding"), ("Result", "1-0")]))
        .expect_err("Result is generated");
    assert!(err.to_string().contains("Result"), "{err}");
    assert_eq!(
        g.info().get("Black"),
        None,
        "nothing of a refused set is kept"
    );
    let pgn = crate::pgn::write(&g.pgn(Some(PgnClocks {
        time_control: Some("300+3".into()),
        control_notation: "G/5 inc/3".into(),
        white_ms: 300_000,
        black_ms: 300_000,
        result: None,
        termination: None,
    })));
    assert!(pgn.contains("[White \"Carlsen, Magnus\"]"), "{pgn}");
    assert!(pgn.contains("[TimeControl \"300+3\"]"), "{pgn}");
}

#[test]
fn a_forced_move_keeps_the_times_of_the_press_that_came_before_it() {
    let mut g = BoardGame::default();
    let mut now = 1_000;
    g.on_message(now, &start(), None);
    slide(&mut g, &mut now, "e2", "e4", (297_000, 300_000));
    g.on_press(Color::White, 296_000, Some(4_000));
    // Black's reply is not seen by the board; Black presses; the arbiter forces it.
    g.on_press(Color::Black, 293_000, Some(7_000));
    g.correct(now, &Correction::Force("e7e5".into()), None)
        .expect("forced");
    let m = &g.moves()[1];
    assert_eq!(m.event.san, "e5");
    assert_eq!((m.clock_ms, m.elapsed_ms), (Some(293_000), Some(7_000)));
    let pgn = crate::pgn::write(&g.pgn(None));
    assert!(pgn.contains("e5 {[%clk 0:04:53] [%emt 0:00:07]}"), "{pgn}");
}
