//! The rules on known games and positions; python-chess judges random games alike in
//! `tests/it/laws_python.rs`.

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

use super::assess;
use chessclock_engine::{BoardClaim, BoardEnd, Side};

/// The positions of a game from `fen` (or the start) through the UCI `moves`.
fn game(fen: Option<&str>, moves: &str) -> Vec<Chess> {
    let mut pos: Chess = match fen {
        Some(f) => f
            .parse::<Fen>()
            .expect("fen")
            .into_position(CastlingMode::Standard)
            .expect("legal position"),
        None => Chess::default(),
    };
    let mut out = vec![pos.clone()];
    for m in moves.split_whitespace() {
        let mv = m
            .parse::<UciMove>()
            .expect("uci")
            .to_move(&pos)
            .expect("legal");
        pos.play_unchecked(mv);
        out.push(pos.clone());
    }
    out
}

fn end(fen: Option<&str>, moves: &str) -> Option<BoardEnd> {
    assess(&game(fen, moves)).expect("a position").end
}

#[test]
fn mate_and_stalemate() {
    assert_eq!(
        end(None, "f2f3 e7e5 g2g4 d8h4"),
        Some(BoardEnd::Checkmate {
            winner: Side::Black
        })
    );
    // Black to move, no legal move, not in check.
    assert_eq!(
        end(Some("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), ""),
        Some(BoardEnd::Stalemate)
    );
    assert_eq!(end(None, "e2e4 e7e5"), None);
}

#[test]
fn repetitions_count_positions_not_moves() {
    let shuffle = "g1f3 g8f6 f3g1 f6g8";
    let twice = assess(&game(None, shuffle)).expect("a position");
    assert!(!twice.threefold, "the start has stood twice");
    let thrice = assess(&game(None, &format!("{shuffle} {shuffle}"))).expect("a position");
    assert!(thrice.threefold && thrice.claim_holds(BoardClaim::Threefold));
    assert_eq!(thrice.end, None, "threefold is claimed, not automatic");
    let five = format!("{shuffle} {shuffle} {shuffle} {shuffle}");
    assert_eq!(end(None, &five), Some(BoardEnd::FivefoldRepetition));
    // A pawn move between the shuffles starts the count again.
    let broken = format!("{shuffle} {shuffle} e2e4 e7e5 {shuffle} {shuffle}");
    assert_eq!(end(None, &broken), None);
}

#[test]
fn fifty_and_seventy_five_moves() {
    let fen = |h: u32| format!("4k3/8/8/8/8/8/8/R3K3 w - - {h} 60");
    let at = |h: u32, moves: &str| assess(&game(Some(&fen(h)), moves)).expect("a position");
    assert!(!at(99, "").fifty_moves);
    assert!(
        at(99, "a1a2").fifty_moves,
        "the 100th half-move without pawn or capture"
    );
    assert_eq!(at(149, "").end, None);
    assert_eq!(at(149, "a1a2").end, Some(BoardEnd::SeventyFiveMoves));
    // The 150th half-move mates: the mate stands (FIDE 9.6.2).
    let mate = assess(&game(Some("4k3/R7/4K3/8/8/8/8/8 w - - 149 90"), "a7a8")).expect("pos");
    assert_eq!(
        mate.end,
        Some(BoardEnd::Checkmate {
            winner: Side::White
        })
    );
}

#[test]
fn who_can_still_mate() {
    use chessclock_engine::Mating;
    let can = |fen: &str| {
        let c = assess(&game(Some(fen), "")).expect("a position").can_mate;
        // The quick check never says `can_mate`: only that a side cannot.
        (c.white != Mating::CannotMate, c.black != Mating::CannotMate)
    };
    assert_eq!(
        can("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"),
        (true, false),
        "K+R vs K"
    );
    assert_eq!(
        can("4k3/8/8/8/8/8/8/1N2K3 w - - 0 1"),
        (false, false),
        "K+N vs K"
    );
    assert_eq!(
        can("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1"),
        (false, false),
        "K+B vs K"
    );
    // Bishops all on one colour cannot mate; on both colours they can.
    assert!(can("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1").0, "c1 and f1");
    assert!(
        !can("4k3/8/8/8/8/8/1B6/2B1K3 w - - 0 1").0,
        "b2 and c1: dark only"
    );
    // A lone king against a queen: the queen's side can mate, the king's cannot.
    assert_eq!(can("4k3/8/8/8/8/8/8/3QK3 b - - 0 1"), (true, false));
}
