//! Config of `[[clock]]` tables: game information, mode, sides, unknown keys, and the
//! board that names a table (its port, its board serial number, or both).

use crate::common::{NO_ENV, err_text};
use chessclockd::config::Config;

#[test]
fn game_info_is_read_per_clock_and_bad_tags_name_the_key() {
    let text = r#"
        [[clock]]
        port = "/dev/ttyACM0"
        game_info = { White = "Carlsen, Magnus", round = "7" }
    "#;
    let c = Config::from_sources(Some(text), [("PATH", "/usr/bin")]).expect("loads");
    c.validate().expect("valid tags");
    let info: Vec<(&str, &str)> = c.clocks[0]
        .game_info
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert!(
        info.iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("White") && *v == "Carlsen, Magnus"),
        "{info:?}"
    );
    let bad = r#"
        [[clock]]
        port = "/dev/ttyACM0"
        game_info = { Result = "1-0" }
    "#;
    let c = Config::from_sources(Some(bad), [("PATH", "/usr/bin")]).expect("parses");
    let err = c
        .validate()
        .expect_err("Result is written by the daemon")
        .to_string();
    assert!(err.contains("clock[0].game_info"), "{err}");
    assert!(err.contains("Result"), "{err}");
}

#[test]
fn mode_is_drive_or_observe() {
    let text = "[[clock]]\nport = \"/dev/a\"\nmode = \"Observe\"\n";
    let c = Config::from_sources(Some(text), NO_ENV).expect("loads");
    assert_eq!(
        c.clocks[0].mode,
        chessclockd::device::observe::Mode::Observe
    );
    let text = "[[clock]]\nport = \"/dev/a\"\nmode = \"watch\"\n";
    let msg = err_text(Config::from_sources(Some(text), NO_ENV));
    assert!(
        msg.starts_with("clock[0].mode: \"watch\" is not a mode; use \"drive\""),
        "{msg}"
    );
}

#[test]
fn full_env_name_for_latency_works_too() {
    let c =
        Config::from_sources(None, [("CHESSCLOCKD_TRANSPORT_LATENCY_MS", "33")]).expect("loads");
    assert_eq!(c.transport_latency_ms, 33);
}

#[test]
fn bad_side_names_key_problem_and_fix() {
    let text =
        "[[clock]]\nport = \"/dev/a\"\n[[clock]]\nport = \"/dev/b\"\nwhite_side = \"middle\"\n";
    let msg = err_text(Config::from_sources(Some(text), NO_ENV));
    assert_eq!(
        msg,
        "clock[1].white_side: \"middle\" is not a half of the clock; use \"left\" or \"right\" (config text, line 5)"
    );
}

#[test]
fn typo_in_top_level_key_is_caught_with_suggestion() {
    let msg = err_text(Config::from_sources(Some("scann = true"), NO_ENV));
    assert!(msg.starts_with("scann: is not a known setting"), "{msg}");
    assert!(msg.contains("did you mean \"scan\""), "{msg}");
}

#[test]
fn typo_in_clock_key_is_caught() {
    let text = "[[clock]]\nport = \"/dev/a\"\nwhiteside = \"left\"\n";
    let msg = err_text(Config::from_sources(Some(text), NO_ENV));
    assert!(
        msg.starts_with("clock[0].whiteside: is not a known setting"),
        "{msg}"
    );
    assert!(msg.contains("\"white_side\""), "{msg}");
}

#[test]
fn a_table_without_port_or_board_serial_is_an_error() {
    let msg = err_text(Config::from_sources(
        Some("[[clock]]\nport = \"/dev/a\"\n[[clock]]\nname = \"Table 2\"\n"),
        NO_ENV,
    ));
    assert!(
        msg.starts_with("clock[1]: this [[clock]] (\"Table 2\") names no board"),
        "{msg}"
    );
    assert!(
        msg.contains("port = ") && msg.contains("board_serial = "),
        "{msg}"
    );
}

#[test]
fn a_board_serial_names_a_table_without_a_port() {
    let text = "[[clock]]\nboard_serial = \"24680\"\nname = \"Table 3\"\n\
                [[clock]]\nport = \"/dev/a\"\nboard_serial = 13579\n";
    let c = Config::from_sources(Some(text), NO_ENV).expect("loads");
    assert_eq!(c.clocks[0].port, None);
    assert_eq!(c.clocks[0].board_serial.as_deref(), Some("24680"));
    assert_eq!(
        c.clocks[1].port.as_deref(),
        Some(std::path::Path::new("/dev/a"))
    );
    assert_eq!(
        c.clocks[1].board_serial.as_deref(),
        Some("13579"),
        "a bare number"
    );
    let msg = err_text(Config::from_sources(
        Some("[[clock]]\nboard_serial = \" 24680\"\n"),
        NO_ENV,
    ));
    assert!(
        msg.starts_with("clock[0].board_serial: \" 24680\" is not a board serial number"),
        "{msg}"
    );
}

#[test]
fn duplicate_board_serial_is_an_error() {
    let text = "[[clock]]\nboard_serial = \"24680\"\n[[clock]]\nport = \"/dev/a\"\n\
                board_serial = \"24680\"\n";
    let msg = err_text(Config::from_sources(Some(text), NO_ENV));
    assert!(
        msg.starts_with("clock[1].board_serial: board \"24680\" is already clock[0]'s"),
        "{msg}"
    );
}

#[test]
fn duplicate_port_is_an_error() {
    let text = "[[clock]]\nport = \"/dev/a\"\n[[clock]]\nport = \"/dev/a\"\n";
    let msg = err_text(Config::from_sources(Some(text), NO_ENV));
    assert!(
        msg.starts_with("clock[1].port: /dev/a is already used by clock[0]"),
        "{msg}"
    );
}
