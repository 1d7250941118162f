//! The pairing parsers: each format read, every bad line named, never a panic.

use proptest::prelude::*;

use super::{Format, Pairing, parse};

fn lines(err: super::PairingsError) -> Vec<usize> {
    err.0.iter().map(|e| e.line).collect()
}

#[test]
fn csv_with_header_in_any_order_and_quotes() {
    let text = "Board,White,Black,white_elo,black_fide_id,white_title\n\
                2,\"Carlsen, Magnus\",Nepomniachtchi,2830,4168119,GM\n\
                \n\
                1, Ding Liren ,\"Gukesh \"\"D\"\"\",,,\n";
    let p = parse(text, None, 1).expect("parsed");
    assert_eq!(p.len(), 2);
    assert_eq!((p[0].board, p[0].line), (1, 4));
    assert_eq!(p[0].white.name, "Ding Liren");
    assert_eq!(p[0].black.name, "Gukesh \"D\"");
    assert_eq!(p[0].white.elo, None);
    assert_eq!(p[1].white.name, "Carlsen, Magnus");
    assert_eq!(p[1].white.elo, Some(2830));
    assert_eq!(p[1].white.title, "GM");
    assert_eq!(p[1].black.fide_id, Some(4168119));
}

#[test]
fn csv_semicolons_when_the_header_has_no_comma() {
    let p = parse("board;white;black\n1;A, B;C\n", Some(Format::Csv), 1).expect("parsed");
    assert_eq!(p[0].white.name, "A, B");
}

#[test]
fn csv_bad_lines_are_all_named() {
    let text = "board,white,black,white_elo\n1,A,B,2000\nx,C,D,\n3,E,F,high\n4,G\n1,H,I,\n";
    let err = parse(text, None, 1).expect_err("bad");
    assert_eq!(lines(err.clone()), vec![3, 4, 5, 6]);
    let msg = err.to_string();
    assert!(
        msg.contains("line 3: board \"x\" is not a board number"),
        "{msg}"
    );
    assert!(
        msg.contains("line 4: white_elo \"high\" is not a rating"),
        "{msg}"
    );
    assert!(
        msg.contains("line 5: 2 fields where the header has 4"),
        "{msg}"
    );
    assert!(
        msg.contains("line 6: board 1 is paired already on line 2"),
        "{msg}"
    );
}

#[test]
fn csv_header_problems_name_line_one() {
    let err = parse("board,white,whte_elo\n1,A,B\n", Some(Format::Csv), 1).expect_err("bad");
    let msg = err.to_string();
    assert!(
        msg.contains("line 1: \"whte_elo\" is not a pairings column"),
        "{msg}"
    );
    assert!(
        msg.contains("line 1: the header has no black column"),
        "{msg}"
    );
    let err = parse("", Some(Format::Csv), 1).expect_err("empty");
    assert_eq!(err.to_string(), "the file is empty");
}

#[test]
fn pgn_tags_one_game_per_board() {
    let text = "[Event \"Open\"]\n[Round \"3.2\"]\n[White \"A\"]\n[Black \"B\"]\n\
                [WhiteElo \"2100\"]\n[BlackFideId \"123\"]\n[BlackTeam \"Club \\\"X\\\"\"]\n\n*\n\n\
                [Round \"3\"]\n[Board \"1\"]\n[White \"C\"]\n[Black \"D\"]\n\n*\n";
    assert_eq!(Format::detect(text), Format::Pgn);
    let p = parse(text, None, 3).expect("parsed");
    assert_eq!(p.len(), 2);
    assert_eq!(
        (p[0].board, p[0].line, p[0].white.name.as_str()),
        (1, 11, "C")
    );
    assert_eq!((p[1].board, p[1].line), (2, 1));
    assert_eq!(p[1].white.elo, Some(2100));
    assert_eq!(p[1].black.fide_id, Some(123));
    assert_eq!(p[1].black.team, "Club \"X\"");
}

