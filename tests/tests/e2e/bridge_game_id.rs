//! End to end: a game keeps one chapter on Lichess through what an arbiter changes during a
//! round. The real `chessclock-emu` on a pty, the real `chessclockd` and `chessclock-bridge`
//! pushing to the Lichess stand-in (tests/src/lichess, which matches by `GameId`, else by
//! tags, else by the same players' moves, as lila does): a player's name fixed, the colours
//! swapped and the board renumbered leave one chapter holding the game, with the `GameId`
//! of the daemon's live PGN; the next game on the board is a new chapter with another id.

use anyhow::{Context, Result};
use chessclock_tests::bridge::Bridge;
use chessclock_tests::e2e::{ctl_ok, wait_moves};
use chessclock_tests::lichess::StandIn;
use chessclock_tests::lichess::relay::Round;
use chessclock_tests::lichess::rig::PushRig;
use chessclock_tests::rig::Daemon;

/// The `GameId` tag of the daemon's live PGN of clock 0.
fn live_game_id(d: &Daemon) -> String {
    let pgn = ctl_ok(d, &["pgn", "0"]);
    pgn.lines()
        .find_map(|l| l.strip_prefix("[GameId \"")?.strip_suffix("\"]"))
        .unwrap_or_default()
        .to_owned()
}

/// The round's one game, as `what` wants it.
fn one_game<'a>(
    round: &'a Round,
    what: &str,
) -> Result<&'a chessclock_tests::lichess::relay::Chapter> {
    let games = round.games();
    anyhow::ensure!(games.len() == 1, "{what}: one chapter, not {games:#?}");
    Ok(games[0])
}

#[test]
fn a_rename_a_colour_swap_and_a_renumbering_keep_one_chapter() -> Result<()> {
    let lichess = StandIn::with_rounds(&["GmId1234"])?;
    let PushRig {
        dir: _dir,
        bus,
        mut emu,
        daemon: d,
        bridge_toml: cfg,
    } = PushRig::start("bridge-game-id", &lichess, "GmId1234", "")?;
    let _bridge = Bridge::spawn(bus.address(), &["--config", cfg.to_str().context("utf-8")?])?;
    ctl_ok(
        &d,
        &[
            "info",
            "0",
            "white=Ju, Wenju",
            "black=Lei, Tingjie",
            "round=1",
        ],
    );
    ctl_ok(&d, &["start", "0"]);
    emu.send("move e2e4")?;
    emu.send("lever")?;
    wait_moves(&d, &["e4"])?;
    let id = live_game_id(&d);
    assert_eq!(id.len(), 16, "a GameId in the live PGN");
    let r = lichess.wait_round("GmId1234", "the first move", |r| {
        r.games().iter().any(|g| g.moves == ["e4"])
    })?;
    assert_eq!(
        one_game(&r, "the first push")?.tag("GameId"),
        Some(id.as_str())
    );

    // A name fixed, then the colours swapped: the same chapter takes the new players.
    ctl_ok(&d, &["info", "0", "white=Ju, Wenjun"]);
    lichess.wait_round("GmId1234", "the name fixed", |r| {
        r.chapters
            .iter()
            .any(|c| c.tag("White") == Some("Ju, Wenjun"))
    })?;
    ctl_ok(&d, &["info", "0", "white=Lei, Tingjie", "black=Ju, Wenjun"]);
    let r = lichess.wait_round("GmId1234", "the colours swapped", |r| {
        r.chapters
            .iter()
            .any(|c| c.tag("White") == Some("Lei, Tingjie"))
    })?;
    let g = one_game(&r, "after the rename and the swap")?;
    assert_eq!(g.tag("Black"), Some("Ju, Wenjun"));
    // The board renumbered: still the one chapter, now board 37.
    ctl_ok(&d, &["renumber", "0", "37"]);
    let r = lichess.wait_round("GmId1234", "board 37", |r| {
        r.chapters
            .iter()
            .any(|c| c.tag("Board") == Some("37") || c.tag("Round") == Some("1.37"))
    })?;
    one_game(&r, "after the renumbering")?;
    emu.send("move e7e5")?;
    emu.send("lever")?;
    wait_moves(&d, &["e4", "e5"])?;
    let r = lichess.wait_round("GmId1234", "the second move", |r| {
        r.games().iter().any(|g| g.moves == ["e4", "e5"])
    })?;
    let g = one_game(&r, "after the next move")?;
    assert_eq!(g.tag("GameId"), Some(id.as_str()));
    assert_eq!(live_game_id(&d), id, "the same id throughout");
    Ok(())
}
