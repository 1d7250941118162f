//! The live feed's folder (issue 22 item 10): run by systemd, the daemon writes the feed to
//! `$RUNTIME_DIRECTORY/live` (a tmpfs that a reboot empties), not to the state directory, and
//! writes every journaled game there again when it starts.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use chessclock_tests::e2e::{RuntimeDirRig, ctl_ok, files_below, press_lever, presses};
use chessclock_tests::json::s;
use chessclock_tests::pgn::python_reads;
use chessclock_tests::rig::{Daemon, WAIT};

/// Every PGN file below `dir` that holds one game (not a file of every game).
fn game_files(dir: &Path) -> Vec<PathBuf> {
    files_below(dir)
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.ends_with(".pgn") && name != "all.pgn" && name != "games.pgn"
        })
        .map(|p| dir.join(p))
        .collect()
}

/// The one game file below `dir` once its text is `done`.
fn wait_for_game(dir: &Path, what: &str, done: impl Fn(&str) -> bool) -> Result<PathBuf> {
    let until = Instant::now() + WAIT;
    loop {
        let files = game_files(dir);
        if let [file] = files.as_slice()
            && done(&std::fs::read_to_string(file)?)
        {
            return Ok(file.clone());
        }
        ensure!(
            Instant::now() < until,
            "no live game {what} below {}: {files:?}: {:?}",
            dir.display(),
            files
                .iter()
                .map(std::fs::read_to_string)
                .collect::<Vec<_>>()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The `[BlackClock "…"]` tag of a live game.
fn black_clock(text: &str) -> Option<&str> {
    text.lines().find(|l| l.starts_with("[BlackClock "))
}

/// Start the daemon on `rig` and wait until its board is ready.
fn ready_daemon(rig: &RuntimeDirRig) -> Result<Daemon> {
    let daemon = rig.spawn()?;
    daemon.wait_status("0", WAIT, "ready", |v| s(v, "/device_state") == "ready")?;
    Ok(daemon)
}

#[test]
fn the_live_feed_is_on_the_runtime_directory_and_written_again_after_a_reboot() -> Result<()> {
    let mut rig = RuntimeDirRig::new("live-dir")?;
    let mut daemon = ready_daemon(&rig)?;
    ctl_ok(&daemon, &["start", "0"]);
    for _ in 1..=2 {
        press_lever(&mut rig.emu, &daemon, "0")?;
    }
    let live = rig.run.join("live");
    // Black pressed: the file shows Black's clock as the daemon's PGN does (it stands while
    // White's runs). White's press alone shows Black's increment already, so a clock other
    // than the 10 minutes it began with would not prove Black's press written.
    let shown = black_clock(&ctl_ok(&daemon, &["pgn", "0"])).map(str::to_owned);
    ensure!(shown.is_some(), "the daemon's PGN has a [BlackClock] tag");
    let file = wait_for_game(&live, "with Black's press", |t| {
        black_clock(t).map(str::to_owned) == shown
    })?;
    let before = std::fs::read_to_string(&file)?;
    let state_live = rig.dir.path().join("state/live");
    ensure!(
        !state_live.exists(),
        "nothing in the state directory's live/: {:?}",
        game_files(&state_live)
    );
    let games = python_reads(&file)?;
    ensure!(games.len() == 1, "python-chess reads one game: {games:?}");

    // A reboot: the daemon dies and the tmpfs is emptied.
    daemon.kill();
    std::fs::remove_dir_all(&live)?;
    // Kept until the end: the restarted daemon writes the feed again.
    let _daemon = ready_daemon(&rig)?;
    let again = wait_for_game(&live, "as before the reboot", |t| {
        black_clock(t).map(str::to_owned) == shown
    })?;
    let after = std::fs::read_to_string(&again)?;
    let tags = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with('[') && !l.starts_with("[WhiteClock "))
            .map(str::to_owned)
            .collect()
    };
    ensure!(
        again.strip_prefix(&live).ok() == file.strip_prefix(&live).ok()
            && tags(&after) == tags(&before),
        "the same game in the same file after the restart:\n{before}\n---\n{after}"
    );
    let games = python_reads(&again)?;
    ensure!(games.len() == 1, "python-chess reads one game: {games:?}");
    Ok(())
}

#[test]
fn a_stopping_daemon_writes_its_last_change_to_the_live_feed() -> Result<()> {
    let mut rig = RuntimeDirRig::new("live-stop")?;
    let mut daemon = ready_daemon(&rig)?;
    ctl_ok(&daemon, &["start", "0"]);
    // White's press is written at once; the writer then rests a quarter of a second, and
    // Black's press, made as soon as White's is in the file, waits in its hands: the daemon
    // is stopped within that rest.
    rig.emu.send("lever")?;
    // A game is in the live feed from its first press on.
    wait_for_game(&rig.run.join("live"), "with White's press", |_| true)?;
    rig.emu.send("lever")?;
    daemon.wait_status("0", WAIT, "both presses counted", |v| presses(v) == 2)?;
    let shown = black_clock(&ctl_ok(&daemon, &["pgn", "0"])).map(str::to_owned);
    ensure!(shown.is_some(), "the daemon's PGN has a [BlackClock] tag");
    ensure!(daemon.terminate()?, "chessclockd stopped cleanly");
    let file = rig.run.join("live/round-1/game-1.pgn");
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("the live file {}", file.display()))?;
    ensure!(
        black_clock(&text).map(str::to_owned) == shown,
        "the live file has Black's press ({shown:?}) once the daemon has stopped:\n{text}"
    );
    Ok(())
}
