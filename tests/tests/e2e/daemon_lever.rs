//! End to end, the lever across a restart and an unplug (docs/reliability.md, "A press
//! nobody heard"): presses over D-Bus (`chessclockctl press`, an arbiter or a script) on a
//! board whose lever never moves leave the lever out of step with the running side; a
//! SIGKILL or an unplug right after must not turn the lever's disagreement into a press
//! nobody made. The real `chessclockd`, `chessclock-emu` on a pty (reporting a change a
//! second late, as a real board that polls its clock may) and `chessclockctl`.

use anyhow::{Context, Result};
use chessclock_tests::TempDir;
use chessclock_tests::e2e::{ctl_ok, journal_says, ready, rig};
use chessclock_tests::json::s;
use chessclock_tests::rig::{Daemon, WAIT, is_set_and_run};
use serde_json::Value;

/// A real board's clock reports a change up to about a second late (it is polled 2-3 times
/// a second, docs/emulator.md): what the daemon hears after the presses comes after the
/// SIGKILL or the unplug.
const REPORT_LAG: &str = "1000";

/// The moves (White, Black) and the running side of clock 0.
fn counts(v: &Value) -> (u64, u64, String) {
    (
        v["moves"]["white"].as_u64().unwrap_or(u64::MAX),
        v["moves"]["black"].as_u64().unwrap_or(u64::MAX),
        s(v, "/running").to_owned(),
    )
}

/// G/10 started for White, the lever in step (journaled), then White, Black and White press
/// over D-Bus, the lever never moving: Black's time runs, the lever shows White to move.
fn pressed_over_the_bus(d: &Daemon, state: &std::path::Path) -> Result<Value> {
    ready(d)?;
    ctl_ok(d, &["start", "0"]);
    d.wait_status("0", WAIT, "White's time runs", |v| {
        s(v, "/running") == "white"
    })?;
    // The start's lever note (with the start; a version that noted the lever only at
    // reports wrote it a report later).
    let noted = std::time::Instant::now();
    while !journal_says(state, "lever in step") {
        anyhow::ensure!(noted.elapsed() < WAIT, "no lever note after the start");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    for side in ["white", "black", "white"] {
        ctl_ok(d, &["press", "0", side]);
    }
    let st = d.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(counts(&st), (2, 1, "black".into()), "{st}");
    Ok(st)
}

#[test]
fn presses_over_the_bus_then_a_sigkill_invent_no_press_after_the_restart() -> Result<()> {
    let mut r = rig(&["--report-lag-ms", REPORT_LAG], "G/10", "")?;
    let state = r.dir.path().join("state");
    pressed_over_the_bus(&r.daemon, &state)?;
    r.daemon.kill();
    let config = r.dir.path().join("chessclockd.toml");
    let d = Daemon::spawn(r.bus.address(), &config, &[])?;
    // The restarted daemon asks the clock for a report before it sets the display; the
    // journal says the lever was out of step, so the lever showing White to move while
    // Black's time runs is not known to be a press: a notice names the press to make.
    let st = d.wait_status("0", WAIT, "the lever's notice", |v| {
        v["notices"]
            .to_string()
            .contains("`chessclockctl press 0 black`")
    })?;
    assert_eq!(
        counts(&st),
        (2, 1, "black".into()),
        "no press invented: {st}"
    );
    Ok(())
}

#[test]
fn presses_over_the_bus_then_an_unplug_invent_no_press_after_the_replug() -> Result<()> {
    let dir = TempDir::new("e2e-lever")?;
    let link = dir.path().join("board0");
    let link_s = link.display().to_string();
    let mut r = rig(
        &["--link", &link_s, "--report-lag-ms", REPORT_LAG],
        "G/10",
        "",
    )?;
    let state = r.dir.path().join("state");
    pressed_over_the_bus(&r.daemon, &state)?;
    r.emu.unplug()?;
    r.daemon.wait_status("0", WAIT, "disconnected", |v| {
        v.get("connected") == Some(&Value::Bool(false))
    })?;
    // Merely unplugged, not detached: the clock keeps its journal (docs/reliability.md).
    let kept = std::fs::read_dir(&state)?
        .flatten()
        .any(|e| e.path().extension().is_some_and(|x| x == "journal"));
    assert!(kept, "the journal stays while the board is unplugged");
    // Out for a while, as in daemon_link (the clock counts on by itself meanwhile).
    std::thread::sleep(std::time::Duration::from_millis(1_200));
    let mark = r.emu.mark();
    r.emu.replug()?;
    // The report the daemon asks for on the new link comes before its first set-and-run:
    // once that push is seen, the lever has been judged.
    let (_, push) = r.emu.wait_for(
        mark,
        WAIT,
        "the first push after the replug",
        is_set_and_run,
    )?;
    let st = r.daemon.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(
        counts(&st),
        (2, 1, "black".into()),
        "no press invented: {st}"
    );
    assert_eq!(
        push.pointer("/command/run").and_then(Value::as_str),
        Some("right"),
        "Black's time shown running: {push}"
    );
    let notices = st.get("notices").map(Value::to_string).unwrap_or_default();
    assert!(!notices.contains("is taken now"), "{st}");
    let st = ready(&r.daemon).context("ready again")?;
    assert_eq!(counts(&st), (2, 1, "black".into()), "{st}");
    Ok(())
}
