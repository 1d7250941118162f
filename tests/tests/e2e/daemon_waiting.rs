//! End to end, clocks whose board is not there: a configured board that is plugged in only
//! after the daemon started, a board named by its serial number attached at run time, a
//! virtual clock across a crash of the daemon, and detached virtual clocks, which leave no
//! files behind but their games. The real
//! `chessclockd`, `chessclock-emu` on a pty, `chessclockctl`, a private dbus-daemon.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use chessclock_tests::e2e::{ctl_ok, detached_stays_gone, emu, files_below};
use chessclock_tests::json::{s, u};
use chessclock_tests::pgn::python_reads;
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

    // The board is plugged in: its udev symlink appears.
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

/// The journal and snapshot files of the state directory (its top level).
fn journals(state: &Path) -> Vec<String> {
    let mut names: Vec<String> = files_below(state)
        .into_iter()
        .filter(|p| p.components().count() == 1)
        .map(|p| p.display().to_string())
        .filter(|n| n.ends_with(".journal") || n.ends_with(".snapshot"))
        .collect();
    names.sort();
    names
}

/// The index of the listed clock named `name`.
fn index_of(daemon: &Daemon, name: &str) -> Result<String> {
    let list = daemon.ctl_json(&["list", "--json"])?;
    let entry = list
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| s(c, "/name") == name)
        .with_context(|| format!("{name} in {list}"))?;
    Ok(entry["index"].as_u64().context("index")?.to_string())
}

/// Attach and detach churn of virtual clocks: a clock detached with `--archive` has its
/// journal and snapshot gone once `detach` answers (docs/reliability.md), its game under way
/// is in `games/` as it stood, with the note saying so; the attached clock keeps its files and
/// game across a restart, and an archived name added again starts afresh. (A plain `detach`
/// keeps the game for the board: `board_identity`, `supervisor/identity_tests.rs`.)
#[test]
fn detached_virtual_clocks_leave_no_files_and_their_games_in_games() -> Result<()> {
    let dir = TempDir::new("e2e-detach")?;
    let bus = PrivateBus::start_session()?;
    let config = write_config(dir.path(), &[], "default_time_control = \"G/5 d/0\"")?;
    let state = dir.path().join("state");
    let mut daemon = Daemon::spawn(bus.address(), &config, &[])?;
    for name in ["a", "b", "c"] {
        ctl_ok(&daemon, &["add-virtual", name]);
    }
    // a (0): a game under way; b (1): none started; c (2): stays attached with its game.
    for clock in ["0", "2"] {
        ctl_ok(&daemon, &["start", clock]);
        ctl_ok(&daemon, &["press", clock, "white"]);
    }
    let each = |names: &[&str]| -> Vec<String> {
        names
            .iter()
            .flat_map(|n| {
                [
                    format!("virtual-{n}.journal"),
                    format!("virtual-{n}.snapshot"),
                ]
            })
            .collect()
    };
    assert_eq!(
        journals(&state),
        each(&["a", "b", "c"]),
        "{:?}",
        files_below(&state)
    );
    for round in 1..=3 {
        let (a, b) = (index_of(&daemon, "a")?, index_of(&daemon, "b")?);
        ctl_ok(&daemon, &["detach", &a, "--archive"]);
        ctl_ok(&daemon, &["detach", &b, "--archive"]);
        assert_eq!(
            journals(&state),
            each(&["c"]),
            "round {round}: {:?}",
            files_below(&state)
        );
        // The names again: new clocks, new games.
        ctl_ok(&daemon, &["add-virtual", "a"]);
        ctl_ok(&daemon, &["add-virtual", "b"]);
        let a = index_of(&daemon, "a")?;
        let st = daemon.ctl_json(&["status", &a, "--json"])?;
        assert_eq!(s(&st, "/status"), "ready", "round {round}: afresh: {st}");
        ctl_ok(&daemon, &["start", &a]);
        ctl_ok(&daemon, &["press", &a, "white"]);
    }
    // Three games of a were under way when it was detached: each is in games/, as it stood.
    let records: Vec<PathBuf> = files_below(&state.join("games"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| state.join("games").join(p))
        .filter(|p| {
            std::fs::read_to_string(p)
                .is_ok_and(|t| t.contains("detached: the game was archived as it stood"))
        })
        .collect();
    assert_eq!(records.len(), 3, "{:?}", files_below(&state));
    for json in &records {
        let pgn = json.with_extension("pgn");
        let games = python_reads(&pgn).with_context(|| pgn.display().to_string())?;
        assert_eq!(games.len(), 1, "{}", pgn.display());
        assert_eq!(s(&games[0], "/headers/Result"), "*", "{}", pgn.display());
    }
    // A restart keeps every attached clock's files and game.
    daemon.kill();
    let daemon = Daemon::spawn(bus.address(), &config, &[])?;
    let c = index_of(&daemon, "c")?;
    let st = daemon.ctl_json(&["status", &c, "--json"])?;
    assert_eq!(u(&st, "/moves/white"), 1, "c's game came back: {st}");
    assert_eq!(
        journals(&state),
        each(&["a", "b", "c"]),
        "{:?}",
        files_below(&state)
    );
    Ok(())
}
