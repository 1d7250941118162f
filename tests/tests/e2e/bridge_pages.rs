//! The bridge's pages in a real headless Chromium (Debian's `chromium`): the dashboard shows
//! the boards in board order, the one that needs the operator marked with its fix, and
//! follows a start; the overlay shows a clock and follows a press within one second; the
//! overlay of a clock that does not exist is a 404 page that says so. The page is driven over the
//! DevTools protocol (`chessclock_tests::chromium`). A round of 64 boards on the operator's
//! screen is `bridge_screen`'s. In CI a missing Chromium fails the test.

use std::time::{Duration, Instant};

use anyhow::Result;
use chessclock_tests::bridge::{Bridge, have};
use chessclock_tests::chromium::{Page, shots_dir};
use chessclock_tests::e2e::daemon_with;
use chessclock_tests::json::{s, u};
use chessclock_tests::rig::WAIT;
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

/// What the overlay shows: whose turn, and both times as text.
const SHOWN: &str = "JSON.stringify({turn: (document.querySelector('.side.turn') || {}).dataset?.side || '', \
    white: document.querySelector('.side.white .time').textContent, \
    black: document.querySelector('.side.black .time').textContent, \
    white_ms: document.querySelector('.side.white .time').dataset.ms, \
    black_ms: document.querySelector('.side.black .time').dataset.ms, \
    clock: JSON.stringify((Bridge.clocks.get(0) || {}).st || null)})";

#[test]
fn overlay_shows_the_clock_and_follows_a_press_within_a_second() -> Result<()> {
    let Some(browser) = have("chromium", "chromium")? else {
        return Ok(());
    };
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-overlay")?;
    let d = daemon_with(&bus, &dir, &["stage"])?;
    anyhow::ensure!(d.ctl(&["set", "0", "G/5 inc/3"]).status.success());
    anyhow::ensure!(d.ctl(&["start", "0"]).status.success());
    let bridge = Bridge::spawn(bus.address(), &[])?;
    let mut page = Page::open(
        &browser,
        &dir.path().join("profile-live"),
        &format!("{}/overlay/0", bridge.base),
    )?;
    // Ready: the page shows White running, its time ticking down.
    let before = page.wait_shown(SHOWN, Duration::from_secs(20), |v| v["turn"] == "white")?;
    let st = d.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(
        before["black"],
        s(&st, "/text/black"),
        "Black's (waiting) time: {before}"
    );
    // The first change seen may be the page catching up with the start (White at 5:00):
    // wait for White's time to run below it.
    let ticking = page.wait_shown(SHOWN, Duration::from_secs(5), |v| {
        v["white"] != before["white"] && v["white"] != "5:00"
    })?;
    assert_ne!(ticking["white"], "5:00", "White's time runs: {ticking}");

    let pressed = Instant::now();
    anyhow::ensure!(d.ctl(&["press", "0", "white"]).status.success());
    let st = d.ctl_json(&["status", "0", "--json"])?;
    let secs = u(&st, "/white_ms").div_ceil(1000);
    let want = format!("{}:{:02}", secs / 60, secs % 60);
    let after = page.wait_shown(SHOWN, Duration::from_secs(5), |v| {
        v["turn"] == "black" && v["white"] == want.as_str()
    })?;
    let took = pressed.elapsed();
    assert!(
        took < Duration::from_secs(1),
        "the overlay followed the press after {took:?}: {after}"
    );
    drop(page);

    let mut dark = Page::open(
        &browser,
        &dir.path().join("profile-dark"),
        &format!("{}/overlay/stage?theme=dark&scale=2", bridge.base),
    )?;
    let v = dark.wait_shown(SHOWN, Duration::from_secs(20), |v| v["turn"] == "black")?;
    let bg = dark.eval("getComputedStyle(document.body).backgroundColor")?;
    assert_eq!(bg, "rgba(0, 0, 0, 0)", "a transparent page for OBS: {v}");
    dark.screenshot(700, 260, false, &shots_dir()?.join("overlay-dark.png"))?;
    Ok(())
}