#[test]
fn pgn_tags_errors_name_the_game_or_the_line() {
    let text = "[Round \"3\"]\n[White \"A\"]\n[Black \"B\"]\n\n[Board \"2\"]\n[White A]\n\
                [Black \"C\"]\n";
    let err = parse(text, Some(Format::Pgn), 1).expect_err("bad");
    let msg = err.to_string();
    assert!(
        msg.contains("line 1: the game has no board number"),
        "{msg}"
    );
    assert!(
        msg.contains("line 6: \"[White A]\" is not a PGN tag"),
        "{msg}"
    );
    assert!(msg.contains("line 5: the White name is empty"), "{msg}");
}

/// A TRF-16 player line: starting rank, title, name, rating, FIDE id, then per round
/// (opponent, colour, result).
fn trf_player(
    rank: u32,
    title: &str,
    name: &str,
    elo: u32,
    fide: u64,
    rounds: &[(u32, char, char)],
) -> String {
    let mut line = format!(
        "001 {rank:>4} m{title:>3} {name:<33} {elo:>4} NOR {fide:>11} 1990/11/30 {:>4} {:>4}",
        "1.0", rank
    );
    for (opp, colour, result) in rounds {
        let opp = if *opp == 0 {
            "0000".to_owned()
        } else {
            format!("{opp:>4}")
        };
        line.push_str(&format!("  {opp} {colour} {result}"));
    }
    line
}

fn trf_sample() -> String {
    [
        "012 Test Open".to_owned(),
        trf_player(
            1,
            "GM",
            "Carlsen, Magnus",
            2830,
            1503014,
            &[(3, 'w', '1'), (2, 'b', ' ')],
        ),
        trf_player(
            2,
            "g",
            "Caruana, Fabiano",
            2800,
            2020009,
            &[(4, 'b', '1'), (1, 'w', ' ')],
        ),
        trf_player(3, "", "Lonely, Bye", 0, 0, &[(1, 'b', '0'), (0, '-', 'U')]),
        trf_player(
            4,
            "wm",
            "Hou, Yifan",
            2650,
            8602980,
            &[(2, 'w', '0'), (5, 'b', ' ')],
        ),
        trf_player(
            5,
            "IM",
            "Five, Player",
            2400,
            0,
            &[(0, '-', 'H'), (4, 'w', ' ')],
        ),
    ]
    .join("\n")
}

#[test]
fn trf_round_from_the_player_lines() {
    let text = trf_sample();
    assert_eq!(Format::detect(&text), Format::Trf);
    let r2 = parse(&text, None, 2).expect("round 2");
    let names = |p: &Pairing| (p.board, p.white.name.clone(), p.black.name.clone());
    assert_eq!(
        r2.iter().map(names).collect::<Vec<_>>(),
        vec![
            (1, "Caruana, Fabiano".into(), "Carlsen, Magnus".into()),
            (2, "Five, Player".into(), "Hou, Yifan".into()),
        ]
    );
    assert_eq!(r2[0].white.title, "GM");
    assert_eq!(r2[0].black.title, "GM");
    assert_eq!(r2[0].white.fide_id, Some(2020009));
    assert_eq!(r2[0].white.elo, Some(2800));
    assert_eq!(r2[1].black.title, "WIM");
    assert_eq!(r2[1].white.fide_id, None);
    let r1 = parse(&text, Some(Format::Trf), 1).expect("round 1");
    assert_eq!(r1.len(), 2);
    assert_eq!(
        (r1[0].white.name.as_str(), r1[0].line),
        ("Carlsen, Magnus", 2)
    );
    let err = parse(&text, None, 3).expect_err("no round 3");
    assert!(err.to_string().contains("no pairings for round 3"), "{err}");
}

