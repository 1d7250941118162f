//! The D-Bus API's clock objects (docs/dbus-api.md), through a real bus: every method
//! (start, press, pause, resume, results, draw claims, text, beeps, sides, move counters),
//! the signals they cause (`StateChanged`, `Pressed`, `Flag`, `Result`, `PropertiesChanged`)
//! and the typed errors they fail with, and the CLI verbs built on them.
//!
//! The real `chessclockd` runs on a private dbus-daemon with an emulated board from the real
//! `chessclock-emu` on a pty; a zbus client records every signal. Each test asserts the
//! member's real effect: what the emulated clock received, what the engine's snapshot says,
//! which signals came. Waits poll with a deadline; no assertion is about how long something
//! took.

use chessclock_tests::ClockFields;
use std::time::Duration;

use anyhow::{Result, anyhow};
use chessclock_api::names::{CLOCK_INTERFACE, clock_path};
use chessclock_tests::bus_client::{
    BusRig, Client, assert_fails, is, pressed, props_changed, state_changed, two_strings,
};
use chessclock_tests::json::{host_command, s, u};
use chessclock_tests::rig::{WAIT, is_set_and_run};
use serde_json::Value;
use zbus::Message;

/// The `StateChanged` signal of clock 0 from `old` to `new`.
fn state_change(m: &Message, old: &str, new: &str) -> bool {
    is(m, &clock_path(0), "StateChanged")
        && state_changed(m).is_some_and(|(o, n, _)| o == old && n == new)
}

/// A `PropertiesChanged` of clock 0 carrying `prop`.
fn prop_change(m: &Message, prop: &str) -> Option<Value> {
    if !is(m, &clock_path(0), "PropertiesChanged") {
        return None;
    }
    let (iface, values) = props_changed(m)?;
    (iface == CLOCK_INTERFACE)
        .then(|| values.get(prop).cloned())
        .flatten()
}

/// Wait for clock 0's `StateChanged` from `old` to `new`.
fn wait_state(c: &Client, mark: usize, old: &str, new: &str) -> Result<Message> {
    let what = format!("StateChanged {old} -> {new}");
    Ok(c.wait_signal(mark, &what, |m| state_change(m, old, new))?.1)
}

/// Wait for clock 0's `GameState` to change to `state`.
fn wait_game_state(c: &Client, mark: usize, state: &str) -> Result<()> {
    c.wait_signal(mark, &format!("GameState {state}"), |m| {
        prop_change(m, "GameState") == Some(Value::from(state))
    })?;
    Ok(())
}

/// Wait for clock 0's `Result` signal; its result and reason.
fn wait_result(c: &Client, mark: usize, what: &str) -> Result<Option<(String, String)>> {
    let (_, m) = c.wait_signal(mark, what, |m| result_signal(m).is_some())?;
    Ok(result_signal(&m))
}

/// Clock 0's `Result` signal.
fn result_signal(m: &Message) -> Option<(String, String)> {
    is(m, &clock_path(0), "Result")
        .then(|| two_strings(m))
        .flatten()
}

/// The text of an emulator event showing ASCII text.
fn ascii_text(v: &Value) -> Option<&str> {
    host_command(v, "ascii")
        .and_then(|c| c.get("text"))
        .and_then(Value::as_str)
}

/// Is this emulator event a set-and-run with `half` ("left", "right") running?
fn runs(v: &Value, half: &str) -> bool {
    is_set_and_run(v) && v.pointer("/command/run").and_then(Value::as_str) == Some(half)
}

