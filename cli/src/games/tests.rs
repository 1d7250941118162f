//! Selecting stored games by round and date.

use super::*;

fn game(round: &str, date: &str) -> StoredGame {
    let text = format!("[Date \"{date}\"]\n[Round \"{round}\"]\n\n*\n");
    games(&text).remove(0)
}

fn filter(round: Option<u32>, since: Option<&str>) -> Filter {
    Filter {
        round,
        since: since.map(|s| parse_date(s).expect("a date")),
        state_dir: PathBuf::new(),
    }
}

#[test]
fn rounds_match_r_or_r_dot_b_and_dates_are_on_or_after() {
    let g = game("5.3", "2026.11.26");
    assert!(filter(Some(5), None).keeps(&g));
    assert!(!filter(Some(53), None).keeps(&g));
    assert!(!filter(Some(3), None).keeps(&g));
    assert!(filter(Some(5), None).keeps(&game("5", "2026.11.26")));
    assert!(filter(None, Some("2026-11-26")).keeps(&g));
    assert!(!filter(None, Some("2026-11-27")).keeps(&g));
    assert!(
        !filter(None, Some("2026-01-01")).keeps(&game("1", "????.??.??")),
        "an unknown date is not after anything"
    );
    assert!(filter(None, None).keeps(&game("?", "????.??.??")));
}

#[test]
fn a_bad_date_says_how_to_write_it() {
    let e = parse_date("26/11/2026").expect_err("not a date");
    assert!(e.contains("YYYY-MM-DD"), "{e}");
}
