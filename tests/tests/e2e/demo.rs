//! `chessclockd --demo` in a real terminal (tmux, 80×24): it plays game after game under
//! `--control`, keeps its status on one line that fits, prints a `chessclockctl` command that
//! works when pasted, and takes its private bus down when the terminal goes away (SIGHUP).

use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chessclock_tests::bridge::have;
use chessclock_tests::rig::workspace_bin;
use chessclock_tests::tmux::{Session, tmux};

#[test]
fn the_demo_plays_on_in_80_columns_and_cleans_up_on_sighup() -> Result<()> {
    if have("tmux", "tmux")?.is_none() {
        return Ok(());
    }
    let daemon = workspace_bin("chessclockd")?;
    // No session bus: the demo starts its own private one.
    let cmd = format!(
        "env -u DBUS_SESSION_BUS_ADDRESS {} --demo --control G/3s",
        daemon.display()
    );
    let session = Session::start("ccdemo", 80, 24, &cmd)?;
    let name = session.0.clone();
    // Two whole games: the status line reaches game 3.
    let deadline = Instant::now() + Duration::from_secs(120);
    let screen = loop {
        let screen = tmux(&["capture-pane", "-p", "-J", "-t", &name])?;
        if screen.lines().any(|l| l.starts_with("#3 ")) {
            break screen;
        }
        if Instant::now() > deadline {
            bail!("the demo did not reach its third game:\n{screen}");
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    // One status line, rewritten in place, that fits the 80 columns.
    let status: Vec<&str> = screen.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(status.len(), 1, "one status line:\n{screen}");
    assert!(status[0].chars().count() < 80, "{:?}", status[0]);
    assert!(status[0].contains("DGT 3000"), "{screen}");
    assert!(
        !screen.contains(" INFO "),
        "no log lines over the status line:\n{screen}"
    );
    // The printed command works as pasted (here with `list --json` for `watch`).
    let line = screen
        .lines()
        .find(|l| l.contains("--address '") && l.trim_end().ends_with("watch"))
        .with_context(|| format!("no chessclockctl command in:\n{screen}"))?;
    let pasted = line.trim().trim_end_matches("watch").to_owned() + "list --json";
    let out = Command::new("sh").arg("-c").arg(&pasted).output()?;
    assert!(
        out.status.success(),
        "{pasted}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"name\":\"demo\""));
    let address = line
        .split('\'')
        .nth(1)
        .context("the bus address in quotes")?
        .to_owned();

    // The terminal goes away: SIGHUP; the demo's private bus goes with it.
    drop(session);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let ping = Command::new("dbus-send")
            .args([
                &format!("--bus={address}"),
                "--print-reply",
                "--dest=org.freedesktop.DBus",
                "/org/freedesktop/DBus",
                "org.freedesktop.DBus.Peer.Ping",
            ])
            .output()?;
        if !ping.status.success() {
            break;
        }
        if Instant::now() > deadline {
            bail!("the demo's private bus {address} is still up after SIGHUP");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Ok(())
}

/// The demo plays real games piece by piece and the daemon judges them: the first ends in
/// a mate on the board, the second in the kings' result signal (a draw), each shown on the
/// status line with its last move while it runs.
#[test]
fn the_demo_games_end_in_a_mate_and_in_the_kings_signal() -> Result<()> {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::sync::mpsc;

    let daemon = workspace_bin("chessclockd")?;
    let mut child = Command::new(&daemon)
        .arg("--demo")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("chessclockd --demo")?;
    let stdout = child.stdout.take().context("stdout")?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout)
            .lines()
            .map_while(std::io::Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(180);
    let mut seen = Vec::new();
    let (mut mate, mut signal, mut moves) = (false, false, false);
    while !(mate && signal) {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(line) = rx.recv_timeout(left) else {
            let _ = child.kill();
            bail!(
                "the demo did not end its games on the board:\n{}",
                seen.join("\n")
            );
        };
        moves |= line.starts_with("#1 ") && line.ends_with("running Bxf7+");
        mate |= line.starts_with("#1 ") && line.ends_with("ended 1-0 checkmate");
        signal |= line.starts_with("#2 ") && line.ends_with("ended 1/2-1/2 board signal");
        seen.push(line);
    }
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
    assert!(
        moves,
        "the last move on the status line:\n{}",
        seen.join("\n")
    );
    assert!(
        seen.iter().any(|l| l.starts_with("game 2: ")),
        "each game named:\n{}",
        seen.join("\n")
    );
    Ok(())
}
