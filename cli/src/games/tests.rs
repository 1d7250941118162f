use std::time::{Duration, SystemTime};

use super::*;

/// A scratch state directory with `games/` holding `files` (name, PGN), written `i` hours
/// apart in the given order so the first is the oldest.
fn state_dir(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("games-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("games")).expect("scratch dir");
    let start = SystemTime::now() - Duration::from_secs(3600 * 24);
    for (i, (file, pgn)) in files.iter().enumerate() {
        let path = dir.join("games").join(file);
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).expect("round folder");
        }
        std::fs::write(&path, pgn).expect("game file");
        let f = std::fs::File::options()
            .write(true)
            .open(&path)
            .expect("open");
        f.set_modified(start + Duration::from_secs(3600 * i as u64))
            .expect("set mtime");
    }
    std::fs::write(dir.join("games").join("x.json"), "{}").expect("json file");
    dir
}

fn pgn(date: &str, round: &str, white: &str) -> String {
    format!(
        "[Event \"Club\"]\n[Date \"{date}\"]\n[Round \"{round}\"]\n[White \"{white}\"]\n\
         [Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n"
    )
}

fn filter(dir: &Path, round: Option<&str>, since: Option<&str>) -> Filter {
    Filter {
        round: round.map(|r| parse_round(r).expect("round")),
        since: since.map(|s| parse_since(s).expect("date")),
        state_dir: dir.to_owned(),
    }
}

fn whites(games: &[Found]) -> Vec<&str> {
    games.iter().map(|g| g.tag("White")).collect()
}

#[test]
fn games_come_oldest_first_whatever_their_names() {
    let dir = state_dir(
        "order",
        &[
            ("z.pgn", &pgn("2026.11.20", "1", "Zed")),
            ("a.pgn", &pgn("2026.11.21", "2", "Ann")),
        ],
    );
    let games = select(
        load(&dir.join("games")).expect("load"),
        &filter(&dir, None, None),
    );
    assert_eq!(whites(&games), ["Zed", "Ann"]);
}

#[test]
fn round_folders_and_old_records_are_all_found() {
    let dir = state_dir(
        "folders",
        &[
            ("old.pgn", &pgn("2026.11.20", "1.1", "Old")),
            ("round-2/a.pgn", &pgn("2026.11.21", "2.1", "R2")),
            // A record in its round's folder whose tag names another round (a game ended by
            // round next --force) is still of its folder's round.
            ("round-3/b.pgn", &pgn("2026.11.22", "4.1", "R3")),
            ("notes/c.pgn", &pgn("2026.11.22", "3.1", "NotARound")),
        ],
    );
    let all = || load(&dir.join("games")).expect("load");
    assert_eq!(whites(&all()), ["Old", "R2", "R3"]);
    assert_eq!(
        whites(&select(all(), &filter(&dir, Some("3"), None))),
        ["R3"]
    );
    assert_eq!(
        whites(&select(all(), &filter(&dir, Some("1"), None))),
        ["Old"]
    );
}

#[test]
fn round_and_since_select() {
    let dir = state_dir(
        "select",
        &[
            ("1.pgn", &pgn("2026.11.20", "1", "R1")),
            ("2.pgn", &pgn("2026.11.21", "2.1", "R2b1")),
            ("3.pgn", &pgn("2026.11.22", "12", "R12")),
        ],
    );
    let all = || load(&dir.join("games")).expect("load");
    assert_eq!(
        whites(&select(all(), &filter(&dir, Some("2"), None))),
        ["R2b1"]
    );
    assert_eq!(
        whites(&select(all(), &filter(&dir, Some("1"), None))),
        ["R1"]
    );
    assert_eq!(
        whites(&select(all(), &filter(&dir, None, Some("2026-11-21")))),
        ["R2b1", "R12"]
    );
}

#[test]
fn an_unknown_date_is_the_day_the_file_was_written() {
    let dir = state_dir("nodate", &[("1.pgn", &pgn("????.??.??", "1", "A"))]);
    let games = load(&dir.join("games")).expect("load");
    let written = jiff::Timestamp::try_from(games[0].written)
        .expect("time")
        .to_zoned_datetime(jiff::tz::TimeZone::system())
        .date();
    assert_eq!(games[0].date(), Some(written));
}

#[test]
fn export_is_the_games_texts_in_order() {
    let dir = state_dir(
        "export",
        &[
            ("b.pgn", &pgn("2026.11.20", "1", "B")),
            ("a.pgn", &pgn("2026.11.20", "1", "A")),
        ],
    );
    let games = load(&dir.join("games")).expect("load");
    let out = export_pgn(&games);
    assert_eq!(
        out,
        format!(
            "{}\n{}",
            pgn("2026.11.20", "1", "B"),
            pgn("2026.11.20", "1", "A")
        )
    );
    let json: serde_json::Value = serde_json::from_str(&list_json(&games)).expect("json");
    assert_eq!(json[1]["white"], "A");
    assert_eq!(json[1]["date"], "2026-11-20");
    assert!(list_text(&games).contains("round 1     board ?   A - B  1-0  (a.pgn)"));
}

#[test]
fn bad_values_and_missing_folders_say_what_to_do() {
    assert!(parse_round("three").unwrap_err().contains("like 3"));
    assert!(parse_round("3.").is_err());
    assert!(
        parse_since("26/11/2026")
            .unwrap_err()
            .contains("YYYY-MM-DD")
    );
    assert_eq!(
        parse_since("2026.11.26"),
        Ok(jiff::civil::date(2026, 11, 26))
    );
    let missing = std::env::temp_dir().join("games-no-such-dir");
    assert!(load(&missing).unwrap_err().contains("--state-dir"));
}
