//! The package's documentation (its sources, daemon/Cargo.toml's assets): every
//! `docs/NAME.md` that a message, a man page, the README or a script names is packaged, every
//! section of one they name by its title exists, every link of an installed page leads to an
//! installed file, and chessclock-emu's man page describes every option and stdin command.
//! The package's files are `packaging.rs`'s, its configurations `packaging_config.rs`'s.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use chessclock_tests::TempDir;
use chessclock_tests::paths::repo_path;
use chessclock_tests::rig::workspace_bin;

use crate::packaging::{deb_assets, expand, read};

/// The files the assets put in `usr/share/doc/chessclockd/`, by name.
fn packaged_docs() -> BTreeSet<String> {
    deb_assets()
        .into_iter()
        .filter(|(_, dest)| dest.starts_with("usr/share/doc/chessclockd/"))
        .flat_map(|(src, _)| expand(&src))
        .collect()
}

/// Every file the assets put in `usr/share/doc/chessclockd/`, by its path there
/// (`install.md`, `schema/event.json`), with the source of each page.
fn packaged_doc_files() -> Vec<(String, String)> {
    let root = "usr/share/doc/chessclockd/";
    let mut out = Vec::new();
    for (src, dest) in deb_assets() {
        let Some(place) = dest.strip_prefix(root) else {
            continue;
        };
        if place.is_empty() || place.ends_with('/') {
            let folder = Path::new(&src)
                .parent()
                .expect("a folder")
                .display()
                .to_string();
            for name in expand(&src) {
                out.push((format!("{place}{name}"), format!("{folder}/{name}")));
            }
        } else {
            out.push((place.to_owned(), src));
        }
    }
    out
}

#[test]
fn every_link_of_an_installed_page_leads_to_an_installed_file() {
    let files = packaged_doc_files();
    let installed: BTreeSet<&str> = files.iter().map(|(place, _)| place.as_str()).collect();
    assert!(installed.contains("README.md") && installed.contains("schema/event.json"));
    let mut links = 0;
    for (place, src) in files.iter().filter(|(p, _)| p.ends_with(".md")) {
        let page = read(src);
        for part in page.split("](").skip(1) {
            let Some((target, _)) = part.split_once(')') else {
                continue;
            };
            let target = target.split('#').next().unwrap_or_default();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            links += 1;
            let found = if target.ends_with('/') {
                installed.iter().any(|f| f.starts_with(target))
            } else {
                installed.contains(target)
            };
            assert!(
                found,
                "{place} (from {src}) links to {target}, which the package does not install \
                 beside it (add it to the assets in daemon/Cargo.toml)"
            );
        }
    }
    assert!(links >= 20, "{links} links found: the search is broken");
}

/// Every `docs/NAME.md` and `/usr/share/doc/chessclockd/NAME.md` in `text`, as `NAME.md`.
fn named_docs(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for prefix in ["docs/", "/usr/share/doc/chessclockd/"] {
        let mut rest = text;
        while let Some(pos) = rest.find(prefix) {
            let tail = &rest[pos + prefix.len()..];
            let name: String = tail
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                .collect();
            let name = name.trim_end_matches('.');
            if name.ends_with(".md") {
                out.insert(name.to_owned());
            }
            rest = tail;
        }
    }
    out
}

/// The Rust sources of the workspace's members (what is compiled into the programs: every
/// `src/`), without comment lines: what is left holds the messages.
fn message_text() -> String {
    let manifest: toml::Table = read("Cargo.toml").parse().expect("Cargo.toml");
    let members = manifest["workspace"]["members"]
        .as_array()
        .expect("members");
    let mut text = String::new();
    let mut dirs: Vec<std::path::PathBuf> = members
        .iter()
        .map(|m| repo_path(m.as_str().expect("member")).join("src"))
        .collect();
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let source = std::fs::read_to_string(&path).expect("read a source");
                for line in source.lines().filter(|l| !l.trim_start().starts_with("//")) {
                    text.push_str(line);
                    text.push('\n');
                }
            }
        }
    }
    text
}

/// The man pages the package holds: the written ones and those the programs print.
fn man_page_text(dir: &Path) -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir(repo_path("packaging/man")).expect("packaging/man") {
        text.push_str(&std::fs::read_to_string(entry.expect("entry").path()).expect("page"));
    }
    let ctl = Command::new(workspace_bin("chessclockctl").expect("built chessclockctl"))
        .arg("man")
        .arg("--dir")
        .arg(dir)
        .output()
        .expect("chessclockctl man");
    assert!(ctl.status.success(), "chessclockctl man: {ctl:?}");
    for entry in std::fs::read_dir(dir).expect("generated pages") {
        text.push_str(&std::fs::read_to_string(entry.expect("entry").path()).expect("page"));
    }
    for program in ["chessclockd", "chessclock-bridge"] {
        let out = Command::new(workspace_bin(program).expect("built binary"))
            .arg("--man")
            .output()
            .expect("--man");
        assert!(out.status.success(), "{program} --man: {out:?}");
        text.push_str(&String::from_utf8_lossy(&out.stdout));
    }
    // groff writes a hyphen as `\-`.
    text.replace("\\-", "-")
}

