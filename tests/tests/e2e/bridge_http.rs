//! `chessclock-bridge` over HTTP, for real: the real `chessclockd` on a private dbus-daemon
//! with virtual clocks (`AddVirtual`), the real bridge binary, and an HTTP client. The JSON
//! API must equal `chessclockctl status --json`; the event stream starts with a snapshot,
//! follows presses and clocks coming and going, resumes from `Last-Event-ID`, and follows
//! the daemon restarting. The router's behaviour on its own (status codes, error bodies,
//! validators, SSE framing) is tested in process against a fake daemon:
//! `bridge/src/http/tests.rs`.

use anyhow::Result;
use chessclock_tests::bridge::{Bridge, Sse, stable};
use chessclock_tests::e2e::daemon_with;
use chessclock_tests::json::{s, u};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

#[test]
fn clocks_json_is_the_status_json_and_clocks_are_named_by_index_board_or_name() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-api")?;
    let d = daemon_with(&bus, &dir, &["alpha", "beta"])?;
    let bridge = Bridge::spawn(bus.address(), &[])?;

    let api = bridge.get_json("/api/v1/clocks")?;
    let cli = d.ctl_json(&["status", "--json"])?;
    assert_eq!(api.as_array().map(Vec::len), Some(2), "{api}");
    assert_eq!(
        stable(&api),
        stable(&cli),
        "the bridge and the CLI print the same JSON"
    );

    let by_index = bridge.get_json("/api/v1/clocks/1")?;
    let by_name = bridge.get_json("/api/v1/clocks/beta")?;
    let one = d.ctl_json(&["status", "1", "--json"])?;
    assert_eq!(stable(&by_index), stable(&one));
    assert_eq!(stable(&by_name), stable(&one));
    assert_eq!(s(&by_name, "/name"), "beta");

    // board:N names the clock of board N (virtual clocks: index + 1), in the JSON and the
    // PGN URLs; a board no clock plays is a 404 that says so.
    let by_board = bridge.get_json("/api/v1/clocks/board:2")?;
    assert_eq!(stable(&by_board), stable(&one));
    let (code, pgn) = bridge.get("/pgn/board:2.pgn")?;
    assert_eq!(code, 200, "{pgn}");
    let (code, body) = bridge.get("/api/v1/clocks/board:7")?;
    assert_eq!(code, 404, "{body}");
    assert!(body.contains("no clock plays board 7"), "{body}");
    let (code, body) = bridge.get("/pgn/board:7.pgn")?;
    assert_eq!(code, 404, "{body}");

    // The router's own answers (unknown clocks, methods, errors, validators, SSE framing)
    // are tested in process: bridge/src/http/tests.rs.

    // A running game: the same JSON too, but for the running side's time, which moves.
    assert!(d.ctl(&["start", "0"]).status.success());
    let api: Value = bridge.get_json("/api/v1/clocks/0")?;
    assert_eq!(s(&api, "/running"), "white");
    assert_eq!(s(&api, "/game_state"), "running");
    Ok(())
}

#[test]
fn events_start_with_a_snapshot_follow_presses_and_clocks_and_resume() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-sse")?;
    let d = daemon_with(&bus, &dir, &["alpha"])?;
    let bridge = Bridge::spawn(bus.address(), &[])?;
    let mut sse = Sse::open(&bridge, None)?;
    let (_, snap) = sse.wait(0, "the first event", |_| true)?;
    assert_eq!(snap.kind, "snapshot", "{snap:?}");
    assert_eq!(snap.data["clocks"].as_array().map(Vec::len), Some(1));
    assert_eq!(snap.data["daemon"]["running"], Value::Bool(true));
    assert_eq!(
        stable(&snap.data["clocks"][0]),
        stable(&d.ctl_json(&["status", "0", "--json"])?),
        "the snapshot's clock is the status JSON"
    );

    assert!(d.ctl(&["start", "0"]).status.success());
    // The state after the press may come before or after the Pressed signal (the daemon
    // sends them independently): look for both from here.
    let before_press = sse.mark();
    assert!(d.ctl(&["press", "0", "white"]).status.success());
    let (i, pressed) = sse.wait(1, "the press", |e| e.kind == "pressed")?;
    assert_eq!(s(&pressed.data, "/side"), "white");
    assert_eq!(u(&pressed.data, "/move"), 1);
    assert_eq!(u(&pressed.data, "/index"), 0);
    let (_, after) = sse.wait(before_press, "the state after the press", |e| {
        e.kind == "clock" && e.data["clock"]["moves"]["white"] == 1
    })?;
    let st = d.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(s(&after.data, "/clock/running"), "black");
    assert_eq!(
        u(&after.data, "/clock/white_ms"),
        u(&st, "/white_ms"),
        "White's time after the press, as the CLI reads it (not running, so exact)"
    );
    assert_eq!(u(&pressed.data, "/white_ms"), u(&st, "/white_ms"));

    // Clocks come and go.
    assert!(d.ctl(&["add-virtual", "beta"]).status.success());
    sse.wait(i, "clock 1 appearing", |e| {
        e.kind == "clock" && e.data["clock"]["index"] == 1
    })?;
    assert!(d.ctl(&["detach", "1"]).status.success());
    let (_, gone) = sse.wait(i, "clock 1 removed", |e| e.kind == "removed")?;
    assert_eq!(u(&gone.data, "/index"), 1);

    // A client that saw the snapshot resumes after it: no new snapshot, every event since.
    let mut resumed = Sse::open(&bridge, Some(snap.id))?;
    let (_, first) = resumed.wait(0, "the first resumed event", |_| true)?;
    assert_ne!(first.kind, "snapshot", "{first:?}");
    assert_eq!(first.id, snap.id + 1);
    let (_, again) = resumed.wait(0, "the press, replayed", |e| e.kind == "pressed")?;
    assert_eq!(again.id, pressed.id);
    let ids: Vec<u64> = resumed.seen().iter().map(|e| e.id).collect();
    assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "no gaps: {ids:?}");
    Ok(())
}

#[test]
fn a_daemon_restart_is_followed_and_shown() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-restart")?;
    let mut d = daemon_with(&bus, &dir, &["alpha"])?;
    let mut bridge = Bridge::spawn(bus.address(), &[])?;
    let mut sse = Sse::open(&bridge, None)?;
    sse.wait(0, "the snapshot", |e| e.kind == "snapshot")?;
    let log = bridge.log_mark();

    d.kill();
    let (i, down) = sse.wait(0, "the daemon leaving", |e| e.kind == "daemon")?;
    assert_eq!(
        down.data["daemon"]["running"],
        Value::Bool(false),
        "{down:?}"
    );
    bridge.wait_log(log, "chessclockd left the bus")?;
    let (status, body) = bridge.get("/api/v1/clocks")?;
    assert_eq!(status, 503, "no daemon, no clocks: {body}");
    assert!(body.contains("cannot read chessclockd"), "{body}");

    let d2 = daemon_with(&bus, &TempDir::new("bridge-restart-2")?, &["again"])?;
    let (_, up) = sse.wait(i, "the daemon back", |e| {
        e.kind == "snapshot" && e.data["daemon"]["running"] == Value::Bool(true)
    })?;
    assert_eq!(u(&up.data, "/daemon/restarts"), 1, "{up:?}");
    sse.wait(i, "its clock", |e| {
        e.kind == "clock" && s(&e.data, "/clock/name") == "again"
    })?;
    let api = bridge.get_json("/api/v1/clocks")?;
    assert_eq!(stable(&api), stable(&d2.ctl_json(&["status", "--json"])?));
    Ok(())
}
