//! One screen for the fleet (docs/bridge.md, "The fleet"): two daemons, each with its bridge
//! publishing to a real mosquitto, and a third bridge with `fleet = true` and no daemon of
//! its own. Its `/api/v1/clocks` lists both machines' boards in board order, each with its
//! host (and so does A's bridge, following the fleet beside its daemon); a board number
//! both machines use is a problem on both; its dashboard in a real headless Chromium shows
//! the tiles of both hosts in that order, and filters them by the URL's query (`?host=`,
//! `?boards=`); a board of another machine has its page and overlay on the fleet's bridge
//! too. One machine's bridge hanging (SIGSTOP): after 15 s without its heartbeat its boards
//! are stale, and fresh again once it goes on; killed: its last will (offline) marks its
//! boards stale, on the API and on the tiles, and they stay listed. `chessclockctl fleet`
//! shows the same boards in board order, with their players and problems. `fleet = true`
//! without a broker is refused by `--check-config`, naming the setting. 200 boards of four
//! machines (a real clock's status published for each with `mosquitto_pub`) fit a 1920x1080
//! screen as dense tiles, in board order (a screenshot: `target/bridge-screenshots/`), and
//! `?attention=1` leaves the one that needs the operator.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use chessclock_tests::bridge::{Bridge, have};
use chessclock_tests::chromium::{Page, shots_dir};
use chessclock_tests::json::s;
use chessclock_tests::rig::WAIT;
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

use crate::bridge_fleet::machine;
use crate::bridge_mqtt::Broker;

