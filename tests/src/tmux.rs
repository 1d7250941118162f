//! A real terminal for the tests: a detached tmux session of a given size running one
//! command, its screen read with `capture-pane`, keys sent with `send-keys`. The session is
//! killed on drop, however the test ends.

use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// Run `tmux ARGS`; its stdout.
pub fn tmux(args: &[&str]) -> Result<String> {
    let out = Command::new("tmux").args(args).output().context("tmux")?;
    if !out.status.success() {
        bail!("tmux {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A detached tmux session, killed on drop.
#[derive(Debug)]
pub struct Session(pub String);

impl Session {
    /// Start `command` (a shell command) in a `width`×`height` session named after `tag`.
    pub fn start(tag: &str, width: u16, height: u16, command: &str) -> Result<Session> {
        let name = format!("{tag}-{}", std::process::id());
        let (w, h) = (width.to_string(), height.to_string());
        tmux(&[
            "new-session",
            "-d",
            "-s",
            &name,
            "-x",
            &w,
            "-y",
            &h,
            command,
        ])?;
        Ok(Session(name))
    }

    /// The screen as text, one line per row.
    pub fn screen(&self) -> Result<String> {
        tmux(&["capture-pane", "-p", "-t", &self.0])
    }

    /// A tmux format for the pane, e.g. `#{cursor_flag}`.
    pub fn format(&self, format: &str) -> Result<String> {
        Ok(tmux(&["display-message", "-p", "-t", &self.0, format])?
            .trim()
            .to_owned())
    }

    /// Send keys (tmux key names: `q`, `Space`, `C-c`).
    pub fn keys(&self, keys: &[&str]) -> Result<()> {
        let mut args = vec!["send-keys", "-t", self.0.as_str()];
        args.extend_from_slice(keys);
        tmux(&args).map(drop)
    }

    /// Resize the window.
    pub fn resize(&self, width: u16, height: u16) -> Result<()> {
        let (w, h) = (width.to_string(), height.to_string());
        tmux(&["resize-window", "-t", &self.0, "-x", &w, "-y", &h]).map(drop)
    }

    /// Poll the screen until `pred` holds (or `timeout`); the screen.
    pub fn wait(
        &self,
        timeout: Duration,
        what: &str,
        pred: impl Fn(&str) -> bool,
    ) -> Result<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let screen = self.screen()?;
            if pred(&screen) {
                return Ok(screen);
            }
            if Instant::now() > deadline {
                bail!("timed out waiting for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.0])
            .output();
    }
}
