//! The PGN writer and the game information: default tags, roster and clock tags, move
//! numbers and wrapping, terminations, refused tags, clock rounding.

use super::*;

fn mv(san: &str, clock: Option<u64>, emt: Option<u64>) -> PgnMove {
    PgnMove {
        san: Some(san.into()),
        clock_ms: clock,
        elapsed_ms: emt,
    }
}

#[test]
fn defaults_fill_only_the_tags_not_set() {
    let mut info = GameInfo::new();
    info.set("Round", "3.1").expect("ok");
    info.set("White", "A").expect("ok");
    let mut defaults = GameInfo::new();
    defaults.set("Event", "Club").expect("ok");
    defaults.set("Round", "9.4").expect("ok");
    let both = info.or(&defaults);
    assert_eq!(both.get("Round"), Some("3.1"));
    assert_eq!(both.get("Event"), Some("Club"));
    assert_eq!(both.get("White"), Some("A"));
    assert_eq!(both.tags().len(), 3);
}

#[test]
fn writes_roster_tags_clocks_and_move_numbers() {
    let mut info = GameInfo::new();
    info.set("White", "Carlsen, Magnus").expect("ok");
    info.set("Round", "7").expect("ok");
    info.set("Board", "3").expect("ok");
    info.set("Annotator", "chessclockd \"live\"").expect("ok");
    let game = PgnGame {
        info,
        time_control: Some("180+2".into()),
        control_notation: None,
        moves: vec![
            mv("e4", Some(181_000), Some(3_000)),
            mv("e5", Some(180_400), None),
            mv("Nf3", None, None),
            mv("Nc6", None, None),
        ],
        black_first: false,
        white_clock_ms: Some(181_000),
        black_clock_ms: Some(3_723_000),
        result: None,
        termination: None,
        result_comment: None,
        setup: None,
    };
    let text = write(&game);
    let want = "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"7\"]\n\
[White \"Carlsen, Magnus\"]\n[Black \"?\"]\n[Result \"*\"]\n[Board \"3\"]\n\
[TimeControl \"180+2\"]\n[WhiteClock \"0:03:01\"]\n[BlackClock \"1:02:03\"]\n\
[Annotator \"chessclockd \\\"live\\\"\"]\n\n\
1. e4 {[%clk 0:03:01] [%emt 0:00:03]} 1... e5 {[%clk 0:03:01]} 2. Nf3 Nc6 *\n\n";
    assert_eq!(text, want);
}

#[test]
fn control_without_pgn_form_gets_our_notation() {
    let game = PgnGame {
        control_notation: Some("hourglass 5m".into()),
        result: Some(GameResult::Draw),
        termination: Some("normal".into()),
        ..PgnGame::default()
    };
    let text = write(&game);
    assert!(
        text.contains("[TimeControl \"?\"]\n[ChessclockdControl \"hourglass 5m\"]\n"),
        "{text}"
    );
    assert!(text.contains("[Result \"1/2-1/2\"]"), "{text}");
    assert!(text.contains("[Termination \"normal\"]"), "{text}");
    assert!(text.ends_with("\n1/2-1/2\n\n"), "{text}");
}

#[test]
fn long_games_wrap_at_79_characters() {
    let moves = (0..120)
        .map(|i| {
            mv(
                if i % 2 == 0 { "Nf3" } else { "Nf6" },
                Some(5_999_000),
                Some(61_000),
            )
        })
        .collect();
    let text = write(&PgnGame {
        moves,
        ..PgnGame::default()
    });
    assert!(text.lines().all(|l| l.len() <= LINE_MAX), "{text}");
    assert!(
        text.replace('\n', " ")
            .contains("60... Nf6 {[%clk 1:39:59] [%emt 0:01:01]} *"),
        "{text}"
    );
    assert!(
        text.lines().all(|l| !l.ends_with('.')),
        "a number is never cut from its move: {text}"
    );
}

