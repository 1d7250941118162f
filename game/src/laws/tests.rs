//! The rules on known games and positions; python-chess checks random games as an
//! independent judge in `tests/pgn_python.rs`.

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
    let can = |fen: &str| assess(&game(Some(fen), "")).expect("a position").can_mate;
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

/// A pseudo-random game of up to `plies` moves; with `quiet` in 100, a move that is neither
/// a capture nor a pawn move is chosen when there is one (long counts), and with `back` in
/// 100 the move that takes the player's last move back (repetitions); otherwise any legal
/// move (captures thin the material out).
fn random_game(seed: u64, plies: usize, quiet: u64, back: u64) -> (Vec<Chess>, Vec<String>) {
    let mut state = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        state >> 33
    };
    let mut pos = Chess::default();
    let (mut positions, mut uci) = (vec![pos.clone()], Vec::new());
    let mut last: [Option<shakmaty::Move>; 2] = [None, None];
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let mover = usize::from(pos.turn() == shakmaty::Color::Black);
        let undo = last[mover].and_then(|l| {
            legal
                .iter()
                .find(|m| m.from() == Some(l.to()) && m.to() == l.from().unwrap_or(l.to()))
                .filter(|m| !m.is_capture())
                .copied()
        });
        let calm: Vec<_> = legal
            .iter()
            .filter(|m| !m.is_capture() && m.role() != shakmaty::Role::Pawn)
            .copied()
            .collect();
        let pool = if !calm.is_empty() && next() % 100 < quiet {
            calm
        } else {
            legal.to_vec()
        };
        let m = match undo {
            Some(u) if next() % 100 < back => u,
            _ => pool[usize::try_from(next()).unwrap_or(0) % pool.len()],
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
    let dir = std::env::temp_dir().join(format!("assess-python-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("games.uci");
    let lines: Vec<String> = games.iter().map(|(_, uci)| uci.join(" ")).collect();
    std::fs::write(&file, lines.join("\n") + "\n").expect("write");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/assess-positions.py"
    );
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(&file)
        .output()
        .expect("python3 (scripts/test.sh installs it)");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "python-chess failed (scripts/test.sh installs it with pip): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let verdicts: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
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
                Some(BoardEnd::Signal { .. }) | None => "none",
            };
            let at = format!("game {g} ply {ply}");
            assert_eq!(got, expected, "{at}: end");
            assert_eq!(ours.threefold, flag("threefold"), "{at}: threefold");
            assert_eq!(ours.fifty_moves, flag("fifty"), "{at}: fifty moves");
            let insufficient = &want["insufficient"];
            assert_eq!(
                ours.can_mate,
                (
                    !insufficient[0].as_bool().expect("bool"),
                    !insufficient[1].as_bool().expect("bool")
                ),
                "{at}: who can mate"
            );
            for (k, on) in [
                (expected, expected != "none"),
                ("threefold", ours.threefold),
                ("fifty", ours.fifty_moves),
                ("cannot mate", ours.can_mate != (true, true)),
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
