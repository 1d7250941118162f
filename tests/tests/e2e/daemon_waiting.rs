//! End to end, clocks whose board is not there: a configured board that is plugged in only
//! after the daemon started, a board named by its serial number attached at run time, and a
//! virtual clock across a crash of the daemon. The real
//! `chessclockd`, `chessclock-emu` on a pty, `chessclockctl`, a private dbus-daemon.

use anyhow::Result;
use chessclock_tests::e2e::{ctl_ok, detached_stays_gone, emu};
use chessclock_tests::json::{s, u};
use chessclock_tests::rig::{Daemon, WAIT, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

/// A `[[clock]]` whose port does not exist at start is listed, `disconnected`, under its
/// configured name, and driven as soon as its board appears (no SIGHUP, no udev hook).
#[test]
fn a_configured_board_plugged_in_after_the_start_is_attached_when_it_appears() -> Result<()> {
    let dir = TempDir::new("e2e-waiting")?;
    let bus = PrivateBus::start_session()?;
    let link = dir.path().join("board-1");
    let link_s = link.display().to_string();
    let config = write_config(dir.path(), &[(&link_s, "G/10 inc/5")], "")?;
    let daemon = Daemon::spawn(bus.address(), &config, &[])?;

    let st = daemon.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(st.get("connected"), Some(&Value::Bool(false)), "{st}");
    assert_eq!(s(&st, "/device_state"), "disconnected", "{st}");
    assert_eq!(s(&st, "/port"), link_s, "{st}");

    // The board is plugged in: its udev link appears.
    let mut emu = emu(&["--link", &link_s])?;
    daemon.wait_status("0", WAIT, "the board to be driven", |v| {
        s(v, "/device_state") == "ready"
    })?;
    ctl_ok(&daemon, &["start", "0"]);
    emu.send("lever")?;
    let st = daemon.wait_status("0", WAIT, "white's move", |v| {
        v.pointer("/moves/white").and_then(Value::as_u64) == Some(1)
    })?;
    assert!(
        u(&st, "/white_ms") > 600_000,
        "the configured control (inc/5) is the clock's: {st}"
    );
    Ok(())
}

/// A `[[clock]]` with a `board_serial` and no port: a board attached at run time
/// (`chessclockctl attach`, as the udev hook does) that reports that serial number gets the
/// table's name, side, control and game information; a board with another serial number
/// keeps the defaults.
#[test]
fn a_board_attached_at_run_time_gets_the_table_of_its_serial_number() -> Result<()> {
    let dir = TempDir::new("e2e-serial")?;
    let bus = PrivateBus::start_session()?;
    let table = "default_time_control = \"G/5 d/0\"\n\
                 [[clock]]\nboard_serial = \"13579\"\nname = \"Table 3\"\n\
                 white_side = \"right\"\ntime_control = \"G/10 inc/5\"\n\
                 game_info = { Board = \"3\" }\n";
    let config = write_config(dir.path(), &[], table)?;
    let daemon = Daemon::spawn(bus.address(), &config, &[])?;
    let list = daemon.ctl_json(&["list", "--json"])?;
    assert_eq!(
        list,
        serde_json::json!([]),
        "a table without a port attaches nothing"
    );

    let other = emu(&["--board-serial", "11111"])?;
    ctl_ok(&daemon, &["attach", &other.path]);
    let mine = emu(&["--board-serial", "13579"])?;
    ctl_ok(&daemon, &["attach", &mine.path]);
    let st = daemon.wait_status("1", WAIT, "the table's settings", |v| {
        s(v, "/name") == "Table 3"
            && s(v, "/white_side") == "right"
            && s(v, "/time_control").contains("inc/5")
            && s(v, "/game_info/Board") == "3"
    })?;
    assert_eq!(s(&st, "/board_serial"), "13579", "{st}");
    assert_eq!(s(&st, "/game_state"), "ready", "{st}");
    // G/10 inc/5: ten minutes and the first move's increment.
    assert_eq!(u(&st, "/white_ms"), 605_000, "{st}");

    let st = daemon.wait_status("0", WAIT, "the other board's serial number", |v| {
        s(v, "/board_serial") == "11111"
    })?;
    assert_ne!(s(&st, "/name"), "Table 3", "{st}");
    assert_eq!(s(&st, "/white_side"), "left", "{st}");
    assert_eq!(s(&st, "/time_control"), "G/5 d/0", "{st}");
    Ok(())
}

/// A virtual clock's game is journaled under its name: after SIGKILL the daemon adds the
/// clock again and its game goes on; once detached, it is not added again.
#[test]
fn a_virtual_clock_comes_back_after_a_crash_with_its_game() -> Result<()> {
    let dir = TempDir::new("e2e-virtual")?;
    let bus = PrivateBus::start_session()?;
    let config = write_config(dir.path(), &[], "default_time_control = \"G/5 d/0\"")?;
    let mut daemon = Daemon::spawn(bus.address(), &config, &[])?;
    ctl_ok(&daemon, &["add-virtual", "Board 9"]);
    ctl_ok(&daemon, &["start", "0"]);
    ctl_ok(&daemon, &["press", "0", "white"]);
    daemon.kill();

    let daemon = Daemon::spawn(bus.address(), &config, &[])?;
    let after = daemon.wait_status("0", WAIT, "the virtual clock added again", |v| {
        s(v, "/name") == "Board 9"
    })?;
    assert_eq!(u(&after, "/moves/white"), 1, "the game resumed: {after}");
    assert_eq!(s(&after, "/running"), "black", "{after}");
    // Its board is in memory: the port is a label, not a path.
    assert_eq!(s(&after, "/port"), "virtual:Board 9", "{after}");

    detached_stays_gone(daemon, bus.address(), &config)?;
    Ok(())
}
