//! The seam on real positions: locked pawn walls, bishops of one colour, a forced capture
//! into a bare king, helpmates with K+R v K+N, K+N v K+P forced mates; FIDE's and US
//! Chess's flag rules on each.

use chessclock_engine::{Mating, Side, WhoCanMate};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color};

use super::*;

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

const CAN: Mating = Mating::CanMate;
const CANNOT: Mating = Mating::CannotMate;
const OPEN: Mating = Mating::Undetermined;

fn who(white: Mating, black: Mating) -> WhoCanMate {
    WhoCanMate { white, black }
}

/// A locked pawn wall: no pawn can move or capture, neither king can cross.
pub(crate) const WALL: &str = "8/3k4/6p1/p2p1pP1/P2P1P2/2K5/8/8 b - - 0 1";
/// A wall with White's pawns all on light squares and Black's on dark, a light bishop for
/// White and a dark one for Black: no bishop ever attacks a pawn or is attacked by one,
/// and a lone bishop's check never covers the dark flights.
pub(crate) const WALL_BISHOPS: &str = "8/2bk4/8/p1p1p1p1/P1P1P1P1/8/3K4/5B2 w - - 0 1";
/// Black's only legal move takes the queen: a bare king against a bare king.
pub(crate) const FORCED_BARE_KING: &str = "8/8/8/8/4K3/8/6Q1/7k b - - 0 1";
/// K+R v K+N: each side can be helped into the other's mate.
pub(crate) const ROOK_V_KNIGHT: &str = "8/8/5n2/5k2/8/8/2K5/7R w - - 0 1";
/// K+N v K+P, White to move: Nc7 mates (the pawn blocks its own king).
pub(crate) const KNIGHT_MATES_IN_ONE: &str = "k1K5/p7/8/3N4/8/8/8/8 w - - 0 1";
/// K+N v K+P in the open: White can be helped to a mate, but forces none.
pub(crate) const KNIGHT_V_PAWN: &str = "8/8/3k4/8/8/2N5/4p3/4K3 w - - 0 1";
/// Bishops of one colour: dead by the material alone.
pub(crate) const SAME_BISHOPS: &str = "8/8/4k3/2b5/8/8/4KB2/8 w - - 0 1";

#[test]
fn the_quick_check_reads_the_material_only() {
    assert_eq!(quick(&pos(SAME_BISHOPS)), who(CANNOT, CANNOT));
    assert_eq!(
        quick(&pos("8/8/4k3/8/8/8/4K3/4Q3 w - - 0 1")),
        who(OPEN, CANNOT),
        "a queen: the search decides; a lone king cannot mate"
    );
    assert_eq!(quick(&pos(WALL)), who(OPEN, OPEN), "pawns: open to it");
    assert_eq!(quick(&Chess::default()), who(OPEN, OPEN));
}

#[test]
fn the_search_sees_what_the_material_does_not() {
    for (fen, want, what) in [
        (WALL, who(CANNOT, CANNOT), "a locked pawn wall"),
        (
            WALL_BISHOPS,
            who(CANNOT, CANNOT),
            "a wall with bishops of one colour each",
        ),
        (
            FORCED_BARE_KING,
            who(CANNOT, CANNOT),
            "the only move leaves K v K",
        ),
        (
            ROOK_V_KNIGHT,
            who(CAN, CAN),
            "K+N can be helped to mate K+R",
        ),
        (KNIGHT_V_PAWN, who(CAN, CAN), "K+N mates K+P with help"),
        (
            KNIGHT_MATES_IN_ONE,
            who(CAN, CAN),
            "the pawn may still queen",
        ),
        (
            "8/8/4k3/8/8/8/2NNK3/8 b - - 0 1",
            who(CAN, CANNOT),
            "two knights can be helped to mate a bare king",
        ),
        (SAME_BISHOPS, who(CANNOT, CANNOT), "bishops of one colour"),
        (
            "8/8/4k3/8/8/8/4K3/4Q3 w - - 0 1",
            who(CAN, CANNOT),
            "K+Q v K",
        ),
    ] {
        assert_eq!(search(&pos(fen)), want, "{what}: {fen}");
    }
    assert_eq!(search(&Chess::default()), who(CAN, CAN), "the start");
}

#[test]
fn a_dead_position_is_dead_for_either_flag_under_both_rules() {
    for rulebook in [Rulebook::Fide, Rulebook::Uscf] {
        for fen in [WALL, WALL_BISHOPS, FORCED_BARE_KING] {
            let j = judge(&pos(fen), rulebook, MateBudget::default());
            assert!(j.dead(), "{fen}");
            for side in [Side::White, Side::Black] {
                let f = j.on_flag(side).expect("decided");
                assert_eq!((f.loses, f.why), (false, FlagWhy::Dead), "{fen} {side:?}");
            }
        }
        let j = judge_quick(&pos(SAME_BISHOPS), rulebook);
        assert!(j.dead(), "the material decides it inline");
        assert_eq!(j.wins_on_flag(), (Some(false), Some(false)));
    }
}

#[test]
fn fide_loses_a_flag_wherever_the_opponent_can_be_helped_to_mate() {
    let j = judge(&pos(ROOK_V_KNIGHT), Rulebook::Fide, MateBudget::default());
    let white = j.on_flag(Side::White).expect("decided");
    assert_eq!((white.loses, white.why), (true, FlagWhy::CanMate));
    assert!(!white.undecided());
    // The lone king's side flags against a queen: lost; the queen's side: drawn.
    let q = pos("8/8/4k3/8/8/8/4K3/4Q3 w - - 0 1");
    let j = judge(&q, Rulebook::Fide, MateBudget::default());
    assert_eq!(j.wins_on_flag(), (Some(true), Some(false)));
    let quick = judge_quick(&q, Rulebook::Fide);
    assert_eq!(
        quick.wins_on_flag(),
        (None, Some(false)),
        "inline: White's flag draws (a lone king), Black's needs the search"
    );
}

