//! Shared rig of the daemon end-to-end tests: a private session bus, the real
//! `chessclock-emu` serving an emulated board + clock on a pty, and the real `chessclockd`
//! configured with that board under a time control.
//!
//! Owns starting and readying them, and the waits for the daemon's own view of a change
//! (a press counted, the moves read, a record written): what the emulator shows, the daemon
//! has not necessarily read yet. What the daemon must do is the tests' business.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::Value;

use crate::json::{s, u};
use crate::pgn::{python_reads, sans};
use crate::rig::{Daemon, Emu, WAIT, workspace_bin, write_config};
use crate::{PrivateBus, TempDir};

/// An emulated board and the daemon driving it.
#[derive(Debug)]
pub struct Rig {
    /// The state directory's parent (config, journal, games).
    pub dir: TempDir,
    /// The private bus.
    pub bus: PrivateBus,
    /// The emulated board.
    pub emu: Emu,
    /// The daemon.
    pub daemon: Daemon,
}

/// `chessclock-emu` with `args`.
pub fn emu(args: &[&str]) -> Result<Emu> {
    Emu::spawn(&workspace_bin("chessclock-emu")?, args)
}

/// An emulated board under `G/10 inc/2`, a private bus, and the daemon's configuration, with
/// the live feed in `run/live`: the `RUNTIME_DIRECTORY` systemd gives.
#[derive(Debug)]
pub struct RuntimeDirRig {
    pub dir: TempDir,
    pub bus: PrivateBus,
    pub emu: Emu,
    pub config: PathBuf,
    pub run: PathBuf,
}

impl RuntimeDirRig {
    pub fn new(tag: &str) -> Result<RuntimeDirRig> {
        RuntimeDirRig::with_emu(tag, &[])
    }

    /// The rig with the board served with `emu_args`.
    pub fn with_emu(tag: &str, emu_args: &[&str]) -> Result<RuntimeDirRig> {
        let dir = TempDir::new(tag)?;
        let bus = PrivateBus::start_session()?;
        let emu = emu(emu_args)?;
        let config = write_config(dir.path(), &[(&emu.path, "G/10 inc/2")], "")?;
        let run = dir.path().join("run");
        std::fs::create_dir_all(&run)?;
        Ok(RuntimeDirRig {
            dir,
            bus,
            emu,
            config,
            run,
        })
    }

    /// Start the daemon on the rig (the caller waits for what it needs).
    pub fn spawn(&self) -> Result<Daemon> {
        let run = self.run.to_str().context("a UTF-8 temp path")?;
        Daemon::spawn(
            self.bus.address(),
            &self.config,
            &[("RUNTIME_DIRECTORY", run)],
        )
    }
}

/// A board served with `emu_args` and the daemon configured with it under `control`.
pub fn rig(emu_args: &[&str], control: &str, extra_config: &str) -> Result<Rig> {
    let dir = TempDir::new("e2e")?;
    let bus = PrivateBus::start_session()?;
    let emu = emu(emu_args)?;
    let config = write_config(dir.path(), &[(&emu.path, control)], extra_config)?;
    let daemon = Daemon::spawn(bus.address(), &config, &[])?;
    Ok(Rig {
        dir,
        bus,
        emu,
        daemon,
    })
}

/// Run `chessclockctl args`, which must succeed; its stdout.
pub fn ctl_ok(d: &Daemon, args: &[&str]) -> String {
    let out = d.ctl(args);
    assert!(
        out.status.success(),
        "chessclockctl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Wait until clock 0 is ready; its status.
pub fn ready(d: &Daemon) -> Result<Value> {
    d.wait_status("0", WAIT, "device ready", |v| {
        s(v, "/device_state") == "ready"
    })
}

/// A rig whose clock is ready and whose game under `control` has been started; with the
/// emulator mark taken before the start.
pub fn started(control: &str) -> Result<(Rig, usize)> {
    let mut r = rig(&[], control, "")?;
    ready(&r.daemon)?;
    let mark = r.emu.mark();
    ctl_ok(&r.daemon, &["start", "0"]);
    Ok((r, mark))
}

/// The clock shows whole seconds rounded up; the engine value was read a little later than
/// the push, so it may have moved by the elapsed time: down for a running side, up for a
/// waiting side that gains (hourglass, swing).
pub fn assert_shown(what: &str, shown_s: u64, engine_ms: u64, slack_ms: u64) {
    let low = engine_ms.saturating_sub(slack_ms).div_ceil(1000);
    let high = (engine_ms + slack_ms).div_ceil(1000);
    assert!(
        (low..=high).contains(&shown_s),
        "{what}: clock shows {shown_s} s, engine has {engine_ms} ms (allowed {low}..={high})"
    );
}

/// Detach clock 0, kill the daemon and start it again on `address` with `config`: nothing may
/// come back (remembered clocks are attached before the daemon takes its bus name, so once it
/// answers one that was remembered would be listed). The new daemon.
pub fn detached_stays_gone(mut daemon: Daemon, address: &str, config: &Path) -> Result<Daemon> {
    ctl_ok(&daemon, &["detach", "0"]);
    daemon.kill();
    let daemon = Daemon::spawn(address, config, &[])?;
    let list = daemon.ctl_json(&["list", "--json"])?;
    assert_eq!(list, serde_json::json!([]), "{list}");
    Ok(daemon)
}

/// A command's stdout then stderr, for messages.
pub fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Clock `clock`'s game information (`status --json`'s `game_info`).
pub fn game_info(d: &Daemon, clock: &str) -> Result<Value> {
    Ok(d.ctl_json(&["status", clock, "--json"])?["game_info"].clone())
}

/// The daemon's current round (`round show --json`).
pub fn current_round(d: &Daemon) -> Result<u64> {
    Ok(d.ctl_json(&["round", "show", "--json"])?["round"]
        .as_u64()
        .unwrap_or(0))
}

/// Whether a file directly in `dir` contains `text` (a journal).
pub fn journal_says(dir: &Path, text: &str) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .any(|t| t.contains(text))
}

