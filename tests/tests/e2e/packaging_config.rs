//! The packaged configurations (chessclockd.toml, bridge.toml): they run on the defaults
//! and document every key, the configuration's man page agrees with its reference, and
//! `--check-config` of both binaries passes the packaged files and names the drop-in, line
//! and key of an error.

use std::collections::BTreeSet;
use std::path::Path;

use chessclock_tests::TempDir;
use chessclock_tests::paths::repo_path;
use chessclock_tests::rig::check_config;
use chessclockd::config::Config;

use crate::packaging::read;

const NO_ENV: [(&str, &str); 0] = [];

/// The packaged file with every `# key = value` and `# [[clock]]` line uncommented.
fn uncommented(text: &str) -> String {
    text.lines()
        .map(|l| match l.strip_prefix("# ") {
            Some(rest)
                if rest.starts_with("[[clock]]")
                    || rest.split_once(" = ").is_some_and(|(k, _)| {
                        k.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
                    }) =>
            {
                rest
            }
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn packaged_configuration_runs_on_defaults_and_documents_every_key() {
    let text = read("packaging/chessclockd.toml");
    let live = Config::from_sources(Some(&text), NO_ENV).expect("packaged config loads");
    assert_eq!(live, Config::default(), "everything is commented out");
    let all = uncommented(&text);
    let c = Config::from_sources(Some(&all), NO_ENV).expect("the commented values load");
    c.validate().expect("the commented values are valid");
    assert_eq!(
        Config {
            clocks: Vec::new(),
            ..c.clone()
        },
        Config::default(),
        "the commented values are the defaults"
    );
    assert_eq!(c.clocks.len(), 1, "one commented example clock");
    let json = serde_json::to_value(&c).expect("serialize");
    let clock_keys = json["clock"][0].as_object().expect("clock").keys().cloned();
    let keys: Vec<String> = json
        .as_object()
        .expect("object")
        .keys()
        .filter(|k| *k != "clock")
        .cloned()
        .chain(clock_keys)
        .collect();
    for key in keys {
        assert!(
            all.lines().any(|l| l.starts_with(&format!("{key} = "))),
            "{key} is not in packaging/chessclockd.toml"
        );
    }
}

/// Backticked names in the first column of docs/configuration.md's tables, and every
/// CHESSCLOCKD_ variable the page names.
fn reference_names() -> (BTreeSet<String>, BTreeSet<String>) {
    let doc = read("docs/configuration.md");
    let mut keys = BTreeSet::new();
    for line in doc.lines().filter(|l| l.starts_with("| `")) {
        let first = line.split('|').nth(1).unwrap_or_default().trim();
        keys.insert(first.trim_matches('`').to_owned());
    }
    (keys, env_names(&doc))
}

fn env_names(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(pos) = rest.find("CHESSCLOCKD_") {
        let name: String = rest[pos..]
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
            .collect();
        if name.len() > "CHESSCLOCKD_".len() && !name.ends_with('_') {
            out.insert(name.clone());
        }
        rest = &rest[pos + name.len().max(1)..];
    }
    out
}

#[test]
fn config_man_page_agrees_with_the_reference() {
    let page = read("packaging/man/chessclockd.toml.5");
    let (keys, envs) = reference_names();
    assert!(keys.len() >= 12, "tables found: {keys:?}");
    for key in &keys {
        assert!(
            page.contains(&format!(".BR {key} "))
                || page.contains(&format!(".B {key}\n"))
                || page.contains(&format!(".BR \"{key}\"")),
            "chessclockd.toml.5 does not describe {key} (docs/configuration.md does)"
        );
    }
    let page_envs = env_names(&page);
    // CHESSCLOCKD_SCANN is the reference's example of a misspelt variable.
    let envs: BTreeSet<String> = envs
        .into_iter()
        .filter(|e| e != "CHESSCLOCKD_SCANN")
        .collect();
    assert_eq!(
        page_envs, envs,
        "environment variables differ between chessclockd.toml.5 and docs/configuration.md"
    );
}

#[test]
fn check_config_passes_the_packaged_files_and_names_the_drop_in_line_and_key_of_an_error() {
    let dir = TempDir::new("check-config").expect("temp dir");
    // (program, packaged file, a good drop-in, a bad line, its key, the failure's exit code)
    let cases = [
        (
            "chessclockd",
            "packaging/chessclockd.toml",
            "command_retries = 5\n",
            "command_retries = 99",
            "command_retries: ",
            1,
        ),
        (
            "chessclock-bridge",
            "packaging/bridge.toml",
            "listen = \"0.0.0.0:7380\"\n",
            "replay = \"many\"",
            "replay: ",
            2,
        ),
    ];
    for (program, packaged, good, bad, key, code) in cases {
        let name = Path::new(packaged).file_name().expect("name");
        let file = dir.path().join(name);
        std::fs::copy(repo_path(packaged), &file).expect("copy");
        let out = check_config(program, &file);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{program}: {out:?}");
        assert_eq!(stdout.lines().count(), 1, "{program}: one line: {stdout}");
        assert!(stdout.contains(" OK ("), "{program}: {stdout}");
        assert!(out.stderr.is_empty(), "{program}: {out:?}");

        let d = dir.path().join(format!("{}.d", name.to_string_lossy()));
        std::fs::create_dir_all(&d).expect("drop-in dir");
        std::fs::write(d.join("10-good.toml"), good).expect("write");
        std::fs::write(d.join("20-bad.toml"), format!("# a comment\n{bad}\n")).expect("write");
        let out = check_config(program, &file);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{program}: {stderr}");
        assert!(out.stdout.is_empty(), "{program}: {out:?}");
        assert_eq!(stderr.lines().count(), 1, "{program}: one line: {stderr}");
        assert!(stderr.contains(key), "{program} names the key: {stderr}");
        let place = format!("{}, line 2)", d.join("20-bad.toml").display());
        assert!(
            stderr.contains(&place),
            "{program} names file and line: {stderr}"
        );

        // dpkg's and editors' leftovers are not drop-ins.
        std::fs::rename(d.join("20-bad.toml"), d.join("20-bad.toml.dpkg-old")).expect("rename");
        let out = check_config(program, &file);
        assert!(out.status.success(), "{program}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("10-good.toml"),
            "{program} lists the drop-in it read: {out:?}"
        );
    }
}

#[test]
fn packaged_bridge_settings_are_valid_commented_out_and_documented() {
    let text = read("packaging/bridge.toml");
    let dir = TempDir::new("bridge-settings").expect("temp dir");
    let token = dir.path().join("lichess.token");
    std::fs::write(&token, "lip_token\n").expect("token");
    // Every `# key = value` and `# [[lichess]]` line uncommented: still valid.
    let all: String = text
        .lines()
        .map(|l| match l.strip_prefix("# ") {
            Some(rest)
                if rest == "[[lichess]]"
                    || rest.split_once(" = ").is_some_and(|(k, _)| {
                        k.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
                    }) =>
            {
                rest.replace(
                    "/etc/chessclockd/lichess.token",
                    &token.display().to_string(),
                )
            }
            _ => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let keys: Vec<&str> = all
        .lines()
        .filter_map(|l| l.split_once(" = ").map(|(k, _)| k))
        .filter(|k| k.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
        .collect();
    let file = dir.path().join("bridge.toml");
    std::fs::write(&file, &all).expect("write");
    let out = check_config("chessclock-bridge", &file);
    assert!(out.status.success(), "the commented values load: {out:?}");
    let page = read("packaging/man/bridge.toml.5");
    let doc = read("docs/bridge.md");
    let described = |key: &str| {
        assert!(
            page.contains(&format!(".BR {key} ")),
            "bridge.toml.5 does not describe {key}"
        );
        assert!(
            doc.contains(&format!("`{key}`")),
            "docs/bridge.md does not name {key}"
        );
    };
    for key in [
        "listen",
        "mqtt",
        "host",
        "fleet",
        "replay",
        "log",
        "round",
        "token_file",
        "clocks",
        "boards",
        "server",
        "source",
    ] {
        assert!(keys.contains(&key), "{key} is not in packaging/bridge.toml");
        described(key);
    }
    // The [mqtt] table's keys, shown in the file as an example to copy, not commented out.
    for key in ["url", "password_file", "ca_file"] {
        assert!(
            text.contains(&format!("#   {key} = ")),
            "{key} is not in packaging/bridge.toml"
        );
        described(key);
    }
}
