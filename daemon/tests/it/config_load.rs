//! Config loading: layering (defaults -> file -> env), real files, and error messages that
//! name the key, the problem and the fix.

use std::path::{Path, PathBuf};

use crate::common::{NO_ENV, TempDir, err_text};
use chessclockd::config::{ClockConfig, Config, WhiteSide};

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
            board: None,
            move_source: Default::default(),
            mode: Default::default(),
            draw_rules: None,
        }]
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
        (
            "[[clock]]\nport = \"/dev/a\"\nboard = 0",
            "clock[0].board: 0 is out of range; use a whole number from 1 to 9999",
        ),
        (
            "[[clock]]\nport = \"/dev/a\"\nboard = 3\n[[clock]]\nport = \"/dev/b\"\nboard = 3",
            "clock[1].board: board 3 is already clock[0]'s; give each [[clock]] its own",
        ),
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
fn drop_ins_apply_in_lexical_order_after_the_file_and_errors_name_the_drop_in() {
    let dir = TempDir::new("cfg-dropins");
    let file = dir.path().join("chessclockd.toml");
    let d = dir.path().join("chessclockd.toml.d");
    std::fs::create_dir(&d).expect("drop-in dir");
    std::fs::write(d.join("10-scan.toml"), "scan = true\ncommand_retries = 1\n").expect("write");
    std::fs::write(&file, "command_retries = 5\ncommand_timeout_ms = 900\n").expect("write");
    let (c, files) = Config::load_files(Some(&file)).expect("loads");
    assert_eq!(files, [file.clone(), d.join("10-scan.toml")]);
    assert!(c.scan, "from the drop-in");
    assert_eq!(c.command_retries, 1, "the drop-in overrides the file");
    assert_eq!(c.command_timeout_ms, 900, "the file's other keys stay");

    // Later names win; other files and dotfiles are ignored; a [[clock]] list is replaced
    // as a whole by the last file that has one.
    std::fs::write(
        &file,
        "[[clock]]\nport = \"/dev/a\"\n[[clock]]\nport = \"/dev/b\"\n",
    )
    .expect("write");
    std::fs::write(d.join("20-retries.toml"), "command_retries = 7\n").expect("write");
    std::fs::write(d.join("05-early.toml"), "command_retries = 2\n").expect("write");
    std::fs::write(d.join("30-retries.toml.dpkg-old"), "command_retries = 9\n").expect("write");
    std::fs::write(d.join(".40-hidden.toml"), "command_retries = 9\n").expect("write");
    std::fs::write(d.join("50-clock.toml"), "[[clock]]\nport = \"/dev/c\"\n").expect("write");
    let c = Config::load(Some(&file)).expect("loads");
    assert_eq!(c.command_retries, 7);
    let ports: Vec<_> = c.clocks.iter().map(|c| c.port.clone()).collect();
    assert_eq!(ports, [Some(PathBuf::from("/dev/c"))]);

    // A bad value names the drop-in and its line, not the main file.
    std::fs::write(
        d.join("20-retries.toml"),
        "\n# retries\ncommand_retries = 99\n",
    )
    .expect("write");
    let msg = err_text(Config::load(Some(&file)));
    let place = format!("({}, line 3)", d.join("20-retries.toml").display());
    assert!(msg.starts_with("command_retries: "), "{msg}");
    assert!(msg.ends_with(&place), "{msg}");
    std::fs::write(d.join("20-retries.toml"), "command_retries = 3\n").expect("write");
    std::fs::write(
        d.join("50-clock.toml"),
        "[[clock]]\nport = \"/dev/c\"\nwhite_side = \"up\"\n",
    )
    .expect("write");
    let msg = err_text(Config::load(Some(&file)));
    let place = format!("({}, line 3)", d.join("50-clock.toml").display());
    assert!(msg.starts_with("clock[0].white_side: "), "{msg}");
    assert!(msg.ends_with(&place), "{msg}");
    // A syntax error names the drop-in, the line and the column.
    std::fs::write(d.join("50-clock.toml"), "scan = [\n").expect("write");
    let msg = err_text(Config::load(Some(&file)));
    assert!(
        msg.starts_with(&format!(
            "{} is not valid TOML: line 1, column ",
            d.join("50-clock.toml").display()
        )),
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
fn a_bad_time_control_in_a_file_names_the_file_and_line_in_the_notations_words() {
    let dir = TempDir::new("cfg-control");
    let file = dir.path().join("chessclockd.toml");
    std::fs::write(&file, "default_time_control = \"G/15 inc/10\"\n").expect("write");
    let d = dir.path().join("chessclockd.toml.d");
    std::fs::create_dir(&d).expect("drop-in dir");
    std::fs::write(
        d.join("50-event.toml"),
        "# the club's control\ndefault_time_control = \"G/90 incc/10\"\n",
    )
    .expect("write");
    let msg = err_text(Config::load(Some(&file)));
    assert!(
        msg.starts_with(
            "default_time_control: \"G/90 incc/10\" is not a valid time control: `incc/10` is \
             not a time-control item; write "
        ),
        "{msg}"
    );
    let place = format!("({}, line 2)", d.join("50-event.toml").display());
    assert!(msg.ends_with(&place), "{msg}");
    assert!(
        !msg.contains("unknown_item") && !msg.contains("at byte"),
        "the parser's words, not its code: {msg}"
    );

    // A clock's own control names its table's line.
    std::fs::write(
        d.join("50-event.toml"),
        "[[clock]]\nport = \"/dev/a\"\n\ntime_control = \"40/90 SD/30 inc/3o\"\n",
    )
    .expect("write");
    let msg = err_text(Config::load(Some(&file)));
    assert!(msg.starts_with("clock[0].time_control: "), "{msg}");
    let place = format!("({}, line 4)", d.join("50-event.toml").display());
    assert!(msg.ends_with(&place), "{msg}");
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

#[test]
fn draw_rules_are_fide_uscf_or_none_and_a_wrong_word_says_each() {
    let c = Config::from_sources(
        Some("[[clock]]\nport = \"/dev/a\"\ndraw_rules = \"none\"\n[[clock]]\nport = \"/dev/b\"\n"),
        NO_ENV,
    )
    .expect("loads");
    assert_eq!(
        c.clocks[0].draw_rules,
        Some(chessclockd::device::DrawRules::None)
    );
    assert_eq!(c.clocks[1].draw_rules, None, "unset: by the control");
    let c = Config::from_sources(Some("draw_rules = \"fide\"\n"), NO_ENV).expect("loads");
    assert_eq!(c.draw_rules, Some(chessclockd::device::DrawRules::Fide));
    let c = Config::from_sources(
        Some("[[clock]]\nport = \"/dev/a\"\ndraw_rules = \"uscf\"\n"),
        NO_ENV,
    )
    .expect("loads");
    assert_eq!(
        c.clocks[0].draw_rules,
        Some(chessclockd::device::DrawRules::Uscf)
    );
    let msg = err_text(Config::from_sources(
        Some("[[clock]]\nport = \"/dev/a\"\ndraw_rules = \"us\"\n"),
        NO_ENV,
    ));
    assert!(
        msg.contains("\"us\" is not a set of draw rules")
            && msg.contains("\"uscf\"")
            && msg.contains("\"none\""),
        "{msg}"
    );
}

#[test]
fn event_and_site_are_the_default_tags_and_a_line_break_names_the_key() {
    let c = Config::from_sources(
        Some("event = \"Club Open\"\n"),
        [("CHESSCLOCKD_SITE", "Zurich SUI")],
    )
    .expect("loads");
    assert_eq!(
        c.tag_defaults(),
        vec![
            ("Event".to_owned(), "Club Open".to_owned()),
            ("Site".to_owned(), "Zurich SUI".to_owned())
        ]
    );
    assert!(Config::default().tag_defaults().is_empty(), "unset: none");
    let c = Config::from_sources(Some("event = \"a\\nb\"\n"), NO_ENV).expect("loads");
    let msg = c
        .validate_with(&|_| Ok(()))
        .expect_err("refused")
        .to_string();
    assert!(msg.contains("event") && msg.contains("line break"), "{msg}");
}