/// The presses a status counts (`moves` of both sides).
pub fn presses(v: &Value) -> u64 {
    u(v, "/moves/white") + u(v, "/moves/black")
}

/// Press `emu`'s lever and wait until the daemon has counted the press on `clock` (what the
/// emulator shows, it has not necessarily read yet); its status then.
pub fn press_lever(emu: &mut Emu, d: &Daemon, clock: &str) -> Result<Value> {
    let before = presses(&d.ctl_json(&["status", clock, "--json"])?);
    emu.send("lever")?;
    d.wait_status(clock, WAIT, "the press counted", |v| {
        presses(v) == before + 1
    })
}

/// The moves (SAN) of clock 0's board game in a status.
pub fn moves(v: &Value) -> Vec<String> {
    sans(&serde_json::json!({ "san": v["moves_san"] }))
}

/// Wait until the daemon has read exactly the moves `want` on clock 0, with its board ready;
/// its status then.
pub fn wait_moves(d: &Daemon, want: &[&str]) -> Result<Value> {
    d.wait_status("0", WAIT, &format!("the moves {want:?}"), |v| {
        moves(v) == want && s(v, "/device_state") == "ready"
    })
}

/// `chessclockctl pgn 0`, written to `dir/name` and read by python-chess: the PGN and the
/// one game read from it, without errors.
pub fn pgn_read(d: &Daemon, dir: &Path, name: &str) -> Result<(String, Value)> {
    let pgn = ctl_ok(d, &["pgn", "0"]);
    let file = dir.join(name);
    std::fs::write(&file, &pgn)?;
    let mut games = python_reads(&file)?;
    anyhow::ensure!(games.len() == 1, "one game: {pgn}");
    let g = games.remove(0);
    anyhow::ensure!(g["errors"] == serde_json::json!([]), "{pgn}");
    Ok((pgn, g))
}

/// A daemon on `bus` with no board configured (its state in `dir`), given a virtual clock
/// named each of `names` (numbered in order), each probed and ready.
pub fn daemon_with(bus: &PrivateBus, dir: &TempDir, names: &[&str]) -> Result<Daemon> {
    let d = Daemon::spawn(bus.address(), &write_config(dir.path(), &[], "")?, &[])?;
    for (i, name) in names.iter().enumerate() {
        let out = d.ctl(&["add-virtual", name]);
        anyhow::ensure!(out.status.success(), "add-virtual {name}: {out:?}");
        d.wait_status(
            &i.to_string(),
            WAIT,
            "a ready clock with its board serial",
            |v| s(v, "/device_state") == "ready" && !s(v, "/board_serial").is_empty(),
        )?;
    }
    Ok(d)
}

/// Wait until the round folder `dir` holds one finished game's record: one `.pgn` (not a
/// `.tmp` still being written) with its `.json` beside it; the PGN's path.
pub fn wait_record(dir: &Path) -> Result<std::path::PathBuf> {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let found: Vec<_> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
            .collect();
        if let [pgn] = found.as_slice()
            && pgn.with_extension("json").exists()
        {
            return Ok(pgn.clone());
        }
        anyhow::ensure!(
            std::time::Instant::now() < deadline,
            "no game record in {}: {found:?}",
            dir.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Every file below `dir`, its subfolders too, as paths relative to it, sorted.
pub fn files_below(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if let Ok(rel) = p.strip_prefix(dir) {
                found.push(rel.to_path_buf());
            }
        }
    }
    found.sort();
    found
}

/// Wait until clock 0 is ready with a position read from its board's pieces that `fen`
/// accepts; its status then.
pub fn board_read(d: &Daemon, fen: impl Fn(&str) -> bool) -> Result<Value> {
    d.wait_status("0", WAIT, "a ready clock that read the board", |v| {
        s(v, "/device_state") == "ready" && fen(s(v, "/fen"))
    })
}

/// A board as `round show --json` lists it: (board, white, black, result, paper).
pub type Shown = (u64, String, String, String, bool);

/// The boards `round show --json` lists, in its order (board order).
pub fn shown(d: &Daemon) -> Result<Vec<Shown>> {
    let v = d.ctl_json(&["round", "show", "--json"])?;
    Ok(v["boards"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| {
            (
                b["board"].as_u64().unwrap_or(0),
                s(b, "/white").to_owned(),
                s(b, "/black").to_owned(),
                s(b, "/result").to_owned(),
                b["paper"] == Value::Bool(true),
            )
        })
        .collect())
}

/// Wait until the journals directly in the state folder `state` hold `n` presses: the status
/// shows a press a moment before the journal writer has written it, and a SIGKILL in between
/// loses it (docs/reliability.md, a press in flight).
pub fn wait_journaled_presses(state: &Path, n: usize) -> Result<()> {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let held = journaled_presses(state);
        if held == n {
            return Ok(());
        }
        anyhow::ensure!(
            std::time::Instant::now() < deadline,
            "the journals in {} hold {held} presses, not {n}",
            state.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The presses the journals directly in the state folder `state` hold.
pub fn journaled_presses(state: &Path) -> usize {
    std::fs::read_dir(state)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "journal"))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        // `press`, or `press_move` (a press that completed a move on the board).
        .map(|t| t.matches("\"action\":\"press").count())
        .sum()
}
