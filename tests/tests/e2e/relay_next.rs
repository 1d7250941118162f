//! Round roll-over with the next round's pairings, through the real daemon and CLI
//! (docs/relay.md §4): `round load --round R+1` while round R is being played keeps the
//! pairings (in the state directory, across a restart) instead of renaming the games under
//! way; `round next` applies them to every board's new game. The finished records go to `games/round-R/` of
//! the round they were played in (a game ended by `--force` too) and `games list|export
//! --round R` finds them, older records in `games/` included.
//!
//! The clocks are virtual: started and given results through `chessclockctl`.

use std::path::{Path, PathBuf};

use anyhow::{Result, ensure};
use chessclock_tests::e2e::{ctl_ok, current_round as round, game_info as info, text};
use chessclock_tests::pgn::python_reads;
use chessclock_tests::rig::{Daemon, WAIT, workspace_bin, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

/// The `n` game records (`*.pgn`) in `dir`, once they are there.
fn wait_records(dir: &Path, n: usize) -> Result<Vec<PathBuf>> {
    let until = std::time::Instant::now() + WAIT;
    loop {
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
                    .collect()
            })
            .unwrap_or_default();
        found.sort();
        if found.len() == n {
            return Ok(found);
        }
        ensure!(
            std::time::Instant::now() < until,
            "{n} records in {}: {found:?}",
            dir.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Wait until `--json list` shows `n` clocks.
fn wait_clocks(d: &Daemon, n: usize) -> Result<()> {
    let until = std::time::Instant::now() + WAIT;
    loop {
        let list = d.ctl_json(&["list", "--json"])?;
        if list.as_array().is_some_and(|a| a.len() == n) {
            return Ok(());
        }
        ensure!(std::time::Instant::now() < until, "{n} clocks: {list}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn the_next_rounds_pairings_wait_for_round_next_and_go_to_the_new_games() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("relay-next")?;
    let cfg = write_config(dir.path(), &[], "")?;
    let mut d = Daemon::spawn(bus.address(), &cfg, &[])?;
    ctl_ok(&d, &["add-virtual", "one"]);
    ctl_ok(&d, &["add-virtual", "two"]);
    ctl_ok(&d, &["start", "0"]);
    assert_eq!(round(&d)?, 1);

    // Round 2's pairings while round 1 is played: kept, the games keep their players.
    let csv = dir.path().join("round2.csv");
    std::fs::write(
        &csv,
        "board,white,black,white_elo,black_elo,white_fide_id,black_fide_id,white_title\n\
         1,\"Carlsen, Magnus\",\"Caruana, Fabiano\",2830,2800,1503014,2020009,GM\n\
         2,\"Hou, Yifan\",Gukesh D,2650,2750,8602980,46616543,\n",
    )?;
    let csv = csv.display().to_string();
    let said = ctl_ok(&d, &["round", "load", &csv, "--round", "2"]);
    assert!(
        said.contains("round 2's pairings are kept for `chessclockctl round next`")
            && said.contains("board 1: clock 0 (\"one\"): Carlsen, Magnus - Caruana, Fabiano"),
        "{said}"
    );
    assert_eq!(round(&d)?, 1, "round 1 stays current");
    assert_eq!(info(&d, "0")?.get("White"), None, "{}", info(&d, "0")?);
    let pgn = ctl_ok(&d, &["pgn", "0"]);
    assert!(
        pgn.contains("[Round \"1.1\"]") && pgn.contains("[White \"?\"]"),
        "{pgn}"
    );
    let kept = dir.path().join("state/pairings-round-2.json");
    assert!(kept.exists(), "kept in the state directory");

    // A bad file for round 2 changes nothing: the kept pairings stay.
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "board,white,black\n7,X,\n")?;
    let out = d.ctl(&["round", "load", &bad.display().to_string(), "--round", "2"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = text(&out);
    assert!(
        err.contains("nothing was changed") && err.contains("line 2: the black name is empty")
            || err.contains("line 2: the Black name is empty"),
        "{err}"
    );
    assert!(std::fs::read_to_string(&kept)?.contains("Carlsen"));

    // Kept across a restart.
    assert!(d.terminate()?, "clean stop");
    d = Daemon::spawn(bus.address(), &cfg, &[])?;
    wait_clocks(&d, 2)?;
    assert_eq!(round(&d)?, 1);

    // Round 1 still under way on board 1: refused, nothing changes.
    let out = d.ctl(&["round", "next"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("round 1 is still under way on board 1"));
    ctl_ok(&d, &["result", "0", "1-0"]);

    // A board's clock goes (its kept pairing would be a paper board at the roll-over, as
    // relay_paper shows) and comes back (a new clock number, its own board number 2); the
    // operator makes it board 3, and round 2's pairings are loaded again.
    ctl_ok(&d, &["detach", "1"]);
    wait_clocks(&d, 1)?;
    ctl_ok(&d, &["add-virtual", "two"]);
    wait_clocks(&d, 2)?;
    let two = d.ctl_json(&["status", "two", "--json"])?;
    assert_eq!(two["board"], 2, "the board's own number: {two}");
    ctl_ok(&d, &["renumber", "two", "3"]);
    let fixed = std::fs::read_to_string(&csv)?.replace("\n2,", "\n3,");
    std::fs::write(&csv, fixed)?;
    let said = ctl_ok(&d, &["round", "load", &csv, "--round", "2"]);
    assert!(said.contains("round 2's pairings are kept"), "{said}");

    // The roll-over: every board's new game with round 2's players.
    let said = ctl_ok(&d, &["round", "next"]);
    assert!(
        said.contains("round 2:")
            && said.contains("board 1: clock 0 (\"one\"): Carlsen, Magnus - Caruana, Fabiano")
            && said.contains("board 3: clock 2 (\"two\"): Hou, Yifan - Gukesh D"),
        "{said}"
    );
    assert_eq!(round(&d)?, 2);
    let one = info(&d, "0")?;
    assert_eq!(one["White"], "Carlsen, Magnus", "{one}");
    assert_eq!(one["WhiteElo"], "2830", "{one}");
    assert_eq!(one["BlackFideId"], "2020009", "{one}");
    assert_eq!(one["WhiteTitle"], "GM", "{one}");
    assert_eq!(one["Round"], "2.1", "{one}");
    let two = info(&d, "2")?;
    assert_eq!(two["Black"], "Gukesh D", "{two}");
    assert_eq!(two["Round"], "2.3", "{two}");
    assert_eq!(two.get("WhiteTitle"), None, "{two}");
    let st = d.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(st["game_state"], "ready", "a new game: {st}");
    assert!(!kept.exists(), "applied, no longer kept");

    // The new game's PGN, as python-chess reads it.
    let pgn = dir.path().join("board1.pgn");
    std::fs::write(&pgn, ctl_ok(&d, &["pgn", "0"]))?;
    let games = python_reads(&pgn)?;
    ensure!(games.len() == 1, "{games:?}");
    let h = &games[0]["headers"];
    ensure!(
        h["White"] == "Carlsen, Magnus" && h["Round"] == "2.1" && h["WhiteElo"] == "2830",
        "{h}"
    );
    // Round 1's finished game went to games/round-1/.
    let state = dir.path().join("state");
    let round1 = wait_records(&state.join("games/round-1"), 1)?;
    let games = python_reads(&round1[0])?;
    ensure!(
        games.len() == 1 && games[0]["headers"]["Result"] == "1-0",
        "{games:?}"
    );

    // A game of round 2 ended by round next --force: its record is round 2's; an old
    // record in games/ (before round folders) is still found.
    ctl_ok(&d, &["start", "0"]);
    ctl_ok(&d, &["round", "next", "--force"]);
    assert_eq!(round(&d)?, 3);
    let round2 = wait_records(&state.join("games/round-2"), 1)?;
    let games = python_reads(&round2[0])?;
    // Written as the game stood: round 2's tags and players, not the next round's.
    ensure!(
        games.len() == 1
            && games[0]["headers"]["Round"] == "2.1"
            && games[0]["headers"]["White"] == "Carlsen, Magnus",
        "python-chess reads round 2's game: {games:?}"
    );
    std::fs::copy(&round1[0], state.join("games/old.pgn"))?;
    let listed = |args: &[&str]| -> Result<Value> {
        let out = std::process::Command::new(workspace_bin("chessclockctl")?)
            .args(["games", "list", "--json", "--state-dir"])
            .arg(&state)
            .args(args)
            .output()?;
        ensure!(out.status.success(), "{}", text(&out));
        Ok(serde_json::from_slice(&out.stdout)?)
    };
    let count = |v: &Value| v.as_array().map_or(0, Vec::len);
    ensure!(count(&listed(&[])?) == 3, "every record: {}", listed(&[])?);
    ensure!(
        count(&listed(&["--round", "2"])?) == 1,
        "{}",
        listed(&["--round", "2"])?
    );
    ensure!(
        count(&listed(&["--round", "1"])?) == 2,
        "{}",
        listed(&["--round", "1"])?
    );
    let exported = std::process::Command::new(workspace_bin("chessclockctl")?)
        .args(["games", "export", "--round", "2", "--state-dir"])
        .arg(&state)
        .output()?;
    let file = dir.path().join("round2.pgn");
    std::fs::write(&file, &exported.stdout)?;
    ensure!(python_reads(&file)?.len() == 1, "the export of round 2");

    Ok(())
}
