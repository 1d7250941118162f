//! Who can still mate ([`chessclock_game::winnable`]) on real positions, with python-chess
//! (`scripts/fen-facts.py`, an independent judge) as the judge of what it can judge: that
//! each position is legal, its legal moves, and the material part. python-chess has no
//! unwinnability search, so the search's verdicts beyond the material are this file's
//! expectations, each said with its reason; and on every position of random games the
//! search never contradicts the material.

use chessclock_engine::{Mating, Side};
use chessclock_game::shakmaty::fen::Fen;
use chessclock_game::shakmaty::{CastlingMode, Chess, EnPassantMode, Position};
use chessclock_game::winnable::{self, MateBudget, Rulebook};

use crate::support::{Lcg, python_chess};

use Mating::{CanMate as CAN, CannotMate as CANNOT};

/// Real positions: FEN, who can mate (White, Black), why.
const POSITIONS: &[(&str, Mating, Mating, &str)] = &[
    (
        "8/3k4/6p1/p2p1pP1/P2P1P2/2K5/8/8 b - - 0 1",
        CANNOT,
        CANNOT,
        "a locked pawn wall: no pawn moves or captures, no king crosses",
    ),
    (
        "8/2bk4/8/p1p1p1p1/P1P1P1P1/8/3K4/5B2 w - - 0 1",
        CANNOT,
        CANNOT,
        "a wall, each side's bishop on the colour the enemy pawns are not on",
    ),
    (
        "8/8/8/8/4K3/8/6Q1/7k b - - 0 1",
        CANNOT,
        CANNOT,
        "the only legal move takes the queen: a bare king each",
    ),
    (
        "8/8/5n2/5k2/8/8/2K5/7R w - - 0 1",
        CAN,
        CAN,
        "K+R v K+N: either can be helped to mate",
    ),
    (
        "k1K5/p7/8/3N4/8/8/8/8 w - - 0 1",
        CAN,
        CAN,
        "K+N v K+P: Nc7 mates; the pawn may still queen",
    ),
    (
        "8/8/3k4/8/8/2N5/4p3/4K3 w - - 0 1",
        CAN,
        CAN,
        "K+N v K+P in the open",
    ),
    (
        "8/8/4k3/2b5/8/8/4KB2/8 w - - 0 1",
        CANNOT,
        CANNOT,
        "bishops of one colour",
    ),
    (
        "8/8/4k3/8/8/8/2NNK3/8 b - - 0 1",
        CAN,
        CANNOT,
        "two knights can be helped to mate a bare king",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        CAN,
        CAN,
        "the start",
    ),
];

fn pos(fen: &str) -> Chess {
    let parsed: Fen = fen.parse().unwrap_or_else(|e| panic!("{fen}: {e}"));
    parsed
        .into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn cannot(m: Mating) -> bool {
    m == Mating::CannotMate
}

#[test]
fn real_positions_are_legal_and_judged_as_their_reasons_say() {
    let fens: Vec<&str> = POSITIONS.iter().map(|p| p.0).collect();
    let facts = python_chess("fen-facts.py", "positions.fen", &(fens.join("\n") + "\n"));
    assert_eq!(facts.len(), POSITIONS.len());
    for ((fen, white, black, why), facts) in POSITIONS.iter().zip(&facts) {
        assert_eq!(facts["valid"], true, "python-chess: {fen} is legal");
        let p = pos(fen);
        assert_eq!(
            facts["moves"].as_array().expect("moves").len(),
            p.legal_moves().len(),
            "{fen}: the same legal moves"
        );
        let who = winnable::search(&p);
        assert_eq!((who.white, who.black), (*white, *black), "{why}: {fen}");
        // The material part is python-chess's to judge too.
        let insufficient = &facts["insufficient"];
        for (i, m) in [who.white, who.black].into_iter().enumerate() {
            if insufficient[i] == true {
                assert!(cannot(m), "{fen}: python-chess says side {i} cannot mate");
            }
        }
        // Where every legal move leaves both sides without mating material, the position is
        // dead now (the forced capture).
        let after = facts["after"].as_array().expect("after");
        if !after.is_empty() && after.iter().all(|a| a[0] == true && a[1] == true) {
            assert!(who.dead(), "{fen}: every move leaves insufficient material");
        }
    }
}

#[test]
fn the_search_never_contradicts_the_material_on_random_games() {
    let mut fens = Vec::new();
    for seed in 0..24u64 {
        let mut rng = Lcg(seed.wrapping_mul(0x2545_f491_4f6c_dd1d).wrapping_add(7));
        let mut p = Chess::default();
        for _ in 0..(40 + seed * 13) {
            let legal = p.legal_moves();
            if legal.is_empty() {
                break;
            }
            // Captures preferred: the games thin out to endgames.
            let captures: Vec<_> = legal.iter().filter(|m| m.is_capture()).copied().collect();
            let pool = if !captures.is_empty() && rng.chance(70) {
                captures
            } else {
                legal.to_vec()
            };
            p.play_unchecked(pool[rng.below(pool.len())]);
            fens.push(Fen::from_position(&p, EnPassantMode::Legal).to_string());
        }
    }
    let facts = python_chess("fen-facts.py", "random.fen", &(fens.join("\n") + "\n"));
    assert_eq!(facts.len(), fens.len());
    let mut decided = 0;
    for (fen, facts) in fens.iter().zip(&facts) {
        assert_eq!(facts["valid"], true, "{fen}");
        let p = pos(fen);
        let who = winnable::search(&p);
        for (i, m) in [who.white, who.black].into_iter().enumerate() {
            let insufficient = facts["insufficient"][i] == true;
            if insufficient {
                assert!(cannot(m), "{fen}: side {i} has no mating material");
            }
            if m == Mating::CanMate {
                assert!(!insufficient, "{fen}: side {i}");
            }
            decided += usize::from(m != Mating::Undetermined);
        }
        // FIDE 6.9 on every flag: lost exactly where the opponent can mate or the search
        // could not decide.
        let j = winnable::judge(&p, Rulebook::Fide, MateBudget::default());
        for side in [Side::White, Side::Black] {
            let flag = j.on_flag(side).expect("decided");
            assert_eq!(flag.loses, !cannot(who.of(side.other())), "{fen} {side:?}");
        }
    }
    assert!(
        decided > fens.len(),
        "most sides decided: {decided} of {}",
        fens.len() * 2
    );
}
