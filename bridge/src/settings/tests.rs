//! The settings' sources, precedence and refusals.

use super::*;
use clap::Parser;

/// Settings from `main` and drop-ins (name, text) in a fresh directory, with `flags`.
fn load(tag: &str, main: &str, drop_ins: &[(&str, &str)], flags: &[&str]) -> Result<Settings> {
    load_in(tag, main, drop_ins, flags, &Credentials::default())
}

/// [`load`] with the credentials `creds`.
fn load_in(
    tag: &str,
    main: &str,
    drop_ins: &[(&str, &str)],
    flags: &[&str],
    creds: &Credentials,
) -> Result<Settings> {
    let dir = std::env::temp_dir().join(format!("bridge-settings-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("bridge.toml.d"))?;
    let file = dir.join("bridge.toml");
    std::fs::write(&file, main)?;
    for (name, text) in drop_ins {
        std::fs::write(dir.join("bridge.toml.d").join(name), text)?;
    }
    let mut argv = vec!["chessclock-bridge", "--config"];
    let path = file.display().to_string();
    argv.push(&path);
    argv.extend(flags);
    let result = Settings::load_with(&Args::parse_from(argv), creds);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

#[test]
fn drop_ins_override_the_file_in_lexical_order_and_flags_override_both() {
    let s = load(
        "order",
        "listen = \"127.0.0.1:1\"\nreplay = 5\n",
        &[
            ("20-b.toml", "listen = \"0.0.0.0:7380\"\n"),
            ("10-a.toml", "listen = \"127.0.0.1:2\"\nreplay = 7\n"),
            ("30-c.toml.dpkg-new", "replay = 9\n"),
        ],
        &[],
    )
    .expect("loads");
    assert_eq!(s.listen, "0.0.0.0:7380");
    assert_eq!(s.replay, 7);
    assert_eq!(s.files.len(), 3, "{:?}", s.files);
    let s = load(
        "flag",
        "",
        &[("10.toml", "mqtt = \"mqtt://a\"\n")],
        &["--mqtt", "mqtt://b"],
    )
    .expect("loads");
    assert_eq!(s.mqtt.map(|m| m.url).as_deref(), Some("mqtt://b"));
}

#[test]
fn errors_name_the_key_and_the_file_and_line_that_set_it() {
    let err = |tag, main, drop_ins: &[(&str, &str)], flags: &[&str]| {
        format!(
            "{:#}",
            load(tag, main, drop_ins, flags).expect_err("refused")
        )
    };
    let e = err(
        "type",
        "replay = 5\n",
        &[("10.toml", "\nreplay = \"many\"\n")],
        &[],
    );
    assert!(e.starts_with("replay: "), "{e}");
    assert!(e.ends_with("bridge.toml.d/10.toml, line 2)"), "{e}");
    let e = err(
        "unknown",
        "listen = \"127.0.0.1:1\"\nreplya = 3\n",
        &[],
        &[],
    );
    assert!(
        e.starts_with("replya: is not a known setting; keys are listen"),
        "{e}"
    );
    assert!(e.ends_with("bridge.toml, line 2)"), "{e}");
    let e = err("listen", "", &[("10.toml", "listen = \"nowhere\"\n")], &[]);
    assert!(
        e.contains("listen = \"nowhere\" is not an ADDR:PORT"),
        "{e}"
    );
    assert!(e.ends_with("10.toml, line 1)"), "{e}");
    let e = err("listen-flag", "", &[], &["--listen", "nowhere"]);
    assert!(e.ends_with("(--listen)"), "{e}");
    let e = err("log", "\n\nlog = \"loud\"\n", &[], &[]);
    assert!(e.starts_with("log ("), "{e}");
    assert!(
        e.contains("bridge.toml, line 3): \"loud\" is neither a level"),
        "{e}"
    );
    let e = err("log-flag", "", &[], &["--log-level", "debgu"]);
    assert!(e.starts_with("--log-level: \"debgu\""), "{e}");
    let e = err("replay", "", &[("10.toml", "replay = 0\n")], &[]);
    assert!(e.starts_with("replay must be at least 1"), "{e}");
    assert!(e.ends_with("10.toml, line 1)"), "{e}");
    let e = err("missing", "\n[[lichess]]\nclocks = []\n", &[], &[]);
    assert!(e.starts_with("lichess[0].round: is missing ("), "{e}");
    assert!(e.ends_with("bridge.toml, line 2)"), "{e}");
    let e = err("syntax", "", &[("10.toml", "listen = \n")], &[]);
    assert!(
        e.contains("10.toml is not valid TOML: line 1, column "),
        "{e}"
    );
}

#[test]
fn mqtt_is_a_url_or_a_table_and_secrets_come_from_files_or_credentials() {
    let err = |tag, main, flags: &[&str]| {
        format!("{:#}", load(tag, main, &[], flags).expect_err("refused"))
    };
    let e = err(
        "pw-file",
        "[mqtt]\nurl = \"mqtt://pi@127.0.0.1\"\npassword_file = \"/nonexistent/pw\"\n",
        &[],
    );
    assert!(e.contains("cannot read the MQTT password"), "{e}");
    assert!(e.ends_with("bridge.toml, line 3)"), "{e}");
    let e = err(
        "mqtt-key",
        "[mqtt]\nurl = \"mqtt://h\"\npasword_file = \"x\"\n",
        &[],
    );
    assert!(
        e.starts_with("mqtt.pasword_file: is not a known setting"),
        "{e}"
    );
    assert!(e.ends_with("bridge.toml, line 3)"), "{e}");
    let e = err(
        "scheme",
        "[mqtt]\nurl = \"mqtt://h\"\n",
        &["--mqtt", "ssl://h"],
    );
    assert!(e.contains("mqtts://") && e.ends_with("(--mqtt)"), "{e}");
    let e = err("scheme-file", "\nmqtt = \"tcp://h\"\n", &[]);
    assert!(e.ends_with("bridge.toml, line 2)"), "{e}");
    let lichess = "[[lichess]]\nround = \"abcdefgh\"\nserver = \"http://127.0.0.1:1\"\n";
    let e = err("no-token", lichess, &[]);
    assert!(e.contains("no Lichess token for round abcdefgh"), "{e}");
    // --check-config by hand cannot see the unit's credentials: not an error there.
    let outside = Credentials::new(None, true);
    load_in("check-no-token", lichess, &[], &[], &outside).expect("check only");

    let dir = std::env::temp_dir().join(format!("bridge-creds-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("mqtt-password"), "cred-pw\n").expect("write");
    std::fs::write(dir.join("lichess-token"), "lip_token\n").expect("write");
    let creds = Credentials::new(Some(dir.clone()), false);
    let main = format!("[mqtt]\nurl = \"mqtt://pi@h\"\n\n{lichess}");
    let s = load_in("creds", &main, &[], &[], &creds).expect("loads");
    let broker = s.mqtt_target.map(|t| t.broker).expect("broker");
    assert_eq!(broker.password.as_deref(), Some("cred-pw"));
    assert_eq!(s.lichess_tokens, ["lip_token"]);
    // The flag replaces the URL and keeps the rest of the table.
    let s = load_in(
        "flag-creds",
        &main,
        &[],
        &["--mqtt", "mqtt://op@h2"],
        &creds,
    )
    .expect("loads");
    let broker = s.mqtt_target.map(|t| t.broker).expect("broker");
    assert_eq!(
        (broker.user.as_deref(), broker.host.as_str()),
        (Some("op"), "h2")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_fleet_round_needs_a_broker_and_no_clocks_and_an_unknown_source_is_named() {
    let creds = Credentials::new(None, true);
    let round = "[[lichess]]\nround = \"abcdefgh\"\nsource = ";
    let err =
        |tag, text: &str| format!("{:#}", load_in(tag, text, &[], &[], &creds).expect_err(tag));
    let e = err("fleet-no-mqtt", &format!("{round}\"fleet\"\n"));
    assert!(
        e.contains("source = \"fleet\"") && e.contains("add mqtt = "),
        "{e}"
    );
    assert!(e.ends_with("bridge.toml, line 3)"), "{e}");
    let e = err(
        "fleet-clocks",
        &format!("mqtt = \"mqtt://h\"\n{round}\"fleet\"\nclocks = [\"1\"]\n"),
    );
    assert!(e.contains("leave clocks out"), "{e}");
    let e = err("unknown-source", &format!("{round}\"flet\"\n"));
    assert!(
        e.starts_with("lichess[0].source: \"flet\" is not a source") && e.contains("\"fleet\""),
        "{e}"
    );
    let s = load_in(
        "fleet",
        &format!("mqtt = \"mqtt://h\"\n{round}\"fleet\"\n"),
        &[],
        &[],
        &creds,
    )
    .expect("a fleet round with a broker");
    assert_eq!(s.lichess[0].source, crate::push::Source::Fleet);
}

#[test]
fn boards_in_two_tables_or_past_lichess_s_limit_stop_the_start_naming_the_tables() {
    let creds = Credentials::new(None, true);
    let table = |id: &str, boards: &str| {
        format!(
            "[[lichess]]\nround = \"{id}\"\nserver = \"http://127.0.0.1:1\"\nboards = \"{boards}\"\n\n"
        )
    };
    let err =
        |tag, text: &str| format!("{:#}", load_in(tag, text, &[], &[], &creds).expect_err(tag));
    let e = err(
        "boards-overlap",
        &format!(
            "{}{}",
            table("AbCd1234", "1-100"),
            table("EfGh5678", "90-150")
        ),
    );
    assert!(
        e.contains(
            "board 90 is in both lichess[0].boards = \"1-100\" and lichess[1].boards = \"90-150\""
        ),
        "{e}"
    );
    assert!(
        e.ends_with("bridge.toml, line 9)"),
        "where the second table's boards are: {e}"
    );
    let e = err("boards-many", &table("AbCd1234", "1-150"));
    assert!(
        e.contains("takes 150 boards") && e.contains("split them over two [[lichess]] tables"),
        "{e}"
    );
    let e = err("boards-bad", &table("AbCd1234", "1-x"));
    assert!(
        e.starts_with("lichess[0].boards: \"1-x\" is not a set of boards"),
        "{e}"
    );
    let s = load_in(
        "boards-ok",
        &format!(
            "{}{}",
            table("AbCd1234", "1-100"),
            table("EfGh5678", "101-150")
        ),
        &[],
        &[],
        &creds,
    )
    .expect("two ranges");
    assert_eq!(
        s.lichess
            .iter()
            .map(|r| r.boards.as_ref().map(ToString::to_string))
            .collect::<Vec<_>>(),
        [Some("1-100".to_owned()), Some("101-150".to_owned())]
    );
}

#[test]
fn fleet_needs_a_broker_and_says_where_it_was_set() {
    let e = format!(
        "{:#}",
        load(
            "fleet-alone",
            "listen = \"127.0.0.1:1\"\nfleet = true\n",
            &[],
            &[]
        )
        .expect_err("fleet without mqtt")
    );
    assert!(
        e.starts_with("fleet = true shows the boards") && e.contains("add mqtt = "),
        "{e}"
    );
    assert!(e.ends_with("bridge.toml, line 2)"), "{e}");
    let s = load("fleet-flag", "fleet = true\n", &[], &["--mqtt", "mqtt://b"])
        .expect("fleet with a broker from the command line");
    assert!(s.fleet);
    let s = load("fleet-off", "", &[], &[]).expect("no fleet");
    assert!(!s.fleet, "off unless set");
    // Other machines' boards arrive live: a delayed bridge would show them undelayed.
    let e = format!(
        "{:#}",
        load(
            "fleet-delayed",
            "fleet = true\ndelay = \"15m\"\n",
            &[],
            &["--mqtt", "mqtt://b"]
        )
        .expect_err("fleet with a delay")
    );
    assert!(
        e.contains("delays its outputs (delay = \"15m\")") && e.contains("without it"),
        "{e}"
    );
}