#[test]
fn trf_results_fill_the_round_and_the_points_and_keep_the_rest() {
    use crate::event::GameResult;
    let text = trf_sample();
    // Round 2: board 1 Caruana (2) - Carlsen (1), board 2 Five (5) - Hou (4).
    let results =
        std::collections::BTreeMap::from([(1, GameResult::BlackWins), (2, GameResult::Draw)]);
    let none = std::collections::BTreeSet::new();
    let out = super::trf_results(&text, 2, &results, &none).expect("filled");
    let line = |rank: usize| out.lines().nth(rank).expect("line").to_owned();
    let col = |l: &str, from: usize, to: usize| {
        l.chars()
            .skip(from - 1)
            .take(to - from + 1)
            .collect::<String>()
    };
    assert_eq!(
        col(&line(1), 109, 109),
        "1",
        "Carlsen won with black: {}",
        line(1)
    );
    assert_eq!(col(&line(1), 81, 84), " 2.0", "{}", line(1));
    assert_eq!(col(&line(2), 109, 109), "0", "{}", line(2));
    assert_eq!(col(&line(2), 81, 84), " 1.0", "{}", line(2));
    assert_eq!(col(&line(4), 109, 109), "=", "{}", line(4));
    assert_eq!(col(&line(4), 81, 84), " 1.5", "{}", line(4));
    assert_eq!(col(&line(5), 109, 109), "=", "{}", line(5));
    assert_eq!(
        line(3),
        text.lines().nth(3).expect("bye line"),
        "a player without a game is kept"
    );
    assert_eq!(out.lines().next(), Some("012 Test Open"));
    // Round 1 is unchanged; the file still reads as the same pairings.
    assert_eq!(
        col(&line(1), 92, 99),
        col(text.lines().nth(1).expect("l"), 92, 99)
    );
    assert_eq!(
        parse(&out, None, 2).expect("again"),
        parse(&text, None, 2).expect("before")
    );
    // Exporting again (a result corrected) takes the old result's points back.
    let corrected = std::collections::BTreeMap::from([(1, GameResult::WhiteWins)]);
    let again = super::trf_results(&out, 2, &corrected, &none).expect("again");
    let l1 = again.lines().nth(1).expect("l").to_owned();
    assert_eq!(
        (col(&l1, 109, 109), col(&l1, 81, 84)),
        ("0".into(), " 1.0".into()),
        "{l1}"
    );
    // A forfeit: Caruana (white) wins without a game: `+` and `-`, the points as a win's.
    let forfeit = std::collections::BTreeSet::from([1]);
    let ff = super::trf_results(&again, 2, &corrected, &forfeit).expect("forfeit");
    let (l1, l2) = (
        ff.lines().nth(1).expect("l").to_owned(),
        ff.lines().nth(2).expect("l").to_owned(),
    );
    assert_eq!(
        (col(&l2, 109, 109), col(&l2, 81, 84)),
        ("+".into(), " 2.0".into()),
        "{l2}"
    );
    assert_eq!(
        (col(&l1, 109, 109), col(&l1, 81, 84)),
        ("-".into(), " 1.0".into()),
        "{l1}"
    );
}

#[test]
fn csv_results_one_line_per_board_in_board_order() {
    use crate::event::GameResult;
    let p = parse(
        "board,white,black\n2,\"Carlsen, Magnus\",B\n1,C,D\n",
        None,
        1,
    )
    .expect("p");
    let rows = vec![
        super::BoardResult {
            pairing: p[1].clone(),
            result: Some(GameResult::Draw),
            forfeit: false,
        },
        super::BoardResult {
            pairing: p[0].clone(),
            result: None,
            forfeit: false,
        },
    ];
    assert_eq!(
        super::csv_results(&rows),
        "board,white,black,result\n1,C,D,*\n2,\"Carlsen, Magnus\",B,1/2-1/2\n"
    );
    let mut forfeit = rows.clone();
    forfeit[1].result = Some(GameResult::BlackWins);
    forfeit[1].forfeit = true;
    assert_eq!(
        super::csv_results(&forfeit),
        "board,white,black,result\n1,C,D,-+\n2,\"Carlsen, Magnus\",B,1/2-1/2\n"
    );
    let pgn = super::paper_pgn(
        &p[1],
        3,
        &[("Event".into(), "Open".into())],
        Some(GameResult::WhiteWins),
    );
    assert!(
        pgn.contains("[Round \"3.2\"]") && pgn.contains("[Board \"2\"]"),
        "{pgn}"
    );
    assert!(
        pgn.contains("[White \"Carlsen, Magnus\"]") && pgn.contains("[Event \"Open\"]"),
        "{pgn}"
    );
    assert!(
        pgn.contains("[Result \"1-0\"]") && pgn.trim_end().ends_with("1-0"),
        "{pgn}"
    );
}