#[test]
fn start_press_pause_resume_signal_and_change_properties() -> Result<()> {
    let mut r = BusRig::start("G/5 d/0")?;
    let c = &r.client;
    let clock = r.ready_clock0()?;

    assert_fails(c.run(clock.start("purple")), "InvalidArgument", "");
    assert_fails(c.run(clock.press("white")), "NotAllowed", "not started");
    assert_fails(c.run(clock.resume()), "NotAllowed", "nothing to resume");

    let mark = c.mark();
    let emu_mark = r.emu.mark();
    c.run(clock.start("white"))?;
    let m = wait_state(c, mark, "ready", "running")?;
    assert_eq!(state_changed(&m).map(|t| t.2), Some("start".into()));
    wait_game_state(c, mark, "running")?;
    c.wait_signal(mark, "Snapshot with White running", |m| {
        prop_change(m, "Snapshot").is_some_and(|v| s(&v, "/running") == "white")
    })?;
    assert_eq!(c.run(clock.game_state())?, "running");
    r.emu
        .wait_for(emu_mark, WAIT, "White's half runs", |v| runs(v, "left"))?;
    assert_fails(c.run(clock.start("white")), "NotAllowed", "started already");
    assert_fails(c.run(clock.press("black")), "NotAllowed", "White's turn");
    assert_fails(c.run(clock.press("grey")), "InvalidArgument", "");

    // White thinks a moment (the sleep only makes the move take time).
    std::thread::sleep(Duration::from_millis(300));
    let mark = c.mark();
    let emu_mark = r.emu.mark();
    c.run(clock.press("white"))?;
    let (_, m) = c.wait_signal(mark, "Pressed", |m| is(m, &clock_path(0), "Pressed"))?;
    let (side, mv, move_ms, white_ms, black_ms) =
        pressed(&m).ok_or_else(|| anyhow!("Pressed has the wrong signature"))?;
    assert_eq!((side.as_str(), mv), ("white", 1), "White's first move");
    assert!(move_ms >= 300, "White thought at least 0.3 s: {move_ms}");
    assert_eq!(
        white_ms + move_ms,
        300_000,
        "sudden death: White's time is 5 min minus the move"
    );
    assert_eq!(black_ms, 300_000, "Black has not moved");
    let snap = c.snapshot(&clock)?;
    assert_eq!(
        u(&snap, "/white_ms"),
        white_ms,
        "White's time is static now: {snap}"
    );
    assert!(u(&snap, "/black_ms") <= black_ms, "{snap}");
    assert_eq!(s(&snap, "/running"), "black", "{snap}");
    assert_eq!(u(&snap, "/moves/white"), 1, "{snap}");
    let (_, push) = r
        .emu
        .wait_for(emu_mark, WAIT, "Black's half runs", |v| runs(v, "right"))?;
    assert_eq!(
        u(&push, "/command/left_s"),
        white_ms.div_ceil(1000),
        "{push}"
    );
    c.wait_signal(mark, "Snapshot with Black running", |m| {
        prop_change(m, "Snapshot").is_some_and(|v| s(&v, "/running") == "black")
    })?;

    // Black thinks; nothing else happens: no PropertiesChanged for the ticking time (the
    // running side is extrapolated from the Snapshot's as_of_us).
    let quiet = c.mark();
    std::thread::sleep(Duration::from_millis(1500));
    let ticks: Vec<String> = c
        .signals(quiet)
        .iter()
        .filter(|m| is(m, &clock_path(0), "PropertiesChanged"))
        .map(|m| format!("{:?}", props_changed(m)))
        .collect();
    assert!(
        ticks.is_empty(),
        "PropertiesChanged without a state change: {ticks:?}"
    );

    let mark = c.mark();
    c.run(clock.pause())?;
    let m = wait_state(c, mark, "running", "paused")?;
    assert_eq!(state_changed(&m).map(|t| t.2), Some("pause".into()));
    wait_game_state(c, mark, "paused")?;
    assert_fails(c.run(clock.pause()), "NotAllowed", "paused already");
    assert_fails(c.run(clock.press("black")), "NotAllowed", "paused");
    let mark = c.mark();
    c.run(clock.resume())?;
    let m = wait_state(c, mark, "paused", "running")?;
    assert_eq!(state_changed(&m).map(|t| t.2), Some("resume".into()));
    assert_eq!(c.run(clock.game_state())?, "running");
    assert_fails(
        c.run(clock.adjust("white", "main_ms", "add", 1000)),
        "NotAllowed",
        "control while running",
    );
    assert_fails(
        c.run(clock.set_moves("white", 3)),
        "NotAllowed",
        "control while running",
    );
    assert_fails(
        c.run(clock.adjust("white", "main_ms", "multiply", 1000)),
        "InvalidArgument",
        "",
    );
    assert_fails(
        c.run(clock.set_time_control("G/5 inc/2 d/5")),
        "InvalidArgument",
        "bad notation",
    );
    let mark = c.mark();
    c.run(clock.press("black"))?;
    let (_, m) = c.wait_signal(mark, "Black's Pressed", |m| {
        is(m, &clock_path(0), "Pressed")
    })?;
    let (side, mv, ..) = pressed(&m).ok_or_else(|| anyhow!("Pressed signature"))?;
    assert_eq!((side.as_str(), mv), ("black", 1), "Black's first move");
    Ok(())
}

