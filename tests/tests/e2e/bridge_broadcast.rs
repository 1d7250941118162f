//! End to end: `chessclock-bridge --make-broadcast` makes the Lichess broadcast from the
//! event's pairings files against the Lichess stand-in (tests/src/lichess, with lila's forms
//! and answers): the tour with its name, time control and players (FIDE ids, ratings), one
//! round per file in order, each created not started (`status=new`); it prints the URL, the
//! ids and the `rounds` line for bridge.toml. A token without the study:write scope is
//! refused with what to do, and nothing is made.

use std::process::Command;

use anyhow::{Context, Result};
use chessclock_tests::TempDir;
use chessclock_tests::lichess::StandIn;
use chessclock_tests::rig::workspace_bin;

fn make(dir: &TempDir, server: &str, token: &str) -> Result<std::process::Output> {
    let token_file = dir.path().join(format!("{token}.token"));
    std::fs::write(&token_file, format!("{token}\n"))?;
    let cfg = dir.path().join(format!("{token}.toml"));
    std::fs::write(
        &cfg,
        format!(
            "[[lichess]]\nround = \"AbCd1234\"\ntoken_file = \"{}\"\nserver = \"{server}\"\n",
            token_file.display()
        ),
    )?;
    let mut cmd = Command::new(workspace_bin("chessclock-bridge")?);
    cmd.arg("--config").arg(&cfg);
    cmd.args([
        "--make-broadcast",
        "Hall Open 2026",
        "--time-control",
        "90+30",
    ]);
    for n in 1..=2 {
        cmd.arg("--pairings")
            .arg(dir.path().join(format!("round{n}.csv")));
    }
    Ok(cmd.output()?)
}

#[test]
fn the_tour_and_its_rounds_are_made_from_the_pairings_not_started() -> Result<()> {
    let dir = TempDir::new("bridge-broadcast")?;
    std::fs::write(
        dir.path().join("round1.csv"),
        "board,white,black,white_fide_id,black_fide_id,white_elo,black_elo\n\
         1,\"Carlsen, Magnus\",\"Ding, Liren\",1503014,8603677,2830,2780\n\
         2,\"Ju, Wenjun\",\"Lei, Tingjie\",8603006,8603642,2560,2550\n",
    )?;
    std::fs::write(
        dir.path().join("round2.csv"),
        "board,white,black,white_fide_id,black_fide_id\n\
         1,\"Ding, Liren\",\"Ju, Wenjun\",8603677,8603006\n\
         2,\"Lei, Tingjie\",\"Carlsen, Magnus\",8603642,1503014\n",
    )?;
    let lichess = StandIn::start()?;

    // A token that may only read: refused with what to do, nothing made.
    let out = make(&dir, &lichess.base, "lip_readonly")?;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("make a token with study:write"), "{err}");
    assert!(lichess.tours().is_empty());

    let out = make(&dir, &lichess.base, "lip_testtoken123")?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tours = lichess.tours();
    assert_eq!(tours.len(), 1, "{tours:#?}");
    let tour = &tours[0];
    assert_eq!(tour.name, "Hall Open 2026");
    assert_eq!(
        tour.fields.get("info.tc").map(String::as_str),
        Some("90+30")
    );
    let players = tour.fields.get("players").context("the players")?;
    assert_eq!(players.lines().count(), 4, "{players}");
    assert!(
        players.contains("Carlsen, Magnus / 1503014 /  / 2830"),
        "{players}"
    );
    assert_eq!(tour.rounds.len(), 2);
    assert!(
        text.starts_with(&format!(
            "broadcast \"Hall Open 2026\": {}/broadcast/",
            lichess.base
        )),
        "{text}"
    );
    for (i, id) in tour.rounds.iter().enumerate() {
        let round = lichess.round(id).context("the round")?;
        assert_eq!(round.name, format!("Round {}", i + 1));
        assert!(!round.started, "created not started: {round:#?}");
        assert!(
            text.contains(&format!("round {}: {id} (2 boards)", i + 1)),
            "{text}"
        );
    }
    assert!(
        text.contains(&format!(
            "rounds = {{ 1 = \"{}\", 2 = \"{}\" }}",
            tour.rounds[0], tour.rounds[1]
        )),
        "{text}"
    );
    Ok(())
}
