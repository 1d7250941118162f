//! End to end, the board's link: an unplugged board, a link that goes silent, and a crash of
//! the daemon, each with the real `chessclockd`, `chessclock-emu` on a pty and
//! `chessclockctl`; the game goes on and is re-synced.

use std::time::Duration;

use anyhow::Result;
use chessclock_tests::e2e::{assert_shown, ctl_ok, detached_stays_gone, emu, ready, rig, started};
use chessclock_tests::json::{s, u};
use chessclock_tests::rig::{Daemon, WAIT, is_set_and_run, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

#[test]
fn an_unplugged_board_keeps_its_game_and_is_resynced_on_replug() -> Result<()> {
    let dir = TempDir::new("e2e-plug")?;
    let link = dir.path().join("board0");
    let link_s = link.display().to_string();
    let mut r = rig(&["--link", &link_s], "G/5 d/0", "")?;
    ready(&r.daemon)?;
    ctl_ok(&r.daemon, &["start", "0"]);
    r.emu.unplug()?;
    let st = r.daemon.wait_status("0", WAIT, "disconnected", |v| {
        v.get("connected") == Some(&Value::Bool(false))
    })?;
    assert_eq!(s(&st, "/device_state"), "disconnected");
    assert_eq!(s(&st, "/status"), "running", "the game goes on: {st}");
    let before = u(&st, "/white_ms");
    std::thread::sleep(Duration::from_millis(1200));
    let st = r.daemon.ctl_json(&["status", "0", "--json"])?;
    assert!(
        u(&st, "/white_ms") < before,
        "white's time still runs: {st}"
    );
    let mark = r.emu.mark();
    r.emu.replug()?;
    let (_, push) = r
        .emu
        .wait_for(mark, WAIT, "a resync push", is_set_and_run)?;
    let st = ready(&r.daemon)?;
    assert!(st.get("connected") == Some(&Value::Bool(true)), "{st}");
    assert_shown(
        "after replug",
        u(&push, "/command/left_s"),
        u(&st, "/white_ms"),
        3000,
    );
    Ok(())
}

#[test]
fn a_link_that_goes_silent_without_eof_is_noticed_and_recovers() -> Result<()> {
    let (mut r, _) = started("G/5 d/0")?;
    // A Bluetooth board out of range: the port stays open, nothing arrives any more.
    r.emu.send("mute on")?;
    let st = r.daemon.wait_status(
        "0",
        Duration::from_secs(20),
        "the silent link given up",
        |v| v.get("connected") == Some(&Value::Bool(false)),
    )?;
    assert_eq!(s(&st, "/status"), "running", "the game goes on: {st}");
    let mark = r.emu.mark();
    r.emu.send("mute off")?;
    r.emu.wait_for(
        mark,
        Duration::from_secs(15),
        "a resync push",
        is_set_and_run,
    )?;
    let st = ready(&r.daemon)?;
    assert!(st.get("connected") == Some(&Value::Bool(true)), "{st}");
    Ok(())
}

#[test]
fn the_game_survives_a_crash_of_the_daemon() -> Result<()> {
    let dir = TempDir::new("e2e-crash")?;
    let bus = PrivateBus::start_session()?;
    let mut emu = emu(&[])?;
    let config = write_config(dir.path(), &[(&emu.path, "G/5 d/0")], "")?;
    let mut daemon = Daemon::spawn(bus.address(), &config, &[])?;
    ready(&daemon)?;
    let mark = emu.mark();
    ctl_ok(&daemon, &["start", "0"]);
    emu.wait_for(mark, WAIT, "the start push", is_set_and_run)?;
    std::thread::sleep(Duration::from_millis(500));
    emu.send("lever")?;
    let before = daemon.wait_status("0", WAIT, "white's move", |v| {
        v.pointer("/moves/white").and_then(Value::as_u64) == Some(1)
    })?;
    // The board was turned round: White is on the right half now, and stays there.
    let swapped = bus
        .dbus_send(None)
        .args([
            "--dest=org.chessclockd.ChessClock1",
            "/org/chessclockd/ChessClock1/Clock/0",
            "org.chessclockd.ChessClock1.Clock.SetWhiteSide",
            "string:right",
        ])
        .output()?;
    assert!(
        swapped.status.success(),
        "{}",
        String::from_utf8_lossy(&swapped.stderr)
    );
    daemon.kill();
    std::thread::sleep(Duration::from_millis(1000));
    let daemon = Daemon::spawn(bus.address(), &config, &[])?;
    let after = daemon.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(s(&after, "/white_side"), "right", "{after}");
    assert_eq!(u(&after, "/moves/white"), 1, "{after}");
    assert_eq!(s(&after, "/running"), "black", "{after}");
    assert_eq!(u(&after, "/white_ms"), u(&before, "/white_ms"), "{after}");
    // Black's clock ran on while the daemon was down.
    let black = u(&after, "/black_ms");
    assert!(black <= 299_000, "the gap is charged to black: {after}");
    Ok(())
}

/// A board attached at run time (`chessclockctl attach`, as the udev hook does) comes back
/// after a crash of the daemon with its game; once detached, it is not attached again.
#[test]
fn a_board_attached_at_run_time_comes_back_after_a_crash() -> Result<()> {
    let dir = TempDir::new("e2e-remember")?;
    let bus = PrivateBus::start_session()?;
    let mut emu = emu(&[])?;
    let config = write_config(dir.path(), &[], "default_time_control = \"G/5 d/0\"")?;
    let mut daemon = Daemon::spawn(bus.address(), &config, &[])?;
    ctl_ok(&daemon, &["attach", &emu.path]);
    ready(&daemon)?;
    let mark = emu.mark();
    ctl_ok(&daemon, &["start", "0"]);
    emu.wait_for(mark, WAIT, "the start push", is_set_and_run)?;
    emu.send("lever")?;
    daemon.wait_status("0", WAIT, "white's move", |v| {
        v.pointer("/moves/white").and_then(Value::as_u64) == Some(1)
    })?;
    daemon.kill();
    let daemon = Daemon::spawn(bus.address(), &config, &[])?;
    let after = daemon.wait_status("0", WAIT, "the board attached again", |v| {
        s(v, "/port") == emu.path
    })?;
    assert_eq!(u(&after, "/moves/white"), 1, "the game resumed: {after}");
    assert_eq!(s(&after, "/running"), "black", "{after}");

    // Detached on purpose: a restart does not bring it back.
    detached_stays_gone(daemon, bus.address(), &config)?;
    Ok(())
}