#[test]
fn a_flag_signals_flag_result_and_state() -> Result<()> {
    let r = BusRig::start("G/1s d/0")?;
    let c = &r.client;
    let clock = r.ready_clock0()?;
    let mark = c.mark();
    c.run(clock.start("white"))?;
    let (_, flag) = c.wait_signal(mark, "Flag", |m| is(m, &clock_path(0), "Flag"))?;
    assert_eq!(
        two_strings(&flag),
        Some(("white".into(), "time".into())),
        "White's flag fell on time"
    );
    let res = wait_result(c, mark, "Result")?;
    assert_eq!(res.map(|r| r.0), Some("0-1".into()));
    wait_state(c, mark, "running", "flagged")?;
    wait_game_state(c, mark, "flagged")?;
    let snap = c.snapshot(&clock)?;
    assert_eq!(s(&snap, "/result"), "0-1", "{snap}");
    assert_eq!(s(&snap, "/flags/0/side"), "white", "{snap}");
    assert_eq!(u(&snap, "/white_ms"), 0, "{snap}");
    assert_fails(
        c.run(clock.resume()),
        "NotAllowed",
        "the flagged side has no time",
    );
    Ok(())
}

#[test]
fn set_result_ends_the_game_and_the_cli_result_verb_too() -> Result<()> {
    let mut r = BusRig::start("G/5 d/0")?;
    let c = &r.client;
    let clock = r.ready_clock0()?;
    assert_fails(c.run(clock.set_result("1-0")), "NotAllowed", "no game yet");
    c.run(clock.start("white"))?;
    assert_fails(c.run(clock.set_result("2-0")), "InvalidArgument", "");
    let mark = c.mark();
    let emu_mark = r.emu.mark();
    c.run(clock.set_result("1-0"))?;
    let res = wait_result(c, mark, "Result")?;
    assert_eq!(res, Some(("1-0".into(), "board".into())));
    wait_state(c, mark, "running", "ended")?;
    wait_game_state(c, mark, "ended")?;
    assert_eq!(c.run(clock.game_state())?, "ended");
    let snap = c.snapshot(&clock)?;
    assert_eq!(s(&snap, "/result"), "1-0", "{snap}");
    assert_eq!(s(&snap, "/running"), "", "nothing runs: {snap}");
    r.emu
        .wait_for(emu_mark, WAIT, "the result on the clock", |v| {
            ascii_text(v) == Some("1-0")
        })?;
    assert_fails(
        c.run(clock.set_result("0-1")),
        "NotAllowed",
        "ended already",
    );

    // The CLI verb on a new game.
    let mark = c.mark();
    r.ctl_ok(&["new-game", "0"]);
    wait_state(c, mark, "ended", "ready")?;
    r.ctl_ok(&["start", "0", "--side", "black"]);
    r.ctl_ok(&["result", "0", "1/2-1/2"]);
    let res = wait_result(c, mark, "the CLI's Result")?;
    assert_eq!(res, Some(("1/2-1/2".into(), "board".into())));
    let st = r.daemon.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(s(&st, "/game_state"), "ended", "{st}");
    assert_eq!(s(&st, "/result"), "1/2-1/2", "{st}");
    Ok(())
}

