//! The board's game survives a restart: random games read from board dumps, with presses,
//! takebacks on the board, new games, the operator's corrections (undo, forced moves,
//! positions) and results signalled with the kings, journaled as steps; folding the steps
//! over a fresh board game gives the same game (moves, clocks, result, held board, PGN), at every
//! point of the game. Then the rebuilt game goes on reading the same board.

use chessclock_game::placement::raw_fields;
use chessclock_game::shakmaty::{Chess, Color, Position, Square};
use chessclock_game::{
    BoardGame, BoardState, Clocks, Correction, PgnClocks, Step, TrackerConfig, pgn,
};
use chessclock_protocol::{Board as DgtBoard, Message, Orientation};
use proptest::prelude::*;

fn dump(g: &mut BoardGame, now: u64, board: &chessclock_game::shakmaty::Board, o: Orientation) {
    let clocks = Clocks {
        white_ms: 600_000 - now / 3,
        black_ms: 600_000 - now / 5,
    };
    let msg = Message::BoardDump(DgtBoard {
        fields: raw_fields(board, o),
    });
    g.on_message(now, &msg, Some(clocks));
}

fn pgn_of(g: &BoardGame) -> String {
    pgn::write(&g.pgn(Some(PgnClocks {
        time_control: Some("600".into()),
        control_notation: "G/10".into(),
        white_ms: 1,
        black_ms: 2,
        result: None,
        termination: None,
    })))
}

/// What a restart must give back.
fn view(g: &BoardGame) -> (String, String, Option<String>, BoardState, usize, usize) {
    (
        pgn_of(g),
        g.fen(),
        g.tracker().held(),
        match g.tracker().state() {
            s @ BoardState::Finished(_) => s.clone(),
            _ => BoardState::Synced,
        },
        g.tracker().positions().len(),
        g.earlier_with_moves(),
    )
}

fn rebuilt(steps: &[(u64, Step)]) -> BoardGame {
    let mut g = BoardGame::new(TrackerConfig::default());
    for (at, step) in steps {
        g.replay(*at, step)
            .unwrap_or_else(|e| panic!("step {step:?} at {at}: {e}"));
    }
    g
}

fn drain_steps(g: &mut BoardGame, at: u64, steps: &mut Vec<(u64, Step)>) {
    while let Some(s) = g.poll_step() {
        // Every step's JSON reads back as the same step (a journal line).
        let json = serde_json::to_string(&s).expect("serialise");
        assert_eq!(serde_json::from_str::<Step>(&json).expect("read"), s);
        steps.push((at, s));
    }
}

