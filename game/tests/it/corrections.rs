//! The operator's corrections (undo, a forced move, a position set from a FEN or from the
//! pieces) and Chess960 starts: what the game becomes, what the tracker then expects of the
//! board, refusals that change nothing, and the PGN python-chess reads.

use chessclock_game::placement::raw_fields;
use chessclock_game::shakmaty::fen::Fen;
use chessclock_game::shakmaty::{Board, CastlingMode, Chess, Color, Position};
use chessclock_game::{
    BoardGame, BoardState, Correction, CorrectionError, GameEvent, TrackerConfig, pgn,
};
use chessclock_protocol::{Board as DgtBoard, Message, Orientation};
use serde_json::Value;

use crate::pgn_python::read_back;
use crate::support::Hand;

const SETTLE: u64 = 1_500;

fn board_of(fen: &str) -> Board {
    let fen: Fen = fen.parse().expect("FEN");
    let pos: Chess = fen
        .into_position(CastlingMode::Chess960)
        .expect("legal position");
    pos.board().clone()
}

fn correct(h: &mut Hand, c: Correction) -> Result<(), CorrectionError> {
    let now = h.now;
    let r = h.tracker.correct(now, &c);
    h.drain();
    r
}

#[test]
fn an_undone_move_still_standing_is_reported_not_read_again_and_the_next_move_counts() {
    let mut h = Hand::start(Orientation::Normal);
    h.play(&[("e2", "e4"), ("e7", "e5"), ("g1", "f3")]);
    assert_eq!(h.sans(), ["e4", "e5", "Nf3"]);
    correct(&mut h, Correction::Undo(1)).expect("undo");
    assert_eq!(h.sans(), ["e4", "e5"]);
    assert!(matches!(
        h.events.last(),
        Some(GameEvent::Takeback {
            plies: 1,
            to_ply: 2,
            ..
        })
    ));
    // The knight stays on f3: a dump of the same board, a lift and set-down, time: never
    // the same move again at once, but a problem that says where the pieces stand wrong.
    let raw = h.raw;
    h.dump(raw);
    h.lift("f3");
    h.place("f3", 'N');
    assert_eq!(h.sans(), ["e4", "e5"]);
    h.wait(SETTLE);
    let Some(GameEvent::Unexplained {
        ply, differences, ..
    }) = h.drain().pop()
    else {
        panic!("the board that does not show the corrected game is reported");
    };
    assert_eq!(ply, 2);
    assert_eq!(differences.len(), 2, "{differences:?}");
    // Put the knight back: the game's position again; then the real move.
    h.slide("f3", "g1");
    assert_eq!(h.drain(), [GameEvent::Explained { at_ms: h.now }]);
    h.slide("b1", "c3");
    assert_eq!(h.sans(), ["e4", "e5", "Nc3"]);
}

#[test]
fn a_forced_move_waits_for_the_board_to_catch_up_and_is_never_taken_back_by_it() {
    let mut h = Hand::start(Orientation::Normal);
    h.play(&[("e2", "e4")]);
    // Black's e5 was not seen (a sensor missed it): the operator forces it.
    correct(&mut h, Correction::Force("e7e5".into())).expect("force");
    assert_eq!(h.sans(), ["e4", "e5"]);
    // The board still shows the position before e5 (one ply back): not a takeback.
    let raw = h.raw;
    h.dump(raw);
    h.wait(SETTLE);
    assert_eq!(h.sans(), ["e4", "e5"]);
    assert!(matches!(h.tracker.state(), BoardState::Unexplained { .. }));
    h.slide("e7", "e5");
    assert_eq!(h.tracker.state(), &BoardState::Synced);
    h.slide("g1", "f3");
    assert_eq!(h.sans(), ["e4", "e5", "Nf3"]);
}

#[test]
fn a_forced_move_the_board_already_shows_syncs_at_once() {
    let mut h = Hand::start(Orientation::Normal);
    h.play(&[("e2", "e4"), ("g8", "f6")]);
    // Undone by mistake: the board still shows Nf6, held; forcing it again syncs at once.
    correct(&mut h, Correction::Undo(1)).expect("undo");
    assert!(matches!(h.tracker.state(), BoardState::Unexplained { .. }));
    correct(&mut h, Correction::Force("g8f6".into())).expect("force");
    assert_eq!(h.tracker.state(), &BoardState::Synced);
    assert_eq!(h.sans(), ["e4", "Nf6"]);
}