#[test]
fn claim_draw_under_double_flag_by_bus_and_by_cli() -> Result<()> {
    // One second of main time: White flags into extra time at once.
    let r = BusRig::start("G/1s df/30:5:hybrid")?;
    let c = &r.client;
    let clock = r.ready_clock0()?;
    assert_fails(
        c.run(clock.claim_draw("black")),
        "NotAllowed",
        "no game yet",
    );
    assert_fails(c.run(clock.claim_draw("nobody")), "InvalidArgument", "");
    for by_cli in [false, true] {
        c.run(clock.start("white"))?;
        r.wait_snapshot(&clock, "White in extra time", |v| {
            s(v, "/phase/white") == "extra"
        })?;
        assert_fails(
            c.run(clock.claim_draw("white")),
            "NotAllowed",
            "the side in extra time cannot claim",
        );
        let mark = c.mark();
        if by_cli {
            r.ctl_ok(&["claim", "0", "black"]);
        } else {
            c.run(clock.claim_draw("black"))?;
        }
        let res = wait_result(c, mark, "Result")?;
        assert_eq!(
            res,
            Some(("1/2-1/2".into(), "draw_claim_opponent_in_extra".into())),
            "cli: {by_cli}"
        );
        wait_state(c, mark, "running", "ended")?;
        assert_eq!(c.run(clock.game_state())?, "ended");
        c.run(clock.new_game())?;
    }
    // No claims under other methods.
    c.run(clock.set_time_control("G/5 d/0"))?;
    c.run(clock.start("white"))?;
    assert_fails(c.run(clock.claim_draw("black")), "NotAllowed", "");
    Ok(())
}

// ---- Clock: the display and the counters ------------------------------------------------------

#[test]
fn show_text_and_beep_reach_the_clock() -> Result<()> {
    let mut r = BusRig::start("G/5 d/0")?;
    let c = &r.client;
    let clock = r.ready_clock0()?;

    let mark = r.emu.mark();
    c.run(clock.show_text("HELLO", 300))?;
    let (at, _) = r.emu.wait_for(mark, WAIT, "the ASCII text", |v| {
        ascii_text(v) == Some("HELLO")
    })?;
    // After its time the text goes (END) and the clock shows the times again.
    // (The emulator may report its display change before the command that caused it.)
    r.emu.wait_for(at, WAIT, "the end of the text", |v| {
        host_command(v, "end").is_some()
    })?;
    r.emu.wait_for(at, WAIT, "the times shown again", |v| {
        v.get("event").and_then(Value::as_str) == Some("display")
            && v.get("text") == Some(&Value::Null)
            && v.get("left").and_then(Value::as_str) == Some("5:00")
    })?;

    // Longer than 10 s: refused, nothing shown.
    assert_fails(
        c.run(clock.show_text("LONG", 10_001)),
        "InvalidArgument",
        "text for more than 10000 ms",
    );

    // Longer than the DGT 3000's 8 characters: cut.
    let mark = r.emu.mark();
    c.run(clock.show_text("ABCDEFGHIJ", 200))?;
    r.emu.wait_for(mark, WAIT, "the text cut to 8", |v| {
        ascii_text(v) == Some("ABCDEFGH")
    })?;

    let mark = r.emu.mark();
    c.run(clock.beep(640))?;
    let (_, beep) = r
        .emu
        .wait_for(mark, WAIT, "a beep", |v| host_command(v, "beep").is_some())?;
    assert_eq!(
        u(&beep, "/command/units"),
        10,
        "640 ms in 64 ms units: {beep}"
    );

    // The CLI verbs.
    let mark = r.emu.mark();
    r.ctl_ok(&["text", "0", "CLI OK", "--ms", "200"]);
    r.emu.wait_for(mark, WAIT, "the CLI's text", |v| {
        ascii_text(v) == Some("CLI OK")
    })?;
    let mark = r.emu.mark();
    r.ctl_ok(&["beep", "0", "--ms", "320"]);
    let (_, beep) = r.emu.wait_for(mark, WAIT, "the CLI's beep", |v| {
        host_command(v, "beep").is_some()
    })?;
    assert_eq!(u(&beep, "/command/units"), 5, "{beep}");
    Ok(())
}

