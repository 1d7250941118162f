//! The bridge's pages in a real headless Chromium (Debian's `chromium`): the dashboard puts
//! the board that needs the operator first, the overlay shows a clock and follows a press
//! within one second. Screenshots of both are written to `target/bridge-screenshots/` for
//! people to look at. In CI a missing Chromium fails the test.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chessclock_tests::bridge::{Bridge, free_port, have};
use chessclock_tests::json::{s, u};
use chessclock_tests::paths::repo_path;
use chessclock_tests::rig::{Daemon, WAIT, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

/// Headless Chromium with a fresh profile, dumping the DOM or taking a screenshot of `url`
/// after `ms` milliseconds.
fn chromium(exe: &Path, profile: &Path, ms: u64, what: &[&str], url: &str) -> Command {
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
    .args((ms > 0).then(|| format!("--timeout={ms}")))
    .args(what)
    .arg(url)
    .stdin(Stdio::null())
    .stderr(Stdio::null());
    c
}

fn dump_dom(exe: &Path, profile: &Path, url: &str) -> Result<String> {
    let out = chromium(exe, profile, 3000, &["--dump-dom"], url)
        .output()
        .context("cannot run chromium")?;
    anyhow::ensure!(out.status.success(), "chromium --dump-dom {url}: {out:?}");
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn screenshot(exe: &Path, profile: &Path, url: &str, size: &str, file: &Path) -> Result<()> {
    let _ = std::fs::remove_file(file);
    let shot = format!("--screenshot={}", file.display());
    let window = format!("--window-size={size}");
    let out = chromium(exe, profile, 3000, &[&shot, &window], url)
        .output()
        .context("cannot run chromium")?;
    anyhow::ensure!(out.status.success(), "chromium --screenshot {url}: {out:?}");
    let len = std::fs::metadata(file)
        .with_context(|| format!("no screenshot at {}", file.display()))?
        .len();
    anyhow::ensure!(len > 1000, "{} is only {len} bytes", file.display());
    Ok(())
}

fn shots_dir() -> Result<PathBuf> {
    let dir = repo_path("target/bridge-screenshots");
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// The text of the first element with `class="CLASS..."` after `from` in `html`.
fn text_after<'a>(html: &'a str, from: usize, class: &str) -> Option<&'a str> {
    let at = from + html[from..].find(&format!("class=\"{class}"))?;
    let start = at + html[at..].find('>')? + 1;
    let end = start + html[start..].find('<')?;
    Some(&html[start..end])
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
    let url = format!("{}/", bridge.base);
    let html = dump_dom(&browser, &dir.path().join("profile-dom"), &url)?;
    let first_row = html
        .find("<tr data-index=")
        .with_context(|| format!("no board rows in {html}"))?;
    assert!(
        html[first_row..].starts_with("<tr data-index=\"1\""),
        "the paused board comes first: {}",
        &html[first_row..]
    );
    assert_eq!(
        text_after(&html, first_row, "issues"),
        Some("paused mid-game")
    );
    assert!(
        html.contains("board-one") && html.contains("board-two"),
        "{html}"
    );
    assert!(
        html.contains("connected to chessclockd"),
        "the daemon's state shows"
    );
    let shots = shots_dir()?;
    screenshot(
        &browser,
        &dir.path().join("profile-shot"),
        &url,
        "900,300",
        &shots.join("dashboard.png"),
    )?;
    screenshot(
        &browser,
        &dir.path().join("profile-phone"),
        &url,
        "390,500",
        &shots.join("dashboard-phone.png"),
    )?;
    Ok(())
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
        // No --timeout: the page stays until it is closed.
        let debug = format!("--remote-debugging-port={port}");
        let browser = chromium(exe, profile, 0, &[&debug], url)
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
        let id = self.next;
        self.next += 1;
        let msg = serde_json::json!({"id": id, "method": "Runtime.evaluate",
            "params": {"expression": expr, "returnByValue": true}});
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
                return Ok(v["result"]["result"]["value"].clone());
            }
        }
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
    black: document.querySelector('.side.black .time').textContent})";

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
    let shots = shots_dir()?;
    screenshot(
        &browser,
        &dir.path().join("profile-shot"),
        &format!("{}/overlay/stage?theme=dark&scale=2", bridge.base),
        "700,300",
        &shots.join("overlay-dark.png"),
    )?;

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
    let ticking = page.wait(SHOWN, Duration::from_secs(3), |v| {
        shown(v)["white"] != before["white"]
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
    Ok(())
}
