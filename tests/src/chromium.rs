//! A page in a real headless Chromium (Debian's `chromium`), driven over the DevTools
//! protocol (a websocket): evaluate an expression, wait for what the page shows, take a
//! screenshot (written to `target/bridge-screenshots/` for people to look at).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use base64::Engine as _;
use serde_json::Value;

use crate::bridge::free_port;
use crate::paths::repo_path;
use crate::rig::WAIT;

/// Headless Chromium with a fresh profile (`profile`) showing `url`.
pub fn chromium(exe: &Path, profile: &Path, what: &[&str], url: &str) -> Command {
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

/// Where the screenshots go.
pub fn shots_dir() -> Result<PathBuf> {
    let dir = repo_path("target/bridge-screenshots");
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// A page in a headless Chromium driven over the DevTools protocol (a websocket): enough to
/// evaluate an expression in the page.
pub struct Page {
    browser: Child,
    socket: tungstenite::WebSocket<std::net::TcpStream>,
    next: u64,
}

impl Page {
    /// Open `url` in a new Chromium with the profile `profile`.
    pub fn open(exe: &Path, profile: &Path, url: &str) -> Result<Page> {
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
    pub fn eval(&mut self, expr: &str) -> Result<Value> {
        let r = self.call(
            "Runtime.evaluate",
            serde_json::json!({"expression": expr, "returnByValue": true}),
        )?;
        Ok(r["result"]["value"].clone())
    }

    /// Send a DevTools command; its result.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value> {
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
    pub fn screenshot(&mut self, width: u32, height: u32, mobile: bool, file: &Path) -> Result<()> {
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
    pub fn wait(
        &mut self,
        expr: &str,
        timeout: Duration,
        pred: impl Fn(&Value) -> bool,
    ) -> Result<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let v = match self.eval(expr) {
                Ok(v) => v,
                // The page is between two documents (a navigation, a reload): not shown yet.
                Err(e) if navigating(&e) && Instant::now() <= deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                }
                Err(e) => return Err(e),
            };
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

/// Whether a DevTools error says the page was navigating when asked (its old document gone,
/// the new one's context not there yet).
fn navigating(e: &anyhow::Error) -> bool {
    let e = e.to_string();
    e.contains("Inspected target navigated or closed") || e.contains("Cannot find context")
}

impl Page {
    /// [`Page::wait`] for a `JSON.stringify(...)` `expr` whose value, read with [`shown`],
    /// `pred` accepts; that value.
    pub fn wait_shown(
        &mut self,
        expr: &str,
        timeout: Duration,
        pred: impl Fn(&Value) -> bool,
    ) -> Result<Value> {
        self.wait(expr, timeout, |v| pred(&shown(v)))
            .map(|v| shown(&v))
    }
}

impl std::fmt::Debug for Page {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page")
            .field("browser", &self.browser.id())
            .finish_non_exhaustive()
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        let _ = self.browser.kill();
        let _ = self.browser.wait();
    }
}

/// The JSON a page returned as a string (`JSON.stringify(...)`), parsed; null if none.
pub fn shown(v: &Value) -> Value {
    v.as_str()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Null)
}
