//! One test per board behaviour the tracker must handle (docs/board-game.md): pieces moved
//! one at a time on a simulated board, each change fed as a field update.

use crate::support::{Hand, sq};
use chessclock_game::placement::raw_fields;
use chessclock_game::shakmaty::{Chess, Color, Position, Square};
use chessclock_game::{BoardState, GameEvent};
use chessclock_protocol::Orientation;

fn moves_of(events: &[GameEvent]) -> Vec<(String, Option<String>)> {
    events
        .iter()
        .filter_map(|e| match e {
            GameEvent::Move(m) => Some((m.san.clone(), m.corrects.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn start_position_starts_a_game_and_plain_moves_are_read() {
    let mut h = Hand::start(Orientation::Normal);
    assert_eq!(
        h.events,
        vec![
            GameEvent::Orientation(Orientation::Normal),
            GameEvent::NewGame { at_ms: 1000 }
        ]
    );
    h.play(&[("e2", "e4"), ("e7", "e5"), ("g1", "f3")]);
    assert_eq!(h.ucis(), ["e2e4", "e7e5", "g1f3"]);
    assert_eq!(h.sans(), ["e4", "e5", "Nf3"]);
    let last = &h.tracker.moves()[2].event;
    assert_eq!(last.ply, 3);
    assert_eq!(last.color, Color::White);
    assert_eq!(
        last.fen,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
    assert_eq!(h.tracker.state(), &BoardState::Synced);
}

#[test]
fn captures_in_any_order() {
    for victim_first in [false, true] {
        let mut h = Hand::start(Orientation::Normal);
        h.play(&[("e2", "e4"), ("d7", "d5")]);
        if victim_first {
            h.lift("d5");
            h.lift("e4");
        } else {
            h.lift("e4");
            h.lift("d5");
        }
        h.place("d5", 'P');
        assert_eq!(
            h.sans(),
            ["e4", "d5", "exd5"],
            "victim first: {victim_first}"
        );
        assert_eq!(moves_of(&h.events).len(), 3);
    }
}

const CASTLE_READY: [(&str, &str); 6] = [
    ("e2", "e4"),
    ("e7", "e5"),
    ("g1", "f3"),
    ("b8", "c6"),
    ("f1", "c4"),
    ("f8", "c5"),
];

#[test]
fn castling_king_first_is_one_move() {
    let mut h = Hand::start(Orientation::Normal);
    h.play(&CASTLE_READY);
    h.slide("e1", "g1");
    h.slide("h1", "f1");
    assert_eq!(h.sans().last().map(String::as_str), Some("O-O"));
    assert_eq!(h.ucis().last().map(String::as_str), Some("e1g1"));
    assert_eq!(moves_of(&h.events).len(), 7);
}

#[test]
fn castling_rook_first_corrects_the_rook_move() {
    let mut h = Hand::start(Orientation::Normal);
    h.play(&CASTLE_READY);
    h.slide("h1", "f1");
    assert_eq!(h.sans().last().map(String::as_str), Some("Rf1"));
    h.slide("e1", "g1");
    assert_eq!(h.sans().len(), 7, "one move, not two");
    assert_eq!(
        moves_of(&h.events).last(),
        Some(&("O-O".to_owned(), Some("Rf1".to_owned())))
    );
    assert_eq!(h.ucis().last().map(String::as_str), Some("e1g1"));
}

#[test]
fn en_passant_in_either_order() {
    for victim_first in [false, true] {
        let mut h = Hand::start(Orientation::Normal);
        h.play(&[("e2", "e4"), ("a7", "a6"), ("e4", "e5"), ("d7", "d5")]);
        if victim_first {
            h.lift("d5");
            h.slide("e5", "d6");
        } else {
            h.slide("e5", "d6");
            h.lift("d5");
        }
        assert_eq!(
            h.ucis().last().map(String::as_str),
            Some("e5d6"),
            "{victim_first}"
        );
        assert_eq!(h.sans().last().map(String::as_str), Some("exd6"));
        assert_eq!(h.tracker.state(), &BoardState::Synced);
    }
}

const PROMOTION_READY: [(&str, &str); 8] = [
    ("a2", "a4"),
    ("b7", "b5"),
    ("a4", "b5"), // axb5 (b5 lifted below)
    ("a7", "a6"),
    ("b5", "a6"), // bxa6
    ("c8", "b7"),
    ("a6", "b7"), // axb7
    ("b8", "c6"),
];

fn promotion_ready() -> Hand {
    let mut h = Hand::start(Orientation::Normal);
    for (i, (from, to)) in PROMOTION_READY.iter().enumerate() {
        if matches!(i, 2 | 4 | 6) {
            h.lift(to);
        }
        h.slide(from, to);
    }
    assert_eq!(
        h.sans(),
        ["a4", "b5", "axb5", "a6", "bxa6", "Bb7", "axb7", "Nc6"]
    );
    h
}

#[test]
fn promotion_with_the_new_piece_placed() {
    let mut h = promotion_ready();
    h.lift("b7");
    h.lift("a8");
    h.place("a8", 'N');
    assert_eq!(h.ucis().last().map(String::as_str), Some("b7a8n"));
    assert_eq!(h.sans().last().map(String::as_str), Some("bxa8=N"));
}

#[test]
fn pawn_put_on_the_last_rank_is_a_queen_and_can_be_swapped() {
    let mut h = promotion_ready();
    h.lift("a8");
    h.slide("b7", "a8");
    assert_eq!(h.sans().last().map(String::as_str), Some("bxa8=Q"));
    // The pawn stands for the queen from now on: the game goes on.
    h.slide("c6", "d4");
    assert_eq!(h.sans().last().map(String::as_str), Some("Nd4"));
    assert_eq!(h.tracker.state(), &BoardState::Synced);

    // Swapping the pawn for a knight before the reply corrects the promotion.
    let mut h = promotion_ready();
    h.lift("a8");
    h.slide("b7", "a8");
    h.lift("a8");
    h.place("a8", 'N');
    assert_eq!(h.sans().last().map(String::as_str), Some("bxa8=N"));
    assert_eq!(h.sans().len(), 9);
}

#[test]
fn pieces_in_the_air_are_a_state_not_a_problem() {
    let mut h = Hand::start(Orientation::Normal);
    h.lift("g1");
    h.wait(30_000);
    assert_eq!(
        h.tracker.state(),
        &BoardState::PiecesInAir {
            lifted: vec![Square::G1]
        }
    );
    assert!(h.drain().is_empty());
    h.place("f3", 'N');
    assert_eq!(h.sans(), ["Nf3"]);
}

#[test]
fn a_piece_set_down_on_a_wrong_square_and_moved_on_is_one_move() {
    let mut h = Hand::start(Orientation::Normal);
    h.slide("e2", "e3");
    h.slide("e3", "e4");
    assert_eq!(h.ucis(), ["e2e4"]);
    assert_eq!(
        moves_of(&h.events),
        [
            ("e3".to_owned(), None),
            ("e4".to_owned(), Some("e3".to_owned()))
        ]
    );
}

#[test]
fn a_move_corrected_before_the_reply_is_one_move() {
    let mut h = Hand::start(Orientation::Normal);
    h.play(&[("e2", "e4"), ("e7", "e5"), ("g1", "f3")]);
    h.slide("f3", "h3");
    assert_eq!(h.ucis(), ["e2e4", "e7e5", "g1h3"]);
    assert_eq!(
        moves_of(&h.events).last(),
        Some(&("Nh3".to_owned(), Some("Nf3".to_owned())))
    );
    // After the reply, the same hand movement is a new move, not a correction.
    h.slide("b8", "c6");
    h.slide("h3", "g5");
    assert_eq!(h.ucis(), ["e2e4", "e7e5", "g1h3", "b8c6", "h3g5"]);
}

#[test]
fn takebacks_go_back_one_ply_at_a_time_or_several_at_once() {
    let mut h = Hand::start(Orientation::Normal);
    h.play(&[("e2", "e4"), ("e7", "e5"), ("g1", "f3")]);
    h.slide("f3", "g1");
    assert_eq!(h.ucis(), ["e2e4", "e7e5"]);
    assert!(matches!(
        h.events.last(),
        Some(GameEvent::Takeback {
            plies: 1,
            to_ply: 2,
            ..
        })
    ));
    h.play(&[("b1", "c3"), ("b8", "c6")]);
    // A dump showing the position after 1. e4 e5 (two plies back) at once.
    let mut pos = Chess::default();
    for m in ["e2e4", "e7e5"] {
        let uci: chessclock_game::shakmaty::uci::UciMove = m.parse().expect("uci");
        let m = uci.to_move(&pos).expect("legal");
        pos.play_unchecked(m);
    }
    let raw = raw_fields(pos.board(), Orientation::Normal);
    h.dump(raw);
    h.drain();
    assert_eq!(h.ucis(), ["e2e4", "e7e5"]);
    assert!(matches!(
        h.events.last(),
        Some(GameEvent::Takeback {
            plies: 2,
            to_ply: 2,
            ..
        })
    ));
}

#[test]
fn a_piece_set_down_where_it_stood_earlier_is_a_move_in_progress_until_it_settles() {
    // 1. e4 e5 2. Nf3 Qf6 3. Ng1 Qg6 4. Nf3: White stands as after 2. Nf3, Black to move.
    let game = [
        ("e2", "e4"),
        ("e7", "e5"),
        ("g1", "f3"),
        ("d8", "f6"),
        ("f3", "g1"),
        ("f6", "g6"),
        ("g1", "f3"),
    ];
    let mut h = Hand::start(Orientation::Normal);
    h.play(&game);
    h.drain();
    // Black's queen set down on d8 on its way: the board is the position after 2. Nf3
    // (no legal move from g6 leads there). Only Black's pieces changed, so it may be
    // Black's move half made: no takeback yet.
    h.slide("g6", "d8");
    assert!(h.drain().is_empty());
    assert!(matches!(h.tracker.state(), BoardState::Unexplained { .. }));
    h.slide("d8", "h6");
    assert_eq!(
        h.ucis(),
        [
            "e2e4", "e7e5", "g1f3", "d8f6", "f3g1", "f6g6", "g1f3", "g6h6"
        ]
    );
    assert_eq!(h.tracker.state(), &BoardState::Synced);
    assert!(!h.events.iter().any(|e| matches!(
        e,
        GameEvent::Takeback { .. } | GameEvent::Unexplained { .. }
    )));

    // The same board left standing for the settle time is the takeback it shows.
    let mut h = Hand::start(Orientation::Normal);
    h.play(&game);
    h.drain();
    h.slide("g6", "d8");
    // The board's dump a moment later shows the same board: still no takeback, no report.
    h.now += 250;
    h.dump(h.raw);
    assert!(h.drain().is_empty());
    assert_eq!(h.tracker.poll_timeout(), Some(h.now - 250 + 1_500));
    h.wait(1_250);
    assert!(matches!(
        h.drain().as_slice(),
        [GameEvent::Takeback {
            plies: 4,
            to_ply: 3,
            ..
        }]
    ));
    assert_eq!(h.ucis(), ["e2e4", "e7e5", "g1f3"]);
    assert_eq!(h.tracker.state(), &BoardState::Synced);
}

#[test]
fn a_rotated_board_is_detected_from_the_start_position() {
    let mut h = Hand::start(Orientation::Rotated);
    assert_eq!(h.events[0], GameEvent::Orientation(Orientation::Rotated));
    assert_eq!(h.tracker.orientation(), Some(Orientation::Rotated));
    h.play(&[("e2", "e4"), ("c7", "c5"), ("g1", "f3")]);
    assert_eq!(h.ucis(), ["e2e4", "c7c5", "g1f3"]);
}

#[test]
fn all_pieces_back_on_their_start_squares_is_a_new_game() {
    let mut h = Hand::start(Orientation::Normal);
    h.play(&[("e2", "e4"), ("e7", "e5"), ("g1", "f3"), ("b8", "c6")]);
    h.drain();
    h.dump_start();
    assert_eq!(h.drain(), [GameEvent::NewGame { at_ms: h.now }]);
    assert!(h.ucis().is_empty());
    // A repetition that happens to restore the start placement is a move, not a new game.
    h.play(&[("g1", "f3"), ("g8", "f6"), ("f3", "g1"), ("f6", "g8")]);
    assert_eq!(h.ucis(), ["g1f3", "g8f6", "f3g1", "f6g8"]);
}

#[test]
fn an_unexplained_position_is_reported_never_turned_into_a_move() {
    let mut h = Hand::start(Orientation::Normal);
    h.play(&[("e2", "e4")]);
    h.drain();
    h.slide("d7", "d4"); // a pawn jumping two squares into nowhere legal
    assert!(matches!(h.tracker.state(), BoardState::Unexplained { .. }));
    assert!(h.drain().is_empty(), "nothing before the settle time");
    assert_eq!(h.tracker.poll_timeout(), Some(h.now + 1500));
    h.wait(1500);
    let events = h.drain();
    let [
        GameEvent::Unexplained {
            ply: 1,
            differences,
            ..
        },
    ] = events.as_slice()
    else {
        panic!("{events:?}");
    };
    let squares: Vec<Square> = differences.iter().map(|d| d.square).collect();
    assert_eq!(squares, [Square::D4, Square::D7]);
    assert_eq!(h.ucis(), ["e2e4"]);
    // Waiting longer reports nothing new; restoring the board explains it.
    h.wait(10_000);
    assert!(h.drain().is_empty());
    h.slide("d4", "d5");
    assert_eq!(
        h.drain(),
        [
            GameEvent::Explained { at_ms: h.now },
            GameEvent::Move(h.tracker.moves()[1].event.clone())
        ]
    );
    assert_eq!(h.ucis(), ["e2e4", "d7d5"]);
}

#[test]
fn a_lost_field_update_is_recovered_from_the_next_dump() {
    let mut h = Hand::start(Orientation::Normal);
    h.play(&[("e2", "e4")]);
    // Black's e7-e5 reaches the tracker only half (e5 placed, e7 lift lost), then White moves.
    h.raw[12] = None; // e7, not fed
    h.place("e5", 'p');
    h.slide("g1", "f3");
    assert_eq!(h.ucis(), ["e2e4"]);
    let raw = h.raw;
    h.dump(raw);
    assert_eq!(h.ucis(), ["e2e4", "e7e5", "g1f3"]);
}

#[test]
fn a_flickering_square_changes_nothing() {
    let mut h = Hand::start(Orientation::Normal);
    h.play(&[("e2", "e4")]);
    h.drain();
    for _ in 0..5 {
        h.lift("a7");
        h.place("a7", 'p');
    }
    assert!(h.drain().is_empty());
    assert_eq!(h.tracker.state(), &BoardState::Synced);
    let _ = sq("a7");
}
