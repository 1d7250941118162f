//! Config loading: layering (defaults -> file -> env), real files, and error messages that
//! name the key, the problem and the fix.

use std::path::{Path, PathBuf};

use chessclockd::config::{ClockConfig, Config, ConfigError, WhiteSide};

/// A directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir =
            std::env::temp_dir().join(format!("chessclockd-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const NO_ENV: [(&str, &str); 0] = [];

fn err_text(r: Result<Config, ConfigError>) -> String {
    match r {
        Ok(c) => panic!("expected an error, got {c:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn no_file_and_no_env_gives_defaults() {
    let c = Config::from_sources(None, NO_ENV).expect("defaults load");
    assert_eq!(c, Config::default());
    assert_eq!(c.state_dir, PathBuf::from("/var/lib/chessclockd"));
    assert!(!c.scan);
    assert!(c.pause_button);
    assert!(c.clocks.is_empty());
}

#[test]
fn file_values_override_defaults_and_env_overrides_file() {
    let text = r#"
        scan = false
        transport_latency_ms = 5
        command_retries = 1
        [[clock]]
        port = "/dev/ttyACM0"
    "#;
    let env = [
        ("CHESSCLOCKD_SCAN", "true"),
        ("CHESSCLOCKD_LATENCY_MS", "20"),
        ("CHESSCLOCKD_STATE_DIR", "/tmp/state"),
        ("CHESSCLOCKD_PAUSE_BUTTON", "off"),
        ("PATH", "/usr/bin"),
    ];
    let c = Config::from_sources(Some(text), env).expect("loads");
    assert!(c.scan, "env beats file");
    assert_eq!(c.transport_latency_ms, 20, "alias CHESSCLOCKD_LATENCY_MS");
    assert_eq!(c.state_dir, PathBuf::from("/tmp/state"));
    assert!(!c.pause_button);
    assert_eq!(c.command_retries, 1, "file beats default");
    assert_eq!(c.command_timeout_ms, 500, "default kept");
    assert_eq!(
        c.clocks,
        vec![ClockConfig {
            port: Some("/dev/ttyACM0".into()),
            board_serial: None,
            name: None,
            white_side: WhiteSide::Left,
            time_control: None,
            game_info: Default::default(),
            move_source: Default::default(),
            mode: Default::default(),
        }]
    );
}

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

#[test]
fn wrong_types_and_ranges_are_errors() {
    let cases = [
        (
            "scan = 3",
            "scan: expected true or false, found the number 3",
        ),
        (
            "transport_latency_ms = -5",
            "transport_latency_ms: -5 is out of range",
        ),
        (
            "command_timeout_ms = 1.5",
            "command_timeout_ms: expected a whole number",
        ),
        (
            "command_retries = 99",
            "command_retries: 99 is out of range; use a whole number from 0 to 20",
        ),
        (
            "state_dir = \"var/lib\"",
            "state_dir: \"var/lib\" is a relative path",
        ),
        (
            "default_time_control = \"\"",
            "default_time_control: is empty",
        ),
        ("clock = 1", "clock: expected [[clock]] tables"),
    ];
    for (text, want) in cases {
        let msg = err_text(Config::from_sources(Some(text), NO_ENV));
        assert!(
            msg.starts_with(want),
            "{text}: got {msg:?}, want prefix {want:?}"
        );
    }
}

#[test]
fn bad_env_values_name_the_variable() {
    let msg = err_text(Config::from_sources(None, [("CHESSCLOCKD_SCAN", "maybe")]));
    assert_eq!(
        msg,
        "CHESSCLOCKD_SCAN: \"maybe\" is not a boolean; use true or false"
    );
    let msg = err_text(Config::from_sources(
        None,
        [("CHESSCLOCKD_COMMAND_RETRIES", "x")],
    ));
    assert!(
        msg.starts_with("CHESSCLOCKD_COMMAND_RETRIES: \"x\" is not a whole number"),
        "{msg}"
    );
    let msg = err_text(Config::from_sources(None, [("CHESSCLOCKD_SCANN", "1")]));
    assert!(
        msg.starts_with("CHESSCLOCKD_SCANN: is not a chessclockd setting"),
        "{msg}"
    );
}

#[test]
fn errors_in_the_file_name_the_line() {
    let text = "scan = true\n\ncommand_retries = 99\n";
    let msg = err_text(Config::from_sources(Some(text), NO_ENV));
    assert_eq!(
        msg,
        "command_retries: 99 is out of range; use a whole number from 0 to 20 (config text, line 3)"
    );
    let msg = err_text(Config::from_sources(
        Some("[[clock]]\nport = \"/dev/a\"\nwhiteside = \"left\"\n"),
        NO_ENV,
    ));
    assert!(msg.ends_with("(config text, line 3)"), "{msg}");
}

#[test]
fn a_number_too_large_for_toml_names_line_and_key() {
    // Used to be only "number too large to fit in target type".
    let text = "scan = true\ncommand_timeout_ms = 99999999999999999999\n";
    let msg = err_text(Config::from_sources(Some(text), NO_ENV));
    assert_eq!(
        msg,
        "command_timeout_ms: 99999999999999999999 is out of range; use a whole number from 20 \
         to 60000 (config text, line 2)"
    );
    let msg = err_text(Config::from_sources(
        None,
        [("CHESSCLOCKD_COMMAND_TIMEOUT_MS", "99999999999999999999")],
    ));
    assert_eq!(
        msg,
        "CHESSCLOCKD_COMMAND_TIMEOUT_MS: 99999999999999999999 is out of range; use a whole number from 20 to 60000"
    );
}

#[test]
fn long_bad_values_are_quoted_only_in_part() {
    let long = "x".repeat(5000);
    let msg = err_text(Config::from_sources(
        None,
        [("CHESSCLOCKD_SCAN", long.as_str())],
    ));
    assert!(msg.len() < 200, "{} characters: {msg}", msg.len());
    assert!(msg.starts_with("CHESSCLOCKD_SCAN: \"xxx"), "{msg}");
}

#[test]
fn toml_syntax_error_reports_position() {
    let msg = err_text(Config::from_sources(Some("scan = \n"), NO_ENV));
    assert!(msg.starts_with("config text is not valid TOML"), "{msg}");
    assert!(msg.contains("line 1"), "{msg}");
}

#[test]
fn load_reads_a_real_file_and_missing_explicit_file_is_an_error() {
    let dir = TempDir::new("cfg");
    let file = dir.path().join("chessclockd.toml");
    std::fs::write(
        &file,
        "scan = true\n[[clock]]\nport = \"/dev/ttyUSB0\"\nwhite_side = \"right\"\n",
    )
    .expect("write config");
    let c = Config::load(Some(&file)).expect("loads");
    assert!(c.scan);
    assert_eq!(c.clocks[0].white_side, WhiteSide::Right);

    let missing = dir.path().join("nope.toml");
    let msg = err_text(Config::load(Some(&missing)));
    assert!(
        msg.starts_with(&format!("cannot read config file {}", missing.display())),
        "{msg}"
    );

    std::fs::write(&file, "white_side = \"left\"\n").expect("write config");
    let msg = err_text(Config::load(Some(&file)));
    assert!(
        msg.starts_with("white_side: is not a known setting"),
        "{msg}"
    );
}

#[test]
fn validate_with_names_the_clock_whose_time_control_is_bad() {
    let text =
        "[[clock]]\nport = \"/dev/a\"\n[[clock]]\nport = \"/dev/b\"\ntime_control = \"bogus\"\n";
    let c = Config::from_sources(Some(text), NO_ENV).expect("loads");
    let check = |s: &str| {
        if s == "bogus" {
            Err("unknown item".to_owned())
        } else {
            Ok(())
        }
    };
    let msg = c
        .validate_with(&check)
        .expect_err("bogus rejected")
        .to_string();
    assert_eq!(
        msg,
        "clock[1].time_control: \"bogus\" is not a valid time control: unknown item; see docs/timecontrols.md"
    );
    let ok = Config::from_sources(Some("[[clock]]\nport = \"/dev/a\"\n"), NO_ENV).expect("loads");
    assert!(ok.validate_with(&check).is_ok());
}

#[test]
fn shipped_example_loads_and_covers_every_key() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("chessclockd.toml.example");
    let c = Config::load(Some(&path)).expect("example loads");
    assert_eq!(c.clocks.len(), 2);
    assert_eq!(c.clocks[1].white_side, WhiteSide::Right);
    assert_eq!(
        c.clocks[1].time_control.as_deref(),
        Some("40/90 SD/30 inc/30")
    );
    // The example documents the defaults: apart from the clocks it must equal them.
    assert_eq!(
        Config {
            clocks: Vec::new(),
            ..c.clone()
        },
        Config::default()
    );
    let text = std::fs::read_to_string(&path).expect("read example");
    let json = serde_json::to_value(&c).expect("serialize");
    let keys = json
        .as_object()
        .expect("object")
        .keys()
        .cloned()
        .collect::<Vec<_>>();
    for key in keys
        .iter()
        .map(String::as_str)
        .filter(|k| *k != "clock")
        .chain(["port", "name", "white_side", "time_control"])
    {
        assert!(
            text.contains(&format!("{key} =")),
            "example lacks key {key}"
        );
    }
}

#[test]
fn scan_ports_come_from_the_file_or_a_comma_separated_variable() {
    let cfg = Config::from_sources(Some("scan = true\nscan_ports = [\"/dev/dgt*\"]\n"), NO_ENV)
        .expect("valid");
    assert!(cfg.scan);
    assert_eq!(cfg.scan_ports, ["/dev/dgt*"]);
    let cfg = Config::from_sources(
        None::<&str>,
        [("CHESSCLOCKD_SCAN_PORTS", "/dev/ttyACM*, /dev/rfcomm0")],
    )
    .expect("valid");
    assert_eq!(cfg.scan_ports, ["/dev/ttyACM*", "/dev/rfcomm0"]);
    assert_eq!(
        Config::default().scan_ports,
        ["/dev/ttyACM*", "/dev/ttyUSB*", "/dev/rfcomm*"]
    );
}

#[test]
fn bad_scan_ports_name_the_entry_and_the_fix() {
    let e = err_text(Config::from_sources(
        Some("scan_ports = \"/dev/ttyACM*\"\n"),
        NO_ENV,
    ));
    assert!(e.starts_with("scan_ports: expected a list"), "{e}");
    let e = err_text(Config::from_sources(
        Some("scan_ports = [\"/dev/ttyACM*\", \"ttyUSB*\"]\n"),
        NO_ENV,
    ));
    assert!(
        e.starts_with("scan_ports[1]:") && e.contains("absolute"),
        "{e}"
    );
    let e = err_text(Config::from_sources(
        Some("scan_ports = [\"/dev/*/tty*\"]\n"),
        NO_ENV,
    ));
    assert!(e.contains("only one `*`"), "{e}");
}

#[test]
fn validate_names_the_key_of_a_bad_time_control() {
    let cfg = Config::from_sources(
        Some("[[clock]]\nport = \"/dev/ttyACM0\"\ntime_control = \"G/5 bogus/3\"\n"),
        NO_ENV,
    )
    .expect("the file itself is well formed");
    let e = cfg.validate().expect_err("bad notation").to_string();
    assert!(e.starts_with("clock[0].time_control:"), "{e}");
    assert!(e.contains("G/5 bogus/3"), "{e}");
}

#[test]
fn a_number_beyond_64_bits_names_key_range_and_line_in_file_and_environment() {
    // Used to be "number too large to fit in target type" (no key, no line, no range).
    let text = "scan = true\n\ncommand_retries = 99999999999999999999\n";
    let msg = err_text(Config::from_sources(Some(text), NO_ENV));
    assert_eq!(
        msg,
        "command_retries: 99999999999999999999 is out of range; use a whole number from 0 to 20 \
         (config text, line 3)"
    );
    let msg = err_text(Config::from_sources(
        None,
        [("CHESSCLOCKD_COMMAND_RETRIES", "99999999999999999999")],
    ));
    assert_eq!(
        msg,
        "CHESSCLOCKD_COMMAND_RETRIES: 99999999999999999999 is out of range; use a whole number \
         from 0 to 20"
    );
    // Beyond even 128 bits, and 10 kB of digits: still out of range, quoted only in part.
    let digits = "9".repeat(10_000);
    let msg = err_text(Config::from_sources(
        None,
        [("CHESSCLOCKD_TRANSPORT_LATENCY_MS", digits.as_str())],
    ));
    assert!(msg.len() < 250, "{} characters: {msg}", msg.len());
    assert!(
        msg.starts_with("CHESSCLOCKD_TRANSPORT_LATENCY_MS: 999")
            && msg.ends_with("… is out of range; use a whole number from 0 to 2000"),
        "{msg}"
    );
    let text = format!("transport_latency_ms = {digits}\n");
    let msg = err_text(Config::from_sources(Some(&text), NO_ENV));
    assert!(msg.len() < 250, "{} characters: {msg}", msg.len());
    assert!(msg.starts_with("transport_latency_ms: 999"), "{msg}");
    assert!(msg.ends_with("(config text, line 1)"), "{msg}");
    // A number too large where a string belongs is still a syntax error, never accepted.
    let msg = err_text(Config::from_sources(
        Some("default_time_control = 99999999999999999999\n"),
        NO_ENV,
    ));
    assert!(msg.contains("default_time_control"), "{msg}");
}
