//! The CLI verbs that read the daemon through the D-Bus API (docs/dbus-api.md), live: `status`
//! and `list` (their JSON shapes and the names a clock goes by), `monitor` (the signals as
//! events) and `watch` (a table on a terminal, JSON lines otherwise).
//!
//! The real `chessclockctl` runs against the real `chessclockd` on a private dbus-daemon with
//! emulated boards from the real `chessclock-emu` on ptys; long-running verbs are read line
//! by line. Waits poll with a deadline; no assertion is about how long something took.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use chessclock_api::names::clock_path;
use chessclock_tests::bus_client::BusRig;
use chessclock_tests::json::{s, u};
use chessclock_tests::rig::{Daemon, Spawned, WAIT};
use serde_json::Value;

/// `chessclockctl VERB --json` lists `n` clocks; the list.
#[track_caller]
fn assert_listed(d: &Daemon, verb: &str, n: usize) -> Result<Value> {
    let all = d.ctl_json(&[verb, "--json"])?;
    assert_eq!(all.as_array().map(Vec::len), Some(n), "{all}");
    Ok(all)
}

/// Has the monitor printed a `TimeControl` change yet (waiting a little)?
fn printed_a_change(monitor: &mut Spawned) -> bool {
    let tick = Duration::from_millis(300);
    monitor
        .wait_line(0, tick, "TimeControl", |l| {
            l.contains("TimeControl") || l.contains("time control now")
        })
        .is_ok()
}

/// A monitor JSON event without its `time` (which it must have, RFC 3339).
fn timeless(ev: &Value) -> Result<Value> {
    let mut ev = ev.clone();
    let time = ev
        .as_object_mut()
        .and_then(|o| o.remove("time"))
        .unwrap_or_default();
    let time = time.as_str().unwrap_or_default();
    if time.len() != 29 || &time[10..11] != "T" {
        bail!("no RFC 3339 time in {ev}: {time:?}");
    }
    Ok(ev)
}

/// Does a `watch --json` frame show exactly one clock, its game in `state`?
fn one_clock_in(state: &str) -> impl Fn(&Value) -> bool + Copy + '_ {
    move |v: &Value| {
        v.as_array()
            .is_some_and(|a| a.len() == 1 && s(&a[0], "/game_state") == state)
    }
}

