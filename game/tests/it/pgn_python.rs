//! PGNs written by the game crate, read back by python-chess (`scripts/pgn-read.py`), an
//! independent reader: every move, every `[%clk]`, every `[%emt]` and the tags must come back.
//! python-chess is installed by `scripts/test.sh`.

use chessclock_game::GameResult;
use chessclock_game::pgn::{self, GameInfo, PgnGame, PgnMove};
use chessclock_game::shakmaty::san::SanPlus;
use chessclock_game::shakmaty::{CastlingMode, Chess, Position};
use serde_json::Value;

use crate::support::{Lcg, python_chess};

struct Written {
    game: PgnGame,
    uci: Vec<String>,
}

/// A game of `plies` pseudo-random legal moves with clocks and elapsed times.
fn random_game(seed: u64, plies: usize) -> Written {
    let mut rng = Lcg(seed);
    let mut pos = Chess::default();
    let (mut moves, mut uci) = (Vec::new(), Vec::new());
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[rng.below(legal.len())];
        let san = SanPlus::from_move(pos.clone(), m).to_string();
        uci.push(m.to_uci(CastlingMode::Standard).to_string());
        pos.play_unchecked(m);
        let with_clock = !rng.next().is_multiple_of(10);
        moves.push(PgnMove {
            san: Some(san),
            clock_ms: with_clock.then(|| rng.next() % 7_200_000),
            elapsed_ms: (!rng.next().is_multiple_of(3)).then(|| rng.next() % 600_000),
        });
    }
    let mut info = GameInfo::new();
    info.set("Event", &format!("Test \"{seed}\" \\ open"))
        .expect("tag");
    info.set("White", "Carlsen, Magnus").expect("tag");
    info.set("Black", "Nepomniachtchi, Ian").expect("tag");
    info.set("Round", "7.1").expect("tag");
    info.set("Board", "3").expect("tag");
    let result = match seed % 4 {
        0 => None,
        1 => Some(GameResult::WhiteWins),
        2 => Some(GameResult::BlackWins),
        _ => Some(GameResult::Draw),
    };
    Written {
        game: PgnGame {
            info,
            time_control: seed
                .is_multiple_of(2)
                .then(|| "40/5400+30:1800+30".to_owned()),
            control_notation: Some("hourglass 5m".to_owned()),
            moves,
            black_first: false,
            white_clock_ms: Some(rng.next() % 7_200_000),
            black_clock_ms: Some(rng.next() % 7_200_000),
            result,
            termination: Some("normal".to_owned()),
            // Some of Black's wins are Armageddon draws: a comment before the result.
            result_comment: (seed % 8 == 2).then(|| {
                pgn::result_comment(
                    chessclock_engine::ResultReason::Armageddon,
                    Some(chessclock_engine::ResultReason::Stalemate),
                )
                .expect("a comment")
            }),
            setup: None,
        },
        uci,
    }
}

/// The games in `text` as python-chess reads them (`scripts/pgn-read.py`'s JSON).
pub(crate) fn read_back(text: &str) -> Vec<Value> {
    python_chess("pgn-read.py", "games.pgn", text)
}

fn secs(ms: u64, round_up: bool) -> f64 {
    if round_up {
        ms.div_ceil(1000) as f64
    } else {
        ((ms + 500) / 1000) as f64
    }
}

