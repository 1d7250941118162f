//! The demo's games are real games (shakmaty and the game crate's laws say how they end)
//! and the player makes each move, waits for the daemon to read it, then presses.

use chessclock_game::assess;
use chessclock_game::shakmaty::uci::UciMove;
use chessclock_game::shakmaty::{Chess, Color, Position, Role, Square as ChessSquare};

use super::*;
use crate::engine::BoardEnd;

/// The positions of `moves` from the start, each move legal (panics otherwise).
fn positions(moves: &[&str]) -> Vec<Chess> {
    let mut pos = Chess::default();
    let mut all = vec![pos.clone()];
    for uci in moves {
        let m = uci
            .parse::<UciMove>()
            .expect("UCI")
            .to_move(&pos)
            .unwrap_or_else(|e| panic!("{uci}: {e}"));
        pos.play_unchecked(m);
        all.push(pos.clone());
    }
    all
}

#[test]
fn the_mate_game_ends_in_mate_and_the_signal_game_moves_the_kings_it_has() {
    let mate = positions(GAMES[0].moves);
    let verdict = assess(&mate).expect("a verdict");
    assert_eq!(
        verdict.end,
        Some(BoardEnd::Checkmate {
            winner: Side::White
        })
    );

    let Ending::Signal(white, black) = GAMES[1].ending else {
        panic!("game 1 ends with the kings");
    };
    let signal = positions(GAMES[1].moves);
    let last = signal.last().expect("a position");
    assert_eq!(assess(&signal).and_then(|v| v.end), None, "no end before");
    let king = |c: Color| last.board().king_of(c).map(|s| s.to_string());
    assert_eq!(king(Color::White).as_deref(), Some(white.0));
    assert_eq!(king(Color::Black).as_deref(), Some(black.0));
    let centre = ["d4", "e4", "d5", "e5"];
    assert!(centre.contains(&white.1) && centre.contains(&black.1));

    // The clock game repeats: legal as a cycle, no capture, no pawn.
    let cycle = GAMES[2].moves;
    let twice: Vec<&str> = cycle.iter().chain(cycle.iter()).copied().collect();
    let shuffle = positions(&twice);
    assert_eq!(shuffle[0].board(), shuffle[cycle.len()].board());
    assert!(
        shuffle
            .iter()
            .all(|p| p.board().by_role(Role::Pawn).count() == 16)
    );
    let _ = ChessSquare::E1;
}

/// Poll the player every 100 ms until `until_ms`, the daemon reading each move `read_ms`
/// after it was made and the clock passing the turn at each press.
fn run(player: &mut Player, until_ms: u64, read_ms: u64) -> Vec<(u64, Act)> {
    let mut acts = Vec::new();
    let mut to_move = Side::White;
    let mut read = 0;
    let mut made: Vec<u64> = Vec::new();
    for now in (0..until_ms).step_by(100) {
        read = made
            .iter()
            .filter(|t| now >= **t + read_ms)
            .count()
            .max(read);
        for act in player.poll(now, Some(to_move), read) {
            match &act {
                Act::Pieces(PieceAction::Move(..)) => made.push(now),
                Act::Lever => to_move = to_move.other(),
                Act::Pieces(_) => {}
            }
            acts.push((now, act));
        }
    }
    acts
}

#[test]
fn each_move_is_read_before_its_press_and_the_turn_passes() {
    let mut player = Player::new();
    let acts = run(&mut player, 60_000, 200);
    let moves = acts
        .iter()
        .filter(|(_, a)| matches!(a, Act::Pieces(PieceAction::Move(..))))
        .count();
    assert_eq!(moves, GAMES[0].moves.len(), "every move of the game, once");
    // Move, then press at least the read time plus the press delay later; alternating.
    for pair in acts.chunks(2).take(moves - 1) {
        let [
            (made, Act::Pieces(PieceAction::Move(..))),
            (pressed, Act::Lever),
        ] = pair
        else {
            panic!("a move then a press: {pair:?}");
        };
        assert!(pressed >= &(made + 200 + PRESS_AFTER_MS), "{pair:?}");
    }
}

#[test]
fn a_move_the_daemon_does_not_read_is_pressed_after_the_timeout() {
    let mut player = Player::new();
    let acts = run(&mut player, 20_000, u64::MAX / 2);
    let presses = acts.iter().filter(|(_, a)| *a == Act::Lever).count();
    assert!(presses >= 2, "the game goes on: {acts:?}");
}

#[test]
fn the_next_game_sets_up_the_pieces_and_ends_with_the_kings() {
    let mut player = Player::new();
    assert_eq!(player.next_game(), Act::Pieces(PieceAction::Setup));
    assert_eq!(player.game(), GAMES[1]);
    let acts = run(&mut player, 120_000, 100);
    let tail: Vec<&Act> = acts.iter().rev().take(4).map(|(_, a)| a).collect();
    assert!(
        tail.iter().all(|a| matches!(
            a,
            Act::Pieces(PieceAction::Lift(_) | PieceAction::Place(..))
        )),
        "the kings' signal last: {tail:?}"
    );
    player.next_game();
    player.next_game();
    assert_eq!(player.game(), GAMES[0], "the games take turns");
}
