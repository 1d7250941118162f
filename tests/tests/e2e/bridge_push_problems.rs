//! End to end: what Lichess answers of a pushed game reaches the operator. The real
//! `chessclock-emu` on a pty, the real `chessclockd`, the real `chessclock-bridge` pushing to
//! the Lichess stand-in (tests/src/lichess, following spec/lichess-broadcast.md): a game the
//! round refuses is a problem of its board in the bridge's `/api/v1/clocks`, on the
//! dashboard (a real headless Chromium, where installed), in `chessclockctl status` (read
//! from the bridge's bus object) and in the bridge's log, with Lichess's words and what to
//! do; once a later push of the game is taken it goes from all of them.

use anyhow::{Context, Result};
use std::time::Duration;

use chessclock_tests::bridge::{Bridge, have};
use chessclock_tests::chromium::Page;
use chessclock_tests::e2e::{ctl_ok, wait_moves};
use chessclock_tests::lichess::StandIn;
use chessclock_tests::lichess::rig::PushRig;
use chessclock_tests::rig::WAIT;
use serde_json::Value;

/// The problems of `kind` in a clock's JSON.
fn of_kind<'a>(clock: &'a Value, kind: &str) -> Vec<&'a Value> {
    clock["problems"]
        .as_array()
        .map(|p| p.iter().filter(|p| p["kind"] == kind).collect())
        .unwrap_or_default()
}

/// Poll the bridge's clock 0 until `pred` holds.
fn wait_api(bridge: &Bridge, what: &str, pred: impl Fn(&Value) -> bool) -> Result<Value> {
    let deadline = std::time::Instant::now() + WAIT * 2;
    loop {
        let clocks = bridge.get_json("/api/v1/clocks")?;
        let first = clocks[0].clone();
        if pred(&first) {
            return Ok(first);
        }
        anyhow::ensure!(
            std::time::Instant::now() < deadline,
            "the bridge never showed {what}: {first}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn a_refused_game_is_a_board_problem_until_a_later_push_is_taken() -> Result<()> {
    // The round takes its games from a URL: Lichess refuses every pushed game.
    let lichess = StandIn::start()?;
    lichess.add_upstream_round("UpStrm12");
    let PushRig {
        dir,
        bus,
        mut emu,
        daemon: d,
        bridge_toml: cfg,
    } = PushRig::start("bridge-push-problems", &lichess, "UpStrm12", "")?;
    let mut bridge = Bridge::spawn(bus.address(), &["--config", cfg.to_str().context("utf-8")?])?;
    ctl_ok(
        &d,
        &[
            "info",
            "0",
            "white=Ju, Wenjun",
            "black=Lei, Tingjie",
            "round=1",
        ],
    );
    ctl_ok(&d, &["start", "0"]);
    emu.send("move e2e4")?;
    emu.send("lever")?;
    wait_moves(&d, &["e4"])?;

    let clock = wait_api(&bridge, "the refusal", |c| {
        !of_kind(c, "push_refused").is_empty()
    })?;
    let p = of_kind(&clock, "push_refused")[0];
    let text = p["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("Lichess refused the game (round UpStrm12)") && text.contains("upstream URL"),
        "{p}"
    );
    assert!(
        p["fix"].as_str().is_some_and(|f| f.contains("source URL")),
        "{p}"
    );
    let st = d.wait_status("0", WAIT, "the refusal in status", |v| {
        !of_kind(v, "push_refused").is_empty()
    })?;
    assert_eq!(
        of_kind(&st, "push_refused")[0],
        p,
        "status and the bridge say the same"
    );
    let text = String::from_utf8_lossy(&d.ctl(&["status", "0"]).stdout).into_owned();
    assert!(text.contains("Lichess refused the game"), "{text}");
    bridge.wait_log(0, "Lichess refused the game (round UpStrm12)")?;
    // The operator's screen says it on board 1's tile.
    const SAYS: &str =
        "JSON.stringify(document.body.innerText.includes('Lichess refused the game'))";
    let mut page = match have("chromium", "chromium")? {
        Some(browser) => Some(Page::open(
            &browser,
            &dir.path().join("profile"),
            &format!("{}/", bridge.base),
        )?),
        None => None,
    };
    if let Some(page) = &mut page {
        page.wait_shown(SAYS, Duration::from_secs(30), |v| *v == true)?;
    }
    assert!(
        lichess
            .round("UpStrm12")
            .is_some_and(|r| r.games().iter().all(|g| g.every_move().is_empty())),
        "nothing reached the round"
    );

    // The owner removes the round's source URL; the next move's push is taken, and the
    // problem goes everywhere.
    lichess.set_upstream("UpStrm12", false);
    emu.send("move e7e5")?;
    emu.send("lever")?;
    wait_moves(&d, &["e4", "e5"])?;
    lichess.wait_round("UpStrm12", "the game's two moves", |r| {
        r.games().iter().any(|g| g.every_move() == ["e4", "e5"])
    })?;
    wait_api(&bridge, "the refusal gone", |c| {
        of_kind(c, "push_refused").is_empty()
    })?;
    d.wait_status("0", WAIT, "the refusal gone from status", |v| {
        of_kind(v, "push_refused").is_empty()
    })?;
    if let Some(page) = &mut page {
        page.wait_shown(SAYS, Duration::from_secs(30), |v| *v == false)?;
    }
    Ok(())
}
