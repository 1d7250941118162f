//! The tags every game carries (docs/relay.md, "The tags every game carries"), through the
//! real daemon, an emulated board and python-chess: `Event`/`Site` from the settings (a
//! clock's game information wins), `Date` of the start, `Round "R.B"`/`Board "B"` from the
//! current round and the board number before and after a round's pairings, the players from
//! the pairings, `TimeControl` and the clock tags Lichess reads (`WhiteClock`, `BlackClock`);
//! and the live folder the Broadcaster app watches, `round-R/game-B.pgn` and
//! `round-R/games.pgn`, with nothing else in it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Result, ensure};
use chessclock_tests::e2e::{ctl_ok, emu, files_below};
use chessclock_tests::json::s;
use chessclock_tests::pgn::python_reads;
use chessclock_tests::rig::{Daemon, WAIT};
use chessclock_tests::{PrivateBus, TempDir};

/// Today's PGN date (UTC).
fn today() -> Result<String> {
    let out = Command::new("date").args(["-u", "+%Y.%m.%d"]).output()?;
    Ok(String::from_utf8(out.stdout)?.trim().to_owned())
}

/// Every file below `dir`, relative to it, sorted.
fn tree(dir: &Path) -> Vec<String> {
    files_below(dir)
        .iter()
        .map(|p| p.display().to_string())
        .collect()
}

