//! One round from many Pis (docs/relay.md, "A round on several machines"): two daemons, each
//! with its bridge publishing its boards' PGN retained to a real mosquitto
//! (`chessclockd/<host>/board/<B>/pgn`), and one bridge with `[[lichess]] source = "fleet"`
//! pushing the union to the local Lichess stand-in: python-chess reads every board of both
//! machines once each, by board number; a detached board leaves the round; a new round on one
//! machine pushes that round only; a board number two machines share is a conflict said once.
//! A fleet round without a broker is refused by `--check-config`, naming the setting.

use std::path::Path;

use anyhow::{Context, Result, bail};
use chessclock_tests::bridge::{Bridge, have};
use chessclock_tests::json::s;
use chessclock_tests::pgn::python_reads;
use chessclock_tests::rig::{Daemon, WAIT, check_config, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

use crate::bridge_mqtt::{Broker, Sub};
use chessclock_tests::lichess::StandIn;

/// A daemon on its own bus with clocks (on absent ports: no play is needed for game
/// information) numbered `boards`, and the pairings of `round` loaded from `csv` lines.
pub(crate) fn machine(
    dir: &TempDir,
    boards: &[u32],
    round: u32,
    csv: &str,
) -> Result<(PrivateBus, Daemon)> {
    let tables: String = boards
        .iter()
        .map(|b| {
            format!(
                "[[clock]]\nport = {:?}\nname = \"table {b}\"\nboard = {b}\n\n",
                dir.path().join(format!("absent-{b}")).display().to_string()
            )
        })
        .collect();
    let bus = PrivateBus::start_session()?;
    let d = Daemon::spawn(bus.address(), &write_config(dir.path(), &[], &tables)?, &[])?;
    load(&d, dir.path(), round, csv)?;
    Ok((bus, d))
}

/// `round load` of the CSV `lines` (after its header) as round `round`.
fn load(d: &Daemon, dir: &Path, round: u32, lines: &str) -> Result<()> {
    let csv = dir.join(format!("round{round}.csv"));
    std::fs::write(&csv, format!("board,white,black\n{lines}"))?;
    let out = d.ctl(&[
        "round",
        "load",
        &csv.display().to_string(),
        "--round",
        &round.to_string(),
    ]);
    anyhow::ensure!(
        out.status.success(),
        "round load: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

/// The first push whose body python-chess reads as `want` `(Round, White)`, in order; the
/// games it read.
fn wait_push(lichess: &StandIn, dir: &TempDir, want: &[(&str, &str)]) -> Result<Vec<Value>> {
    let deadline = std::time::Instant::now() + WAIT * 2;
    let mut last = String::new();
    while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
        let Ok(r) = lichess.requests.recv_timeout(left) else {
            break;
        };
        assert_eq!(r.method, "POST");
        assert_eq!(r.path, "/api/broadcast/round/FLeet123/push");
        assert_eq!(r.header("authorization"), Some("Bearer lip_fleettoken"));
        let file = dir.path().join("pushed.pgn");
        std::fs::write(&file, &r.body)?;
        let games = python_reads(&file)?;
        let got: Vec<(&str, &str)> = games
            .iter()
            .map(|g| (s(g, "/headers/Round"), s(g, "/headers/White")))
            .collect();
        if got == want {
            return Ok(games);
        }
        last = r.body;
    }
    bail!("no push of {want:?}; the last body was:\n{last}")
}

/// A bridge's settings in `dir` to push the fleet on the broker at `url` to Lichess round
/// FLeet123 of a stand-in server: the requests it receives, and the settings file.
fn fleet_push(dir: &TempDir, url: &str) -> Result<(StandIn, String)> {
    let lichess = StandIn::with_rounds(&["FLeet123"])?;
    let server = &lichess.base;
    let token = dir.path().join("lichess.token");
    std::fs::write(&token, "lip_fleettoken\n")?;
    let cfg = dir.path().join("bridge.toml");
    std::fs::write(
        &cfg,
        format!(
            "mqtt = \"{url}\"\n\n[[lichess]]\nround = \"FLeet123\"\nsource = \"fleet\"\n\
             token_file = {:?}\nserver = \"{server}\"\n",
            token.display().to_string()
        ),
    )?;
    let cfg = cfg.to_str().context("utf-8")?.to_owned();
    Ok((lichess, cfg))
}

#[test]
fn a_fleet_bridge_pushes_every_board_of_both_machines_once_by_board_number() -> Result<()> {
    let (Some(mosquitto), Some(sub_exe), Some(_)) = (
        have("mosquitto", "mosquitto")?,
        have("mosquitto_sub", "mosquitto-clients")?,
        have("python3", "python3")?,
    ) else {
        return Ok(());
    };
    let dir = TempDir::new("bridge-fleet-round")?;
    let broker = Broker::start_with(&mosquitto, &dir, "allow_anonymous true\n")?;
    let url = format!("mqtt://127.0.0.1:{}", broker.port);
    let dir_a = TempDir::new("fleet-round-a")?;
    let (bus_a, da) = machine(&dir_a, &[1, 3], 5, "1,Alpha,Beta\n3,Gamma,Delta\n")?;
    let dir_b = TempDir::new("fleet-round-b")?;
    let (bus_b, db) = machine(&dir_b, &[2, 4], 5, "2,Epsilon,Zeta\n4,Eta,Theta\n")?;

    let (lichess, cfg) = fleet_push(&dir, &url)?;
    let cfg = cfg.as_str();
    let _bridge_b = Bridge::spawn(bus_b.address(), &["--mqtt", &url, "--host", "pi-b"])?;
    let mut bridge_a = Bridge::spawn(bus_a.address(), &["--config", cfg, "--host", "pi-a"])?;

    // Each board's game is retained on the broker under its machine and number
    // (`mosquitto_sub -v` prints the topic with the PGN's first line).
    let mut sub = Sub::start_with(&sub_exe, broker.port, "chessclockd/pi-b/board/4/pgn", &[])?;
    sub.wait(0, "chessclockd/pi-b/board/4/pgn", |p| {
        p.starts_with("[Event")
    })?;

    let games = wait_push(
        &lichess,
        &dir,
        &[
            ("5.1", "Alpha"),
            ("5.2", "Epsilon"),
            ("5.3", "Gamma"),
            ("5.4", "Eta"),
        ],
    )?;
    for g in &games {
        assert_eq!(g["errors"], serde_json::json!([]), "python-chess: {g}");
    }
    assert_eq!(s(&games[1], "/headers/Black"), "Zeta");

    // A board detached on B leaves the broker (an empty retained message) and the round.
    anyhow::ensure!(db.ctl(&["detach", "1"]).status.success());
    wait_push(
        &lichess,
        &dir,
        &[("5.1", "Alpha"), ("5.2", "Epsilon"), ("5.3", "Gamma")],
    )?;

    // Machine A starts round 6: the fleet round is round 6's boards, not B's old games.
    load(&da, dir_a.path(), 6, "1,Iota,Kappa\n3,Lambda,Mu\n")?;
    wait_push(&lichess, &dir, &[("6.1", "Iota"), ("6.3", "Lambda")])?;

    // A third machine numbers a board 1 too: a conflict, said once; pi-a's game stays.
    let dir_c = TempDir::new("fleet-round-c")?;
    let (bus_c, _dc) = machine(&dir_c, &[1], 6, "1,Nu,Xi\n")?;
    let _bridge_c = Bridge::spawn(bus_c.address(), &["--mqtt", &url, "--host", "pi-c"])?;
    let said = "board 1 is published by pi-a and pi-c: pi-a's game is pushed, not pi-c's";
    let at = bridge_a.wait_log(0, said)?;
    load(&da, dir_a.path(), 6, "1,Iota,Omicron\n3,Lambda,Mu\n")?;
    let games = wait_push(&lichess, &dir, &[("6.1", "Iota"), ("6.3", "Lambda")])?;
    assert_eq!(
        s(&games[0], "/headers/Black"),
        "Omicron",
        "pi-a's game, not pi-c's"
    );
    let times = bridge_a
        .log_lines()
        .iter()
        .filter(|l| l.contains(said))
        .count();
    assert_eq!(times, 1, "said once (first at line {at})");
    Ok(())
}

#[test]
fn a_fleet_round_without_a_broker_is_refused_naming_the_setting() -> Result<()> {
    let dir = TempDir::new("bridge-fleet-bad")?;
    let token = dir.path().join("lichess.token");
    std::fs::write(&token, "lip_x\n")?;
    let cfg = dir.path().join("bridge.toml");
    std::fs::write(
        &cfg,
        format!(
            "[[lichess]]\nround = \"FLeet123\"\ntoken_file = {:?}\nsource = \"fleet\"\n",
            token.display().to_string()
        ),
    )?;
    let out = check_config("chessclock-bridge", &cfg);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("source = \"fleet\"") && err.contains("add mqtt = ") && err.contains("line 4"),
        "{err}"
    );
    Ok(())
}

#[test]
fn each_machine_loads_the_whole_round_and_a_paper_board_is_pushed_once() -> Result<()> {
    let (Some(mosquitto), Some(_)) = (have("mosquitto", "mosquitto")?, have("python3", "python3")?)
    else {
        return Ok(());
    };
    let dir = TempDir::new("bridge-fleet-paper")?;
    let broker = Broker::start_with(&mosquitto, &dir, "allow_anonymous true\n")?;
    let url = format!("mqtt://127.0.0.1:{}", broker.port);
    // Both machines load the whole round: A drives board 1, B board 2, board 3 is on paper.
    let whole = "1,Alpha,Beta\n2,Epsilon,Zeta\n3,Gamma,Delta\n";
    let dir_a = TempDir::new("fleet-paper-a")?;
    let (bus_a, _da) = machine(&dir_a, &[1], 5, whole)?;
    let dir_b = TempDir::new("fleet-paper-b")?;
    let (bus_b, db) = machine(&dir_b, &[2], 5, whole)?;
    let (lichess, cfg) = fleet_push(&dir, &url)?;
    let cfg = cfg.as_str();
    let _bridge_b = Bridge::spawn(bus_b.address(), &["--mqtt", &url, "--host", "pi-b"])?;
    let _bridge_a = Bridge::spawn(bus_a.address(), &["--config", cfg, "--host", "pi-a"])?;

    // Every board once: each driven board's game, board 3's paper game.
    wait_push(
        &lichess,
        &dir,
        &[("5.1", "Alpha"), ("5.2", "Epsilon"), ("5.3", "Gamma")],
    )?;
    // Its result, entered on B, is what is pushed for board 3 (A's copy has none).
    anyhow::ensure!(db.ctl(&["round", "result", "3", "0-1"]).status.success());
    let deadline = std::time::Instant::now() + WAIT * 2;
    loop {
        let games = wait_push(
            &lichess,
            &dir,
            &[("5.1", "Alpha"), ("5.2", "Epsilon"), ("5.3", "Gamma")],
        )?;
        if s(&games[2], "/headers/Result") == "0-1" {
            assert_eq!(s(&games[2], "/headers/Board"), "3");
            assert_eq!(games[2]["san"], serde_json::json!([]), "no moves");
            break;
        }
        anyhow::ensure!(
            std::time::Instant::now() < deadline,
            "board 3's result never pushed"
        );
    }
    Ok(())
}
