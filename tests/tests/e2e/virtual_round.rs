//! install.md's "A round without a board" as a newcomer runs it, and on to the results: the
//! real daemon on a private dbus-daemon, the page's own lines run by bash (`chessclockctl`
//! given the test bus), then more moves entered with `move N force`, presses and results.
//! A virtual clock's emulated pieces follow the moves entered (daemon/src/virtual_board/
//! follow.rs), so nothing but the games is on the operator's screen: no board problem, no
//! notice that the pieces do not show the game, in `list`, `status`, the bridge's API, its
//! event stream's snapshot and the dashboard (in Chromium).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};
use chessclock_tests::bridge::{Bridge, Sse, have};
use chessclock_tests::chromium::Page;
use chessclock_tests::json::s;
use chessclock_tests::paths::repo_root;
use chessclock_tests::rig::{Daemon, WAIT, workspace_bin, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

/// install.md's shell block after the line `<!-- package-test: MARKER` (what
/// scripts/package-test.sh runs on the installed package).
fn install_block(marker: &str) -> Result<String> {
    let page = std::fs::read_to_string(repo_root().join("docs/install.md"))?;
    let start = page
        .find(&format!("<!-- package-test: {marker}"))
        .with_context(|| format!("install.md has no {marker:?} block"))?;
    let mut lines = page[start..].lines().skip_while(|l| !l.starts_with("```"));
    lines.next();
    Ok(lines
        .take_while(|l| !l.starts_with("```"))
        .collect::<Vec<_>>()
        .join("\n"))
}

/// Run `script` with bash in `dir`, `chessclockctl` being the built one on `address`.
fn run_as_written(script: &str, dir: &Path, address: &str) -> Result<String> {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin)?;
    let wrapper = bin.join("chessclockctl");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec '{}' --address '{address}' \"$@\"\n",
            workspace_bin("chessclockctl")?.display()
        ),
    )?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))?;
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    ensure!(
        out.status.success(),
        "install.md's lines failed: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(text)
}

/// `chessclockctl ARGS` must succeed.
fn ok(d: &Daemon, args: &[&str]) -> Result<()> {
    let out = d.ctl(args);
    ensure!(out.status.success(), "{args:?}: {out:?}");
    Ok(())
}

/// A move entered on a virtual clock: the pieces follow it, so the notice that they do
/// not show it yet goes (at once: the emulated board answers within the daemon).
fn force(d: &Daemon, clock: &str, uci: &str) -> Result<()> {
    ok(d, &["move", clock, "force", uci])?;
    d.wait_status(clock, WAIT, "the pieces showing the move", |v| {
        v["notices"].as_array().is_none_or(Vec::is_empty)
            && v["moves_san"].as_array().is_some_and(|m| !m.is_empty())
    })?;
    Ok(())
}

/// What needs the operator at a clock, as every client shows it (`problems`), with the
/// board's problem and the notices.
fn screen(v: &Value) -> Vec<String> {
    let mut all: Vec<String> = v["problems"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| format!("problem: {}", s(p, "/text")))
        .collect();
    if !s(v, "/board_problem").is_empty() {
        all.push(format!("board problem: {}", s(v, "/board_problem")));
    }
    all.extend(
        v["notices"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|n| format!("notice: {}", n.as_str().unwrap_or_default())),
    );
    all
}