#[test]
fn set_white_side_swaps_the_halves() -> Result<()> {
    // Different times per side, so the halves tell who is where.
    let mut r = BusRig::start("W{G/5 d/0} B{G/3 d/0}")?;
    let c = &r.client;
    let clock = r.ready_clock0()?;
    assert_eq!(c.run(clock.white_side())?, "left");
    assert_fails(c.run(clock.set_white_side("middle")), "InvalidArgument", "");

    let mark = c.mark();
    let emu_mark = r.emu.mark();
    c.run(clock.set_white_side("right"))?;
    c.wait_signal(mark, "WhiteSide changed", |m| {
        prop_change(m, "WhiteSide") == Some(Value::from("right"))
    })?;
    assert_eq!(c.run(clock.white_side())?, "right");
    let (_, push) = r.emu.wait_for(emu_mark, WAIT, "the swapped halves", |v| {
        is_set_and_run(v)
            && v.pointer("/command/left_s").and_then(Value::as_u64) == Some(180)
            && v.pointer("/command/right_s").and_then(Value::as_u64) == Some(300)
    })?;
    assert_eq!(s(&push, "/command/run"), "none", "nothing runs yet: {push}");

    // The lever still has its left end up: the left player (Black now) is to move, so a
    // start for White starts Black (the lever decides, docs/dbus-api.md `Start`).
    let emu_mark = r.emu.mark();
    c.run(clock.start("white"))?;
    r.emu
        .wait_for(emu_mark, WAIT, "Black's half (left) runs", |v| {
            runs(v, "left")
        })?;
    let snap = c.snapshot(&clock)?;
    assert_eq!(s(&snap, "/running"), "black", "{snap}");
    let emu_mark = r.emu.mark();
    c.run(clock.press("black"))?;
    r.emu
        .wait_for(emu_mark, WAIT, "White's half (right) runs", |v| {
            runs(v, "right")
        })?;

    // And back, mid-game: the next push swaps again (White, running, is on the left now).
    let emu_mark = r.emu.mark();
    c.run(clock.set_white_side("left"))?;
    r.emu
        .wait_for(emu_mark, WAIT, "White's half (left) runs", |v| {
            runs(v, "left")
                && v.pointer("/command/left_s").and_then(Value::as_u64) <= Some(300)
                && v.pointer("/command/right_s").and_then(Value::as_u64) <= Some(180)
        })?;
    let st = r.daemon.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(s(&st, "/white_side"), "left", "{st}");
    Ok(())
}

#[test]
fn set_moves_corrects_the_counters() -> Result<()> {
    let r = BusRig::start("40/90 SD/30")?;
    let c = &r.client;
    let clock = r.ready_clock0()?;
    assert_fails(c.run(clock.set_moves("left", 3)), "InvalidArgument", "");
    let mark = c.mark();
    c.run(clock.set_moves("black", 3))?;
    let snap = c.snapshot(&clock)?;
    assert_eq!(u(&snap, "/moves/black"), 3, "{snap}");
    assert_eq!(u(&snap, "/moves/white"), 0, "{snap}");
    c.wait_signal(mark, "the Snapshot with the new counter", |m| {
        prop_change(m, "Snapshot")
            .is_some_and(|v| v.pointer("/moves/black") == Some(&Value::from(3)))
    })?;
    // Past the 40th move the second period's time is due: 90 + 30 minutes.
    c.run(clock.set_moves("white", 40))?;
    let snap = c.snapshot(&clock)?;
    assert_eq!(u(&snap, "/moves/white"), 40, "{snap}");
    assert_eq!(u(&snap, "/white_ms"), 120 * 60_000, "{snap}");
    assert_eq!(u(&snap, "/black_ms"), 90 * 60_000, "{snap}");

    // While running: not allowed; paused: allowed (the CLI verb).
    c.run(clock.start("white"))?;
    assert_fails(c.run(clock.set_moves("white", 41)), "NotAllowed", "");
    let out = r.daemon.ctl(&["moves", "0", "white", "41"]);
    assert_eq!(out.status.code(), Some(1), "moves while running fails");
    r.ctl_ok(&["pause", "0"]);
    r.ctl_ok(&["moves", "0", "black", "7"]);
    let st = r.daemon.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(u(&st, "/moves/black"), 7, "{st}");
    assert_eq!(u(&st, "/moves/white"), 40, "{st}");
    r.ctl_ok(&["resume", "0"]);
    let st = r.daemon.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(s(&st, "/game_state"), "running", "{st}");
    Ok(())
}
