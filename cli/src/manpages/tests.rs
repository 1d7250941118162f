//! The pages as a reader gets them: one per visible subcommand, each with its options, the
//! common sections and examples of its own; groff reads them without a warning where it is
//! installed.

use clap::CommandFactory;

use super::examples::EXAMPLES;
use super::{pages, run};
use crate::Cli;

#[test]
fn every_subcommand_has_a_page_with_every_section_and_its_own_examples() {
    let dir = std::env::temp_dir().join(format!("chessclockctl-man-{}", std::process::id()));
    let written = run(Cli::command(), Some(&dir)).expect("write the pages");
    let names: Vec<String> = pages(&Cli::command()).into_iter().map(|(n, _)| n).collect();
    assert_eq!(written.len(), names.len());
    for must in ["status", "timecontrol-parse", "log-level", "fleet"] {
        assert!(
            names.iter().any(|n| n == must),
            "no page for {must}: {names:?}"
        );
    }
    assert!(
        !names.iter().any(|n| n == "man" || n == "completions"),
        "hidden ones too"
    );
    for (name, file) in names.iter().zip(&written) {
        let text = std::fs::read_to_string(file).expect("read the page");
        for heading in [
            ".SH NAME",
            ".SH SYNOPSIS",
            ".SH EXIT STATUS",
            ".SH FILES",
            ".SH ENVIRONMENT",
            ".SH EXAMPLES",
            ".SH SEE ALSO",
        ] {
            assert!(text.contains(heading), "{name}: no {heading}");
        }
        let examples = EXAMPLES.iter().find(|(n, _)| n == name);
        assert!(
            examples.is_some_and(|(_, e)| !e.is_empty()),
            "{name} has no examples: add them to manpages/examples.rs"
        );
    }
    let status = std::fs::read_to_string(dir.join("chessclockctl-status.1")).expect("status page");
    assert!(
        status.contains("chessclockctl\\-status"),
        "the page is named after the subcommand"
    );
    assert!(status.contains("CLOCK"), "its own argument is documented");
    assert!(status.contains("chessclockctl status 0"), "its own example");
    if std::process::Command::new("groff")
        .arg("--version")
        .output()
        .is_ok()
    {
        for file in &written {
            let out = std::process::Command::new("groff")
                .args(["-man", "-ww", "-z"])
                .arg(file)
                .output()
                .expect("groff");
            let warnings = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() && warnings.trim().is_empty(),
                "{}: {warnings}",
                file.display()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn examples_name_only_pages_that_exist() {
    let names: Vec<String> = pages(&Cli::command()).into_iter().map(|(n, _)| n).collect();
    for (name, _) in EXAMPLES {
        assert!(
            names.iter().any(|n| n == name),
            "examples for {name}, which has no page"
        );
    }
}

/// Split a shell line as sh would for these examples: double quotes, and a `>` redirection
/// dropped with its target.
fn words(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    if let Some(i) = out.iter().position(|w| w == ">") {
        out.truncate(i);
    }
    out
}

#[test]
fn every_example_is_a_command_line_the_cli_accepts() {
    for (page, examples) in EXAMPLES {
        for (line, _) in *examples {
            let argv = words(line);
            assert_eq!(argv[0], "chessclockctl", "{page}: {line}");
            if let Err(e) = <Cli as clap::Parser>::try_parse_from(&argv) {
                panic!("{page}: `{line}` does not parse: {e}");
            }
        }
    }
}
