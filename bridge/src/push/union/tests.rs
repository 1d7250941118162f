use super::*;

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
    let body = u.body(64);
    let boards: Vec<&str> = body
        .pgn
        .lines()
        .filter_map(|l| l.strip_prefix("[Board \""))
        .collect();
    assert_eq!(boards, ["1\"]", "2\"]", "3\"]", "4\"]"]);
    assert_eq!((body.games, body.round), (4, Some(5)));
    assert!(body.conflicts.is_empty());
    assert!(body.pgn.ends_with("*\n\n"), "{:?}", body.pgn);
    assert_eq!(u.boards(), 4);
}

#[test]
fn an_empty_payload_clears_the_board() {
    let mut u = Union::default();
    u.set("pi-a", 1, &game("2.1", 1, "1. e4"));
    u.set("pi-a", 2, &game("2.2", 2, "1. d4"));
    assert!(u.set("pi-a", 1, ""));
    assert!(!u.set("pi-a", 1, ""), "already gone");
    let body = u.body(64);
    assert_eq!(body.games, 1);
    assert!(body.pgn.contains("1. d4") && !body.pgn.contains("1. e4"));
    u.set("pi-a", 2, " \n");
    assert_eq!(u.body(64), Body::default(), "nothing left to push");
}

#[test]
fn only_the_current_round_is_pushed() {
    let mut u = Union::default();
    u.set("pi-a", 1, &game("3.1", 1, "1. e4"));
    u.set("pi-b", 2, &game("3.2", 2, "1. d4"));
    // pi-a has loaded round 4; pi-b still shows round 3's game.
    u.set("pi-a", 1, &game("4.1", 1, "1. c4"));
    let body = u.body(64);
    assert_eq!((body.games, body.round), (1, Some(4)));
    assert!(body.pgn.contains("1. c4") && !body.pgn.contains("1. d4"));
    u.set("pi-b", 2, &game("4.2", 2, "1. g3"));
    assert_eq!(u.body(64).games, 2);
}

#[test]
fn games_without_a_round_number_are_pushed_only_when_none_has_one() {
    let mut u = Union::default();
    u.set("pi-a", 1, &game("?", 1, "1. e4"));
    u.set("pi-b", 2, &game("-", 2, "1. d4"));
    let body = u.body(64);
    assert_eq!((body.games, body.round), (2, None));
    u.set("pi-b", 3, &game("1.3", 3, "1. c4"));
    assert_eq!(
        u.body(64).games,
        1,
        "a numbered round leaves the others out"
    );
}

#[test]
fn two_hosts_with_one_board_number_are_a_conflict_and_one_game_is_pushed() {
    let mut u = Union::default();
    u.set("pi-b", 1, &game("6.1", 1, "1. d4"));
    u.set("pi-a", 1, &game("6.1", 1, "1. e4"));
    u.set("pi-c", 1, &game("6.1", 1, "1. c4"));
    u.set("pi-a", 2, &game("6.2", 2, "1. g3"));
    let body = u.body(64);
    assert_eq!(body.games, 2, "one game per board number");
    assert!(body.pgn.contains("1. e4") && !body.pgn.contains("1. d4"));
    assert_eq!(
        body.conflicts,
        [Conflict {
            board: 1,
            pushed: "pi-a".into(),
            left_out: vec!["pi-b".into(), "pi-c".into()],
        }]
    );
    let said = body.conflicts[0].to_string();
    assert!(
        said.contains("board 1 is published by pi-a and pi-b and pi-c")
            && said.contains("pi-a's game is pushed"),
        "{said}"
    );
    let mut warned = BTreeSet::new();
    assert_eq!(u.news(&body, 64, &mut warned), [said]);
    assert!(
        u.news(&u.body(64), 64, &mut warned).is_empty(),
        "each conflict is said once"
    );
    // An old round's board of the same number is no conflict.
    let mut u = Union::default();
    u.set("pi-a", 1, &game("7.1", 1, "1. e4"));
    u.set("pi-b", 1, &game("6.1", 1, "1. d4"));
    assert!(u.body(64).conflicts.is_empty());
}

#[test]
fn the_limit_keeps_the_first_boards() {
    let mut u = Union::default();
    for b in 1..=5 {
        u.set("pi", b, &game(&format!("1.{b}"), b, "1. e4"));
    }
    let body = u.body(3);
    assert_eq!(body.games, 3);
    assert!(body.pgn.contains("[Board \"3\"]") && !body.pgn.contains("[Board \"4\"]"));
    assert_eq!(u.boards(), 5);
    let news = u.news(&body, 3, &mut BTreeSet::new());
    assert_eq!(
        news,
        ["5 boards in the round; Lichess takes 3: the first 3 by board number are pushed"]
    );
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
    let body = u.body(64);
    let boards: Vec<&str> = body
        .pgn
        .lines()
        .filter_map(|l| l.strip_prefix("[Board \""))
        .collect();
    assert_eq!(boards, ["1\"]", "2\"]", "3\"]"], "{}", body.pgn);
    assert!(
        body.pgn.contains("[Result \"1-0\"]"),
        "the paper game with a result: {}",
        body.pgn
    );
    assert!(body.conflicts.is_empty(), "paper is no conflict");
    assert_eq!((body.games, u.boards()), (3, 3));
    // Cleared, the other machine's paper game of the board is pushed.
    assert!(u.set_paper("pi-b", 3, ""));
    assert!(u.body(64).pgn.contains("[Board \"3\"]"));
}
