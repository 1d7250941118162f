use super::*;

/// The games of `u`'s round as one body's text, and how many.
fn body(u: &Union) -> (String, usize, Option<u32>) {
    let r = u.round_games();
    let text: String = r.games.iter().map(|(_, g)| format!("{g}\n\n")).collect();
    (text, r.games.len(), r.round)
}

/// A game of round `round`, board `board`, with `moves` as its movetext.
fn game(round: &str, board: u32, moves: &str) -> String {
    format!("[Event \"Club\"]\n[Round \"{round}\"]\n[Board \"{board}\"]\n\n{moves} *\n")
}

#[test]
fn games_of_two_hosts_are_pushed_by_board_number_once_each() {
    let mut u = Union::default();
    assert!(u.set("pi-b", 3, &game("5.3", 3, "1. d4")));
    assert!(u.set("pi-a", 2, &game("5.2", 2, "1. c4")));
    assert!(u.set("pi-a", 1, &game("5.1", 1, "1. e4")));
    assert!(u.set("pi-b", 4, &game("5.4", 4, "1. Nf3")));
    assert!(
        !u.set("pi-a", 1, &game("5.1", 1, "1. e4")),
        "a retained message seen again changes nothing"
    );
    let (pgn, games, round) = body(&u);
    let boards: Vec<&str> = pgn
        .lines()
        .filter_map(|l| l.strip_prefix("[Board \""))
        .collect();
    assert_eq!(boards, ["1\"]", "2\"]", "3\"]", "4\"]"]);
    assert_eq!((games, round), (4, Some(5)));
    assert!(u.round_games().conflicts.is_empty());
}

#[test]
fn an_empty_payload_clears_the_board() {
    let mut u = Union::default();
    u.set("pi-a", 1, &game("2.1", 1, "1. e4"));
    u.set("pi-a", 2, &game("2.2", 2, "1. d4"));
    assert!(u.set("pi-a", 1, ""));
    assert!(!u.set("pi-a", 1, ""), "already gone");
    let (pgn, games, _) = body(&u);
    assert_eq!(games, 1);
    assert!(pgn.contains("1. d4") && !pgn.contains("1. e4"));
    u.set("pi-a", 2, " \n");
    assert_eq!(
        u.round_games(),
        RoundGames::default(),
        "nothing left to push"
    );
}

#[test]
fn only_the_current_round_is_pushed() {
    let mut u = Union::default();
    u.set("pi-a", 1, &game("3.1", 1, "1. e4"));
    u.set("pi-b", 2, &game("3.2", 2, "1. d4"));
    // pi-a has loaded round 4; pi-b still shows round 3's game.
    u.set("pi-a", 1, &game("4.1", 1, "1. c4"));
    let (pgn, games, round) = body(&u);
    assert_eq!((games, round), (1, Some(4)));
    assert!(pgn.contains("1. c4") && !pgn.contains("1. d4"));
    u.set("pi-b", 2, &game("4.2", 2, "1. g3"));
    assert_eq!(body(&u).1, 2);
}

#[test]
fn games_without_a_round_number_are_pushed_only_when_none_has_one() {
    let mut u = Union::default();
    u.set("pi-a", 1, &game("?", 1, "1. e4"));
    u.set("pi-b", 2, &game("-", 2, "1. d4"));
    let (_, games, round) = body(&u);
    assert_eq!((games, round), (2, None));
    u.set("pi-b", 3, &game("1.3", 3, "1. c4"));
    assert_eq!(body(&u).1, 1, "a numbered round leaves the others out");
}

#[test]
fn two_hosts_with_one_board_number_are_a_conflict_and_one_game_is_pushed() {
    let mut u = Union::default();
    u.set("pi-b", 1, &game("6.1", 1, "1. d4"));
    u.set("pi-a", 1, &game("6.1", 1, "1. e4"));
    u.set("pi-c", 1, &game("6.1", 1, "1. c4"));
    u.set("pi-a", 2, &game("6.2", 2, "1. g3"));
    let (pgn, games, _) = body(&u);
    let r = u.round_games();
    assert_eq!(games, 2, "one game per board number");
    assert!(pgn.contains("1. e4") && !pgn.contains("1. d4"));
    assert_eq!(
        r.conflicts,
        [Conflict {
            board: 1,
            pushed: "pi-a".into(),
            left_out: vec!["pi-b".into(), "pi-c".into()],
        }]
    );
    let said = r.conflicts[0].to_string();
    assert!(
        said.contains("board 1 is published by pi-a and pi-b and pi-c")
            && said.contains("pi-a's game is pushed"),
        "{said}"
    );
    let mut warned = BTreeSet::new();
    assert_eq!(Union::news(&r, &mut warned), [said]);
    assert!(
        Union::news(&u.round_games(), &mut warned).is_empty(),
        "each conflict is said once"
    );
    // An old round's board of the same number is no conflict.
    let mut u = Union::default();
    u.set("pi-a", 1, &game("7.1", 1, "1. e4"));
    u.set("pi-b", 1, &game("6.1", 1, "1. d4"));
    assert!(u.round_games().conflicts.is_empty());
}

#[test]
fn the_round_is_read_from_the_round_tag() {
    assert_eq!(round_of(&game("3.2", 2, "1. e4")), Some(3));
    assert_eq!(round_of(&game("12", 2, "1. e4")), Some(12));
    assert_eq!(round_of(&game("?", 2, "1. e4")), None);
    assert_eq!(round_of("[Event \"x\"]\n\n1. e4 {[Round \"9.1\"]} *"), None);
}

#[test]
fn a_paper_board_is_pushed_once_and_only_when_no_machine_drives_it() {
    let paper = |board: u32, result: &str| {
        format!("[Round \"3.{board}\"]\n[Board \"{board}\"]\n[Result \"{result}\"]\n\n{result}\n")
    };
    let mut u = Union::default();
    // pi-a drives board 1 and has 2 and 3 on paper; pi-b drives 2 and has 1 and 3.
    u.set("pi-a", 1, &game("3.1", 1, "1. e4"));
    u.set("pi-b", 2, &game("3.2", 2, "1. d4"));
    assert!(u.set_paper("pi-a", 2, &paper(2, "*")));
    assert!(u.set_paper("pi-a", 3, &paper(3, "*")));
    assert!(u.set_paper("pi-b", 1, &paper(1, "*")));
    assert!(u.set_paper("pi-b", 3, &paper(3, "1-0")));
    let (pgn, games, _) = body(&u);
    let boards: Vec<&str> = pgn
        .lines()
        .filter_map(|l| l.strip_prefix("[Board \""))
        .collect();
    assert_eq!(boards, ["1\"]", "2\"]", "3\"]"], "{pgn}");
    assert!(
        pgn.contains("[Result \"1-0\"]"),
        "the paper game with a result: {pgn}"
    );
    assert!(u.round_games().conflicts.is_empty(), "paper is no conflict");
    assert_eq!(games, 3);
    // Cleared, the other machine's paper game of the board is pushed.
    assert!(u.set_paper("pi-b", 3, ""));
    assert!(body(&u).0.contains("[Board \"3\"]"));
}