#[test]
fn trf_pairings_that_do_not_agree_name_the_line() {
    let text = [
        trf_player(1, "", "A", 2000, 0, &[(2, 'w', ' ')]),
        trf_player(2, "", "B", 2000, 0, &[(1, 'w', ' ')]),
        trf_player(3, "", "C", 2000, 0, &[(9, 'b', ' ')]),
        "001 xx".to_owned(),
    ]
    .join("\n");
    let err = parse(&text, None, 1).expect_err("bad");
    let msg = err.to_string();
    assert!(
        msg.contains("line 1: round 1: player 1 plays 2 with white, but line 2"),
        "{msg}"
    );
    assert!(
        msg.contains("line 3: round 1: opponent 9 has no player line"),
        "{msg}"
    );
    assert!(msg.contains("line 4: the starting rank"), "{msg}");
}

#[test]
fn tags_give_every_field_and_clear_the_missing_ones() {
    let p = &parse("board,white,black,white_elo\n4,A,B,2000\n", None, 1).expect("parsed")[0];
    let tags = p.tags(3);
    let get = |n: &str| tags.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    assert_eq!(get("Round"), Some("3.4"));
    assert_eq!(get("Board"), Some("4"));
    assert_eq!(get("White"), Some("A"));
    assert_eq!(get("WhiteElo"), Some("2000"));
    assert_eq!(get("BlackElo"), Some(""));
    assert_eq!(get("BlackFideId"), Some(""));
    let mut info = crate::pgn::GameInfo::new();
    info.set("BlackElo", "1900").expect("set");
    info.set_all(&tags).expect("the tags are game information");
    assert_eq!(info.get("BlackElo"), None);
}

#[test]
fn cleared_tags_are_every_tag_a_pairing_sets() {
    let p = &parse("board,white,black\n4,A,B\n", None, 1).expect("parsed")[0];
    let mut set: Vec<String> = p.tags(2).into_iter().map(|(k, _)| k).collect();
    let mut cleared: Vec<String> = super::cleared_tags().into_iter().map(|(k, _)| k).collect();
    set.sort();
    cleared.sort();
    assert_eq!(set, cleared);
    assert!(super::cleared_tags().iter().all(|(_, v)| v.is_empty()));
}

#[test]
fn format_names() {
    assert_eq!(Format::from_name("TRF"), Ok(Some(Format::Trf)));
    assert_eq!(Format::from_name("auto"), Ok(None));
    assert!(
        Format::from_name("xls")
            .unwrap_err()
            .contains("use csv, pgn, trf or auto")
    );
}

proptest! {
    #[test]
    fn no_input_makes_a_parser_panic(
        text in "(?s).{0,400}",
        round in prop_oneof![0u32..20, any::<u32>()],
    ) {
        for format in [None, Some(Format::Csv), Some(Format::Pgn), Some(Format::Trf)] {
            let _ = parse(&text, format, round);
        }
    }

    #[test]
    fn no_line_shaped_input_makes_a_parser_panic(
        lines in proptest::collection::vec(
            prop_oneof![
                "001 [ 0-9a-z,\"]{0,140}",
                "\\[[A-Za-z]{0,8} \"[^\"\n]{0,10}\"?\\]?",
                "[0-9a-z,;\" ]{0,40}",
            ],
            0..12,
        ),
        round in 0u32..6,
    ) {
        let text = lines.join("\n");
        for format in [None, Some(Format::Csv), Some(Format::Pgn), Some(Format::Trf)] {
            let _ = parse(&text, format, round);
        }
    }
}