#[test]
fn status_and_list_json_shapes_and_clock_names() -> Result<()> {
    let r = BusRig::start("G/5 d/0")?;
    let d = &r.daemon;
    let st = d.wait_status("0", WAIT, "the board serial", |v| {
        !s(v, "/board_serial").is_empty()
    })?;
    let serial = s(&st, "/board_serial").to_owned();
    assert!(
        serial.bytes().all(|b| b.is_ascii_digit()),
        "the emulated board's serial is a number: {serial}"
    );

    // Without CLOCK: an array, also of one; with CLOCK: the object.
    let all = assert_listed(d, "status", 1)?;
    assert_eq!(u(&all, "/0/index"), 0, "{all}");
    assert_listed(d, "list", 1)?;
    let c0 = clock_path(0);
    for name in ["0", c0.as_str(), r.emu.path.as_str(), serial.as_str()] {
        let one = d.ctl_json(&["status", name, "--json"])?;
        assert!(one.is_object(), "status {name}: {one}");
        assert_eq!(s(&one, "/clock"), c0, "status {name}: {one}");
        for key in [
            "index",
            "name",
            "port",
            "model",
            "firmware",
            "board_serial",
            "connected",
            "device_state",
            "game_state",
            "time_control",
            "white_side",
            "as_of_us",
            "t_ms",
            "white_ms",
            "black_ms",
            "text",
            "running",
            "status",
            "phase",
            "moves",
            "detail",
            "result",
        ] {
            assert!(
                one.get(key).is_some(),
                "status {name} --json has {key}: {one}"
            );
        }
    }
    let text = r.ctl_ok(&["status", &serial]);
    assert!(
        text.contains("Clock 0") && text.contains("G/5 d/0"),
        "{text}"
    );

    // A second board with the same serial: the number is ambiguous, indices are not.
    let emu2 = r.another_emu_with(&["--board-serial", &serial])?;
    r.ctl_ok(&["attach", &emu2.path]);
    d.wait_status("1", WAIT, "the second board's serial", |v| {
        s(v, "/board_serial") == serial
    })?;
    assert_listed(d, "status", 2)?;
    assert_listed(d, "list", 2)?;
    assert_eq!(
        s(&d.ctl_json(&["status", "1", "--json"])?, "/port"),
        emu2.path
    );
    let out = d.ctl(&["status", &serial, "--json"]);
    assert_eq!(out.status.code(), Some(1), "an ambiguous serial fails");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&serial) && err.contains("0, 1"), "{err}");
    let text = r.ctl_ok(&["list"]);
    assert_eq!(text.lines().count(), 3, "a header and two clocks: {text}");

    // Clock 0 detached: "0" is no index any more, and no serial either.
    r.ctl_ok(&["detach", "0"]);
    let out = d.ctl(&["status", "0"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let one = d.ctl_json(&["status", &serial, "--json"])?;
    assert_eq!(
        s(&one, "/clock"),
        clock_path(1),
        "the only board with it: {one}"
    );
    assert_listed(d, "status", 1)?;
    r.ctl_ok(&["detach", "1"]);
    assert_eq!(d.ctl_json(&["status", "--json"])?, serde_json::json!([]));
    assert_eq!(d.ctl_json(&["list", "--json"])?, serde_json::json!([]));
    Ok(())
}

#[test]
fn monitor_prints_events_as_they_happen() -> Result<()> {
    let r = BusRig::start("G/5 d/0")?;
    let address = r.bus.address().to_owned();
    let mut json = Spawned::ctl(&address, &["monitor", "--json"])?;
    let mut human = Spawned::ctl(&address, &["monitor"])?;

    // The monitors subscribe after they start: change the control back and forth until
    // both have printed a change (then they are listening).
    let deadline = Instant::now() + WAIT;
    let (mut json_ok, mut human_ok) = (false, false);
    for control in ["G/6 d/0", "G/5 d/0"].iter().cycle() {
        if json_ok && human_ok {
            break;
        }
        if Instant::now() > deadline {
            bail!(
                "the monitors printed nothing: {:?} {:?}",
                json.seen(),
                human.seen()
            );
        }
        r.ctl_ok(&["set", "0", control]);
        json_ok = json_ok || printed_a_change(&mut json);
        human_ok = human_ok || printed_a_change(&mut human);
    }
    r.ctl_ok(&["set", "0", "G/5 d/0"]);
    let c0 = clock_path(0);
    let name = s(&r.daemon.ctl_json(&["status", "0", "--json"])?, "/name").to_owned();
    // Human lines: `HH:MM:SS clock 0 (NAME): ...`.
    let who0 = format!("clock 0 ({name}): ");
    let (j, h) = (json.seen().len(), human.seen().len());

    r.ctl_ok(&["start", "0"]);
    let (_, ev) = json.wait_json(j, "state_changed", |v| s(v, "/event") == "state_changed")?;
    assert_eq!(
        timeless(&ev)?,
        serde_json::json!({"event": "state_changed", "clock": c0, "name": name, "old": "ready",
                           "new": "running", "reason": "start"})
    );
    let (_, line) = human.wait_line(h, WAIT, "the start", |l| {
        l.contains(&format!("{who0}game ready -> running (start)"))
    })?;
    let time = line.split(' ').next().unwrap_or_default();
    assert!(
        time.len() == 8 && time.as_bytes()[2] == b':' && time.as_bytes()[5] == b':',
        "the wall time first: {line:?}"
    );

    r.ctl_ok(&["press", "0", "white"]);
    let (_, ev) = json.wait_json(j, "pressed", |v| s(v, "/event") == "pressed")?;
    assert_eq!(s(&ev, "/clock"), c0, "{ev}");
    assert_eq!(s(&ev, "/side"), "white", "{ev}");
    assert_eq!(u(&ev, "/move"), 1, "{ev}");
    assert_eq!(u(&ev, "/white_ms") + u(&ev, "/move_ms"), 300_000, "{ev}");
    assert_eq!(u(&ev, "/black_ms"), 300_000, "{ev}");
    human.wait_line(h, WAIT, "the press", |l| {
        l.contains(&format!("{who0}white pressed, move 1"))
    })?;

    r.ctl_ok(&["result", "0", "1-0"]);
    let (_, ev) = json.wait_json(j, "result", |v| s(v, "/event") == "result")?;
    assert_eq!(
        timeless(&ev)?,
        serde_json::json!({"event": "result", "clock": c0, "name": name, "result": "1-0",
                           "reason": "board"})
    );
    human.wait_line(h, WAIT, "the result", |l| {
        l.contains(&format!("{who0}result 1-0 (board)"))
    })?;

    // A flag.
    r.ctl_ok(&["new-game", "0"]);
    r.ctl_ok(&["set", "0", "G/1s d/0"]);
    r.ctl_ok(&["start", "0"]);
    let (_, ev) = json.wait_json(j, "flag", |v| s(v, "/event") == "flag")?;
    assert_eq!(
        timeless(&ev)?,
        serde_json::json!({"event": "flag", "clock": c0, "name": name, "side": "white",
                           "reason": "time"})
    );
    human.wait_line(h, WAIT, "the flag", |l| {
        l.contains(&format!("{who0}white flag (time)"))
    })?;

    // Clocks coming and going, and a device state change.
    let emu2 = r.another_emu()?;
    let c1 = clock_path(1);
    r.ctl_ok(&["attach", &emu2.path]);
    json.wait_json(j, "clock_added", |v| {
        s(v, "/event") == "clock_added" && s(v, "/clock") == c1
    })?;
    json.wait_json(j, "clock 1 ready", |v| {
        s(v, "/event") == "properties_changed"
            && s(v, "/clock") == c1
            && s(v, "/changed/DeviceState") == "ready"
    })?;
    human.wait_line(h, WAIT, "the attach", |l| {
        l.contains("clock 1 (") && l.ends_with("): attached")
    })?;
    // A device change in words, not JSON.
    let (_, ready) = human.wait_line(h, WAIT, "clock 1 ready in words", |l| {
        l.contains("clock 1 (") && l.contains("device ready")
    })?;
    assert!(!ready.contains('{'), "{ready}");
    r.ctl_ok(&["detach", "1"]);
    json.wait_json(j, "clock_removed", |v| {
        s(v, "/event") == "clock_removed" && s(v, "/clock") == c1
    })?;
    human.wait_line(h, WAIT, "the detach", |l| {
        l.contains("clock 1 (") && l.ends_with("): detached")
    })?;
    Ok(())
}

#[test]
fn watch_prints_json_lines_when_asked_or_not_on_a_terminal() -> Result<()> {
    let r = BusRig::start("G/5 d/0")?;
    let address = r.bus.address().to_owned();
    let running = one_clock_in("running");
    let ready = one_clock_in("ready");
    // The global -J works before the subcommand as --json does after it.
    let mut json = Spawned::ctl(&address, &["-J", "watch"])?;
    // Not a terminal: JSON lines as well.
    let mut piped = Spawned::ctl(&address, &["watch"])?;
    json.wait_json(0, "a first frame", ready)?;
    piped.wait_json(0, "a first frame", ready)?;

    r.ctl_ok(&["start", "0"]);
    let (_, frame) = json.wait_json(0, "a frame with the game running", running)?;
    assert_eq!(s(&frame, "/0/running"), "white", "{frame}");
    piped.wait_json(0, "a frame with the game running", running)?;
    // Frames come with changes, not with time: a paused game prints no more frames.
    r.ctl_ok(&["pause", "0"]);
    let (n, _) = json.wait_json(0, "a frame with the game paused", one_clock_in("paused"))?;
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(json.seen().len(), n + 1, "{:?}", &json.seen()[n..]);
    Ok(())
}