#[test]
fn every_doc_a_message_a_man_page_or_the_readme_names_is_packaged() {
    let dir = TempDir::new("named-docs").expect("temp dir");
    let packaged = packaged_docs();
    for (source, text) in [
        ("the programs' messages", message_text()),
        ("the man pages", man_page_text(dir.path())),
        ("README.md", read("README.md")),
        // The package's README sits beside the pages it names: every `NAME.md` in it.
        (
            "packaging/README.package.md",
            read("packaging/README.package.md")
                .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
                .filter(|w| w.ends_with(".md") && *w != "README.md")
                .map(|w| format!("docs/{w} "))
                .collect(),
        ),
        (
            "the units and the init scripts",
            [
                "systemd/chessclockd.service",
                "systemd/chessclock-bridge.service",
                "packaging/init.d/chessclockd",
                "packaging/init.d/chessclock-bridge",
                "packaging/init.d/init-common.sh",
            ]
            .map(read)
            .join("\n"),
        ),
    ] {
        let named = named_docs(&text);
        assert!(
            !named.is_empty(),
            "{source} name no docs: the search is broken"
        );
        for name in named {
            assert!(
                repo_path(&format!("docs/{name}")).is_file(),
                "{source} name docs/{name}, which does not exist"
            );
            assert!(
                packaged.contains(&name),
                "{source} name docs/{name}, which is not installed in /usr/share/doc/chessclockd/ \
                 (add it to the assets in daemon/Cargo.toml)"
            );
        }
    }
}

/// Every `NAME.md` followed by a quoted section title (`install.md, "A round without a
/// board"`, `install.md ("Without systemd")`, roff's `\(dq` and Rust's `\"` read as quotes), as
/// (`NAME.md`, title).
fn named_sections(text: &str) -> Vec<(String, String)> {
    let text = text.replace("\\(dq", "\"").replace("\\\"", "\"");
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(pos) = rest.find(".md") {
        let before: String = rest[..pos]
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
            .collect();
        let name = format!("{}.md", before.chars().rev().collect::<String>());
        let after = rest[pos + 3..].trim_start_matches([' ', ',', '(', '\n', '\t']);
        if let Some(quoted) = after.strip_prefix('"')
            && let Some((title, _)) = quoted.split_once('"')
            && !title.is_empty()
            && !title.contains('\n')
        {
            out.push((name, title.to_owned()));
        }
        rest = &rest[pos + 3..];
    }
    out
}

#[test]
fn every_doc_section_a_man_page_a_message_or_a_script_names_exists() {
    assert_eq!(
        named_sections("see\n.IR /usr/share/doc/chessclockd/install.md ,\n\"A round\")"),
        [("install.md".to_owned(), "A round".to_owned())]
    );
    assert_eq!(
        named_sections("install.md (\\\"Without systemd\\\"; x) and docs/a.md lists"),
        [("install.md".to_owned(), "Without systemd".to_owned())]
    );
    let dir = TempDir::new("named-sections").expect("temp dir");
    let mut text = man_page_text(dir.path()) + &message_text();
    for folder in ["packaging/debian", "packaging/init.d", "systemd"] {
        for entry in std::fs::read_dir(repo_path(folder)).expect(folder) {
            text.push_str(
                &std::fs::read_to_string(entry.expect("entry").path()).unwrap_or_default(),
            );
        }
    }
    let named = named_sections(&text);
    assert!(
        named.iter().any(|(doc, _)| doc == "install.md"),
        "no section named: the search is broken"
    );
    for (doc, title) in named {
        let page = read(&format!("docs/{doc}"));
        assert!(
            page.lines()
                .any(|l| l.starts_with('#') && l.trim_start_matches('#').trim() == title),
            "docs/{doc} has no section \"{title}\", which a man page, a message, a unit or a \
             maintainer script names"
        );
    }
}

#[test]
fn the_emulators_man_page_describes_every_option_and_command() {
    let page = read("packaging/man/chessclock-emu.1").replace("\\-", "-");
    let help = Command::new(workspace_bin("chessclock-emu").expect("built chessclock-emu"))
        .arg("--help")
        .output()
        .expect("chessclock-emu --help");
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let options: Vec<&str> = help
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("--"))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|o| !matches!(*o, "help" | "version"))
        .collect();
    assert!(options.len() >= 10, "options in --help: {help}");
    for option in options {
        assert!(
            page.contains(&format!(".B --{option}\n"))
                || page.contains(&format!(".BR --{option} "))
                || page.contains(&format!(".BI --{option} ")),
            "chessclock-emu.1 does not describe --{option}"
        );
    }
    // The stdin commands, as --help lists them ("one per line: lever, button ..., quit.").
    let list = help
        .split_once("one per line:")
        .expect("--help lists the stdin commands")
        .1;
    let list = list.split_once('.').map_or(list, |(l, _)| l);
    let commands: Vec<&str> = list
        .split(',')
        .filter_map(|c| c.split_whitespace().next())
        .collect();
    assert!(commands.len() >= 15, "commands in --help: {list}");
    for command in commands {
        assert!(
            page.lines().any(|l| {
                let l = l.trim();
                [".B ", ".BR ", ".BI "].iter().any(|m| {
                    l.strip_prefix(m)
                        .is_some_and(|rest| rest.split([' ', ',']).next() == Some(command))
                })
            }),
            "chessclock-emu.1 does not describe the stdin command {command}"
        );
    }
}
