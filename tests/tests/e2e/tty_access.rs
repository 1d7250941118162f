//! A tty the daemon's user may not open: the real `chessclockd`, running as another user (in
//! `dialout`, as the package's), on a system-like bus with the real policy, asked by root to
//! attach the pty of the real `chessclock-emu` owned by root with mode 0600. The refusal
//! names the pty's owner, group and mode and the daemon's user and groups, not the old advice
//! to join `dialout`; once the mode lets the user in, the same attach works. Needs root (CI
//! runs as root).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use chessclock_tests::e2e::{emu, text};
use chessclock_tests::paths::repo_path;
use chessclock_tests::rig::{Daemon, write_config};
use chessclock_tests::{PrivateBus, TempDir, ensure_test_user, is_root};

#[test]
fn a_pty_of_root_with_mode_0600_is_refused_naming_its_owner_mode_and_the_daemons_groups()
-> Result<()> {
    if !is_root() {
        eprintln!(
            "SKIP: this test runs the daemon as another user; it needs root (CI runs as root)"
        );
        return Ok(());
    }
    // The package's user: chessclockd, in dialout (the bus policy lets it own the name).
    let user = ensure_test_user("chessclockd", &["dialout"])?;
    let bus = PrivateBus::start_system_like(&repo_path("dbus"))?;
    let dir = TempDir::new("tty-access")?;
    let config = write_config(dir.path(), &[], "")?;
    std::fs::create_dir_all(dir.path().join("state"))?;
    user.chown(&dir.path().join("state"))?;
    let log = dir.path().join("daemon.log");
    let d = Daemon::spawn_logged_as(&user, bus.address(), &config, &log)?;

    let board = emu(&[])?;
    let pty = std::fs::canonicalize(&board.path)?;
    std::os::unix::fs::chown(&pty, Some(0), Some(0)).context("chown the pty to root:root")?;
    std::fs::set_permissions(&pty, std::fs::Permissions::from_mode(0o600))?;
    let shown = pty.display().to_string();

    let out = d.ctl(&["attach", &shown]);
    let said = text(&out);
    assert!(!out.status.success(), "the attach is refused: {said}");
    for part in [
        format!("permission denied opening {shown}"),
        "owned by root:root with mode 0600 (rw-------)".to_owned(),
        "the daemon runs as chessclockd (groups ".to_owned(),
        "dialout".to_owned(),
        "that user is neither its owner nor in group root".to_owned(),
    ] {
        assert!(said.contains(&part), "{part:?} in: {said}");
    }
    assert!(!said.contains("needs group dialout"), "{said}");
    assert!(
        d.ctl_json(&["list", "--json"])?
            .as_array()
            .is_some_and(Vec::is_empty),
        "a refused attach adds no clock"
    );

    // The same pty, open to the daemon's user: the attach works (the mode was the cause).
    std::fs::set_permissions(&pty, std::fs::Permissions::from_mode(0o666))?;
    let out = d.ctl(&["attach", &shown]);
    assert!(out.status.success(), "{}", text(&out));
    d.wait_status("0", Duration::from_secs(10), "the board ready", |v| {
        v["device_state"] == "ready"
    })?;
    assert!(Path::new(&shown).exists());
    Ok(())
}
