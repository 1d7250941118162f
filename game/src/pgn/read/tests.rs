use super::*;

const TWO: &str = "\u{feff}[Event \"Club \\\"A\\\"\"]\n[Round \"1\"]\n[Board \"2\"]\n[Result \"1-0\"]\n\n1. e4 {[%clk 0:04:58]\n[%emt 0:00:02]} 1-0\n\n\n[Event \"Club\"]\n[Round \"2\"]\n[Result \"*\"]\n\n*\n";

#[test]
fn splits_games_and_reads_their_tags() {
    let games = games(TWO);
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].tag("Event"), Some("Club \"A\""));
    assert_eq!(games[0].tag("Board"), Some("2"));
    assert_eq!(games[0].tag("Result"), Some("1-0"));
    assert_eq!(games[1].tag("Round"), Some("2"));
    assert_eq!(games[1].tag("Board"), None);
    assert!(games[0].text.starts_with("[Event"), "{:?}", games[0].text);
    assert!(games[0].text.ends_with("1-0\n"), "{:?}", games[0].text);
    assert_eq!(
        games[1].text,
        "[Event \"Club\"]\n[Round \"2\"]\n[Result \"*\"]\n\n*\n"
    );
}

#[test]
fn a_bracket_inside_a_comment_starts_no_game() {
    let games = games(TWO);
    assert!(games[0].text.contains("[%emt 0:00:02]} 1-0"));
    assert_eq!(games[0].tags.len(), 4);
}

#[test]
fn the_writers_output_reads_back() {
    let mut info = crate::pgn::GameInfo::new();
    info.set("Round", "3").unwrap();
    info.set("White", "Ann").unwrap();
    let pgn = crate::pgn::write(&crate::pgn::PgnGame {
        info,
        ..Default::default()
    });
    let read = games(&pgn);
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].tag("Round"), Some("3"));
    assert_eq!(read[0].tag("White"), Some("Ann"));
    assert_eq!(read[0].text.trim_end(), pgn.trim_end());
}

#[test]
fn bad_tags_are_told_and_skipped() {
    assert!(tag("[Round 3]").unwrap_err().contains("[Name \"value\"]"));
    let games = games("[Round 3]\n[White \"A\"]\n*\n");
    assert_eq!(games[0].tags, vec![("White".to_owned(), "A".to_owned())]);
}

#[test]
fn no_tags_no_games() {
    assert!(games("").is_empty());
    assert!(games("1. e4 *\n").is_empty());
}
