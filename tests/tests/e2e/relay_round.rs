//! A relay round through the real daemon and CLI (docs/relay.md): board numbers
//! (`[[clock]] board`, else index + 1) in `list`/`status`, `round load` of CSV, TRF and
//! tags-only PGN pairings onto the boards' game information, the current round kept across a
//! restart, and a bad file or a board conflict refused naming every bad line at once,
//! changing nothing (paper boards: `relay_paper`).
//!
//! The clocks are configured on ports that do not exist (a clock waits, disconnected, for
//! its port) and a virtual clock: no serial traffic is needed to set game information.

use std::path::Path;

use anyhow::Result;
use chessclock_tests::e2e::{current_round as round, game_info as info, text};
use chessclock_tests::rig::{Daemon, write_config};
use chessclock_tests::{PrivateBus, TempDir};

/// Two `[[clock]]` tables on absent ports; the first with board `first`.
fn config(dir: &Path, first: u32) -> Result<std::path::PathBuf> {
    let tables = format!(
        "[[clock]]\nport = {:?}\nname = \"one\"\nboard = {first}\n\n[[clock]]\nport = {:?}\nname = \"two\"\n",
        dir.join("absent-0").display().to_string(),
        dir.join("absent-1").display().to_string(),
    );
    write_config(dir, &[], &tables)
}

