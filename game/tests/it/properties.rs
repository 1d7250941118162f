//! Property tests: random legal games, played piece by piece on a simulated board in random
//! lift/place orders, with pieces set down on wrong squares first, long-range pieces slid
//! over every square on their way and flickering squares, reconstruct exactly, in either
//! orientation.

use crate::support::{Hand, Lcg};
use chessclock_game::placement::dgt_piece;
use chessclock_game::shakmaty::{Chess, Move, Position, Role, Square};
use chessclock_game::{BoardState, GameEvent};
use chessclock_protocol::Orientation;
use proptest::prelude::*;

/// Play `m` on the hand's board piece by piece, in a random valid order.
fn play_physically(h: &mut Hand, before: &Chess, m: Move, rng: &mut Lcg) {
    let mut after = before.clone();
    after.play_unchecked(m);
    let (b, a) = (before.board(), after.board());
    let changed: Vec<Square> = Square::ALL
        .into_iter()
        .filter(|s| b.piece_at(*s) != a.piece_at(*s))
        .collect();
    let mut lifts: Vec<Square> = changed
        .iter()
        .copied()
        .filter(|s| b.piece_at(*s).is_some())
        .collect();
    let mut places: Vec<Square> = changed
        .iter()
        .copied()
        .filter(|s| a.piece_at(*s).is_some())
        .collect();
    // A simple move may first be set down on a wrong empty square, then moved on.
    let simple = !m.is_castle() && !m.is_promotion() && !m.is_en_passant() && !m.is_capture();
    if simple && rng.chance(15) {
        let empty: Vec<Square> = Square::ALL
            .into_iter()
            .filter(|s| a.piece_at(*s).is_none() && b.piece_at(*s).is_none())
            .collect();
        if let (Some(from), false) = (m.from(), empty.is_empty()) {
            let wrong = empty[rng.below(empty.len())];
            let piece = b.piece_at(from).expect("mover");
            h.clear(from);
            h.put(wrong, piece);
            h.clear(wrong);
            h.put(m.to(), piece);
            return;
        }
    }
    // A long-range piece may be slid over the board: it touches every square on the way.
    let slider = matches!(m.role(), Role::Bishop | Role::Rook | Role::Queen);
    if simple && slider && rng.chance(30) {
        let from = m.from().expect("a normal move has a from-square");
        let piece = b.piece_at(from).expect("mover");
        h.clear(from);
        let mut path: Vec<Square> = chessclock_game::shakmaty::attacks::between(from, m.to())
            .into_iter()
            .collect();
        path.sort_by_key(|s| s.distance(from));
        for s in path {
            h.put(s, piece);
            h.clear(s);
        }
        h.put(m.to(), piece);
        return;
    }
    while !lifts.is_empty() || !places.is_empty() {
        // A square can take its new piece only once its old one is lifted.
        let ready: Vec<usize> = (0..places.len())
            .filter(|i| !lifts.contains(&places[*i]))
            .collect();
        let lift = !lifts.is_empty() && (ready.is_empty() || rng.chance(50));
        if lift {
            let s = lifts.swap_remove(rng.below(lifts.len()));
            h.clear(s);
        } else {
            let s = places.swap_remove(ready[rng.below(ready.len())]);
            let mut piece = a.piece_at(s).expect("placed piece");
            // A queen promotion is sometimes shown by putting the pawn itself on the last rank.
            if m.promotion() == Some(Role::Queen) && s == m.to() && rng.chance(50) {
                piece.role = Role::Pawn;
            }
            h.put(s, piece);
        }
    }
}

/// A flicker: a square reads wrong for a moment and is back.
fn flicker(h: &mut Hand, rng: &mut Lcg) {
    let s = Square::ALL[rng.below(64)];
    let f = chessclock_game::placement::field_of_square(s, h.orientation);
    match h.raw[usize::from(f)] {
        Some(p) => {
            h.clear(s);
            h.put(
                s,
                chessclock_game::placement::chess_piece(p).expect("chess piece"),
            );
        }
        None => {
            h.put(s, chessclock_game::shakmaty::Color::Black.knight());
            h.clear(s);
        }
    }
}

fn run_game(choices: &[u16], seed: u64, rotated: bool) -> Result<(), TestCaseError> {
    let orientation = if rotated {
        Orientation::Rotated
    } else {
        Orientation::Normal
    };
    let mut h = Hand::start(orientation);
    let mut rng = Lcg(seed);
    let mut pos = Chess::default();
    let mut played = Vec::new();
    for c in choices {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[usize::from(*c) % legal.len()];
        if rng.chance(10) {
            flicker(&mut h, &mut rng);
        }
        play_physically(&mut h, &pos, m, &mut rng);
        played.push(
            m.to_uci(chessclock_game::shakmaty::CastlingMode::Standard)
                .to_string(),
        );
        pos.play_unchecked(m);
        prop_assert_eq!(h.tracker.state(), &BoardState::Synced, "after {:?}", played);
    }
    prop_assert_eq!(h.ucis(), played);
    prop_assert_eq!(
        h.tracker.position().map(|p| p.board().clone()),
        Some(pos.board().clone())
    );
    let bad = h.events.iter().find(|e| {
        matches!(
            e,
            GameEvent::Unexplained { .. } | GameEvent::Takeback { .. } | GameEvent::Result { .. }
        )
    });
    prop_assert!(bad.is_none(), "{:?}", bad);
    let _ = dgt_piece;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_games_reconstruct_exactly(
        choices in prop::collection::vec(any::<u16>(), 1..120),
        seed in any::<u64>(),
        rotated in any::<bool>(),
    ) {
        run_game(&choices, seed, rotated)?;
    }
}
