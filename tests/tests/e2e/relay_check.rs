//! End to end: the round's go/no-go (`chessclockctl round check`, issue 44 item 2). The real
//! daemon, CLI and emulator: two emulated boards and a paper board; a missing piece and a
//! clock set to another control fail their checks with their fixes (exit 1), `--wait` follows
//! the fixes and ends when every board is ready, and then the check passes (exit 0). With a
//! real bridge pushing to the Lichess stand-in, each board names the Lichess round its game
//! went to, or the board problem that keeps it off (a paper board no `[[lichess]]` table
//! takes).

use std::time::Duration;

use anyhow::{Context, Result, ensure};
use chessclock_tests::bridge::{Bridge, have};
use chessclock_tests::bus_client::Client;
use chessclock_tests::chromium::Page;
use chessclock_tests::e2e::{ctl_ok, emu, text};
use chessclock_tests::json::s;
use chessclock_tests::lichess::StandIn;
use chessclock_tests::lichess::rig::PushRig;
use chessclock_tests::rig::{Daemon, Spawned, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(10);

/// Load the round's pairings from the CSV `rows` (header included), written in `dir`.
fn load_round(d: &Daemon, dir: &std::path::Path, rows: &str) -> Result<()> {
    let csv = dir.join("round1.csv");
    std::fs::write(&csv, rows)?;
    ctl_ok(d, &["round", "load", &csv.display().to_string()]);
    Ok(())
}

/// The checks of `board` that failed, by name.
fn failed(report: &Value, board: u64) -> Vec<String> {
    report["boards"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["board"] == board)
        .flat_map(|b| b["checks"].as_array().cloned().unwrap_or_default())
        .filter(|c| c["ok"] == false)
        .map(|c| s(&c, "/check").to_owned())
        .collect()
}

#[test]
fn a_round_check_names_each_board_s_fault_with_its_fix_and_waits_until_all_are_ready() -> Result<()>
{
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("relay-check")?;
    let config = write_config(dir.path(), &[], "")?;
    let mut one = emu(&["--board-serial", "11111"])?;
    let two = emu(&["--board-serial", "22222"])?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    ctl_ok(&d, &["attach", &one.path]);
    ctl_ok(&d, &["attach", &two.path]);
    for clock in ["0", "1"] {
        d.wait_status(clock, WAIT, "the board ready", |v| {
            s(v, "/device_state") == "ready" && !s(v, "/model").is_empty()
        })?;
    }
    load_round(
        &d,
        dir.path(),
        "board,white,black\n1,Tanaka,Moreau\n2,Novak,Lindqvist\n3,Ito,Berg\n",
    )?;
    let control = s(
        &d.ctl_json(&["status", "board:1", "--json"])?,
        "/time_control",
    )
    .to_owned();

    // Board 1's white queen is missing; board 2's clock is set to another control.
    one.send("lift d1")?;
    d.wait_status("board:1", WAIT, "the queen missing", |v| {
        !s(v, "/board_problem").is_empty()
    })?;
    ctl_ok(&d, &["set", "board:2", "G/5"]);
    let args = ["round", "check", "--control", control.as_str()];
    let out = d.ctl(&args);
    ensure!(out.status.code() == Some(1), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    ensure!(
        said.contains("board 1 (clock 0): NOT READY: pieces:")
            && said.contains("board 2 (clock 1): NOT READY: control: set to G/5")
            && said.contains(&format!("chessclockctl set board:2 \"{control}\""))
            && said.contains("board 3 (paper): ready")
            && said.contains("round 1: 1 of 3 boards ready"),
        "{said}"
    );
    let json = d.ctl(&[&args[..], &["--json"]].concat());
    ensure!(json.status.code() == Some(1), "{}", text(&json));
    let report: Value = serde_json::from_slice(&json.stdout)?;
    ensure!(report["ready"] == false, "{report}");
    ensure!(failed(&report, 1) == ["pieces"], "{report}");
    ensure!(failed(&report, 2) == ["control"], "{report}");
    ensure!(failed(&report, 3).is_empty(), "{report}");

    // The Manager's CheckRound says the same to a script on the bus.
    let client = Client::connect(bus.address())?;
    let mgr = client.manager()?;
    let on_bus = client.run(mgr.check_round(&control))?;
    let bus_failed: Vec<(u32, i32, Vec<String>)> = on_bus
        .iter()
        .map(|(board, clock, _, checks)| {
            let names = checks
                .iter()
                .filter(|c| !c.1)
                .map(|c| c.0.clone())
                .collect();
            (*board, *clock, names)
        })
        .collect();
    ensure!(
        bus_failed
            == [
                (1, 0, vec!["pieces".to_owned()]),
                (2, 1, vec!["control".to_owned()]),
                (3, -1, vec![])
            ],
        "{on_bus:?}"
    );
    ensure!(on_bus.iter().map(|b| b.2).collect::<Vec<_>>() == [false, false, true]);
    let bad = client
        .run(mgr.check_round("G/ninety"))
        .expect_err("a bad control");
    ensure!(
        bad.to_string().contains("InvalidArgument") && bad.to_string().contains("G/ninety"),
        "{bad}"
    );

    // Waiting: the fixes are followed, and the command ends once every board is ready.
    let mut waiting = Spawned::ctl(bus.address(), &[&args[..], &["--wait"]].concat())?;
    waiting.wait_line(0, WAIT, "the first check", |l| {
        l.contains("1 of 3 boards ready")
    })?;
    one.send("place d1 Q")?;
    ctl_ok(&d, &["set", "board:2", &control]);
    waiting.wait_line(0, WAIT, "every board ready", |l| {
        l == "round 1: 3 of 3 boards ready"
    })?;
    let out = d.ctl(&args);
    ensure!(out.status.success(), "{}", text(&out));
    Ok(())
}

/// The `lichess` check of `board` in a `round check --json` report.
fn lichess(report: &Value, board: u64) -> Option<Value> {
    report["boards"]
        .as_array()?
        .iter()
        .find(|b| b["board"] == board)?["checks"]
        .as_array()?
        .iter()
        .find(|c| c["check"] == "lichess")
        .cloned()
}

#[test]
fn with_a_bridge_pushing_each_board_names_its_lichess_round_or_what_keeps_it_off() -> Result<()> {
    let lichess_api = StandIn::with_rounds(&["RndChk12"])?;
    let rig = PushRig::start("relay-check-lichess", &lichess_api, "RndChk12", "")?;
    // The table takes board 1 only: board 2, a paper board, is in no table.
    let mut toml = std::fs::read_to_string(&rig.bridge_toml)?;
    toml.push_str("boards = \"1\"\n");
    std::fs::write(&rig.bridge_toml, toml)?;
    let d = &rig.daemon;
    load_round(
        d,
        rig.dir.path(),
        "board,white,black\n1,Tanaka,Moreau\n2,Ito,Berg\n",
    )?;
    let bridge = Bridge::spawn(
        rig.bus.address(),
        &["--config", rig.bridge_toml.to_str().context("utf-8")?],
    )?;
    let args = ["round", "check", "--json"];
    let deadline = std::time::Instant::now() + WAIT * 3;
    let report = loop {
        let out = d.ctl(&args);
        let report: Value = serde_json::from_slice(&out.stdout).context(text(&out))?;
        let pushed = lichess(&report, 1).is_some_and(|c| c["ok"] == true);
        let left_out = lichess(&report, 2).is_some_and(|c| c["ok"] == false);
        if pushed && left_out {
            ensure!(out.status.code() == Some(1), "{}", text(&out));
            break report;
        }
        ensure!(
            std::time::Instant::now() < deadline,
            "board 1 never pushed, or board 2 never named as left out: {report}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let one = lichess(&report, 1).context("board 1's lichess check")?;
    ensure!(
        s(&one, "/text") == "pushed to Lichess round RndChk12",
        "{one}"
    );
    let two = lichess(&report, 2).context("board 2's lichess check")?;
    ensure!(
        s(&two, "/text").contains("board 2") && s(&two, "/fix").contains("boards"),
        "{two}"
    );
    ensure!(failed(&report, 1).is_empty(), "{report}");
    ensure!(failed(&report, 2) == ["lichess"], "{report}");
    let said = String::from_utf8_lossy(&d.ctl(&["round", "check"]).stdout).into_owned();
    ensure!(
        said.contains("board 1 (clock 0): ready")
            && said.contains("board 2 (paper): NOT READY: lichess:"),
        "{said}"
    );

    // The bridge's screen says the same: its route, and its page in a real browser.
    let served = bridge.get_json("/api/v1/round/check")?;
    ensure!(served["boards"] == report["boards"], "{served}\n{report}");
    if let Some(browser) = have("chromium", "chromium")? {
        let mut page = Page::open(
            &browser,
            &rig.dir.path().join("profile"),
            &format!("{}/round", bridge.base),
        )?;
        page.wait_shown(
            "JSON.stringify([document.getElementById('summary').textContent, \
             [...document.querySelectorAll('tr.not-ready')].map((r) => r.dataset.board + ' ' + \
             r.querySelector('.fix').dataset.check)])",
            Duration::from_secs(30),
            |v| *v == serde_json::json!(["1 of 2 boards ready", ["2 lichess"]]),
        )?;
    }
    Ok(())
}

#[test]
fn a_board_turned_round_unlike_the_others_is_named_with_its_fix() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("relay-check-turned")?;
    let config = write_config(dir.path(), &[], "")?;
    let boards = [
        emu(&["--board-serial", "11111"])?,
        emu(&["--board-serial", "22222", "--rotated"])?,
        emu(&["--board-serial", "33333"])?,
    ];
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    for b in &boards {
        ctl_ok(&d, &["attach", &b.path]);
    }
    for (clock, want) in [("0", "normal"), ("1", "rotated"), ("2", "normal")] {
        d.wait_status(clock, WAIT, "the board's orientation", |v| {
            s(v, "/board_orientation") == want
        })?;
    }
    load_round(
        &d,
        dir.path(),
        "board,white,black\n1,Tanaka,Moreau\n2,Novak,Lindqvist\n3,Ito,Berg\n",
    )?;
    let out = d.ctl(&["round", "check", "--json"]);
    ensure!(out.status.code() == Some(1), "{}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout)?;
    ensure!(failed(&report, 1).is_empty(), "{report}");
    ensure!(failed(&report, 2) == ["orientation"], "{report}");
    ensure!(failed(&report, 3).is_empty(), "{report}");
    let said = String::from_utf8_lossy(&d.ctl(&["round", "check"]).stdout).into_owned();
    ensure!(
        said.contains("board 2 (clock 1): NOT READY: orientation: turned round")
            && said.contains("unlike 2 other boards"),
        "{said}"
    );
    Ok(())
}