#[test]
fn moves_without_san_give_numbers_and_clocks_after_a_note() {
    let press = |ms| PgnMove {
        san: None,
        clock_ms: Some(ms),
        elapsed_ms: None,
    };
    let game = PgnGame {
        moves: vec![press(60_000), press(59_001)],
        result: Some(GameResult::BlackWins),
        ..PgnGame::default()
    };
    let text = write(&game);
    let movetext = text.split("\n\n").nth(1).expect("movetext");
    assert_eq!(
        movetext,
        "{Moves not recorded: move numbers and clock times only.} 1. {[%clk 0:01:00]}\n\
             1... {[%clk 0:01:00]} 0-1"
    );
    // Black started: its press is 1..., White's reply 2.
    let text = write(&PgnGame {
        black_first: true,
        ..game
    });
    assert!(
        text.replace('\n', " ")
            .contains("1... {[%clk 0:01:00]} 2. {[%clk 0:01:00]} 0-1"),
        "{text}"
    );
}

#[test]
fn an_armageddon_draw_says_why_it_scores_for_black() {
    use chessclock_engine::ResultReason;
    let comment = result_comment(
        ResultReason::Armageddon,
        Some(ResultReason::ThreefoldRepetition),
    );
    assert_eq!(
        comment.as_deref(),
        Some("Armageddon: drawn (threefold repetition); a draw scores as a win for Black")
    );
    assert_eq!(result_comment(ResultReason::Stalemate, None), None);
    let text = write(&PgnGame {
        result: Some(GameResult::BlackWins),
        termination: Some(termination(ResultReason::Armageddon).to_owned()),
        result_comment: comment,
        ..PgnGame::default()
    });
    assert!(text.contains("[Termination \"normal\"]"), "{text}");
    assert!(
        text.ends_with(
            "\n\n{Armageddon: drawn (threefold repetition); a draw scores as a win for Black}\n0-1\n\n"
        ),
        "{text}"
    );
}

#[test]
fn terminations_say_how_the_game_ended() {
    use chessclock_engine::FlagReason;
    assert_eq!(
        termination(ResultReason::Flag(FlagReason::Time)),
        "time forfeit"
    );
    assert_eq!(termination(ResultReason::Board), "normal");
}

#[test]
fn bad_tags_are_refused_with_reasons() {
    let mut info = GameInfo::new();
    assert_eq!(info.set("1st", "x"), Err(TagError::BadName("1st".into())));
    assert_eq!(
        info.set("White Player", "x"),
        Err(TagError::BadName("White Player".into()))
    );
    assert_eq!(
        info.set("Result", "1-0"),
        Err(TagError::Generated("Result".into()))
    );
    assert_eq!(
        info.set("Site", "a\nb"),
        Err(TagError::LineBreak("Site".into()))
    );
    assert!(info.tags().is_empty());
    info.set("Site", "Oslo").expect("ok");
    info.set("Site", "").expect("ok");
    assert_eq!(info.get("Site"), None);
}

#[test]
fn the_game_id_is_the_recorder_s_not_game_information_and_is_written_as_a_tag() {
    let mut info = GameInfo::new();
    assert_eq!(
        info.set("GameId", "x"),
        Err(TagError::Generated("GameId".into())),
        "typed in, it is refused"
    );
    info.set("White", "Ann").expect("ok");
    info.set_game_id("5f3a9c0d12e4b678");
    info.set_game_id("5f3a9c0d12e4b679");
    assert_eq!(
        info.get("GameId"),
        Some("5f3a9c0d12e4b679"),
        "replaced, once"
    );
    let text = write(&PgnGame {
        info,
        ..PgnGame::default()
    });
    assert_eq!(
        text.matches("[GameId \"5f3a9c0d12e4b679\"]").count(),
        1,
        "{text}"
    );
    let mut info = GameInfo::new();
    info.set_game_id("");
    assert!(info.tags().is_empty());
}

#[test]
fn clock_values_round_like_the_display() {
    assert_eq!(clock_hms(0), "0:00:00");
    assert_eq!(clock_hms(1), "0:00:01");
    assert_eq!(clock_hms(59_001), "0:01:00");
    assert_eq!(clock_hms(36_000_000), "10:00:00");
    assert_eq!(elapsed_hms(2_499), "0:00:02");
    assert_eq!(elapsed_hms(2_500), "0:00:03");
}
