use std::collections::{BTreeMap, BTreeSet};

use chessclock_game::pairings::{self, Format, Pairing};

use super::{ClockNow, check};
use crate::engine::GameResult;
use crate::supervisor::round::{Target, plan};
use crate::supervisor::round_boards::Stored;

const FIRST: &str = "board,white,black\n1,Tanaka,Moreau\n2,Novak,Lindqvist\n3,Okafor,Silva\n";

fn pairings(text: &str) -> Vec<Pairing> {
    pairings::parse(text, Some(Format::Csv), 1).expect("pairings")
}

/// Two clocks, boards 1 and 2, with the first file's players; board 3 is a paper board.
fn clocks(begun: bool) -> Vec<ClockNow> {
    let p = plan(&pairings(FIRST), &targets(), 1).expect("plan");
    p.apply
        .iter()
        .map(|(index, tags)| ClockNow {
            index: *index,
            board: index + 1,
            begun,
            result: None,
            plies: if begun { 12 } else { 0 },
            tags: tags
                .iter()
                .filter(|(_, v)| !v.is_empty())
                .cloned()
                .collect(),
        })
        .collect()
}

fn targets() -> Vec<Target> {
    (0..2)
        .map(|i| Target {
            index: i,
            board: i + 1,
            name: format!("c{i}"),
        })
        .collect()
}

fn sheet(result: Option<GameResult>) -> Stored {
    Stored {
        round: 1,
        format: "csv".into(),
        content: FIRST.into(),
        paper: [3].into(),
        results: result.map(|r| (3, r)).into_iter().collect(),
        forfeits: BTreeSet::new(),
    }
}

#[test]
fn the_same_file_again_changes_nothing_and_keeps_the_paper_result() {
    let p = plan(&pairings(FIRST), &targets(), 1).expect("plan");
    let old = sheet(Some(GameResult::Draw));
    let c = check(&p, &p.boards, &clocks(true), Some(&old), 1);
    assert!(c.conflicts.is_empty(), "{:?}", c.conflicts);
    assert_eq!(c.unchanged, vec![0, 1]);
    assert_eq!(c.kept_results, vec![3]);
    assert!(c.nothing(&p, Some(&old), 1));
    // For another round it is something.
    assert!(!c.nothing(&p, Some(&old), 2));
}

#[test]
fn other_players_on_begun_games_and_on_an_entered_result_are_each_named() {
    let swapped = "board,white,black\n1,Novak,Lindqvist\n2,Tanaka,Moreau\n3,Okafor,Silva\n";
    let p = plan(&pairings(swapped), &targets(), 1).expect("plan");
    let c = check(&p, &p.boards, &clocks(true), Some(&sheet(None)), 1);
    assert_eq!(
        c.conflicts,
        vec![
            "board 1 (clock 0): its game has begun (12 moves) with Tanaka - Moreau; the file \
             says Novak - Lindqvist",
            "board 2 (clock 1): its game has begun (12 moves) with Novak - Lindqvist; the file \
             says Tanaka - Moreau",
        ]
    );
    // Games not begun take the new players freely.
    let c = check(&p, &p.boards, &clocks(false), Some(&sheet(None)), 1);
    assert!(c.conflicts.is_empty(), "{:?}", c.conflicts);
    assert!(!c.nothing(&p, Some(&sheet(None)), 1));

    // A paper board's entered result for other players, or for a board the file drops.
    let other = "board,white,black\n1,Tanaka,Moreau\n2,Novak,Lindqvist\n3,Okafor,Ito\n";
    let p = plan(&pairings(other), &targets(), 1).expect("plan");
    let c = check(
        &p,
        &p.boards,
        &clocks(true),
        Some(&sheet(Some(GameResult::WhiteWins))),
        1,
    );
    assert_eq!(
        c.conflicts,
        vec![
            "board 3 (paper board): its result 1-0 is entered for Okafor - Silva; the file says \
             Okafor - Ito"
        ]
    );
    assert!(c.kept_results.is_empty());
    let fewer = "board,white,black\n1,Tanaka,Moreau\n2,Novak,Lindqvist\n";
    let p = plan(&pairings(fewer), &targets(), 1).expect("plan");
    let c = check(
        &p,
        &p.boards,
        &clocks(true),
        Some(&sheet(Some(GameResult::WhiteWins))),
        1,
    );
    assert_eq!(
        c.conflicts,
        vec![
            "board 3 (paper board): its result 1-0 is entered for Okafor - Silva; the file has \
             no board 3"
        ]
    );
}

#[test]
fn a_begun_game_without_players_takes_the_file_s_and_an_ended_one_names_its_result() {
    let p = plan(&pairings(FIRST), &targets(), 1).expect("plan");
    let mut bare = clocks(true);
    for c in &mut bare {
        c.tags = BTreeMap::new();
    }
    let c = check(&p, &p.boards, &bare, None, 1);
    assert!(c.conflicts.is_empty(), "{:?}", c.conflicts);
    assert!(c.unchanged.is_empty());

    let renamed = "board,white,black\n1,Tanaka,Moreau\n2,Novak,Lindquist\n";
    let p = plan(&pairings(renamed), &targets(), 1).expect("plan");
    let mut ended = clocks(true);
    ended[1].result = Some("0-1".into());
    let c = check(&p, &p.boards, &ended, None, 1);
    assert_eq!(
        c.conflicts,
        vec![
            "board 2 (clock 1): its game ended 0-1 with Novak - Lindqvist; the file says Novak \
             - Lindquist"
        ]
    );
    assert_eq!(c.unchanged, vec![0]);
}