#[test]
fn bad_corrections_say_what_is_wrong_and_change_nothing() {
    let mut h = Hand::start(Orientation::Normal);
    h.play(&[("e2", "e4"), ("e7", "e5")]);
    let before = h.tracker.fen();
    let cases = [
        (Correction::Undo(0), "1 or more"),
        (
            Correction::Undo(3),
            "cannot take back 3 plies: the game has 2",
        ),
        (
            Correction::Force("e2-e4".into()),
            "not a move in UCI notation",
        ),
        (
            Correction::Force("e2e4".into()),
            "not a legal move in the game's position",
        ),
        (
            Correction::Position("rnbqkbnr/8 w".into()),
            "not a position to play from",
        ),
        (
            Correction::Position("8/8/8/8/8/8/8/8 w - - 0 1".into()),
            "not a position to play from",
        ),
    ];
    for (c, want) in cases {
        let err = correct(&mut h, c.clone()).expect_err("refused");
        assert!(err.to_string().contains(want), "{c}: {err}");
        assert!(h.drain().is_empty(), "{c}");
        assert_eq!(h.tracker.fen(), before, "{c}");
    }
    // A clock with no board: nothing to correct.
    let mut t = chessclock_game::Tracker::new(TrackerConfig::default());
    for c in [Correction::Undo(1), Correction::Board(None)] {
        assert_eq!(t.correct(0, &c), Err(CorrectionError::NoBoard));
    }
    // A board never set up: undo needs a game, the board's pieces an orientation.
    let raw = raw_fields(
        &board_of("4k3/8/8/8/8/8/8/4K3 w - - 0 1"),
        Orientation::Normal,
    );
    t.on_board_dump(0, &raw);
    assert_eq!(
        t.correct(0, &Correction::Undo(1)),
        Err(CorrectionError::NoGame)
    );
    assert_eq!(
        t.correct(0, &Correction::Board(None)),
        Err(CorrectionError::NoOrientation)
    );
    assert!(t.poll_event().is_none());
}

#[test]
fn a_position_from_the_pieces_begins_the_game_there_with_conservative_castling() {
    let mut h = Hand::start(Orientation::Normal);
    h.play(&[("e2", "e4"), ("e7", "e5")]);
    // An illegal move stood: White's king walked to e3 from e1 unseen (e1 -> e2 -> e3).
    h.lift("e1");
    h.place("e3", 'K');
    h.wait(SETTLE);
    assert!(matches!(h.tracker.state(), BoardState::Unexplained { .. }));
    correct(&mut h, Correction::Board(None)).expect("from the board");
    let fen = h.tracker.fen().expect("a game");
    // White's king left e1: White has no castling rights; Black keeps both. White to move as
    // before.
    assert_eq!(
        fen,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/4K3/PPPP1PPP/RNBQ1BNR w kq - 0 2"
    );
    let events = &h.events;
    assert!(events.contains(&GameEvent::NewGame { at_ms: h.now }));
    assert!(events.iter().any(|e| matches!(
        e,
        GameEvent::SetUp {
            chess960: false,
            ..
        }
    )));
    assert_eq!(h.tracker.state(), &BoardState::Synced);
    h.slide("g1", "f3");
    assert_eq!(h.sans(), ["Nf3"]);
    // The side to move given: black.
    correct(&mut h, Correction::Board(Some(Color::Black))).expect("black to move");
    assert!(h.tracker.fen().expect("a game").contains(" b kq - 0 2"));
}

/// A Chess960 start on the board.
const SP: &str = "qnrbbkrn/pppppppp/8/8/8/8/PPPPPPPP/QNRBBKRN w KQkq - 0 1";

fn recorder_on(fen: &str) -> (BoardGame, Board) {
    let mut rec = BoardGame::new(TrackerConfig::default());
    let board = board_of(fen);
    let dump = Message::BoardDump(DgtBoard {
        fields: raw_fields(&board, Orientation::Normal),
    });
    rec.on_message(0, &dump, None);
    (rec, board)
}

fn play_on(rec: &mut BoardGame, board: &mut Board, now: &mut u64, uci: &str) {
    let fen: Fen = rec.fen().parse().expect("FEN");
    let mut pos: Chess = fen.into_position(CastlingMode::Chess960).expect("position");
    let m = uci
        .parse::<chessclock_game::shakmaty::uci::UciMove>()
        .expect("uci")
        .to_move(&pos)
        .expect("legal");
    pos.play_unchecked(m);
    *board = pos.board().clone();
    *now += 2_000;
    let dump = Message::BoardDump(DgtBoard {
        fields: raw_fields(board, Orientation::Normal),
    });
    rec.on_message(*now, &dump, None);
}