#[test]
fn python_chess_reads_every_move_and_clock_back() {
    let games: Vec<Written> = (0..40)
        .map(|s| random_game(s, 20 + (s as usize * 7) % 200))
        .collect();
    let text: String = games.iter().map(|g| pgn::write(&g.game)).collect();
    assert!(text.lines().all(|l| l.len() <= pgn::LINE_MAX));
    let read = read_back(&text);
    assert_eq!(read.len(), games.len());
    for (i, (w, r)) in games.iter().zip(&read).enumerate() {
        assert_eq!(r["errors"], Value::Array(vec![]), "game {i}");
        let uci: Vec<&str> = r["uci"]
            .as_array()
            .expect("uci")
            .iter()
            .map(|v| v.as_str().expect("str"))
            .collect();
        assert_eq!(uci, w.uci, "game {i}: moves");
        let san: Vec<&str> = r["san"]
            .as_array()
            .expect("san")
            .iter()
            .map(|v| v.as_str().expect("str"))
            .collect();
        let want_san: Vec<&str> = w
            .game
            .moves
            .iter()
            .filter_map(|m| m.san.as_deref())
            .collect();
        assert_eq!(san, want_san, "game {i}: SAN");
        for (j, m) in w.game.moves.iter().enumerate() {
            assert_eq!(
                r["clk"][j].as_f64(),
                m.clock_ms.map(|ms| secs(ms, true)),
                "game {i} ply {}",
                j + 1
            );
            assert_eq!(
                r["emt"][j].as_f64(),
                m.elapsed_ms.map(|ms| secs(ms, false)),
                "game {i} ply {}",
                j + 1
            );
        }
        let h = &r["headers"];
        assert_eq!(h["White"], "Carlsen, Magnus");
        assert_eq!(h["Event"], format!("Test \"{i}\" \\ open"));
        assert_eq!(h["Round"], "7.1");
        assert_eq!(h["Board"], "3");
        assert_eq!(h["Result"], w.game.result.map_or("*", GameResult::pgn));
        match &w.game.time_control {
            Some(tc) => {
                assert_eq!(&h["TimeControl"], tc.as_str());
                assert!(h.get("ChessclockdControl").is_none());
            }
            None => {
                assert_eq!(h["TimeControl"], "?");
                assert_eq!(h["ChessclockdControl"], "hourglass 5m");
            }
        }
        assert_eq!(
            h["WhiteClock"],
            pgn::clock_hms(w.game.white_clock_ms.unwrap_or_default())
        );
        assert_eq!(h["Termination"], "normal");
        let text = pgn::write(&w.game);
        let names: Vec<&str> = text
            .lines()
            .take(7)
            .map(|l| {
                l.trim_start_matches('[')
                    .split(' ')
                    .next()
                    .unwrap_or_default()
            })
            .collect();
        assert_eq!(
            names,
            ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
        );
    }
}

/// A clock's record: presses with the mover's clock, no moves (`docs/board-game.md`).
fn presses(black_first: bool, clocks: &[u64], result: Option<GameResult>) -> PgnGame {
    let mut info = GameInfo::new();
    info.set("Event", "chessclockd: G/5 d/0").expect("tag");
    PgnGame {
        info,
        control_notation: Some("G/5 d/0".to_owned()),
        moves: clocks
            .iter()
            .map(|&ms| PgnMove {
                san: None,
                clock_ms: Some(ms),
                elapsed_ms: None,
            })
            .collect(),
        black_first,
        result,
        termination: Some("abandoned".to_owned()),
        ..PgnGame::default()
    }
}

#[test]
fn python_chess_reads_a_game_of_presses_as_a_game_without_moves_and_errors() {
    let games = [
        presses(
            false,
            &[298_000, 297_500, 290_001],
            Some(GameResult::BlackWins),
        ),
        presses(true, &[299_000, 295_000], None),
        presses(false, &[], None),
        presses(false, &[1_000; 120], Some(GameResult::Draw)),
    ];
    let text: String = games.iter().map(pgn::write).collect();
    assert!(text.lines().all(|l| l.len() <= pgn::LINE_MAX), "{text}");
    let read = read_back(&text);
    assert_eq!(read.len(), games.len(), "{text}");
    for (i, (w, r)) in games.iter().zip(&read).enumerate() {
        assert_eq!(r["errors"], Value::Array(vec![]), "game {i}: {text}");
        assert_eq!(r["san"], Value::Array(vec![]), "game {i}: no moves");
        assert_eq!(
            r["result"],
            w.result.map_or("*", GameResult::pgn),
            "game {i}"
        );
        assert_eq!(r["headers"]["Event"], "chessclockd: G/5 d/0", "game {i}");
        // Every clock is in the game's comment, in order.
        let comment = r["comment"].as_str().expect("comment");
        let want: Vec<String> = w
            .moves
            .iter()
            .filter_map(|m| m.clock_ms)
            .map(|ms| format!("[%clk {}]", pgn::clock_hms(ms)))
            .collect();
        let got: Vec<String> = comment
            .split("[%clk ")
            .skip(1)
            .map(|c| format!("[%clk {}]", c.split(']').next().unwrap_or_default()))
            .collect();
        assert_eq!(got, want, "game {i}: {comment}");
    }
}
