//! The doctor's settings checks: the daemon's configuration and the bridge's settings, each
//! checked by its own program as its start does (`chessclockd --check-config`,
//! `chessclock-bridge --check-config`: the file, its drop-ins, the line of a bad key), so that
//! a bad file waiting for the next start or reload fails here first; and the bridge's address
//! and broker read from its file and drop-ins, for the checks that reach them.
//!
//! The CLI links neither program's configuration code (docs/architecture.md): it runs the
//! installed programs, found beside `chessclockctl` (the package puts all of them in
//! `/usr/bin`, a build in `target/`) or else on `PATH`. It changes nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Check, Host, check, skip};

/// `program` beside this `chessclockctl`, else on `PATH`; `None` when it is not installed.
fn installed(program: &str) -> Option<PathBuf> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join(program)))
        .filter(|p| p.is_file());
    beside.or_else(|| {
        std::env::split_paths(&std::env::var_os("PATH")?)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}

/// What a `--check-config` run said.
enum Verdict {
    /// Exit 0, and its line (`configuration OK (files)`), without the program's name.
    Valid(String),
    /// Any other exit, and its error, without the program's name.
    Invalid(String),
    /// It could not be run.
    NotRun(String),
}

/// Run `program --check-config [--config FILE]` with the environment the services have: none
/// of the caller's `CHESSCLOCKD_*`, `CHESSCLOCK_BRIDGE_*` or credentials.
fn check_config(exe: &Path, program: &str, config: Option<&Path>) -> Verdict {
    let mut cmd = Command::new(exe);
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("CHESSCLOCKD_")
            || name.starts_with("CHESSCLOCK_BRIDGE_")
            || name == "CREDENTIALS_DIRECTORY"
        {
            cmd.env_remove(&*name);
        }
    }
    cmd.arg("--check-config");
    if let Some(file) = config {
        cmd.arg("--config").arg(file);
    }
    let out = match cmd.output() {
        Ok(out) => out,
        Err(e) => return Verdict::NotRun(format!("cannot run {}: {e}", exe.display())),
    };
    let said = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim();
        text.strip_prefix(&format!("{program}: "))
            .unwrap_or(text)
            .to_owned()
    };
    if out.status.success() {
        Verdict::Valid(said(&out.stdout))
    } else {
        Verdict::Invalid(said(&out.stderr))
    }
}

/// A file the caller may not read: the check needs root (the services read it as theirs).
fn unreadable(why: &str) -> bool {
    why.contains("Permission denied") && !rustix::process::geteuid().is_root()
}

/// The daemon's configuration, as `chessclockd --check-config` checks it: `config` is the
/// file the daemon is started with (`None`: its default, /etc/chessclockd/chessclockd.toml
/// if it exists, and the drop-ins in chessclockd.toml.d/).
pub(super) fn daemon_config(config: Option<&Path>, host: Host) -> Check {
    const NAME: &str = "config";
    let Some(exe) = installed("chessclockd") else {
        return skip(NAME, "chessclockd is not installed here (skipped)");
    };
    match check_config(&exe, "chessclockd", config) {
        Verdict::Valid(line) => check(NAME, true, line),
        Verdict::Invalid(why) if unreadable(&why) => skip(
            NAME,
            format!(
                "{why} (skipped: the daemon reads it as its own user; `sudo chessclockctl \
                 doctor` checks it)"
            ),
        ),
        Verdict::Invalid(why) => check(
            NAME,
            false,
            format!(
                "{why}; the daemon refuses to start or reload with it: fix it, then {}",
                host.reload("chessclockd")
            ),
        ),
        Verdict::NotRun(why) => check(NAME, false, why),
    }
}

/// The bridge's settings, as `chessclock-bridge --check-config` checks them; skipped without
/// `config`, as the bridge's other checks are.
pub(super) fn bridge_config(config: &Path, host: Host) -> Check {
    const NAME: &str = "bridge_config";
    if !config.is_file() {
        return skip(
            NAME,
            format!(
                "no {}: the bridge is not set up (skipped)",
                config.display()
            ),
        );
    }
    let Some(exe) = installed("chessclock-bridge") else {
        return skip(NAME, "chessclock-bridge is not installed here (skipped)");
    };
    match check_config(&exe, "chessclock-bridge", Some(config)) {
        Verdict::Valid(line) => check(NAME, true, line),
        Verdict::Invalid(why) if unreadable(&why) => skip(
            NAME,
            format!(
                "{why} (skipped: the bridge reads it as its own user; `sudo chessclockctl \
                 doctor` checks it)"
            ),
        ),
        Verdict::Invalid(why) => check(
            NAME,
            false,
            format!(
                "{why}; the bridge refuses to start with it: fix it, then {}",
                host.restart("chessclock-bridge")
            ),
        ),
        Verdict::NotRun(why) => check(NAME, false, why),
    }
}

/// The bridge's settings as its files give them: `config`, then its drop-ins
/// (`bridge.toml.d/*.toml`, by name; a later file's key wins, a table's keys merge), for the
/// address and the broker the other checks reach. `Ok(None)` without `config`; the error
/// names the file that is not TOML.
pub(super) fn bridge_table(config: &Path) -> Result<Option<toml::Table>, String> {
    let Ok(text) = std::fs::read_to_string(config) else {
        return Ok(None);
    };
    let mut files = vec![(config.to_path_buf(), text)];
    let mut dir = config.as_os_str().to_owned();
    dir.push(".d");
    let mut drop_ins: Vec<PathBuf> = std::fs::read_dir(PathBuf::from(dir))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .is_some_and(|n| !n.starts_with('.') && n.ends_with(".toml"))
                })
                .collect()
        })
        .unwrap_or_default();
    drop_ins.sort();
    for path in drop_ins {
        if let Ok(text) = std::fs::read_to_string(&path) {
            files.push((path, text));
        }
    }
    let mut merged = toml::Table::new();
    for (path, text) in files {
        let table: toml::Table = text.parse().map_err(|e| {
            format!(
                "{}: {e}; check it with `chessclock-bridge --check-config`",
                path.display()
            )
        })?;
        for (key, value) in table {
            match (merged.get_mut(&key), value) {
                (Some(toml::Value::Table(old)), toml::Value::Table(new)) => old.extend(new),
                (_, value) => {
                    merged.insert(key, value);
                }
            }
        }
    }
    Ok(Some(merged))
}
