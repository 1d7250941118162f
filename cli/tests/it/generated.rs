//! The man page and shell completions are generated from the real command model.

use crate::support::ctl;

fn run(args: &[&str]) -> (bool, String) {
    let out = ctl(args);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn man_page_lists_the_subcommands() {
    let (ok, man) = run(&["man"]);
    assert!(ok);
    assert!(man.contains(".TH chessclockctl 1"), "{man}");
    for sub in ["status", "watch", "monitor", "simulate", "decode", "attach"] {
        assert!(man.contains(sub), "man page lacks {sub}");
    }
}

#[test]
fn bash_completion_knows_the_verbs() {
    let (ok, script) = run(&["completions", "bash"]);
    assert!(ok);
    assert!(
        script.contains("add-virtual") && script.contains("new-game"),
        "{script}"
    );
}

#[test]
fn unknown_subcommand_is_a_usage_error() {
    let out = ctl(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}