/// Each clock's board number, by index (`list` is in board order).
fn boards(d: &Daemon) -> Result<Vec<(u64, u64)>> {
    let list = d.ctl_json(&["list", "--json"])?;
    let mut boards: Vec<(u64, u64)> = list
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| {
                    (
                        c["index"].as_u64().unwrap_or(99),
                        c["board"].as_u64().unwrap_or(0),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    boards.sort_unstable();
    Ok(boards)
}

/// A TRF-16 player line: starting rank, title, name, rating, FIDE id, then per round
/// (opponent, colour, result).
fn trf_player(
    rank: u32,
    title: &str,
    name: &str,
    elo: u32,
    fide: u64,
    rounds: &[(u32, char)],
) -> String {
    let mut line = format!(
        "001 {rank:>4} m{title:>3} {name:<33} {elo:>4} NOR {fide:>11} 1990/11/30 {:>4} {rank:>4}",
        "0.0"
    );
    for (opp, colour) in rounds {
        line.push_str(&format!("  {opp:>4} {colour}  "));
    }
    line
}

#[test]
fn a_round_from_pairings_to_the_boards_and_its_errors() -> Result<()> {
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("relay-round")?;
    let cfg = config(dir.path(), 2)?;
    let mut d = Daemon::spawn(bus.address(), &cfg, &[])?;
    let out = d.ctl(&["add-virtual", "three"]);
    assert!(out.status.success(), "{}", text(&out));

    // Board numbers: configured, else the lowest free, kept for the board (clock 1 gets 1:
    // 2 is clock 0's table's).
    assert_eq!(boards(&d)?, vec![(0, 2), (1, 1), (2, 3)]);
    let listed = String::from_utf8_lossy(&d.ctl(&["list"]).stdout).into_owned();
    assert!(
        listed.lines().next().is_some_and(|h| h.contains("BOARD")),
        "{listed}"
    );
    assert_eq!(round(&d)?, 1, "round 1 before any pairings");

    // A board paired twice (twice over) and a malformed line: refused, all named in one
    // answer.
    let csv = dir.path().join("round4.csv");
    std::fs::write(
        &csv,
        "board,white,black,white_elo\n3,\"Carlsen, Magnus\",Ding,2830\n3,A,B,\n7,C,D,2.1k\n3,E,F,\n",
    )?;
    let out = d.ctl(&["round", "load", &csv.display().to_string(), "--round", "4"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nothing was changed"), "{err}");
    assert!(
        err.contains("line 3: board 3 is paired already on line 2"),
        "{err}"
    );
    assert!(
        err.contains("line 4: white_elo \"2.1k\" is not a rating"),
        "{err}"
    );
    assert!(
        err.contains("line 5: board 3 is paired already on line 3"),
        "{err}"
    );
    assert_eq!(
        info(&d, "2")?.get("White"),
        None,
        "board 3 is unchanged: {}",
        info(&d, "2")?
    );
    assert_eq!(round(&d)?, 1);

    // The good boards only.
    std::fs::write(
        &csv,
        "board,white,black,white_elo,black_fide_id,white_title\n3,\"Carlsen, Magnus\",Ding,2830,8603677,GM\n",
    )?;
    let out = d.ctl(&["round", "load", &csv.display().to_string(), "--round", "4"]);
    assert!(out.status.success(), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("board 3: clock 2 (\"three\"): Carlsen, Magnus - Ding"),
        "{said}"
    );
    assert!(
        said.contains("clock 0 (\"one\") is board 2, which has no game"),
        "{said}"
    );
    let three = info(&d, "2")?;
    assert_eq!(three["White"], "Carlsen, Magnus", "{three}");
    assert_eq!(three["Black"], "Ding", "{three}");
    assert_eq!(three["Round"], "4.3", "{three}");
    assert_eq!(three["Board"], "3", "{three}");
    assert_eq!(three["WhiteElo"], "2830", "{three}");
    assert_eq!(three["WhiteTitle"], "GM", "{three}");
    assert_eq!(three["BlackFideId"], "8603677", "{three}");
    assert_eq!(round(&d)?, 4);
    let pgn = String::from_utf8_lossy(&d.ctl(&["pgn", "2"]).stdout).into_owned();
    assert!(
        pgn.contains("[Round \"4.3\"]") && pgn.contains("[WhiteElo \"2830\"]"),
        "{pgn}"
    );

    // A malformed file changes nothing either.
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "board,white,black,white_elo\n3,X,Y,strong\n")?;
    let out = d.ctl(&["round", "load", &bad.display().to_string(), "--round", "5"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 2: white_elo \"strong\" is not a rating"),
        "{err}"
    );
    assert_eq!(info(&d, "2")?["White"], "Carlsen, Magnus");
    assert_eq!(round(&d)?, 4);

    // The round survives a restart; boards renumbered by the configuration.
    assert!(d.terminate()?, "clean stop");
    let cfg = config(dir.path(), 1)?;
    d = Daemon::spawn(bus.address(), &cfg, &[])?;
    assert_eq!(round(&d)?, 4, "the round is kept in the state directory");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while boards(&d)?.len() < 3 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(boards(&d)?, vec![(0, 1), (1, 2), (2, 3)]);

    // Round 2 of a Swiss-Manager TRF: boards in the order of the pairings.
    let trf = dir.path().join("open.trf");
    let lines = [
        "012 Relay Open".to_owned(),
        trf_player(
            1,
            "GM",
            "Carlsen, Magnus",
            2830,
            1503014,
            &[(3, 'w'), (2, 'b')],
        ),
        trf_player(
            2,
            "g",
            "Caruana, Fabiano",
            2800,
            2020009,
            &[(4, 'b'), (1, 'w')],
        ),
        trf_player(3, "", "Third, Player", 2100, 0, &[(1, 'b'), (4, 'b')]),
        trf_player(4, "wm", "Hou, Yifan", 2650, 8602980, &[(2, 'w'), (3, 'w')]),
    ];
    std::fs::write(&trf, lines.join("\n"))?;
    let out = d.ctl_json(&[
        "round",
        "load",
        &trf.display().to_string(),
        "--round",
        "2",
        "--json",
    ])?;
    assert_eq!(out["round"], 2, "{out}");
    let one = info(&d, "0")?;
    assert_eq!(one["White"], "Caruana, Fabiano", "{one}");
    assert_eq!(one["WhiteTitle"], "GM", "{one}");
    assert_eq!(one["Black"], "Carlsen, Magnus", "{one}");
    assert_eq!(one["BlackFideId"], "1503014", "{one}");
    assert_eq!(one["Round"], "2.1", "{one}");
    let two = info(&d, "1")?;
    assert_eq!(
        (two["White"].clone(), two["Black"].clone()),
        ("Hou, Yifan".into(), "Third, Player".into()),
        "{two}"
    );
    assert_eq!(two["WhiteTitle"], "WIM", "{two}");
    assert_eq!(two.get("BlackFideId"), None, "no FIDE id: none set");

    // Tags-only PGN from stdin-less file with the format given; Board or Round "r.b".
    let pgn = dir.path().join("round3.txt");
    std::fs::write(
        &pgn,
        "[Event \"Relay\"]\n[Round \"3.2\"]\n[White \"E\"]\n[Black \"F\"]\n[WhiteTeam \"Club\"]\n\n*\n",
    )?;
    let out = d.ctl(&[
        "round",
        "load",
        &pgn.display().to_string(),
        "--format",
        "pgn",
        "--round",
        "3",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let two = info(&d, "1")?;
    assert_eq!(
        (two["White"].clone(), two["Round"].clone()),
        ("E".into(), "3.2".into()),
        "{two}"
    );
    assert_eq!(two["WhiteTeam"], "Club", "{two}");
    assert_eq!(
        two.get("WhiteTitle"),
        None,
        "last round's title is cleared: {two}"
    );
    assert_eq!(
        info(&d, "0")?["Round"],
        "2.1",
        "a board the file leaves out keeps its game"
    );
    assert_eq!(round(&d)?, 3);
    Ok(())
}
