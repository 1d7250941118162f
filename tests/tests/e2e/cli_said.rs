//! Commands that change something say what they did, in one line, through the real CLI and
//! daemon on a virtual clock (docs/cli.md, "Controlling"): `add-virtual`, `set` (the
//! canonical control, what it means, and a hint on stderr for a likely slip such as
//! `90/30`), `start`, `move force`, `press`, `pause`, `resume`, `info`, `text`, `beep`,
//! `result`, `new-game`, `detach`; `--quiet` prints nothing on success (an error still says
//! why); `--json` prints what it always has (nothing; the object path for `add-virtual`).

use anyhow::Result;
use chessclock_tests::PrivateBus;
use chessclock_tests::TempDir;
use chessclock_tests::e2e::text;
use chessclock_tests::rig::{Daemon, write_config};

/// `chessclockctl ARGS` on `d`: its exit code, stdout and stderr.
fn run(d: &Daemon, args: &[&str]) -> (Option<i32>, String, String) {
    let out = d.ctl(args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The one line `args` printed, after checking it succeeded with nothing on stderr.
fn said(d: &Daemon, args: &[&str]) -> String {
    let (code, stdout, stderr) = run(d, args);
    assert_eq!(code, Some(0), "{args:?}: {stdout}{stderr}");
    assert!(stderr.is_empty(), "{args:?}: nothing on stderr: {stderr}");
    assert_eq!(stdout.lines().count(), 1, "{args:?}: one line: {stdout}");
    stdout.trim_end().to_owned()
}

#[test]
fn each_command_that_changes_something_says_what_it_did_unless_quiet() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("cli-said")?;
    let d = Daemon::spawn(bus.address(), &write_config(dir.path(), &[], "")?, &[])?;

    let line = said(&d, &["add-virtual", "Table 1"]);
    assert!(
        line.starts_with("added clock 0 (\"Table 1\"), board ")
            && line.contains("port virtual:Table 1")
            && line.ends_with("(/org/chessclockd/ChessClock1/Clock/0)"),
        "{line}"
    );
    // --json: the object path alone, as it always was; --quiet: nothing.
    let (code, stdout, _) = run(&d, &["--json", "add-virtual", "Table 2"]);
    assert_eq!(code, Some(0));
    assert_eq!(stdout.trim(), "/org/chessclockd/ChessClock1/Clock/1");
    let (code, stdout, stderr) = run(&d, &["-q", "add-virtual", "Table 3"]);
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (Some(0), "", ""));

    // set: the canonical control and what it means; the likely slip gets a hint on stderr.
    let (code, stdout, stderr) = run(&d, &["set", "0", "90/30"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stdout.trim_end(),
        "clock 0 (\"Table 1\"): 90/30 d/0 = 90 moves in 30 min, repeating, for this game, ready \
         to start"
    );
    assert_eq!(
        stderr.trim_end(),
        "hint: 90/30 means 90 moves in 30 min, repeating; for 90 min + 30 s a move write 90+30 \
         (or G/90 inc/30)"
    );
    let (code, stdout, stderr) = run(&d, &["--quiet", "set", "0", "90/30"]);
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (Some(0), "", ""));
    let (code, stdout, _) = run(&d, &["set", "0", "G/15+10", "--json"]);
    assert_eq!(
        (code, stdout.as_str()),
        (Some(0), ""),
        "--json prints no answer here"
    );
    assert_eq!(
        said(&d, &["set", "0", "G/15+10"]),
        "clock 0 (\"Table 1\"): G/15 inc/10 = 15 min + 10 s a move, for this game, ready to start"
    );

    let line = said(&d, &["start", "0"]);
    assert!(
        line.starts_with("clock 0 (\"Table 1\"): started; white's clock runs (white 15:"),
        "{line}"
    );
    let line = said(&d, &["move", "0", "force", "e2e4"]);
    assert!(
        line.starts_with("clock 0 (\"Table 1\"): played e2e4; last move 1. e4, white's clock runs"),
        "{line}"
    );
    let line = said(&d, &["press", "0", "white"]);
    assert!(
        line.starts_with("clock 0 (\"Table 1\"): white pressed; black's clock runs (white 15:"),
        "{line}"
    );
    let line = said(&d, &["pause", "0"]);
    assert!(
        line.starts_with("clock 0 (\"Table 1\"): paused (white "),
        "{line}"
    );
    // Mid-game (paused), the control switches and the times stay.
    let line = said(&d, &["set", "0", "G/30"]);
    assert!(
        line.ends_with(
            "G/30 d/0 = 30 min, sudden death, from now on: the game goes on with its times"
        ),
        "{line}"
    );
    let line = said(&d, &["resume", "0"]);
    assert!(
        line.starts_with("clock 0 (\"Table 1\"): resumed; black's clock runs"),
        "{line}"
    );
    assert_eq!(
        said(&d, &["info", "0", "white=Carlsen, Magnus", "event="]),
        "clock 0 (\"Table 1\"): game information set: White=\"Carlsen, Magnus\"; removed: event"
    );
    assert_eq!(
        said(&d, &["text", "0", "HELLO", "--ms", "2000"]),
        "clock 0 (\"Table 1\"): shows \"HELLO\" for 2 s"
    );
    assert_eq!(
        said(&d, &["beep", "0"]),
        "clock 0 (\"Table 1\"): beeped for 0.5 s"
    );
    let line = said(&d, &["result", "0", "1-0"]);
    assert!(
        line.starts_with("clock 0 (\"Table 1\"): result 1-0 recorded")
            && line.ends_with("the game is over"),
        "{line}"
    );
    let line = said(&d, &["new-game", "0"]);
    assert!(
        line.starts_with("clock 0 (\"Table 1\"): a new game under G/30 d/0; ready to start"),
        "{line}"
    );

    // --quiet: nothing on success; a failure still says why, exit 1.
    let (code, stdout, stderr) = run(&d, &["-q", "pause", "1"]);
    assert_eq!(
        code,
        Some(1),
        "pausing a game not started: {stdout}{stderr}"
    );
    assert!(stdout.is_empty() && !stderr.is_empty(), "{stderr}");
    let (code, stdout, stderr) = run(&d, &["-q", "start", "1"]);
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (Some(0), "", ""));

    let line = said(&d, &["detach", "2"]);
    assert!(
        line.starts_with("detached clock 2 (\"Table 3\"), board ")
            && line.ends_with("(virtual:Table 3): its game kept for when it comes back"),
        "{line}"
    );
    let out = d.ctl(&["list", "--json"]);
    assert!(out.status.success(), "{}", text(&out));
    Ok(())
}
