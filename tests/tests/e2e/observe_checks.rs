//! End to end, observe mode against the declared control, as DGT LiveChess checks it: the
//! real daemon follows the real `chessclock-emu` running a preset of its own. A clock set
//! wrong at the start and a period of the wrong amount are clock problems (`clock_control`) in `status`
//! naming the clock's times and the control's, with the fix; time the clock adds on the
//! flag reaches the live PGN at once (python-chess reads White's last `[%clk]` with it
//! before White's next move).

use std::time::Duration;

use anyhow::{Context, Result};
use chessclock_tests::bus_client::Client;
use chessclock_tests::e2e::{ctl_ok, emu, press_lever};
use chessclock_tests::json::s;
use chessclock_tests::pgn::{python_reads, sans};
use chessclock_tests::rig::{Daemon, Emu, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(10);

/// The clock's problem against its declared control in a status, if any (the one list of
/// problems).
fn clock_problem(v: &Value) -> Option<(String, String)> {
    v["problems"]
        .as_array()?
        .iter()
        .find(|p| p["kind"] == "clock_control")
        .map(|p| (s(p, "/text").to_owned(), s(p, "/fix").to_owned()))
}

struct Observed {
    dir: TempDir,
    _bus: PrivateBus,
    emu: Emu,
    d: Daemon,
    client: Client,
}

/// A daemon driving an emulated clock that is not in PC mode (G/5), once it says the clock
/// refuses.
pub(crate) fn refused(name: &str) -> Result<(TempDir, PrivateBus, Emu, Daemon)> {
    let dir = TempDir::new(name)?;
    let bus = PrivateBus::start_session()?;
    let emu = emu(&["--no-pc-mode"])?;
    let config = write_config(dir.path(), &[(&emu.path, "G/5")], "")?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    d.wait_status("0", WAIT, "the refusal", |v| {
        s(v, "/device_state") == "not_in_pc_mode"
    })?;
    Ok((dir, bus, emu, d))
}

/// A daemon observing an emulated clock that is not in PC mode.
fn observed(name: &str) -> Result<Observed> {
    let (dir, bus, emu, d) = refused(name)?;
    ctl_ok(&d, &["mode", "0", "observe"]);
    d.wait_status("0", WAIT, "observe mode", |v| {
        s(v, "/mode") == "observe" && s(v, "/device_state") == "ready"
    })?;
    let client = Client::connect(bus.address())?;
    Ok(Observed {
        dir,
        _bus: bus,
        emu,
        d,
        client,
    })
}

impl Observed {
    /// The move on the pieces, then the lever; waits for the press.
    fn play(&mut self, uci: &str) -> Result<Value> {
        let mark = self.client.mark();
        self.emu.send(&format!("move {uci}"))?;
        self.client.wait_signal(mark, "a Move signal", |m| {
            m.header().member().is_some_and(|n| n == "Move")
        })?;
        press_lever(&mut self.emu, &self.d, "0")
    }
}

#[test]
fn a_clock_started_at_the_wrong_times_is_a_clock_problem_until_it_is_set_right() -> Result<()> {
    let mut o = observed("observe-start")?;
    ctl_ok(&o.d, &["set", "0", "G/5"]);
    // The arbiter starts the clock at 4 minutes a side.
    o.emu.send("own-game 240")?;
    let st = o.d.wait_status("0", WAIT, "the start problem", |v| {
        clock_problem(v).is_some()
    })?;
    let (text, fix) = clock_problem(&st).context("a clock problem")?;
    assert_eq!(s(&st, "/board_problem"), "", "the pieces are fine: {st}");
    assert!(
        text.contains("started at 4:00 - 4:00") && text.contains("starts at 5:00 - 5:00"),
        "the clock's times and the control's: {text}"
    );
    assert!(fix.contains("chessclockctl set board:1 CONTROL"), "{fix}");
    let human = ctl_ok(&o.d, &["status", "0"]);
    assert!(human.contains("4:00 - 4:00"), "status shows it: {human}");
    // The round's go/no-go names it as the clock's control, with the same fix.
    let out = o.d.ctl(&["round", "check", "--json", "--control", "G/5"]);
    assert_eq!(out.status.code(), Some(1), "not ready");
    let report: Value = serde_json::from_slice(&out.stdout)?;
    let control = report["boards"][0]["checks"]
        .as_array()
        .context("checks")?
        .iter()
        .find(|c| c["check"] == "control")
        .context("the control check")?;
    assert_eq!(control["ok"], false, "{report}");
    assert!(
        s(control, "/text").contains("started at 4:00 - 4:00") && s(control, "/fix") == fix,
        "{report}"
    );

    // Set right (and started again) before the first move: the problem goes.
    o.emu.send("own-game 300")?;
    o.d.wait_status("0", WAIT, "the problem gone", |v| {
        clock_problem(v).is_none() && s(v, "/game_state") == "running"
    })?;
    o.play("e2e4")?;
    let st = o.d.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(clock_problem(&st), None, "{st}");
    Ok(())
}

#[test]
fn a_period_of_the_wrong_amount_is_a_clock_problem_naming_both() -> Result<()> {
    let mut o = observed("observe-period")?;
    // 2 moves in 5 minutes, then a minute; the clock's preset adds only 30 s.
    ctl_ok(&o.d, &["set", "0", "2/5 SD/1"]);
    o.emu.send("own-game 300 30@2")?;
    o.d.wait_status("0", WAIT, "the clock running", |v| {
        s(v, "/game_state") == "running"
    })?;
    for uci in ["e2e4", "e7e5"] {
        let st = o.play(uci)?;
        assert_eq!(clock_problem(&st), None, "{st}");
    }
    o.play("g1f3")?;
    let st = o.d.wait_status("0", WAIT, "the period problem", |v| {
        clock_problem(v).is_some()
    })?;
    let (text, fix) = clock_problem(&st).context("a clock problem")?;
    assert!(
        text.contains("at white's move 2 the clock added +0:30")
            && text.contains("adds +1:00 there"),
        "{text}"
    );
    assert!(fix.contains("chessclockctl set board:1 CONTROL"), "{fix}");
    // The operator declares what the clock runs: the problem goes.
    ctl_ok(&o.d, &["set", "0", "2/5 SD/30s"]);
    o.d.wait_status("0", WAIT, "the problem gone", |v| {
        clock_problem(v).is_none()
    })?;
    Ok(())
}

#[test]
fn time_added_on_the_flag_reaches_the_live_pgn_before_the_next_move() -> Result<()> {
    let mut o = observed("observe-flag")?;
    // 6 s a side; a minute added to a side whose time runs out.
    o.emu.send("own-game 6 60@flag")?;
    o.play("e2e4")?;
    o.play("e7e5")?;
    let live = o.dir.path().join("state/live/round-1/games.pgn");
    let clocks = |file: &std::path::Path| -> Vec<f64> {
        python_reads(file)
            .ok()
            .and_then(|g| g.first().cloned())
            .filter(|g| sans(g).len() == 2)
            .and_then(|g| g["clk"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(Value::as_f64)
            .collect()
    };
    let mut before = Vec::new();
    for _ in 0..100 {
        before = clocks(&live);
        if before.len() == 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(before.len(), 2, "both moves with [%clk]");
    // White's time runs out: the clock adds a minute, and the live file shows it on e4.
    o.d.wait_status("0", Duration::from_secs(20), "the minute added", |v| {
        v["white_ms"].as_u64().is_some_and(|ms| ms > 50_000)
    })?;
    let mut after = Vec::new();
    for _ in 0..100 {
        after = clocks(&live);
        if after.first().is_some_and(|w| *w > before[0] + 50.0) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(after.len(), 2, "still two moves: {after:?}");
    let added = after[0] - before[0];
    assert!(
        (59.0..=60.0).contains(&added),
        "White's e4 [%clk] has the minute: {before:?} -> {after:?}"
    );
    assert_eq!(after[1], before[1], "Black's clock stands");
    Ok(())
}