#[test]
fn a_chess960_start_is_a_new_game_that_castles_as_chess960_and_python_chess_reads_it() {
    let (mut rec, mut board) = recorder_on(SP);
    assert_eq!(rec.games(), 1);
    assert_eq!(rec.record().setup, Some((SP.to_owned(), true)));
    let mut now = 0;
    for uci in ["h1g3", "h8g6", "f1g1", "f8g8"] {
        play_on(&mut rec, &mut board, &mut now, uci);
    }
    // Castling short: the king on f1 to g1, the rook on g1 to f1. The UCI names the rook's
    // square, as Chess960's does.
    let ucis: Vec<&str> = rec.moves().iter().map(|m| m.event.uci.as_str()).collect();
    assert_eq!(ucis, ["h1g3", "h8g6", "f1g1", "f8g8"]);
    assert_eq!(rec.moves()[2].event.san, "O-O");
    assert_eq!(rec.moves()[3].event.san, "O-O");
    let text = pgn::write(&rec.pgn(None));
    assert!(
        text.contains("[Variant \"Chess960\"]\n[SetUp \"1\"]\n"),
        "{text}"
    );
    let read = read_back(&text);
    assert_eq!(read.len(), 1);
    assert_eq!(read[0]["errors"], Value::Array(vec![]));
    assert_eq!(read[0]["headers"]["FEN"], SP);
    assert_eq!(read[0]["san"][2], "O-O");
    assert_eq!(read[0]["uci"].as_array().map(Vec::len), Some(4));
}

#[test]
fn a_position_set_from_a_fen_is_a_game_python_chess_reads_from_there() {
    // An adjourned game, Black to move at move 41.
    let adjourned = "8/5pk1/6p1/8/3R4/6P1/5PK1/3r4 b - - 12 41";
    let (mut rec, mut board) = recorder_on(adjourned);
    assert_eq!(rec.games(), 0, "no start position: no game yet");
    rec.correct(0, &Correction::Position(adjourned.into()), None)
        .expect("position");
    assert_eq!(rec.games(), 1);
    assert_eq!(rec.fen(), adjourned);
    let mut now = 0;
    for uci in ["d1d4", "f2f4"] {
        play_on(&mut rec, &mut board, &mut now, uci);
    }
    assert_eq!(
        rec.moves().len(),
        2,
        "the board is followed from the position"
    );
    let text = pgn::write(&rec.pgn(None));
    assert!(text.contains("41... Rxd4 42. f4"), "{text}");
    assert!(!text.contains("Variant"), "{text}");
    let read = read_back(&text);
    assert_eq!(read[0]["errors"], Value::Array(vec![]));
    assert_eq!(read[0]["headers"]["SetUp"], "1");
    assert_eq!(read[0]["headers"]["FEN"], adjourned);
    assert_eq!(read[0]["uci"][0], "d1d4");
    assert_eq!(read[0]["uci"][1], "f2f4");
    // A Chess960 start given as FEN (Shredder castling) is a Chess960 game.
    let fen960 = "qnrbbkrn/pppppppp/8/8/8/8/PPPPPPPP/QNRBBKRN w GCgc - 0 1";
    rec.correct(now, &Correction::Position(fen960.into()), None)
        .expect("chess960");
    assert_eq!(rec.record().setup.as_ref().map(|s| s.1), Some(true));
}

#[test]
fn a_spare_board_is_read_only_once_it_shows_the_game_s_position() {
    let mut h = Hand::start(Orientation::Normal);
    h.play(&[("e2", "e4"), ("e7", "e5"), ("g1", "f3"), ("b8", "c6")]);
    assert_eq!(h.sans(), ["e4", "e5", "Nf3", "Nc6"]);
    // A spare swapped in shows the start position: not a new game, not a takeback, a board
    // that does not show the game's position.
    h.tracker.await_position();
    h.dump_start();
    h.wait(SETTLE);
    assert_eq!(h.sans(), ["e4", "e5", "Nf3", "Nc6"]);
    assert!(h.tracker.awaits_position());
    assert!(
        h.events
            .iter()
            .any(|e| matches!(e, GameEvent::Unexplained { ply: 4, .. })),
        "{:?}",
        h.events
    );
    // The arbiter plays the game's moves again on the spare: the positions on the way are the
    // game's earlier ones, never read as takebacks.
    for slide in [("e2", "e4"), ("e7", "e5"), ("g1", "f3")] {
        h.play(&[slide]);
        h.wait(SETTLE);
        assert_eq!(h.sans().len(), 4, "after {slide:?}: {:?}", h.sans());
    }
    h.play(&[("b8", "c6")]);
    assert!(!h.tracker.awaits_position());
    assert_eq!(h.tracker.state(), &BoardState::Synced);
    // From there on the spare is read as the game's board.
    h.play(&[("f1", "c4")]);
    assert_eq!(h.sans(), ["e4", "e5", "Nf3", "Nc6", "Bc4"]);
}
