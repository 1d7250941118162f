//! The board's judge ([`assess`]) against python-chess (`scripts/assess-positions.py`, an
//! independent judge) on every position of random games: the same verdicts. python-chess is
//! installed by `scripts/test.sh`.

use chessclock_engine::BoardEnd;
use chessclock_game::assess;
use chessclock_game::shakmaty::{CastlingMode, Chess, Position};

use crate::support::{Lcg, python_chess};

/// A pseudo-random game of up to `plies` moves; with `quiet` in 100, a move that is neither
/// a capture nor a pawn move is chosen when there is one (long counts), and with `back` in
/// 100 the move that takes the player's last move back (repetitions); otherwise any legal
/// move (captures thin the material out).
fn random_game(seed: u64, plies: usize, quiet: u64, back: u64) -> (Vec<Chess>, Vec<String>) {
    let mut rng = Lcg(seed.wrapping_add(0x9e37_79b9_7f4a_7c15));
    let mut pos = Chess::default();
    let (mut positions, mut uci) = (vec![pos.clone()], Vec::new());
    let mut last: [Option<chessclock_game::shakmaty::Move>; 2] = [None, None];
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let mover = usize::from(pos.turn() == chessclock_game::shakmaty::Color::Black);
        let undo = last[mover].and_then(|l| {
            legal
                .iter()
                .find(|m| m.from() == Some(l.to()) && m.to() == l.from().unwrap_or(l.to()))
                .filter(|m| !m.is_capture())
                .copied()
        });
        let calm: Vec<_> = legal
            .iter()
            .filter(|m| !m.is_capture() && m.role() != chessclock_game::shakmaty::Role::Pawn)
            .copied()
            .collect();
        let pool = if !calm.is_empty() && rng.chance(quiet) {
            calm
        } else {
            legal.to_vec()
        };
        let m = match undo {
            Some(u) if rng.chance(back) => u,
            _ => pool[rng.below(pool.len())],
        };
        last[mover] = Some(m);
        uci.push(m.to_uci(CastlingMode::Standard).to_string());
        pos.play_unchecked(m);
        positions.push(pos.clone());
    }
    (positions, uci)
}

/// Every position of 120 random games, judged by python-chess (scripts/assess-positions.py,
/// installed by scripts/test.sh) and by [`assess`]: the same verdicts.
#[test]
fn python_chess_judges_every_position_alike() {
    let games: Vec<_> = (0..120u64)
        .map(|s| {
            let (quiet, back) = [(30, 0), (80, 0), (97, 0), (90, 85)][s as usize % 4];
            random_game(s, 60 + (s as usize * 37) % 400, quiet, back)
        })
        .collect();
    let lines: Vec<String> = games.iter().map(|(_, uci)| uci.join(" ")).collect();
    let verdicts = python_chess(
        "assess-positions.py",
        "games.uci",
        &(lines.join("\n") + "\n"),
    );
    assert_eq!(verdicts.len(), games.len());
    let mut seen = std::collections::BTreeMap::<&str, u32>::new();
    for (g, ((positions, _), theirs)) in games.iter().zip(&verdicts).enumerate() {
        for (ply, want) in theirs.as_array().expect("array").iter().enumerate() {
            let ours = assess(&positions[..=ply]).expect("a position");
            let flag = |k: &str| want[k].as_bool().expect("bool");
            let expected = if flag("checkmate") {
                "checkmate"
            } else if flag("stalemate") {
                "stalemate"
            } else if flag("fivefold") {
                "fivefold"
            } else if flag("seventyfive") {
                "seventyfive"
            } else {
                "none"
            };
            let got = match ours.end {
                Some(BoardEnd::Checkmate { .. }) => "checkmate",
                Some(BoardEnd::Stalemate) => "stalemate",
                Some(BoardEnd::FivefoldRepetition) => "fivefold",
                Some(BoardEnd::SeventyFiveMoves) => "seventyfive",
                Some(BoardEnd::Signal { .. } | BoardEnd::DeadPosition) | None => "none",
            };
            let at = format!("game {g} ply {ply}");
            assert_eq!(got, expected, "{at}: end");
            assert_eq!(ours.threefold, flag("threefold"), "{at}: threefold");
            assert_eq!(ours.fifty_moves, flag("fifty"), "{at}: fifty moves");
            let insufficient = &want["insufficient"];
            let cannot = |m: chessclock_engine::Mating| m == chessclock_engine::Mating::CannotMate;
            assert_eq!(
                (cannot(ours.can_mate.white), cannot(ours.can_mate.black)),
                (
                    insufficient[0].as_bool().expect("bool"),
                    insufficient[1].as_bool().expect("bool")
                ),
                "{at}: who cannot mate by the material"
            );
            for (k, on) in [
                (expected, expected != "none"),
                ("threefold", ours.threefold),
                ("fifty", ours.fifty_moves),
                (
                    "cannot mate",
                    cannot(ours.can_mate.white) || cannot(ours.can_mate.black),
                ),
            ] {
                if on {
                    *seen.entry(k).or_default() += 1;
                }
            }
        }
    }
    // The games reach every verdict, or the comparison proves little.
    for k in [
        "checkmate",
        "fivefold",
        "seventyfive",
        "threefold",
        "fifty",
        "cannot mate",
    ] {
        assert!(seen.get(k).copied().unwrap_or(0) > 0, "no {k} in {seen:?}");
    }
}