#[test]
fn uscf_14e_draws_against_a_minor_piece_without_a_forced_win() {
    // K+N v K+R: the knight's side forces no mate: White's flag draws (14E2), where FIDE
    // loses it.
    let j = judge(&pos(ROOK_V_KNIGHT), Rulebook::Uscf, MateBudget::default());
    let white = j.on_flag(Side::White).expect("decided");
    assert!(!white.loses, "{white:?}");
    assert!(
        matches!(
            white.why,
            FlagWhy::NoForcedWin {
                rule: "14E2",
                proved: false,
                within: 1..
            }
        ),
        "{white:?}"
    );
    assert!(white.undecided(), "the arbiter is told");
    assert!(white.explain(Side::White).contains("14E2"));
    // Black's flag against the rook: 14E does not apply.
    let black = j.on_flag(Side::Black).expect("decided");
    assert_eq!((black.loses, black.why), (true, FlagWhy::MaterialToWin));
    // K+N v K+P, White to move mates at once: Black's flag loses (14E2, a forced win).
    let j = judge(
        &pos(KNIGHT_MATES_IN_ONE),
        Rulebook::Uscf,
        MateBudget::default(),
    );
    let black = j.on_flag(Side::Black).expect("decided");
    assert_eq!(
        (black.loses, black.why),
        (
            true,
            FlagWhy::ForcedWin {
                rule: "14E2",
                moves: 1
            }
        )
    );
    // In the open, no forced mate: drawn.
    let j = judge(&pos(KNIGHT_V_PAWN), Rulebook::Uscf, MateBudget::default());
    assert!(!j.on_flag(Side::Black).expect("decided").loses);
    let j = judge(&pos(KNIGHT_V_PAWN), Rulebook::Fide, MateBudget::default());
    assert!(
        j.on_flag(Side::Black).expect("decided").loses,
        "FIDE: a helpmate"
    );
}

#[test]
fn uscf_14e_lone_king_and_two_knights() {
    let q = pos("8/8/4k3/8/8/8/4K3/4Q3 w - - 0 1");
    let j = judge_quick(&q, Rulebook::Uscf);
    assert_eq!(
        j.on_flag(Side::White).map(|f| f.why),
        Some(FlagWhy::LoneKing),
        "inline"
    );
    // Two knights against a pawn (the flagger has a pawn): 14E3 does not apply.
    let nn_p = pos("8/8/4k3/4p3/8/8/2NNK3/8 b - - 0 1");
    let j = judge(&nn_p, Rulebook::Uscf, MateBudget::default());
    assert_eq!(
        j.on_flag(Side::Black).map(|f| f.why),
        Some(FlagWhy::MaterialToWin)
    );
    // Two knights against a lone king: 14E3, no forced win (a helpmate, though: FIDE
    // loses the flag).
    let nn = pos("8/8/4k3/8/8/8/2NNK3/8 b - - 0 1");
    let j = judge(&nn, Rulebook::Uscf, MateBudget::default());
    let black = j.on_flag(Side::Black).expect("decided");
    assert!(!black.loses);
    assert!(
        matches!(
            black.why,
            FlagWhy::NoForcedWin {
                rule: "14E3",
                proved: false,
                within: 5
            }
        ),
        "{black:?}"
    );
    assert!(black.undecided(), "the arbiter is told");
    let j = judge(&nn, Rulebook::Fide, MateBudget::default());
    assert!(j.on_flag(Side::Black).expect("decided").loses);
    // A knight against a bare king: dead, inline (14D before 14E).
    let n = pos("8/8/4k3/8/8/8/2N1K3/8 b - - 0 1");
    let j = judge_quick(&n, Rulebook::Uscf);
    assert_eq!(j.on_flag(Side::Black).map(|f| f.why), Some(FlagWhy::Dead));
}

#[test]
fn the_forced_mate_search_finds_short_mates_and_stops_at_its_budget() {
    let m = pos(KNIGHT_MATES_IN_ONE);
    assert_eq!(
        forced_mate(&m, Color::White, MateBudget::default()),
        ForcedMate::Found { moves: 1 }
    );
    // Scholar's mate threat: after 1.e4 e5 2.Qh5 Nc6 3.Bc4 Nf6?? 4.Qxf7#.
    let scholar = pos("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4");
    assert_eq!(
        forced_mate(&scholar, Color::White, MateBudget::default()),
        ForcedMate::Found { moves: 1 }
    );
    // The start: no forced mate within two moves; a tiny budget covers less.
    let start = Chess::default();
    assert_eq!(
        forced_mate(
            &start,
            Color::White,
            MateBudget {
                moves: 2,
                nodes: 1_000_000
            }
        ),
        ForcedMate::NotFound { within: 2 }
    );
    assert_eq!(
        forced_mate(
            &start,
            Color::White,
            MateBudget {
                moves: 3,
                nodes: 10
            }
        ),
        ForcedMate::NotFound { within: 1 }
    );
    // A position already mated.
    let mated = pos("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    assert_eq!(
        forced_mate(&mated, Color::Black, MateBudget::default()),
        ForcedMate::Found { moves: 0 }
    );
}