#[test]
fn install_md_s_round_without_a_board_shows_nothing_but_the_games() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("virtual-round")?;
    let d = Daemon::spawn(bus.address(), &write_config(dir.path(), &[], "")?, &[])?;
    // The page's lines as written; `doctor` checks this machine's installed files, which a
    // test checkout has not (e2e cli_doctor runs it against the test's own).
    let block: String = install_block("a round without a board")?
        .lines()
        .filter(|l| !l.trim_start().starts_with("chessclockctl doctor"))
        .collect::<Vec<_>>()
        .join("\n");
    ensure!(
        block.contains("move 0 force e2e4"),
        "the block enters moves: {block}"
    );
    let newcomer = dir.path().join("newcomer");
    std::fs::create_dir_all(&newcomer)?;
    let printed = run_as_written(&block, &newcomer, bus.address())?;
    ensure!(
        printed.contains("[White \"Carlsen, Magnus\"]"),
        "the PGN with the pairings' players: {printed}"
    );
    d.wait_status("0", WAIT, "1. e4 e5 on board 1", |v| {
        v["moves_san"] == serde_json::json!(["e4", "e5"])
            && v["notices"].as_array().is_none_or(Vec::is_empty)
    })?;

    // On to the results: board 1 until White mates, board 2 a draw after a move each.
    for (uci, side) in [
        ("f1c4", "white"),
        ("b8c6", "black"),
        ("d1h5", "white"),
        ("g8f6", "black"),
    ] {
        force(&d, "0", uci)?;
        ok(&d, &["press", "0", side])?;
    }
    force(&d, "0", "h5f7")?;
    ok(&d, &["start", "1"])?;
    force(&d, "1", "d2d4")?;
    ok(&d, &["press", "1", "white"])?;
    force(&d, "1", "d7d5")?;
    ok(&d, &["press", "1", "black"])?;
    ok(&d, &["result", "1", "1/2-1/2"])?;
    let mated = d.wait_status("0", WAIT, "the mate on the board", |v| {
        !v["result"].is_null()
    })?;
    assert_eq!(s(&mated, "/result"), "1-0", "{mated}");
    assert_eq!(
        mated["moves_san"],
        serde_json::json!(["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"])
    );

    // Nothing on the operator's screen but the games.
    let list = d.ctl_json(&["list", "--json"])?;
    let clocks = list.as_array().context("list --json is an array")?;
    ensure!(clocks.len() == 2, "{list}");
    for c in clocks {
        assert_eq!(screen(c), Vec::<String>::new(), "{c}");
        assert!(!s(c, "/result").is_empty(), "each game has its result: {c}");
    }
    for clock in ["0", "1"] {
        let out = d.ctl(&["status", clock]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            !text.contains("notice") && !text.contains("problem"),
            "status {clock}: {text}"
        );
    }
    let bridge = Bridge::spawn(bus.address(), &[])?;
    let api = bridge.get_json("/api/v1/clocks")?;
    for c in api.as_array().context("the API's clocks")? {
        assert_eq!(screen(c), Vec::<String>::new(), "{c}");
    }
    let mut sse = Sse::open(&bridge, None)?;
    let (_, snap) = sse.wait(0, "the snapshot", |e| e.kind == "snapshot")?;
    let shown = snap.data["clocks"]
        .as_array()
        .context("the snapshot's clocks")?;
    if shown.len() != 2 {
        bail!("the snapshot shows {} clocks: {:?}", shown.len(), snap.data);
    }
    for c in shown {
        assert_eq!(screen(c), Vec::<String>::new(), "{c}");
    }
    // The dashboard as the operator sees it (in Chromium, where installed): both boards, their
    // results, no problem on any tile.
    if let Some(browser) = have("chromium", "chromium")? {
        let mut page = Page::open(
            &browser,
            &dir.path().join("profile"),
            &format!("{}/", bridge.base),
        )?;
        let tiles = page.wait_shown(
            "JSON.stringify([...document.querySelectorAll('#boards .tile')].map(t => ({\
             board: t.dataset.board, res: t.querySelector('.res').textContent, \
             problems: t.querySelectorAll('.problem').length, \
             attention: t.classList.contains('attention')})))",
            WAIT,
            |v| {
                v.as_array()
                    .is_some_and(|a| a.len() == 2 && a.iter().all(|t| !s(t, "/res").is_empty()))
            },
        )?;
        for t in tiles.as_array().into_iter().flatten() {
            assert_eq!(t["problems"], 0, "{tiles}");
            assert_eq!(t["attention"], false, "{tiles}");
        }
        assert_eq!(
            (s(&tiles[0], "/board"), s(&tiles[1], "/board")),
            ("1", "2"),
            "{tiles}"
        );
    }
    Ok(())
}
