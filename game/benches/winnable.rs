//! How long a verdict on who can still mate takes (docs/benchmarks.md, "Who can still mate"):
//! the quick check (the material, inline after every move) and the full search (chasolver's
//! helpmate search; under US Chess rules the forced-mate search too), per position, on a
//! varied set: openings, middlegames and endgames of pseudo-random games, locked pawn
//! structures and the tests' real positions. Prints p50, p99 and the maximum of each.
//!
//! `cargo bench -p chessclock-game --bench winnable`. A measurement, not a test: no
//! assertion on time.

use std::time::{Duration, Instant};

use chessclock_game::shakmaty::fen::Fen;
use chessclock_game::shakmaty::{CastlingMode, Chess, Position};
use chessclock_game::winnable::{self, MateBudget, Rulebook};

const FIXED: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
    "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5",
    "8/3k4/6p1/p2p1pP1/P2P1P2/2K5/8/8 b - - 0 1",
    "8/2bk4/8/p1p1p1p1/P1P1P1P1/8/3K4/5B2 w - - 0 1",
    "8/8/8/8/4K3/8/6Q1/7k b - - 0 1",
    "8/8/5n2/5k2/8/8/2K5/7R w - - 0 1",
    "k1K5/p7/8/3N4/8/8/8/8 w - - 0 1",
    "8/8/3k4/8/8/2N5/4p3/4K3 w - - 0 1",
    "8/8/4k3/2b5/8/8/4KB2/8 w - - 0 1",
    "8/8/4k3/8/8/8/2NNK3/8 b - - 0 1",
    "8/8/4k3/8/8/8/4K3/4Q3 w - - 0 1",
];

struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from((self.0 >> 33) % n as u64).unwrap_or(0)
    }
}

/// Positions of pseudo-random games that prefer captures: the game thins out from the
/// opening to the endgame.
fn random_positions(games: u64) -> Vec<Chess> {
    let mut out = Vec::new();
    for seed in 0..games {
        let mut rng = Lcg(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let mut p = Chess::default();
        for ply in 0..160 {
            let legal = p.legal_moves();
            if legal.is_empty() {
                break;
            }
            let captures: Vec<_> = legal.iter().filter(|m| m.is_capture()).copied().collect();
            let pool = if !captures.is_empty() && rng.below(10) < 7 {
                captures
            } else {
                legal.to_vec()
            };
            p.play_unchecked(pool[rng.below(pool.len())]);
            if ply % 8 == 7 {
                out.push(p.clone());
            }
        }
    }
    out
}

fn report(what: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    println!(
        "{what:<28} n={:<5} p50 {:>10.1?} p99 {:>10.1?} max {:>10.1?}",
        samples.len(),
        at(0.5),
        at(0.99),
        samples[samples.len() - 1]
    );
}

fn main() {
    let mut positions: Vec<Chess> = FIXED
        .iter()
        .map(|f| {
            f.parse::<Fen>()
                .expect("FEN")
                .into_position(CastlingMode::Standard)
                .expect("position")
        })
        .collect();
    positions.extend(random_positions(40));
    let time = |f: &dyn Fn(&Chess)| -> Vec<Duration> {
        positions
            .iter()
            .map(|p| {
                let started = Instant::now();
                f(p);
                started.elapsed()
            })
            .collect()
    };
    report(
        "quick (material)",
        time(&|p| {
            std::hint::black_box(winnable::judge_quick(p, Rulebook::Fide));
        }),
    );
    report(
        "full, FIDE (helpmates)",
        time(&|p| {
            std::hint::black_box(winnable::judge(p, Rulebook::Fide, MateBudget::default()));
        }),
    );
    report(
        "full, USCF (+ forced mates)",
        time(&|p| {
            std::hint::black_box(winnable::judge(p, Rulebook::Uscf, MateBudget::default()));
        }),
    );
    let (mut fixed_full, mut slowest) = (Vec::new(), (Duration::ZERO, String::new()));
    for (fen, p) in FIXED.iter().zip(&positions) {
        let started = Instant::now();
        std::hint::black_box(winnable::judge(p, Rulebook::Uscf, MateBudget::default()));
        let d = started.elapsed();
        if d > slowest.0 {
            slowest = (d, (*fen).to_owned());
        }
        fixed_full.push(d);
    }
    report("full, USCF, the real set", fixed_full);
    println!("slowest of the real set: {:?} {}", slowest.0, slowest.1);
}
