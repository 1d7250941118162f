//! Unprivileged test users: create them (as root, with `groupadd`/`useradd`) and run
//! commands as them with `setpriv --reuid --regid --init-groups`.
//!
//! Owns user and group setup for tests. Tests that need it call [`is_root`] first and skip
//! with a printed reason when not root (CI runs as root).

use std::process::Command;
use std::sync::Mutex;

use anyhow::{Context, Result, bail};

/// Serialises user database edits: parallel `useradd`s fail on the passwd lock.
static USERDB: Mutex<()> = Mutex::new(());

/// True when this process runs as uid 0 (read from `/proc/self/status`).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("Uid:"))?.to_owned();
            let real = line.split_whitespace().nth(1)?.to_owned();
            Some(real == "0")
        })
        .unwrap_or(false)
}

/// A system user that exists on this machine; build commands that run as it.
#[derive(Debug, Clone)]
pub struct TestUser {
    /// The login name.
    pub name: String,
}

impl TestUser {
    /// `setpriv --reuid=NAME --regid=NAME --init-groups -- program`: the program runs with
    /// this user's uid, primary gid and supplementary groups from `/etc/group`.
    pub fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new("setpriv");
        cmd.arg(format!("--reuid={}", self.name))
            .arg(format!("--regid={}", self.name))
            .arg("--init-groups")
            .arg("--")
            .arg(program);
        cmd
    }
}

fn exists(database: &str, name: &str) -> bool {
    Command::new("getent")
        .args([database, name])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run(cmd: &mut Command) -> Result<()> {
    let shown = format!("{cmd:?}");
    // useradd/groupadd may meet a lock held by another process for a moment: retry briefly.
    for attempt in 0..5 {
        let out = cmd
            .output()
            .with_context(|| format!("cannot run {shown}; is the `passwd` package installed?"))?;
        if out.status.success() {
            return Ok(());
        }
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        if !err.contains("lock") || attempt == 4 {
            bail!("{shown} failed: {}", err.trim());
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    Ok(())
}

/// Make sure system group `name` exists (root only).
pub fn ensure_group(name: &str) -> Result<()> {
    let _guard = USERDB
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !exists("group", name) {
        run(Command::new("groupadd").args(["--system", name]))?;
    }
    Ok(())
}

/// The two callers the bus policy tells apart: a reader (in no group) and an operator (in
/// group `chessclock`).
#[derive(Debug, Clone)]
pub struct PolicyUsers {
    /// `cctest-reader`: may read, not control.
    pub reader: TestUser,
    /// `cctest-operator`, in group `chessclock`: may control.
    pub operator: TestUser,
}

/// The reader and the operator of [`PolicyUsers`], created if missing; `None`, with the
/// reason printed, when this process is not root (the policy tests then skip; CI runs as
/// root).
pub fn policy_users() -> Result<Option<PolicyUsers>> {
    if !is_root() {
        eprintln!("SKIP: needs root to create test users and switch to them (CI runs as root)");
        return Ok(None);
    }
    Ok(Some(PolicyUsers {
        reader: ensure_test_user("cctest-reader", &[])?,
        operator: ensure_test_user("cctest-operator", &["chessclock"])?,
    }))
}

/// Make sure system user `name` exists and is a member of each of `groups` (created if
/// missing). Needs root: call [`is_root`] first and skip the test when it is false.
pub fn ensure_test_user(name: &str, groups: &[&str]) -> Result<TestUser> {
    if !is_root() {
        bail!("creating user {name} needs root; run the tests as root (CI does)");
    }
    for group in groups {
        ensure_group(group)?;
    }
    let _guard = USERDB
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !exists("passwd", name) {
        run(Command::new("useradd").args([
            "--system",
            "--user-group",
            "--no-create-home",
            "--shell",
            "/usr/sbin/nologin",
            name,
        ]))?;
    }
    for group in groups {
        run(Command::new("usermod").args(["--append", "--groups", group, name]))?;
    }
    Ok(TestUser {
        name: name.to_owned(),
    })
}

impl TestUser {
    /// Give `path` (recursively) to this user, e.g. a temp state directory for a daemon that
    /// runs as it.
    pub fn chown(&self, path: &std::path::Path) -> Result<()> {
        run(Command::new("chown")
            .arg("-R")
            .arg(format!("{0}:{0}", self.name))
            .arg(path))
    }
}