/// Under hourglass the waiting side gains what the runner loses: the overlay ticks both
/// sides between the daemon's snapshots (which are not re-sent while only the time runs).
#[test]
fn overlay_ticks_the_waiting_side_up_under_hourglass() -> Result<()> {
    let Some(browser) = have("chromium", "chromium")? else {
        return Ok(());
    };
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-hourglass")?;
    let d = daemon_with(&bus, &dir, &["sand"])?;
    anyhow::ensure!(d.ctl(&["set", "0", "HG/1"]).status.success());
    anyhow::ensure!(d.ctl(&["start", "0"]).status.success());
    let bridge = Bridge::spawn(bus.address(), &[])?;
    let mut page = Page::open(
        &browser,
        &dir.path().join("profile-hg"),
        &format!("{}/overlay/0", bridge.base),
    )?;
    // White runs: after a few seconds Black (waiting) shows more than its minute, White less,
    // and the two still add up to the two minutes of the glass (to the display's rounding).
    let v = page.wait_shown(SHOWN, Duration::from_secs(20), |v| {
        v["turn"] == "white" && v["black"].as_str().is_some_and(|b| b > "1:02")
    })?;
    let secs = |t: &Value| -> u64 {
        let t = t.as_str().unwrap_or_default();
        let (m, s) = t.split_once(':').unwrap_or(("0", "0"));
        m.parse::<u64>().unwrap_or(0) * 60 + s.parse::<u64>().unwrap_or(0)
    };
    let total = secs(&v["white"]) + secs(&v["black"]);
    assert!(
        (119..=121).contains(&total),
        "the glass holds two minutes: {v}"
    );
    // Between snapshots the page extrapolates the waiting side too: sampled every 100 ms
    // over a second, Black's exact value rises at nearly every sample (snapshots alone would
    // change it at most twice).
    let mut seen = Vec::new();
    for _ in 0..10 {
        seen.push(
            page.eval("Bridge.ms(Bridge.clocks.get(0), 'black')")?
                .as_f64()
                .unwrap_or(0.0),
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let rises = seen.windows(2).filter(|w| w[1] > w[0]).count();
    assert!(rises >= 7, "Black's time rises smoothly: {seen:?}");
    Ok(())
}

/// `/overlay/9` with two clocks: a 404 whose page says which board is missing and where
/// the boards are (the router's answers in detail: bridge/src/http/tests.rs).
#[test]
fn the_overlay_of_a_clock_that_does_not_exist_is_a_404_page_that_says_so() -> Result<()> {
    let Some(browser) = have("chromium", "chromium")? else {
        return Ok(());
    };
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-missing")?;
    let _d = daemon_with(&bus, &dir, &["board-one", "board-two"])?;
    let bridge = Bridge::spawn(bus.address(), &[])?;
    let (code, body) = bridge.get("/overlay/9")?;
    assert_eq!(code, 404, "{body}");
    let (code, _) = bridge.get("/overlay/1")?;
    assert_eq!(code, 200, "clock 1 exists");
    let mut page = Page::open(
        &browser,
        &dir.path().join("profile"),
        &format!("{}/overlay/9", bridge.base),
    )?;
    let shown = page.wait_shown(
        "JSON.stringify({h1: (document.querySelector('h1') || {}).textContent || '',          why: (document.getElementById('why') || {}).textContent || '',          home: (document.querySelector('a') || {href: ''}).href})",
        WAIT,
        |v| v["h1"] != "",
    )?;
    assert_eq!(shown["h1"], "No such board", "{shown}");
    assert!(
        shown["why"].as_str().is_some_and(|w| w.contains("\"9\"")),
        "{shown}"
    );
    assert_eq!(shown["home"], format!("{}/", bridge.base), "{shown}");
    Ok(())
}

/// The dashboard's tiles in order: board number, clock index, what needs attention, and
/// the fix of the first problem.
const TILES: &str = "JSON.stringify([...document.querySelectorAll('#boards .tile')].map(t => \
    [t.dataset.board, t.dataset.index, [...t.querySelectorAll('.problem .what')].map(p => p.textContent).join('; '), \
    (t.querySelector('.problem .fix') || {}).textContent || '']))";

/// The tiles in board order, whatever needs the operator (a board stays where its number
/// puts it): board 2, paused, is marked in its place, with its fix.
#[test]
fn dashboard_shows_the_boards_in_board_order_the_paused_one_marked_with_its_fix_and_follows_a_start()
-> Result<()> {
    let Some(browser) = have("chromium", "chromium")? else {
        return Ok(());
    };
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-dash")?;
    let d = daemon_with(&bus, &dir, &["board-one", "board-two"])?;
    for args in [
        &["start", "1"][..],
        &["press", "1", "white"],
        &["pause", "1"],
    ] {
        anyhow::ensure!(d.ctl(args).status.success(), "{args:?}");
    }
    let bridge = Bridge::spawn(bus.address(), &[])?;
    let mut page = Page::open(
        &browser,
        &dir.path().join("profile"),
        &format!("{}/", bridge.base),
    )?;
    let tiles = page.wait_shown(TILES, Duration::from_secs(20), |v| {
        v.as_array().is_some_and(|a| a.len() == 2)
    })?;
    assert_eq!(tiles[0][0], "1", "board order: {tiles}");
    assert_eq!(tiles[0][2], "", "board 1 needs nothing: {tiles}");
    assert_eq!(tiles[1][0], "2", "board 2 (paused) in its place: {tiles}");
    assert_eq!(tiles[1][2], "paused mid-game", "{tiles}");
    assert_eq!(tiles[1][3], "chessclockctl resume board:2", "{tiles}");
    let marked = page.eval(
        "[...document.querySelectorAll('.tile.attention')].map(t => t.dataset.board).join(' ')",
    )?;
    assert_eq!(marked, "2", "the paused board is marked");
    let head = page.eval("document.getElementById('daemon').textContent")?;
    assert!(
        head.as_str()
            .is_some_and(|h| h.contains("connected to chessclockd")),
        "the daemon's state shows: {head}"
    );
    // Live: board 1 starts and shows its clock running; board 2 resumed needs nothing.
    anyhow::ensure!(d.ctl(&["start", "board:1"]).status.success());
    anyhow::ensure!(d.ctl(&["resume", "board:2"]).status.success());
    page.wait(
        "document.querySelector('.tile[data-board=\"1\"] .time.running') !== null \
         && document.querySelectorAll('.tile.attention').length === 0",
        WAIT,
        |v| v == &Value::Bool(true),
    )?;
    Ok(())
}