/// The live file `file` below `dir` once `done` holds of its text.
fn live_game(
    dir: &Path,
    file: &str,
    what: &str,
    done: impl Fn(&str) -> bool,
) -> Result<(PathBuf, String)> {
    let until = Instant::now() + WAIT;
    let path = dir.join(file);
    loop {
        if let Ok(text) = std::fs::read_to_string(&path)
            && done(&text)
        {
            return Ok((path, text));
        }
        ensure!(
            Instant::now() < until,
            "no live game {what} in {}: {:?}",
            path.display(),
            tree(dir)
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// `[name "value"]` lines of `pgn`, in order.
fn tags(pgn: &str) -> Vec<String> {
    pgn.lines()
        .filter(|l| l.starts_with('['))
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_game_carries_event_site_date_round_board_players_and_clocks() -> Result<()> {
    let dir = TempDir::new("relay-tags")?;
    let bus = PrivateBus::start_session()?;
    let mut board = emu(&[])?;
    let state = dir.path().join("state");
    let config = dir.path().join("chessclockd.toml");
    std::fs::write(
        &config,
        format!(
            "state_dir = {:?}\nevent = \"Club Open\"\nsite = \"Hall, Zurich\"\n\n\
             [[clock]]\nport = {:?}\ntime_control = \"G/10 inc/2\"\nboard = 5\n",
            state.display().to_string(),
            board.path
        ),
    )?;
    let before = today()?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    d.wait_status("0", WAIT, "ready", |v| s(v, "/device_state") == "ready")?;

    // No pairings, no game information: the settings, round 1 and the board number.
    ctl_ok(&d, &["start", "0"]);
    board.send("move e2e4")?;
    board.send("lever")?;
    let live = state.join("live");
    let (_, text) = live_game(&live, "round-1/game-5.pgn", "with White's move", |t| {
        t.contains(" e4 ")
    })?;
    let after = today()?;
    let got = tags(&text);
    let date = got.get(2).cloned().unwrap_or_default();
    ensure!(
        date == format!("[Date \"{before}\"]") || date == format!("[Date \"{after}\"]"),
        "today's date: {got:?}"
    );
    for want in [
        "[Event \"Club Open\"]",
        "[Site \"Hall, Zurich\"]",
        "[Round \"1.5\"]",
        "[White \"?\"]",
        "[Board \"5\"]",
        "[TimeControl \"600+2\"]",
    ] {
        ensure!(got.iter().any(|t| t == want), "{want} in {got:?}");
    }
    for clock in ["[WhiteClock \"", "[BlackClock \""] {
        ensure!(
            got.iter().any(|t| t.starts_with(clock)),
            "{clock} in {got:?}"
        );
    }

    // Round 3's pairings: the players and round 3 on board 5; the clock's own Site wins.
    let csv = dir.path().join("round3.csv");
    std::fs::write(
        &csv,
        "board,white,black,white_elo,black_elo,white_fide_id,black_fide_id\n\
         5,\"Carlsen, Magnus\",\"Caruana, Fabiano\",2830,2800,1503014,2020009\n",
    )?;
    ctl_ok(
        &d,
        &["round", "load", &csv.display().to_string(), "--round", "3"],
    );
    ctl_ok(&d, &["info", "0", "site=Annex"]);
    let (file, text) = live_game(&live, "round-3/game-5.pgn", "with round 3's players", |t| {
        t.contains("[Round \"3.5\"]") && t.contains("[Site \"Annex\"]")
    })?;
    let got = tags(&text);
    for want in [
        "[Event \"Club Open\"]",
        "[White \"Carlsen, Magnus\"]",
        "[Black \"Caruana, Fabiano\"]",
        "[Board \"5\"]",
        "[WhiteElo \"2830\"]",
        "[BlackFideId \"2020009\"]",
    ] {
        ensure!(got.iter().any(|t| t == want), "{want} in {got:?}");
    }
    let games = python_reads(&file)?;
    ensure!(games.len() == 1, "python-chess reads one game: {games:?}");
    let headers = &games[0]["headers"];
    ensure!(
        headers["Round"] == "3.5"
            && headers["Event"] == "Club Open"
            && headers["WhiteElo"] == "2830",
        "python-chess reads the tags: {headers}"
    );

    // The feed's tree (docs/relay.md, "The live folder"): round 1's file as it was last
    // written, round 3's board and its games.pgn once it caught up; nothing else a folder
    // watcher would upload.
    let (_, all) = live_game(&live, "round-3/games.pgn", "with board 5", |t| {
        t.contains("[Round \"3.5\"]") && t.contains("[Site \"Annex\"]")
    })?;
    ensure!(
        tree(&live)
            == [
                "round-1/game-5.pgn",
                "round-1/games.pgn",
                "round-3/game-5.pgn",
                "round-3/games.pgn"
            ],
        "{:?}",
        tree(&live)
    );
    let round1 = std::fs::read_to_string(live.join("round-1/game-5.pgn"))?;
    ensure!(
        round1.contains("[Round \"1.5\"]") && round1.contains("[White \"?\"]"),
        "round 1's file keeps round 1's game: {round1}"
    );
    let games = python_reads(&live.join("round-3/games.pgn"))?;
    ensure!(games.len() == 1, "one board in round 3's games.pgn: {all}");

    // `chessclockctl pgn` is the same game.
    let pgn = ctl_ok(&d, &["pgn", "0"]);
    ensure!(
        tags(&pgn)
            .iter()
            .filter(|t| !t.contains("Clock "))
            .collect::<Vec<_>>()
            == got
                .iter()
                .filter(|t| !t.contains("Clock "))
                .collect::<Vec<_>>(),
        "the bus's PGN has the same tags:\n{pgn}\n---\n{text}"
    );

    // The round's game still runs: `round next` names its board and changes nothing.
    let out = d.ctl(&["round", "next"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    ensure!(
        !out.status.success()
            && err.contains("round 3 is still under way on board 5 (clock 0")
            && err.contains("--force"),
        "refused: {err}"
    );
    ensure!(
        d.ctl_json(&["round", "show", "--json"])?["round"] == 3,
        "still round 3"
    );
    ensure!(!live.join("round-4").exists(), "no round 4 feed yet");

    // Forced: a new game on board 5 in round 4, its players cleared, round 3's files kept.
    let said = ctl_ok(&d, &["round", "next", "--force"]);
    ensure!(
        said.contains("round 4:") && said.contains("board 5: clock 0"),
        "{said}"
    );
    ensure!(
        d.ctl_json(&["round", "show", "--json"])?["round"] == 4,
        "round 4"
    );
    let st = d.wait_status("0", WAIT, "a new game", |v| s(v, "/game_state") == "ready")?;
    ensure!(
        st["game_info"].get("White").is_none(),
        "players cleared: {st}"
    );
    // The arbiter sets the pieces up for the next game (the board's game follows the pieces).
    board.send("setup")?;
    let (file, text) = live_game(&live, "round-4/game-5.pgn", "of round 4", |t| {
        t.contains("[Round \"4.5\"]") && !t.contains(" e4 ")
    })?;
    let got = tags(&text);
    for want in [
        "[Event \"Club Open\"]",
        "[White \"?\"]",
        "[Board \"5\"]",
        "[Result \"*\"]",
    ] {
        ensure!(got.iter().any(|t| t == want), "{want} in {got:?}");
    }
    ensure!(python_reads(&file)?.len() == 1, "python-chess reads it");
    let round3 = std::fs::read_to_string(live.join("round-3/game-5.pgn"))?;
    ensure!(
        round3.contains("[Round \"3.5\"]") && round3.contains(" e4 "),
        "round 3's file keeps its game: {round3}"
    );
    Ok(())
}
