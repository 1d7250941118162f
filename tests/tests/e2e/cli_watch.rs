//! `chessclockctl watch` for a venue, in a real terminal (tmux): 40 boards on 80×24 under
//! the header, each by its board number, redrawn when the daemon signals (not by polling), paged on a short terminal,
//! a daemon restart said and survived, and the terminal given back as it was on quit. And
//! `monitor` saying when the daemon goes and comes back.
//!
//! The real `chessclockctl` and `chessclockd` on a private bus, with virtual clocks (the built-in
//! emulator) standing in for 40 boards.

use std::time::Duration;

use anyhow::Result;
use chessclock_tests::bridge::have;
use chessclock_tests::json::s;
use chessclock_tests::rig::{Daemon, Spawned, WAIT, workspace_bin, write_config};
use chessclock_tests::tmux::Session;
use chessclock_tests::{PrivateBus, TempDir};

/// The board numbers on a screen of `N Table M` cells (board number, then the clock's name:
/// no players are loaded), sorted.
fn boards_shown(screen: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for line in screen.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        for pair in words.windows(2) {
            if let (Ok(n), "Table") = (pair[0].parse::<u32>(), pair[1]) {
                out.push(n);
            }
        }
    }
    out.sort_unstable();
    out
}

/// The cell of board number `board` (from its number to the next two spaces after its
/// state).
fn cell(screen: &str, board: u32) -> String {
    let key = format!("{board:>3} Table ");
    screen
        .lines()
        .find_map(|l| l.find(&key).map(|i| l[i..].chars().take(38).collect()))
        .unwrap_or_default()
}

/// A daemon on a private bus with `n` virtual clocks named `Table 1`... (its state in `dir`):
/// the bus, its address, the configuration and the daemon; and the shell command that runs
/// `chessclockctl watch` on it, then `after` (the pane stays for its output).
fn venue(
    dir: &TempDir,
    n: u32,
    after: &str,
) -> Result<(PrivateBus, String, std::path::PathBuf, Daemon, String)> {
    let bus = PrivateBus::start_session()?;
    let address = bus.address().to_owned();
    let config = write_config(dir.path(), &[], "")?;
    let daemon = Daemon::spawn(&address, &config, &[])?;
    for i in 1..=n {
        let out = daemon.ctl(&["add-virtual", &format!("Table {i}")]);
        anyhow::ensure!(out.status.success(), "add-virtual: {out:?}");
    }
    let command = format!(
        "{} --address '{address}' watch; echo exit=$?; {after}sleep 600",
        workspace_bin("chessclockctl")?.display()
    );
    Ok((bus, address, config, daemon, command))
}

#[test]
fn watch_fits_forty_boards_redraws_on_signals_pages_survives_a_restart_and_restores() -> Result<()>
{
    if have("tmux", "tmux")?.is_none() {
        return Ok(());
    }
    let dir = TempDir::new("watch")?;
    // After watch: its exit code, and whether the terminal is back in canonical mode.
    let (_bus, address, config, mut daemon, command) = venue(
        &dir,
        40,
        "stty -a | tr ' ;' '\\n\\n' | grep -x -- '-\\?icanon'; ",
    )?;
    let term = Session::start("ccwatch", 80, 24, &command)?;
    let screen = term.wait(WAIT, "40 boards", |s| {
        s.contains("40 boards") && boards_shown(s).len() == 40
    })?;
    let lines: Vec<&str> = screen.lines().collect();
    assert!(lines[0].starts_with("chessclockd  40 boards"), "{screen}");
    assert!(lines.len() <= 24, "{screen}");
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{screen}");
    assert_eq!(
        boards_shown(&screen),
        (1..41).collect::<Vec<_>>(),
        "{screen}"
    );
    assert_eq!(term.format("#{cursor_flag} #{alternate_on}")?, "0 1");

    // A start is a signal: board 6 (clock 5, named so) is drawn running, and its time then
    // runs on screen.
    let mut monitor = Spawned::ctl(&address, &["monitor", "--json"])?;
    assert!(daemon.ctl(&["start", "board:6"]).status.success());
    let screen = term.wait(WAIT, "board 6 running", |s| {
        s.contains("1 running") && cell(s, 6).contains('*')
    })?;
    let first = cell(&screen, 6);
    term.wait(WAIT, "board 6's time to run", |s| {
        let now = cell(s, 6);
        !now.is_empty() && now != first
    })?;

    // A short terminal: paged, and space turns the page.
    term.resize(80, 12)?;
    term.wait(WAIT, "page 1", |s| s.contains("page 1/3"))?;
    term.keys(&["Space"])?;
    let screen = term.wait(WAIT, "page 2", |s| s.contains("page 2/3"))?;
    assert!(
        screen
            .lines()
            .next()
            .is_some_and(|l| l.starts_with("chessclockd  40 boards"))
    );
    assert_eq!(
        boards_shown(&screen),
        (19..37).collect::<Vec<_>>(),
        "{screen}"
    );
    term.resize(80, 24)?;

    // The daemon dies: said on screen and by monitor; it comes back: read again.
    daemon.kill();
    term.wait(WAIT, "not running", |s| s.contains("not running"))?;
    monitor.wait_json(0, "daemon_gone", |v| s(v, "/event") == "daemon_gone")?;
    daemon = Daemon::spawn(&address, &config, &[])?;
    // Virtual clocks are remembered: the daemon comes back with the 40 boards, the started
    // game running on; a board added then is shown too.
    term.wait(WAIT, "the daemon back", |s| {
        s.contains("chessclockd  40 boards, 1 running")
    })?;
    monitor.wait_json(0, "daemon_back", |v| s(v, "/event") == "daemon_back")?;
    let out = daemon.ctl(&["add-virtual", "Table 41"]);
    anyhow::ensure!(out.status.success(), "add-virtual: {out:?}");
    term.wait(WAIT, "one more board", |s| {
        s.contains("chessclockd  41 boards, 1 running")
    })?;

    // Quit: the terminal is as it was (main screen, cursor shown, canonical mode).
    term.keys(&["q"])?;
    let screen = term.wait(Duration::from_secs(10), "watch to end", |s| {
        s.contains("exit=0") && s.lines().any(|l| l.ends_with("icanon"))
    })?;
    assert!(
        screen.lines().any(|l| l == "icanon"),
        "canonical mode: {screen}"
    );
    assert_eq!(term.format("#{cursor_flag} #{alternate_on}")?, "1 0");
    Ok(())
}

#[test]
fn watch_ends_cleanly_on_sigterm() -> Result<()> {
    if have("tmux", "tmux")?.is_none() {
        return Ok(());
    }
    let dir = TempDir::new("watch")?;
    let (_bus, _, _, _daemon, command) = venue(&dir, 2, "")?;
    let term = Session::start("ccwatchterm", 80, 24, &command)?;
    term.wait(WAIT, "2 boards", |s| s.contains("2 boards"))?;
    let shell = term.format("#{pane_pid}")?;
    let out = std::process::Command::new("pgrep")
        .args(["-P", &shell, "chessclockctl"])
        .output()?;
    let pid = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    anyhow::ensure!(!pid.is_empty(), "no chessclockctl under the shell {shell}");
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()?
            .success()
    );
    let screen = term.wait(Duration::from_secs(10), "watch to end", |s| {
        s.contains("exit=0")
    })?;
    assert_eq!(
        term.format("#{cursor_flag} #{alternate_on}")?,
        "1 0",
        "{screen}"
    );
    Ok(())
}
