//! End to end, observe mode: a clock that is not in PC mode is offered observe mode in
//! `status`; in observe mode the clock runs its own game (the real `chessclock-emu`, set and
//! started by the arbiter), chessclockd sends it no set-and-run, takes the times from its
//! reports and the turns from its lever, and records them with the moves on the board; the
//! live PGN (python-chess reads it) has every move with the clock's `[%clk]`.

use std::time::Duration;

use anyhow::{Context, Result};
use chessclock_tests::bus_client::Client;
use chessclock_tests::e2e::{ctl_ok, press_lever};
use chessclock_tests::json::s;
use chessclock_tests::pgn::{python_reads, sans};
use chessclock_tests::rig::is_set_and_run;
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(10);

#[test]
fn an_observed_clock_runs_its_own_game_and_its_times_go_into_the_pgn() -> Result<()> {
    // Driven, the clock refuses: status says so and offers observe mode, naming the board.
    let (dir, bus, mut emu, d) = crate::observe_checks::refused("observe")?;
    let text = ctl_ok(&d, &["status", "0"]);
    assert!(
        text.contains("chessclockctl mode board:1 observe"),
        "{text}"
    );

    ctl_ok(&d, &["mode", "0", "observe"]);
    let st = d.wait_status("0", WAIT, "observe mode", |v| {
        s(v, "/mode") == "observe" && s(v, "/device_state") == "ready"
    })?;
    assert_eq!(s(&st, "/game_state"), "ready", "{st}");
    let quiet_from = emu.mark();
    // What chessclockd cannot do to a clock it only follows.
    for args in [&["start", "0"][..], &["text", "0", "HI"]] {
        let out = d.ctl(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("observe mode"), "{args:?}: {err}");
    }

    // What the clock runs is declared, for the record (the clock is not set).
    ctl_ok(&d, &["set", "0", "G/5"]);
    let st = d.ctl_json(&["status", "0", "--json"])?;
    assert!(s(&st, "/time_control").starts_with("G/5"), "{st}");

    // The arbiter sets the clock to 5 minutes a side and starts it: White (left) runs.
    emu.send("own-game 300")?;
    let st = d.wait_status("0", WAIT, "the clock running", |v| {
        s(v, "/game_state") == "running" && s(v, "/running") == "white"
    })?;
    assert!(
        st["white_ms"]
            .as_u64()
            .is_some_and(|ms| ms <= 300_000 && ms % 1000 == 0),
        "{st}"
    );

    let client = Client::connect(bus.address())?;
    let game = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"];
    let want = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"];
    for (i, uci) in game.iter().enumerate() {
        if i == 2 {
            // White thinks: the clock's seconds go by before Bc4.
            d.wait_status("0", WAIT, "White's clock to run", |v| {
                v["white_ms"].as_u64().is_some_and(|ms| ms <= 298_000)
            })?;
        }
        let mark = client.mark();
        emu.send(&format!("move {uci}"))?;
        client.wait_signal(mark, "a Move signal", |m| {
            m.header().member().is_some_and(|n| n == "Move")
        })?;
        let st = press_lever(&mut emu, &d, "0")?;
        let next = if i % 2 == 0 { "black" } else { "white" };
        if i + 1 < game.len() {
            assert_eq!(s(&st, "/running"), next, "the lever decides who runs: {st}");
        }
    }
    // The mate on the board is the observed game's result (the clock is not driven); an
    // arbiter's result after it is refused.
    let st = d.wait_status("0", WAIT, "the result", |v| s(v, "/game_state") == "ended")?;
    assert_eq!(s(&st, "/result"), "1-0");
    let again = d.ctl(&["result", "0", "0-1"]);
    assert!(
        !again.status.success(),
        "the game has its result from the board"
    );
    assert_eq!(st["moves_san"].as_array().map(Vec::len), Some(want.len()));
    // The position on D-Bus is the board's, with Black to move after the mate.
    assert_eq!(
        s(&st, "/fen"),
        "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4",
        "{st}"
    );

    // The PGN: every move with the clock's time, read by python-chess.
    let pgn = ctl_ok(&d, &["pgn", "0"]);
    let file = dir.path().join("observed.pgn");
    std::fs::write(&file, &pgn)?;
    let games = python_reads(&file)?;
    assert_eq!(games.len(), 1, "{pgn}");
    assert_eq!(sans(&games[0]), want, "{pgn}");
    assert_eq!(s(&games[0], "/headers/Result"), "1-0", "{pgn}");
    assert_eq!(
        s(&games[0], "/headers/TimeControl"),
        "300",
        "the declared control: {pgn}"
    );
    let clks = games[0]["clk"].as_array().context("clk")?;
    assert_eq!(clks.len(), want.len(), "{pgn}");
    let secs: Vec<f64> = clks.iter().filter_map(Value::as_f64).collect();
    assert_eq!(secs.len(), want.len(), "every move has [%clk]: {pgn}");
    for s in &secs {
        assert!(*s <= 300.0 && *s > 200.0 && s.fract() == 0.0, "{pgn}");
    }
    // The clock's time, not a configured one: White's Bc4 came after it ran.
    assert!(secs[2] <= 298.0 && secs[0] >= secs[2], "{pgn}");

    // The live file has the same game (the writer is the drive mode's).
    let live = dir.path().join("state/live");
    let mut read = Vec::new();
    for _ in 0..100 {
        read = python_reads(&live.join("round-1/games.pgn")).unwrap_or_default();
        if read.first().is_some_and(|g| sans(g).len() == want.len()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        read.first().map(sans),
        Some(want.map(String::from).to_vec())
    );

    // chessclockd never wrote to the clock's display after the switch.
    let written: Vec<&Value> = emu.seen()[quiet_from..]
        .iter()
        .filter(|v| is_set_and_run(v))
        .collect();
    assert!(
        written.is_empty(),
        "set-and-run in observe mode: {written:?}"
    );

    // Back to driving: allowed, and the clock is taken over (it refuses: not in PC mode).
    ctl_ok(&d, &["mode", "0", "drive"]);
    d.wait_status("0", WAIT, "drive mode", |v| s(v, "/mode") == "drive")?;
    Ok(())
}
