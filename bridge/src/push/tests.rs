//! The round settings: which Lichess round the daemon's round is pushed to, and a bad
//! `rounds` table refused naming the entry.

use super::RoundSettings;
use crate::secrets::Credentials;

fn settings(rounds: &[(&str, &str)]) -> RoundSettings {
    RoundSettings {
        round: "AbCd1234".into(),
        rounds: rounds
            .iter()
            .map(|(n, id)| ((*n).to_owned(), (*id).to_owned()))
            .collect(),
        token_file: None,
        clocks: Vec::new(),
        boards: None,
        server: "https://lichess.org".into(),
        source: super::Source::Local,
    }
}

#[test]
fn each_daemon_round_goes_to_its_lichess_round_else_to_round() {
    let s = settings(&[("2", "EfGh5678"), ("10", "IjKl9012")]);
    let none = std::collections::BTreeMap::new();
    assert_eq!(s.id_for(1, &none), "AbCd1234");
    assert_eq!(s.id_for(2, &none), "EfGh5678");
    assert_eq!(s.id_for(10, &none), "IjKl9012");
    assert_eq!(s.id_for(3, &none), "AbCd1234");
    // The daemon's ids (`round next --lichess-round`) where `rounds` names none.
    let daemon = [(2, "MnOp3456".to_owned()), (3, "QrSt7890".to_owned())].into();
    assert_eq!(
        s.id_for(2, &daemon),
        "EfGh5678",
        "the bridge's settings win"
    );
    assert_eq!(s.id_for(3, &daemon), "QrSt7890");
    assert_eq!(s.id_for(4, &daemon), "AbCd1234");
}

#[test]
fn a_bad_rounds_entry_is_named() {
    // Outside the service and without token_file: only the settings are checked.
    let creds = Credentials::new(None, true);
    assert!(settings(&[("1", "EfGh5678")]).token(&creds).is_ok());
    let e = settings(&[("first", "EfGh5678")])
        .token(&creds)
        .expect_err("not a number")
        .to_string();
    assert!(e.contains("\"first\" is not a round number"), "{e}");
    let e = settings(&[("2", "nope")])
        .token(&creds)
        .expect_err("not an id")
        .to_string();
    assert!(e.contains("rounds.2 = \"nope\" is not a round id"), "{e}");
}
