//! A round with more games than e-boards through the real daemon and CLI (docs/relay.md,
//! "Boards without an e-board"): `round load` takes every pairing, the boards without a
//! clock are paper boards; `round result B R` sets any board's result by its number;
//! `round show` lists every board; the live `games.pgn` carries each paper board once (read
//! back by python-chess); `round export` writes CSV and the TRF-16 with the round's results;
//! the paper boards and their results survive a restart. A clock's game goes to the live
//! folder only once it has players or a move. A clock attached later with a paper board's
//! number makes it an e-board (the pairing's players), and a paper board again when it goes.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Result, ensure};
use chessclock_tests::bus_client::{Client, props_changed};
use chessclock_tests::e2e::{ctl_ok, current_round as round, shown, text};
use chessclock_tests::pgn::python_reads;
use chessclock_tests::rig::{Daemon, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(10);

/// `games.pgn` of round `r` in `live` once `done` holds of its text.
fn games_pgn(live: &Path, r: u32, done: impl Fn(&str) -> bool) -> Result<String> {
    let path = live.join(format!("round-{r}/games.pgn"));
    let until = Instant::now() + WAIT;
    loop {
        if let Ok(t) = std::fs::read_to_string(&path)
            && done(&t)
        {
            return Ok(t);
        }
        ensure!(
            Instant::now() < until,
            "{} never held what was waited for: {:?}",
            path.display(),
            std::fs::read_to_string(&path)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A TRF-16 player line: starting rank, name, points, then per round (opponent, colour,
/// result).
fn trf_player(rank: u32, name: &str, points: &str, rounds: &[(u32, char, char)]) -> String {
    let mut line = format!(
        "001 {rank:>4} m    {name:<33} 2000 NOR {:>11} 1990/11/30 {points:>4} {rank:>4}",
        ""
    );
    for (opp, colour, result) in rounds {
        line.push_str(&format!("  {opp:>4} {colour} {result}"));
    }
    line
}

#[test]
fn paper_boards_from_the_pairings_to_the_pairing_program() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("relay-paper")?;
    let cfg = write_config(dir.path(), &[], "event = \"Hall Open\"")?;
    let live = dir.path().join("state").join("live");
    let mut d = Daemon::spawn(bus.address(), &cfg, &[])?;
    ctl_ok(&d, &["add-virtual", "one"]);

    // Three games, one e-board (board 1): boards 2 and 3 are paper boards.
    let csv = dir.path().join("round1.csv");
    std::fs::write(
        &csv,
        "board,white,black\n1,\"Carlsen, Magnus\",Ding\n2,\"Hou, Yifan\",Gukesh\n3,E,F\n",
    )?;
    let said = ctl_ok(&d, &["round", "load", &csv.display().to_string()]);
    assert!(
        said.contains("board 1: clock 0 (\"one\"): Carlsen, Magnus - Ding"),
        "{said}"
    );
    assert!(
        said.contains("board 2: paper board (no clock): Hou, Yifan - Gukesh"),
        "{said}"
    );
    assert!(said.contains("board 3: paper board"), "{said}");
    let boards = shown(&d)?;
    assert_eq!(boards.len(), 3, "{boards:?}");
    assert_eq!(
        boards[1],
        (2, "Hou, Yifan".into(), "Gukesh".into(), "*".into(), true)
    );
    assert!(!boards[0].4, "board 1 is an e-board: {boards:?}");

    // Results by board number; a board the round has not, and a word that is not a result,
    // change nothing.
    ctl_ok(&d, &["round", "result", "2", "0-1"]);
    ctl_ok(&d, &["round", "result", "3", "1/2-1/2"]);
    let out = d.ctl(&["round", "result", "9", "1-0"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("round 1 has no board 9"),
        "{}",
        text(&out)
    );
    let out = d.ctl(&["round", "result", "2", "draw"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("\"draw\" is not a result"),
        "{}",
        text(&out)
    );
    // An e-board's result is the arbiter's, through its clock (its game under way).
    ctl_ok(&d, &["start", "0"]);
    ctl_ok(&d, &["round", "result", "1", "1-0"]);
    let status = d.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(status["result"], "1-0", "{status}");

    // games.pgn: each board once, in board order, the paper boards with their results.
    let all = games_pgn(&live, 1, |t| {
        t.contains("[Result \"1/2-1/2\"]")
            && t.contains("[Result \"0-1\"]")
            && t.contains("[Result \"1-0\"]")
    })?;
    let file = dir.path().join("games.pgn");
    std::fs::write(&file, &all)?;
    let games = python_reads(&file)?;
    let tag = |g: &Value, k: &str| g["headers"][k].as_str().unwrap_or_default().to_owned();
    let read: Vec<(String, String, String, String)> = games
        .iter()
        .map(|g| {
            (
                tag(g, "Round"),
                tag(g, "Board"),
                tag(g, "White"),
                tag(g, "Result"),
            )
        })
        .collect();
    assert_eq!(
        read,
        vec![
            (
                "1.1".into(),
                "1".into(),
                "Carlsen, Magnus".into(),
                "1-0".into()
            ),
            ("1.2".into(), "2".into(), "Hou, Yifan".into(), "0-1".into()),
            ("1.3".into(), "3".into(), "E".into(), "1/2-1/2".into()),
        ],
        "{all}"
    );
    assert_eq!(tag(&games[1], "Event"), "Hall Open");

    // The results for the pairing program.
    assert_eq!(
        ctl_ok(&d, &["round", "export", "--format", "csv"]),
        "board,white,black,result\n1,\"Carlsen, Magnus\",Ding,1-0\n2,\"Hou, Yifan\",Gukesh,0-1\n3,E,F,1/2-1/2\n"
    );
    let out = d.ctl(&["round", "export", "--format", "trf"]);
    assert_eq!(out.status.code(), Some(1), "CSV pairings: {}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("export csv instead"),
        "{}",
        text(&out)
    );

    // A restart keeps the paper boards and their results.
    assert!(d.terminate()?, "clean stop");
    d = Daemon::spawn(bus.address(), &cfg, &[])?;
    let until = Instant::now() + WAIT;
    while shown(&d)?.len() < 3 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    let boards = shown(&d)?;
    assert_eq!(
        boards[1],
        (2, "Hou, Yifan".into(), "Gukesh".into(), "0-1".into(), true),
        "{boards:?}"
    );
    assert_eq!(boards[2].3, "1/2-1/2", "{boards:?}");

    // Round 2 from a TRF (its round 1 filled in already): the export is the file with
    // round 2's results and the points.
    ctl_ok(&d, &["new-game", "0"]);
    let trf = dir.path().join("open.trf");
    let lines = [
        "012 Hall Open".to_owned(),
        trf_player(1, "Carlsen, Magnus", "1.0", &[(2, 'w', '1'), (3, 'b', ' ')]),
        trf_player(2, "Ding", "0.0", &[(1, 'b', '0'), (4, 'w', ' ')]),
        trf_player(3, "Hou, Yifan", "0.5", &[(4, 'w', '='), (1, 'w', ' ')]),
        trf_player(4, "Gukesh", "0.5", &[(3, 'b', '='), (2, 'b', ' ')]),
    ];
    std::fs::write(&trf, lines.join("\n") + "\n")?;
    ctl_ok(
        &d,
        &["round", "load", &trf.display().to_string(), "--round", "2"],
    );
    assert_eq!(round(&d)?, 2);
    // Board 1: Hou - Carlsen (the e-board), board 2: Ding - Gukesh (paper).
    ctl_ok(&d, &["start", "0"]);
    ctl_ok(&d, &["round", "result", "2", "1/2-1/2"]);
    ctl_ok(&d, &["round", "result", "1", "0-1"]);
    let exported = ctl_ok(&d, &["round", "export", "--format", "trf"]);
    let col = |l: &str, from: usize, to: usize| -> String {
        l.chars().skip(from - 1).take(to - from + 1).collect()
    };
    let line = |n: usize| exported.lines().nth(n).unwrap_or_default().to_owned();
    // Round 2's result character is column 109; the points columns 81-84.
    assert_eq!(
        (col(&line(1), 109, 109), col(&line(1), 81, 84)),
        ("1".into(), " 2.0".into()),
        "{exported}"
    );
    assert_eq!(
        (col(&line(3), 109, 109), col(&line(3), 81, 84)),
        ("0".into(), " 0.5".into()),
        "{exported}"
    );
    assert_eq!(
        (col(&line(2), 109, 109), col(&line(2), 81, 84)),
        ("=".into(), " 0.5".into()),
        "{exported}"
    );
    assert_eq!(
        (col(&line(4), 109, 109), col(&line(4), 81, 84)),
        ("=".into(), " 1.0".into()),
        "{exported}"
    );
    assert_eq!(line(0), "012 Hall Open");
    assert_eq!(
        col(&line(1), 1, 80),
        col(&lines[1], 1, 80),
        "the player kept"
    );
    assert_eq!(
        col(&line(1), 85, 99),
        col(&lines[1], 85, 99),
        "round 1 kept"
    );

    // A forfeit: Ding did not come, Gukesh wins board 2 without a game (`-+`); written as
    // TRF's `-` and `+`, and as `-+` in `round show` and the CSV. An e-board's game was
    // played: a forfeit there is refused.
    ctl_ok(&d, &["round", "result", "2", "-+"]);
    assert_eq!(shown(&d)?[1].3, "-+");
    let out = d.ctl(&["round", "result", "1", "+-"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("a forfeit (+- or -+)"),
        "{}",
        text(&out)
    );
    let exported = ctl_ok(&d, &["round", "export", "--format", "trf"]);
    let line = |n: usize| exported.lines().nth(n).unwrap_or_default().to_owned();
    assert_eq!(
        (col(&line(2), 109, 109), col(&line(2), 81, 84)),
        ("-".into(), " 0.0".into()),
        "{exported}"
    );
    assert_eq!(
        (col(&line(4), 109, 109), col(&line(4), 81, 84)),
        ("+".into(), " 1.5".into()),
        "{exported}"
    );
    let out = d.ctl(&["round", "export", "--format", "csv"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("2,Ding,Gukesh,-+"),
        "{}",
        text(&out)
    );
    Ok(())
}

#[test]
fn no_game_is_in_the_live_folder_before_it_has_a_pairing_or_a_move() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("relay-live-empty")?;
    let cfg = write_config(dir.path(), &[], "")?;
    let live = dir.path().join("state").join("live");
    let d = Daemon::spawn(bus.address(), &cfg, &[])?;
    for name in ["one", "two"] {
        ctl_ok(&d, &["add-virtual", name]);
    }
    // Board 1 is paired, board 2 (clock 1) is not: only board 1's game goes to the feed.
    let csv = dir.path().join("round1.csv");
    std::fs::write(&csv, "board,white,black\n1,Alpha,Beta\n")?;
    ctl_ok(&d, &["round", "load", &csv.display().to_string()]);
    let all = games_pgn(&live, 1, |t| t.contains("[White \"Alpha\"]"))?;
    assert!(!all.contains("[Board \"2\"]"), "{all}");
    assert!(
        !live.join("round-1/game-2.pgn").exists(),
        "an unpaired board without a move has no file"
    );
    // Its first press makes it a game.
    for args in [&["start", "1"][..], &["press", "1", "white"]] {
        ctl_ok(&d, args);
    }
    games_pgn(&live, 1, |t| t.contains("[Board \"2\"]"))?;
    assert!(live.join("round-1/game-2.pgn").exists());
    Ok(())
}

#[test]
fn a_clock_attached_with_a_paper_boards_number_makes_it_an_e_board_until_it_goes() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("relay-paper-clock")?;
    let cfg = write_config(dir.path(), &[], "")?;
    let live = dir.path().join("state").join("live");
    let d = Daemon::spawn(bus.address(), &cfg, &[])?;
    ctl_ok(&d, &["add-virtual", "one"]);
    let csv = dir.path().join("round1.csv");
    std::fs::write(&csv, "board,white,black\n1,A,B\n2,\"Hou, Yifan\",Gukesh\n")?;
    ctl_ok(&d, &["round", "load", &csv.display().to_string()]);
    ctl_ok(&d, &["round", "result", "2", "0-1"]);
    games_pgn(&live, 1, |t| t.contains("[Result \"0-1\"]"))?;

    // A second clock comes: board 2 (its number), the paper board's.
    let client = Client::connect(bus.address())?;
    let mark = client.mark();
    ctl_ok(&d, &["add-virtual", "two"]);
    let status = d.wait_status("1", WAIT, "the pairing's players", |v| {
        v["game_info"]["White"] == "Hou, Yifan"
    })?;
    assert_eq!(status["board"], 2, "{status}");
    let boards = shown(&d)?;
    assert_eq!(
        boards[1],
        (2, "Hou, Yifan".into(), "Gukesh".into(), "*".into(), false),
        "an e-board now, its result its game's: {boards:?}"
    );
    let paper = d.ctl_json(&["round", "show", "--json"])?;
    assert!(paper.to_string().contains("two"), "its clock: {paper}");
    // The bridge (its Lichess push) hears that the paper games changed.
    client.wait_signal(mark, "PaperGames changed", |m| {
        m.header()
            .member()
            .is_some_and(|n| n == "PropertiesChanged")
            && props_changed(m).is_some_and(|(_, changed)| {
                changed
                    .get("PaperGames")
                    .and_then(Value::as_object)
                    .is_some_and(serde_json::Map::is_empty)
            })
    })?;
    // Its live game is the clock's, no longer the paper board's result.
    games_pgn(&live, 1, |t| {
        t.contains("[White \"Hou, Yifan\"]") && !t.contains("[Result \"0-1\"]")
    })?;

    // The clock goes: a paper board again, with the result it had.
    ctl_ok(&d, &["detach", "1"]);
    let boards = shown(&d)?;
    assert_eq!(
        boards[1],
        (2, "Hou, Yifan".into(), "Gukesh".into(), "0-1".into(), true),
        "{boards:?}"
    );
    games_pgn(&live, 1, |t| t.contains("[Result \"0-1\"]"))?;
    Ok(())
}
