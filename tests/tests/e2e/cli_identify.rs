//! Finding a board (issue 44 item 3), through the real daemon, bus and CLI with an emulated
//! DGT 3000 from the real `chessclock-emu` on a pty: `chessclockctl identify` puts the board's
//! number on the clock's display with a beep, then the game's times again; while the game
//! runs it is refused with the reason and the display is left alone; `--all` identifies every
//! clock it may and names the others.
//!
//! Every wait polls the emulator's events or the daemon's answers with a deadline; nothing
//! sleeps to synchronise.

use anyhow::Result;
use chessclock_tests::bus_client::{BusRig, assert_fails};
use chessclock_tests::json::host_command;
use chessclock_tests::rig::WAIT;
use serde_json::Value;

/// A display change of the emulated clock showing `text` (`None`: the times).
fn display(v: &Value, text: Option<&str>) -> bool {
    v.get("event").and_then(Value::as_str) == Some("display")
        && v.get("text").and_then(Value::as_str) == text
}

/// An ASCII text command the board was sent, any text.
fn any_text(v: &Value) -> bool {
    host_command(v, "ascii").is_some()
}

#[test]
fn identify_shows_the_board_number_then_the_times_and_is_refused_while_the_game_runs() -> Result<()>
{
    let mut r = BusRig::start("G/5 d/0")?;
    let c = &r.client;
    let clock = r.ready_clock0()?;
    let said = r.ctl_ok(&["renumber", "0", "137"]);
    assert!(said.contains("137"), "{said}");
    assert_eq!(c.run(clock.board())?, 137);

    // The number with a beep, then the times of the game not started yet.
    let mark = r.emu.mark();
    let out = r.ctl_ok(&["identify", "0", "--seconds", "2"]);
    assert!(
        out.contains("clock 0") && out.contains("shows board 137") && out.contains("2 s"),
        "{out}"
    );
    let (shown, _) = r.emu.wait_for(mark, WAIT, "bd 137 on the display", |v| {
        display(v, Some("bd 137"))
    })?;
    r.emu.wait_for(mark, WAIT, "the beep", |v| {
        host_command(v, "beep").is_some()
    })?;
    r.emu.wait_for(shown, WAIT, "the times again", |v| {
        display(v, None) && v.get("left").and_then(Value::as_str) == Some("5:00")
    })?;

    // The bus method's limit.
    assert_fails(
        c.run(clock.identify(11)),
        "InvalidArgument",
        "more than 10 s",
    );

    // A running game: refused, the reason and the way out said, nothing on the display.
    let started = r.emu.mark();
    c.run(clock.start("white"))?;
    r.emu.wait_for(started, WAIT, "White's time runs", |v| {
        v.get("event").and_then(Value::as_str) == Some("display")
            && v.get("running").and_then(Value::as_str) == Some("left")
    })?;
    let mark = r.emu.mark();
    let out = r.daemon.ctl(&["identify", "0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "refused: {stderr}");
    assert!(
        stderr.contains("running") && stderr.contains("chessclockctl pause 0"),
        "says why and what to do: {stderr}"
    );
    assert_fails(c.run(clock.identify(0)), "NotAllowed", "the game runs");
    // A beep afterwards marks the point by which a text would have been sent.
    c.run(clock.beep(64))?;
    let (beep, _) = r.emu.wait_for(mark, WAIT, "the marker beep", |v| {
        host_command(v, "beep").is_some()
    })?;
    let between = &r.emu.seen()[mark..beep];
    assert!(
        !between
            .iter()
            .any(|v| any_text(v) || display(v, Some("bd 137"))),
        "no text while the game runs: {between:?}"
    );

    // Paused: identified, and the paused times come back.
    c.run(clock.pause())?;
    let mark = r.emu.mark();
    r.ctl_ok(&["identify", "0", "--seconds", "1"]);
    let (shown, _) = r.emu.wait_for(mark, WAIT, "bd 137 while paused", |v| {
        display(v, Some("bd 137"))
    })?;
    r.emu.wait_for(shown, WAIT, "the paused times again", |v| {
        display(v, None) && v.get("running").and_then(Value::as_str) == Some("none")
    })?;
    Ok(())
}

#[test]
fn identify_all_identifies_every_clock_it_may_and_names_the_others() -> Result<()> {
    let mut r = BusRig::start("G/5 d/0")?;
    let c = &r.client;
    let clock = r.ready_clock0()?;
    r.ctl_ok(&["add-virtual", "spare"]);
    let spare = c.clock(&chessclock_api::names::clock_path(1))?;
    r.ready(&spare)?;
    let spare_board = c.run(spare.board())?;

    // Nothing runs: both are identified, one line each.
    let mark = r.emu.mark();
    let out = r.ctl_ok(&["identify", "--all", "--seconds", "1"]);
    let board0 = c.run(clock.board())?;
    assert!(
        out.contains("clock 0 (") && out.contains(&format!("shows board {board0}")),
        "{out}"
    );
    assert!(out.contains(&format!("shows board {spare_board}")), "{out}");
    r.emu.wait_for(mark, WAIT, "clock 0's number", |v| {
        display(v, Some(&format!("bd {board0}")))
    })?;

    // Clock 0's game runs: the spare is identified, clock 0 named with the reason, exit 1.
    c.run(clock.start("white"))?;
    let out = r.daemon.ctl(&["identify", "--all"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("clock 1") && !stdout.contains("clock 0"),
        "{stdout}"
    );
    assert!(
        stderr.contains("1 of 2 clocks not identified") && stderr.contains("clock 0"),
        "{stderr}"
    );

    // --json: every clock with whether it was identified.
    let out = r.daemon.ctl(&["identify", "--all", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout)?;
    let mut identified: Vec<(u64, bool)> = v["clocks"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| (c["index"].as_u64().unwrap_or(99), c["identified"] == true))
                .collect()
        })
        .unwrap_or_default();
    identified.sort_unstable();
    assert_eq!(identified, [(0, false), (1, true)], "{v}");
    Ok(())
}
