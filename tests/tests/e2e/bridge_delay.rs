//! The broadcast delay (docs/bridge.md, "A delayed broadcast"): a bridge with `delay` shows
//! the boards as they stood that long ago on every output — the HTTP JSON, the PGN URL and
//! the Lichess push (against the local stand-in) — results included, while an undelayed
//! bridge on the same daemon (the operator's) shows them at once; a bad `delay` is refused
//! by `--check-config`, naming the setting. No timing is asserted: the delayed bridge is
//! seen behind the undelayed one, then catching up (waited for).

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chessclock_tests::bridge::Bridge;
use chessclock_tests::e2e::{ctl_ok, text};
use chessclock_tests::rig::{Daemon, WAIT, check_config, write_config};
use chessclock_tests::{PrivateBus, TempDir};

use chessclock_tests::lichess::StandIn;

/// The delay of the test's bridge: long enough that the undelayed bridge is seen first.
const DELAY: &str = "6s";

/// Wait until `bridge`'s `path` answers a body for which `done` holds; the body.
fn wait_body(bridge: &Bridge, path: &str, done: impl Fn(&str) -> bool) -> Result<String> {
    let until = Instant::now() + WAIT * 3;
    loop {
        let (status, body) = bridge.get(path)?;
        if status == 200 && done(&body) {
            return Ok(body);
        }
        if Instant::now() > until {
            bail!("{path} never answered what was waited for: {status} {body}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every push the stand-in has received so far.
fn pushed(lichess: &StandIn) -> Vec<String> {
    lichess.requests.try_iter().map(|r| r.body).collect()
}

#[test]
fn a_delayed_bridge_shows_the_boards_as_they_stood_and_catches_up() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-delay")?;
    let d = Daemon::spawn(bus.address(), &write_config(dir.path(), &[], "")?, &[])?;
    ctl_ok(&d, &["add-virtual", "one"]);
    let lichess = StandIn::with_rounds(&["DeLay123"])?;
    let server = &lichess.base;
    let token = dir.path().join("lichess.token");
    std::fs::write(&token, "lip_delaytoken\n")?;
    let cfg = dir.path().join("bridge.toml");
    std::fs::write(
        &cfg,
        format!(
            "delay = \"{DELAY}\"\n\n[[lichess]]\nround = \"DeLay123\"\ntoken_file = {:?}\n\
             server = \"{server}\"\n",
            token.display().to_string()
        ),
    )?;
    let operator = Bridge::spawn(bus.address(), &[])?;
    let delayed = Bridge::spawn(bus.address(), &["--config", cfg.to_str().context("utf-8")?])?;
    // The delayed bridge has caught up with the clock as it was before the pairings.
    wait_body(&delayed, "/pgn/all.pgn", |b| b.contains("[Round \"1.1\"]"))?;

    // The pairings: the operator's bridge shows them at once, the delayed one not yet.
    let csv = dir.path().join("round1.csv");
    std::fs::write(&csv, "board,white,black\n1,Alpha,Beta\n")?;
    ctl_ok(&d, &["round", "load", &csv.display().to_string()]);
    wait_body(&operator, "/pgn/all.pgn", |b| {
        b.contains("[White \"Alpha\"]")
    })?;
    let (_, pgn) = delayed.get("/pgn/all.pgn")?;
    assert!(!pgn.contains("Alpha"), "the delayed PGN is behind: {pgn}");
    let clocks = delayed.get_json("/api/v1/clocks")?;
    assert!(
        !clocks.to_string().contains("Alpha"),
        "the delayed JSON is behind: {clocks}"
    );
    assert!(
        pushed(&lichess).iter().all(|b| !b.contains("Alpha")),
        "nothing of the pairings pushed yet"
    );
    // ... then catches up, on every output.
    wait_body(&delayed, "/pgn/all.pgn", |b| {
        b.contains("[White \"Alpha\"]")
    })?;
    wait_body(&delayed, "/api/v1/clocks", |b| b.contains("Alpha"))?;

    // A result: the same.
    ctl_ok(&d, &["start", "0"]);
    ctl_ok(&d, &["result", "0", "1-0"]);
    wait_body(&operator, "/pgn/all.pgn", |b| {
        b.contains("[Result \"1-0\"]")
    })?;
    let (_, pgn) = delayed.get("/pgn/all.pgn")?;
    assert!(
        !pgn.contains("[Result \"1-0\"]"),
        "the result is not shown before its delay: {pgn}"
    );
    assert!(
        pushed(&lichess)
            .iter()
            .all(|b| !b.contains("[Result \"1-0\"]")),
        "the result is not pushed before its delay"
    );
    wait_body(&delayed, "/pgn/all.pgn", |b| b.contains("[Result \"1-0\"]"))?;
    wait_body(&delayed, "/api/v1/clocks", |b| b.contains("\"1-0\""))?;
    let until = Instant::now() + WAIT * 3;
    while !pushed(&lichess)
        .iter()
        .any(|b| b.contains("[Result \"1-0\"]") && b.contains("[White \"Alpha\"]"))
    {
        if Instant::now() > until {
            bail!("the delayed push never carried the result");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

#[test]
fn a_delay_that_is_not_a_duration_is_refused_naming_the_setting() -> Result<()> {
    let dir = TempDir::new("bridge-delay-bad")?;
    let cfg = dir.path().join("bridge.toml");
    std::fs::write(&cfg, "listen = \"127.0.0.1:7380\"\ndelay = \"soon\"\n")?;
    let out = check_config("chessclock-bridge", &cfg);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("\"soon\" is not a delay") && err.contains("line 2"),
        "{err}"
    );
    std::fs::write(&cfg, "delay = \"15m\"\n")?;
    let out = check_config("chessclock-bridge", &cfg);
    assert!(out.status.success(), "{}", text(&out));
    Ok(())
}