/// Play a random game of `actions` on a board lying `o`.
fn play(actions: &[u8], o: Orientation) {
    let mut g = BoardGame::new(TrackerConfig::default());
    g.set_journaling(true);
    g.set_info(&[("White".into(), "Ann".into())]).expect("tag");
    let mut steps = Vec::new();
    let mut now = 1_000;
    let mut pos = Chess::default();
    let mut history = vec![pos.clone()];
    dump(&mut g, now, pos.board(), o);
    drain_steps(&mut g, now, &mut steps);
    for &a in actions {
        now += 1_000;
        let legal = pos.legal_moves();
        match a % 16 {
            // A takeback on the board (an earlier position dumped), or the start again.
            0 if history.len() > 2 => {
                history.truncate(history.len() - 2);
                pos = history.last().expect("start").clone();
                dump(&mut g, now, pos.board(), o);
                now += 2_000;
                g.handle_timeout(now, None);
            }
            // The operator takes back the last ply (the pieces still stand after it).
            1 if history.len() > 1 && g.tracker().positions().len() > 1 => {
                if g.correct(now, &Correction::Undo(1), None).is_ok() {
                    history.pop();
                    pos = history.last().expect("start").clone();
                }
            }
            // The operator forces a move the board did not show.
            2 if !legal.is_empty() => {
                let m = legal[usize::from(a / 16) % legal.len()];
                let uci = m.to_uci(pos.castles().mode()).to_string();
                let clocks = Some(Clocks {
                    white_ms: 5,
                    black_ms: 6,
                });
                if g.correct(now, &Correction::Force(uci), clocks).is_ok() {
                    pos.play_unchecked(m);
                    history.push(pos.clone());
                }
            }
            // The operator sets a position (the board's, with the side to move kept).
            3 => {
                let fen = g.fen();
                if g.correct(now, &Correction::Position(fen), None).is_ok() {
                    history = vec![pos.clone()];
                }
            }
            // The kings' result signal.
            4 if pos.board().kings().count() == 2 => {
                let mut b = chessclock_game::shakmaty::Board::empty();
                b.set_piece_at(Square::E4, Color::White.king());
                b.set_piece_at(Square::D5, Color::Black.king());
                dump(&mut g, now, &b, o);
                now += 2_000;
                g.handle_timeout(now, None);
                drain_steps(&mut g, now, &mut steps);
                // The game is finished: only a new game goes on.
                pos = Chess::default();
                history = vec![pos.clone()];
                now += 1_000;
                dump(&mut g, now, pos.board(), o);
            }
            // A press by either player.
            5 | 6 => {
                let color = if a % 2 == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                g.on_press(color, 300_000 - now / 7, Some(u64::from(a) * 10));
            }
            _ if !legal.is_empty() => {
                let m = legal[usize::from(a / 16) % legal.len()];
                pos.play_unchecked(m);
                history.push(pos.clone());
                dump(&mut g, now, pos.board(), o);
            }
            _ => {
                pos = Chess::default();
                history = vec![pos.clone()];
                dump(&mut g, now, pos.board(), o);
            }
        }
        drain_steps(&mut g, now, &mut steps);
        // At every point, a restart gives back the same game.
        assert_eq!(
            view(&rebuilt(&steps)),
            view(&g),
            "after {} steps",
            steps.len()
        );
        // A journal that starts anew (the clock's new game) with the steps of the game as it
        // stands gives back the same game too (earlier games aside).
        let anew: Vec<(u64, Step)> = g.steps_of_game().into_iter().map(|s| (now, s)).collect();
        let (a, b) = (view(&rebuilt(&anew)), view(&g));
        assert_eq!(
            (a.0, a.1, a.2, a.3, a.4),
            (b.0, b.1, b.2, b.3, b.4),
            "{anew:?}"
        );
    }
    // The rebuilt game, shown the board as it stands, is the game; a move made while it was
    // down is read as the next move.
    let mut back = rebuilt(&steps);
    let finished = matches!(g.tracker().state(), BoardState::Finished(_));
    if !finished && g.tracker().held().is_none() && g.fen() == chessclock_game::tracker::fen(&pos) {
        now += 1_000;
        dump(&mut back, now, pos.board(), o);
        assert_eq!(back.tracker().state(), &BoardState::Synced, "{}", g.fen());
        if let Some(m) = pos.legal_moves().first().copied() {
            pos.play_unchecked(m);
            dump(&mut back, now + 500, pos.board(), o);
            assert_eq!(back.fen(), chessclock_game::tracker::fen(&pos));
            assert_eq!(back.moves().len(), g.moves().len() + 1);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn replaying_the_steps_gives_the_same_game(
        actions in proptest::collection::vec(any::<u8>(), 1..60),
        rotated in any::<bool>(),
    ) {
        let o = if rotated { Orientation::Rotated } else { Orientation::Normal };
        play(&actions, o);
    }
}

#[test]
fn a_step_that_does_not_fit_the_game_is_refused_and_changes_nothing() {
    let mut g = BoardGame::default();
    g.replay(0, &Step::NewGame).expect("a new game");
    let before = g.fen();
    let err = g
        .replay(
            1,
            &Step::Move {
                uci: "e2e5".into(),
                corrects: false,
                clock_ms: None,
                elapsed_ms: None,
                from_press: false,
            },
        )
        .expect_err("not legal");
    assert!(err.to_string().contains("e2e5"), "{err}");
    assert_eq!(g.fen(), before);
    assert!(g.replay(2, &Step::Takeback { to_ply: 3 }).is_err());
    assert!(
        g.replay(
            3,
            &Step::SetUp {
                fen: "not a fen".into(),
                chess960: false
            }
        )
        .is_err()
    );
    assert_eq!(g.fen(), before);
}
