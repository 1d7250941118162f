//! The bridge's pages in a real headless Chromium (Debian's `chromium`): the dashboard puts
//! the board that needs the operator first, the overlay shows a clock and follows a press
//! within one second; the page is driven over the DevTools protocol (a websocket), which
//! also takes the screenshots written to `target/bridge-screenshots/` for people to look at.
//! In CI a missing Chromium fails the test.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use base64::Engine as _;
use chessclock_tests::bridge::{Bridge, free_port, have};
use chessclock_tests::json::{s, u};
use chessclock_tests::paths::repo_path;
use chessclock_tests::rig::{Daemon, WAIT, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

/// Headless Chromium with a fresh profile (`profile`) showing `url`.
fn chromium(exe: &Path, profile: &Path, what: &[&str], url: &str) -> Command {
    let mut c = Command::new(exe);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .args(what)
    .arg(url)
    .stdin(Stdio::null())
    .stderr(Stdio::null());
    c
}

fn shots_dir() -> Result<PathBuf> {
    let dir = repo_path("target/bridge-screenshots");
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn rig(dir: &TempDir, bus: &PrivateBus, names: &[&str]) -> Result<Daemon> {
    let d = Daemon::spawn(bus.address(), &write_config(dir.path(), &[], "")?, &[])?;
    for (i, name) in names.iter().enumerate() {
        anyhow::ensure!(d.ctl(&["add-virtual", name]).status.success());
        d.wait_status(&i.to_string(), WAIT, "a ready clock", |v| {
            s(v, "/device_state") == "ready" && !s(v, "/board_serial").is_empty()
        })?;
    }
    Ok(d)
}

/// A page in a headless Chromium driven over the DevTools protocol (a websocket): enough to
/// evaluate an expression in the page.
struct Page {
    browser: Child,
    socket: tungstenite::WebSocket<std::net::TcpStream>,
    next: u64,
}

impl Page {
    fn open(exe: &Path, profile: &Path, url: &str) -> Result<Page> {
        let port = free_port()?;
        let debug = format!("--remote-debugging-port={port}");
        let browser = chromium(exe, profile, &[&debug], url)
            .stdout(Stdio::null())
            .spawn()
            .context("cannot run chromium")?;
        let mut page = None;
        let deadline = Instant::now() + Duration::from_secs(30);
        while page.is_none() && Instant::now() < deadline {
            let list: Option<Value> =
                reqwest::blocking::get(format!("http://127.0.0.1:{port}/json/list"))
                    .ok()
                    .and_then(|r| r.json().ok());
            page = list.and_then(|l| {
                l.as_array()?
                    .iter()
                    .find(|p| p["type"] == "page")
                    .and_then(|p| p["webSocketDebuggerUrl"].as_str().map(str::to_owned))
            });
            if page.is_none() {
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        let ws = page.context("Chromium's DevTools did not list the page")?;
        let stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
        stream.set_read_timeout(Some(WAIT))?;
        let (socket, _) = tungstenite::client(ws.as_str(), stream)
            .map_err(|e| anyhow::anyhow!("DevTools websocket: {e}"))?;
        Ok(Page {
            browser,
            socket,
            next: 1,
        })
    }

    /// The value of a JavaScript expression in the page.
    fn eval(&mut self, expr: &str) -> Result<Value> {
        let r = self.call(
            "Runtime.evaluate",
            serde_json::json!({"expression": expr, "returnByValue": true}),
        )?;
        Ok(r["result"]["value"].clone())
    }

    /// Send a DevTools command; its result.
    fn call(&mut self, method: &str, params: Value) -> Result<Value> {
        let id = self.next;
        self.next += 1;
        let msg = serde_json::json!({"id": id, "method": method, "params": params});
        self.socket
            .send(tungstenite::Message::text(msg.to_string()))
            .map_err(|e| anyhow::anyhow!("DevTools: {e}"))?;
        loop {
            let m = self
                .socket
                .read()
                .map_err(|e| anyhow::anyhow!("DevTools: {e}"))?;
            let Ok(text) = m.to_text() else { continue };
            let v: Value = serde_json::from_str(text)?;
            if v["id"] == id {
                if let Some(e) = v.get("error") {
                    bail!("DevTools {method}: {e}");
                }
                return Ok(v["result"].clone());
            }
        }
    }

    /// A PNG of the page at `width` x `height` CSS pixels, written to `file`.
    fn screenshot(&mut self, width: u32, height: u32, mobile: bool, file: &Path) -> Result<()> {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            serde_json::json!({"width": width, "height": height, "deviceScaleFactor": 1,
                "mobile": mobile}),
        )?;
        let shot = self.call(
            "Page.captureScreenshot",
            serde_json::json!({"format": "png"}),
        )?;
        let data = shot["data"].as_str().context("no screenshot data")?;
        let png = base64::engine::general_purpose::STANDARD.decode(data)?;
        anyhow::ensure!(png.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::write(file, png)?;
        Ok(())
    }

    /// Evaluate `expr` until `pred` accepts its value (up to `timeout`); the value.
    fn wait(
        &mut self,
        expr: &str,
        timeout: Duration,
        pred: impl Fn(&Value) -> bool,
    ) -> Result<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let v = self.eval(expr)?;
            if pred(&v) {
                return Ok(v);
            }
            if Instant::now() > deadline {
                bail!("the page never showed what was expected; last: {v}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        let _ = self.browser.kill();
        let _ = self.browser.wait();
    }
}

/// What the overlay shows: whose turn, and both times as text.
const SHOWN: &str = "JSON.stringify({turn: (document.querySelector('.side.turn') || {}).dataset?.side || '', \
    white: document.querySelector('.side.white .time').textContent, \
    black: document.querySelector('.side.black .time').textContent, \
    white_ms: document.querySelector('.side.white .time').dataset.ms, \
    black_ms: document.querySelector('.side.black .time').dataset.ms, \
    clock: JSON.stringify((Bridge.clocks.get(0) || {}).st || null)})";

fn shown(v: &Value) -> Value {
    v.as_str()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Null)
}

#[test]
fn overlay_shows_the_clock_and_follows_a_press_within_a_second() -> Result<()> {
    let Some(browser) = have("chromium", "chromium")? else {
        return Ok(());
    };
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-overlay")?;
    let d = rig(&dir, &bus, &["stage"])?;
    anyhow::ensure!(d.ctl(&["set", "0", "G/5 inc/3"]).status.success());
    anyhow::ensure!(d.ctl(&["start", "0"]).status.success());
    let bridge = Bridge::spawn(bus.address(), &[])?;
    let mut page = Page::open(
        &browser,
        &dir.path().join("profile-live"),
        &format!("{}/overlay/0", bridge.base),
    )?;
    // Ready: the page shows White running, its time ticking down.
    let before = page.wait(SHOWN, Duration::from_secs(20), |v| {
        shown(v)["turn"] == "white"
    })?;
    let before = shown(&before);
    let st = d.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(
        before["black"],
        s(&st, "/text/black"),
        "Black's (waiting) time: {before}"
    );
    // The first change seen may be the page catching up with the start (White at 5:00):
    // wait for White's time to run below it.
    let ticking = page.wait(SHOWN, Duration::from_secs(5), |v| {
        shown(v)["white"] != before["white"] && shown(v)["white"] != "5:00"
    })?;
    assert_ne!(
        shown(&ticking)["white"],
        "5:00",
        "White's time runs: {ticking}"
    );

    let pressed = Instant::now();
    anyhow::ensure!(d.ctl(&["press", "0", "white"]).status.success());
    let st = d.ctl_json(&["status", "0", "--json"])?;
    let secs = u(&st, "/white_ms").div_ceil(1000);
    let want = format!("{}:{:02}", secs / 60, secs % 60);
    let after = page.wait(SHOWN, Duration::from_secs(5), |v| {
        let v = shown(v);
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
    let v = dark.wait(SHOWN, Duration::from_secs(20), |v| {
        shown(v)["turn"] == "black"
    })?;
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
    let d = rig(&dir, &bus, &["sand"])?;
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
    let v = page.wait(SHOWN, Duration::from_secs(20), |v| {
        let v = shown(v);
        v["turn"] == "white" && v["black"].as_str().is_some_and(|b| b > "1:02")
    })?;
    let v = shown(&v);
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

/// The dashboard's rows: index and what needs attention, in order.
const ROWS: &str = "JSON.stringify([...document.querySelectorAll('#boards tbody tr')].map(r => \
    [r.dataset.index, r.querySelector('.issues').textContent, r.querySelector('.name').textContent]))";

#[test]
fn dashboard_puts_the_paused_board_first_and_renders() -> Result<()> {
    let Some(browser) = have("chromium", "chromium")? else {
        return Ok(());
    };
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-dash")?;
    let d = rig(&dir, &bus, &["board-one", "board-two"])?;
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
    let rows = page.wait(ROWS, Duration::from_secs(20), |v| {
        shown(v).as_array().is_some_and(|a| a.len() == 2)
    })?;
    let rows = shown(&rows);
    assert_eq!(rows[0][0], "1", "the paused board comes first: {rows}");
    assert_eq!(rows[0][1], "paused mid-game", "{rows}");
    assert_eq!(rows[0][2], "board-two", "{rows}");
    assert_eq!(rows[1][1], "—", "board-one needs nothing: {rows}");
    let head = page.eval("document.getElementById('daemon').textContent")?;
    assert!(
        head.as_str()
            .is_some_and(|h| h.contains("connected to chessclockd")),
        "the daemon's state shows: {head}"
    );
    let shots = shots_dir()?;
    page.screenshot(900, 260, false, &shots.join("dashboard.png"))?;
    page.screenshot(390, 400, true, &shots.join("dashboard-phone.png"))?;
    // A claim waiting for the director and the draws claimable, as the status says them.
    let claim = page.eval(
        "JSON.stringify(Bridge.problems({status: 'paused', connected: true, device_state: \
         'ready', claim: {side: 'white', flag_fell: false}, draw_claimable: ['fifty_moves']}))",
    )?;
    let claim = claim.as_str().unwrap_or_default();
    assert!(
        claim.contains("white claims insufficient losing chances: the director rules")
            && claim.contains("draw claimable: fifty-moves")
            && !claim.contains("paused mid-game"),
        "{claim}"
    );
    // Live: a flag-free board that starts shows as running on the page.
    anyhow::ensure!(d.ctl(&["start", "0"]).status.success());
    page.wait(
        "document.querySelector('tr[data-index=\"0\"] td.running') !== null",
        WAIT,
        |v| v == &Value::Bool(true),
    )?;
    Ok(())
}