/// `(board, host, stale)` of each board `/api/v1/clocks` lists, in its order.
fn listed(clocks: &Value) -> Vec<(u64, String, bool)> {
    clocks
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| {
                    (
                        c["board"].as_u64().unwrap_or(0),
                        s(c, "/host").to_owned(),
                        c["stale"] == Value::Bool(true),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What each tile shows, in order: board, host, stale, its problems' words.
const TILES: &str = "JSON.stringify([...document.querySelectorAll('#boards .tile')].map(t => ({\
    board: t.dataset.board, host: (t.querySelector('.host') || {textContent: ''}).textContent, \
    stale: t.classList.contains('stale'), white: t.querySelector('.pl.white .who').textContent, \
    problems: [...t.querySelectorAll('.problem .what')].map(p => p.textContent).join('; ')})))";

/// `(board, host, stale)` of each tile.
fn tiles(v: &Value) -> Vec<(String, String, bool)> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|t| {
                    (
                        s(t, "/board").to_owned(),
                        s(t, "/host").to_owned(),
                        t["stale"] == Value::Bool(true),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Read the fleet bridge's `/api/v1/clocks` until `pred` accepts it; the last list.
fn wait_clocks(bridge: &Bridge, what: &str, pred: impl Fn(&Value) -> bool) -> Result<Value> {
    let deadline = Instant::now() + WAIT * 3;
    loop {
        let clocks = bridge.get_json("/api/v1/clocks")?;
        if pred(&clocks) {
            return Ok(clocks);
        }
        if Instant::now() > deadline {
            bail!("the fleet bridge never listed {what}; last: {clocks}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn want(rows: &[(u64, &str, bool)]) -> Vec<(u64, String, bool)> {
    rows.iter()
        .map(|(b, h, st)| (*b, (*h).to_owned(), *st))
        .collect()
}

fn want_tiles(rows: &[(u64, &str, bool)]) -> Vec<(String, String, bool)> {
    rows.iter()
        .map(|(b, h, st)| (b.to_string(), (*h).to_owned(), *st))
        .collect()
}

#[test]
fn one_screen_shows_every_board_of_every_machine_and_a_silent_one_goes_stale() -> Result<()> {
    let Some(mosquitto) = have("mosquitto", "mosquitto")? else {
        return Ok(());
    };
    let dir = TempDir::new("bridge-fleet-screen")?;
    let broker = Broker::start_with(&mosquitto, &dir, "allow_anonymous true\n")?;
    let url = format!("mqtt://127.0.0.1:{}", broker.port);
    // Machine A drives boards 1 and 3, machine B boards 2, 3 and 4: board 3 twice.
    let dir_a = TempDir::new("fleet-screen-a")?;
    let (bus_a, da) = machine(&dir_a, &[1, 3], 5, "1,Alpha,Beta\n3,Gamma,Delta\n")?;
    let dir_b = TempDir::new("fleet-screen-b")?;
    let (bus_b, _db) = machine(
        &dir_b,
        &[2, 3, 4],
        5,
        "2,Epsilon,Zeta\n3,Eta,Theta\n4,Iota,Kappa\n",
    )?;
    // A's bridge follows the fleet too, beside its own daemon.
    let cfg_a = dir_a.path().join("bridge.toml");
    std::fs::write(
        &cfg_a,
        format!("mqtt = \"{url}\"\nhost = \"pi-a\"\nfleet = true\n"),
    )?;
    let bridge_a = Bridge::spawn(bus_a.address(), &["--config", &cfg_a.display().to_string()])?;
    let mut bridge_b = Bridge::spawn(bus_b.address(), &["--mqtt", &url, "--host", "pi-b"])?;
    // The operator's screen: a bridge on a bus with no daemon, following the broker.
    let bus_screen = PrivateBus::start_session()?;
    let cfg = dir.path().join("bridge.toml");
    std::fs::write(
        &cfg,
        format!("mqtt = \"{url}\"\nhost = \"screen\"\nfleet = true\n"),
    )?;
    let cfg = cfg.display().to_string();
    let screen = Bridge::spawn(bus_screen.address(), &["--config", &cfg])?;

    let fresh = want(&[
        (1, "pi-a", false),
        (2, "pi-b", false),
        (3, "pi-a", false),
        (3, "pi-b", false),
        (4, "pi-b", false),
    ]);
    let clocks = wait_clocks(&screen, "both machines' boards", |c| listed(c) == fresh)?;
    assert_eq!(s(&clocks[0], "/game_info/White"), "Alpha", "{clocks}");
    assert_eq!(s(&clocks[4], "/game_info/White"), "Iota", "{clocks}");
    let problems = |c: &Value| -> Vec<String> {
        c["problems"]
            .as_array()
            .map(|p| p.iter().map(|x| s(x, "/text").to_owned()).collect())
            .unwrap_or_default()
    };
    assert!(
        problems(&clocks[2]).contains(&"board 3 is also on pi-b".to_owned()),
        "{}",
        clocks[2]
    );
    assert!(
        problems(&clocks[3]).contains(&"board 3 is also on pi-a".to_owned()),
        "{}",
        clocks[3]
    );
    assert!(problems(&clocks[0]).iter().all(|p| !p.contains("also on")));
    // On A, beside its daemon: its own clocks once (read from its daemon), B's from the
    // broker, the same list.
    let on_a = wait_clocks(&bridge_a, "both machines' boards on A", |c| {
        listed(c) == fresh
    })?;
    assert_eq!(s(&on_a[0], "/clock"), s(&clocks[0], "/clock"), "{on_a}");
    // `chessclockctl fleet` shows the same: in board order, with players and problems.
    let table = da.ctl(&["fleet", "--mqtt", &url, "--once"]);
    assert!(table.status.success(), "{table:?}");
    let text = String::from_utf8_lossy(&table.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let row = |board: &str, host: &str| {
        lines
            .iter()
            .position(|l| l.split_whitespace().take(2).eq([board, host]))
    };
    let rows: Vec<Option<usize>> = [("1", "pi-a"), ("2", "pi-b"), ("3", "pi-a"), ("3", "pi-b")]
        .iter()
        .map(|(b, h)| row(b, h))
        .collect();
    assert!(
        rows.iter().all(Option::is_some) && rows.windows(2).all(|w| w[0] < w[1]),
        "in board order: {text}"
    );
    assert!(
        text.contains("Alpha - Beta") && text.contains("Iota - Kappa"),
        "{text}"
    );
    assert!(text.contains("! board missing: reconnect"), "{text}");
    // A's bridge serves the page and overlay of B's board 4 (its own daemon has no board 4),
    // not of a board no machine has.
    assert_eq!(bridge_a.get("/overlay/board:4")?.0, 200);
    assert_eq!(bridge_a.get("/board/board:4")?.0, 200);
    assert_eq!(bridge_a.get("/overlay/board:9")?.0, 404);
    // A bridge that does not follow the fleet has no fleet to show.
    assert_eq!(bridge_b.get("/api/v1/fleet")?.0, 404);

    let chromium = have("chromium", "chromium")?;
    let mut page = match &chromium {
        Some(exe) => {
            let mut page = Page::open(
                exe,
                &dir.path().join("profile"),
                &format!("{}/", screen.base),
            )?;
            let shown = page.wait_shown(TILES, WAIT * 2, |v| {
                tiles(v)
                    == want_tiles(&[
                        (1, "pi-a", false),
                        (2, "pi-b", false),
                        (3, "pi-a", false),
                        (3, "pi-b", false),
                        (4, "pi-b", false),
                    ])
            })?;
            assert_eq!(s(&shown[1], "/white"), "Epsilon", "{shown}");
            // Its header: the fleet's round, and no alarm for the daemon it has not got.
            let head = "JSON.stringify([document.getElementById('title').textContent, \
                        document.getElementById('daemon').className, \
                        document.getElementById('daemon').textContent])";
            page.wait_shown(head, WAIT, |v| {
                *v == serde_json::json!([
                    "Round 5",
                    "daemon ok",
                    "the fleet, from the broker (no chessclockd on screen)"
                ])
            })?;
            assert!(
                s(&shown[3], "/problems").contains("board 3 is also on pi-a"),
                "{shown}"
            );
            // A tile of another machine opens its page here, named with its machine; that page
            // and the board's overlay show it.
            let href = page.eval(
                "document.querySelector('#boards .tile[data-host=\"pi-b\"][data-board=\"3\"]')\
                 .getAttribute('href')",
            )?;
            assert_eq!(href, "/board/board%3A3?host=pi-b");
            page.eval("location.href = '/board/board:3?host=pi-b'")?;
            let board = "JSON.stringify([document.getElementById('title').textContent, \
                         document.querySelector('#white .who').textContent, \
                         document.getElementById('pgn').hidden])";
            page.wait_shown(board, WAIT * 2, |v| {
                v[0].as_str().is_some_and(|t| t.ends_with("· on pi-b"))
                    && v[1] == "Eta"
                    && v[2] == true
            })?;
            page.eval("location.href = '/overlay/board:4'")?;
            let overlay = "JSON.stringify([...document.querySelectorAll('.side .name')]\
                           .map(n => n.textContent))";
            page.wait_shown(overlay, WAIT * 2, |v| {
                *v == serde_json::json!(["Iota", "Kappa"])
            })?;
            page.eval("location.href = '/'")?;
            Some(page)
        }
        None => None,
    };

    // Machine B's bridge hangs (SIGSTOP): no heartbeat, no will yet; after 15 s of silence
    // its boards are stale, and fresh again once it speaks.
    bridge_b.signal("STOP")?;
    let silent = wait_clocks(&screen, "pi-b's boards stale while it hangs", |c| {
        listed(c)
            == want(&[
                (1, "pi-a", false),
                (2, "pi-b", true),
                (3, "pi-a", false),
                (3, "pi-b", true),
                (4, "pi-b", true),
            ])
    })?;
    assert_eq!(
        problems(&silent[1]).first().map(String::as_str),
        Some("stale: no news from pi-b for over 15 s (its last state shown)"),
        "{}",
        silent[1]
    );
    bridge_b.signal("CONT")?;
    wait_clocks(&screen, "pi-b's boards fresh again", |c| listed(c) == fresh)?;

    // Machine B's bridge dies: the broker says its last will, and its boards are stale,
    // still listed in their places.
    bridge_b.kill();
    let stale = want(&[
        (1, "pi-a", false),
        (2, "pi-b", true),
        (3, "pi-a", false),
        (3, "pi-b", true),
        (4, "pi-b", true),
    ]);
    let clocks = wait_clocks(&screen, "pi-b's boards stale", |c| listed(c) == stale)?;
    assert_eq!(
        problems(&clocks[1]).first().map(String::as_str),
        Some("stale: pi-b's bridge is offline (its last state shown)"),
        "{}",
        clocks[1]
    );
    if let Some(page) = page.as_mut() {
        let shown = page.wait_shown(TILES, WAIT * 2, |v| {
            tiles(v)
                == want_tiles(&[
                    (1, "pi-a", false),
                    (2, "pi-b", true),
                    (3, "pi-a", false),
                    (3, "pi-b", true),
                    (4, "pi-b", true),
                ])
        })?;
        assert!(
            s(&shown[4], "/problems").starts_with("stale: pi-b's bridge is offline"),
            "{shown}"
        );
        page.screenshot(1280, 400, false, &shots_dir()?.join("fleet.png"))?;
        // The URL's query picks the tiles: one machine, then a range of boards.
        page.eval("location.href = '/?host=pi-a'")?;
        page.wait_shown(TILES, WAIT * 2, |v| {
            tiles(v) == want_tiles(&[(1, "pi-a", false), (3, "pi-a", false)])
        })?;
        page.eval("location.href = '/?boards=2-3'")?;
        page.wait_shown(TILES, WAIT * 2, |v| {
            tiles(v) == want_tiles(&[(2, "pi-b", true), (3, "pi-a", false), (3, "pi-b", true)])
        })?;
    }
    Ok(())
}

#[test]
fn a_fleet_screen_without_a_broker_is_refused_naming_the_setting() -> Result<()> {
    let dir = TempDir::new("bridge-fleet-screen-bad")?;
    let cfg = dir.path().join("bridge.toml");
    std::fs::write(&cfg, "listen = \"127.0.0.1:7380\"\nfleet = true\n")?;
    let out = chessclock_tests::rig::check_config("chessclock-bridge", &cfg);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fleet = true") && err.contains("add mqtt = ") && err.contains("line 2"),
        "{err}"
    );
    Ok(())
}

/// Publish `payload` retained on `topic` of the broker at `port` with `mosquitto_pub`.
fn publish(exe: &std::path::Path, port: u16, topic: &str, payload: &str) -> Result<()> {
    let out = std::process::Command::new(exe)
        .args([
            "-h",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-r",
            "-t",
            topic,
            "-m",
            payload,
        ])
        .output()?;
    anyhow::ensure!(out.status.success(), "mosquitto_pub {topic}: {out:?}");
    Ok(())
}

#[test]
fn two_hundred_boards_of_four_machines_fit_a_1080p_screen() -> Result<()> {
    let (Some(mosquitto), Some(pub_exe), Some(chromium)) = (
        have("mosquitto", "mosquitto")?,
        have("mosquitto_pub", "mosquitto-clients")?,
        have("chromium", "chromium")?,
    ) else {
        return Ok(());
    };
    let dir = TempDir::new("bridge-fleet-200")?;
    let broker = Broker::start_with(&mosquitto, &dir, "allow_anonymous true\n")?;
    let url = format!("mqtt://127.0.0.1:{}", broker.port);
    // A real clock's status, as a daemon gives it, ready and with nothing wrong, stands for
    // each of the 200 boards (50 on each of four machines), with its players.
    let dir_a = TempDir::new("fleet-200-a")?;
    let (_bus, d) = machine(&dir_a, &[1], 5, "1,Alpha,Beta\n")?;
    let one = d.ctl_json(&["list", "--json"])?[0].clone();
    let screen_bus = PrivateBus::start_session()?;
    let cfg = dir.path().join("bridge.toml");
    std::fs::write(
        &cfg,
        format!("mqtt = \"{url}\"\nhost = \"screen\"\nfleet = true\n"),
    )?;
    let screen = Bridge::spawn(
        screen_bus.address(),
        &["--config", &cfg.display().to_string()],
    )?;
    for board in 1..=200u32 {
        let (host, index) = (format!("pi-{}", (board - 1) / 50 + 1), (board - 1) % 50);
        let mut c = one.clone();
        c["board"] = board.into();
        c["index"] = index.into();
        c["name"] = format!("table {board}").into();
        // Board 7 is as the daemon gave it: its board missing, a problem.
        if board != 7 {
            c["device_state"] = "ready".into();
            c["connected"] = true.into();
            c["problems"] = serde_json::json!([]);
        }
        c["game_info"]["White"] = format!("White player {board}").into();
        c["game_info"]["Black"] = format!("Black player {board}").into();
        let topic = format!("chessclockd/{host}/clock/{index}/state");
        publish(&pub_exe, broker.port, &topic, &c.to_string())?;
    }
    for host in ["pi-1", "pi-2", "pi-3", "pi-4"] {
        publish(
            &pub_exe,
            broker.port,
            &format!("chessclockd/{host}/status"),
            "online",
        )?;
    }
    wait_clocks(&screen, "200 boards", |c| {
        c.as_array().is_some_and(|a| a.len() == 200)
    })?;
    let mut page = Page::open(
        &chromium,
        &dir.path().join("profile"),
        &format!("{}/", screen.base),
    )?;
    page.call(
        "Emulation.setDeviceMetricsOverride",
        serde_json::json!({"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": false}),
    )?;
    let layout = "JSON.stringify((() => { const t = [...document.querySelectorAll('#boards .tile')]; \
        return {n: t.length, dense: document.getElementById('boards').classList.contains('dense'), \
        attention: t.filter(x => x.classList.contains('attention')).length, \
        first: t.length ? t[0].dataset.board + ' ' + t[0].dataset.host : '', \
        last: t.length ? t[t.length - 1].dataset.board + ' ' + t[t.length - 1].dataset.host : '', \
        bottom: Math.max(0, ...t.map(x => x.getBoundingClientRect().bottom)), \
        right: Math.max(0, ...t.map(x => x.getBoundingClientRect().right))}; })())";
    let shown = page.wait_shown(layout, WAIT * 2, |v| v["n"] == 200)?;
    page.screenshot(1920, 1080, false, &shots_dir()?.join("fleet-200.png"))?;
    assert_eq!(shown["dense"], true, "{shown}");
    assert_eq!(shown["attention"], 1, "board 7 only: {shown}");
    assert_eq!(shown["first"], "1 pi-1", "{shown}");
    assert_eq!(shown["last"], "200 pi-4", "{shown}");
    let (bottom, right) = (
        shown["bottom"].as_f64().unwrap_or(f64::MAX),
        shown["right"].as_f64().unwrap_or(f64::MAX),
    );
    assert!(
        bottom <= 1080.0 && right <= 1920.0,
        "200 tiles do not fit 1920x1080: {shown}"
    );
    // The boards that need the operator, alone: board 7, with its problem.
    page.eval("location.href = '/?attention=1'")?;
    let shown = page.wait_shown(TILES, WAIT * 2, |v| {
        v.as_array().is_some_and(|a| a.len() == 1)
    })?;
    assert_eq!(tiles(&shown), want_tiles(&[(7, "pi-1", false)]), "{shown}");
    assert_eq!(s(&shown[0], "/problems"), "board missing", "{shown}");
    Ok(())
}
