//! End to end: the board's game survives every kind of restart (issue 27). The real
//! `chessclockd` reads a game from the real `chessclock-emu`'s pieces, with presses and the
//! operator's corrections; it is killed (SIGKILL), stopped cleanly, or stopped with its
//! runtime directory emptied as by a reboot, and started again. The same moves, clocks and
//! `[%clk]` come back (python-chess reads the PGN before and after), the live file is written
//! again, and the next move is read as the same game's. Moves made while it was down are read
//! as moves, from the board's own memory when the pieces alone do not explain them; other
//! pieces are a board problem, never a start position.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, ensure};
use chessclock_tests::e2e::{
    RuntimeDirRig, board_read, ctl_ok, files_below, journal_says, moves, pgn_read,
    wait_journaled_presses, wait_moves,
};
use chessclock_tests::json::{s, u};
use chessclock_tests::pgn::{python_reads, sans};
use chessclock_tests::rig::Daemon;
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(10);
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

// The rig (`RuntimeDirRig`): a daemon and an emulated board with pieces, under `G/10 inc/2`,
// the live feed in `run/live` (the runtime directory systemd gives).

/// Start the daemon on `t` and wait until it has read the board's pieces.
fn daemon(t: &RuntimeDirRig) -> Result<Daemon> {
    let d = t.spawn()?;
    board_read(&d, |f| !f.is_empty())?;
    Ok(d)
}

/// A move on the pieces, then the mover's press.
fn play(t: &mut RuntimeDirRig, uci: &str) -> Result<()> {
    t.emu.send(&format!("move {uci}"))?;
    t.emu.send("lever")
}

/// The live file of board 1, once it holds `plies` moves: what python-chess reads.
fn live_game(t: &RuntimeDirRig, plies: usize) -> Result<Value> {
    let file = t.run.join("live/round-1/game-1.pgn");
    let until = std::time::Instant::now() + WAIT;
    loop {
        if file.exists() {
            let games = python_reads(&file)?;
            if let [g] = games.as_slice()
                && sans(g).len() == plies
            {
                return Ok(g.clone());
            }
        }
        ensure!(
            std::time::Instant::now() < until,
            "no live game of {plies} plies in {}: {:?}",
            file.display(),
            std::fs::read_to_string(&file)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// e4 e5 Nf3 with presses; Nf3 taken back by the operator and forced again; Nc6 pressed.
fn opening(t: &mut RuntimeDirRig, d: &Daemon) -> Result<Value> {
    ctl_ok(d, &["start", "0"]);
    for uci in ["e2e4", "e7e5", "g1f3"] {
        play(t, uci)?;
    }
    wait_moves(d, &["e4", "e5", "Nf3"])?;
    d.wait_status("0", WAIT, "three presses", |v| {
        u(v, "/moves/white") + u(v, "/moves/black") == 3
    })?;
    ctl_ok(d, &["move", "0", "undo"]);
    wait_moves(d, &["e4", "e5"])?;
    ctl_ok(d, &["move", "0", "force", "g1f3"]);
    wait_moves(d, &["e4", "e5", "Nf3"])?;
    play(t, "b8c6")?;
    wait_moves(d, &["e4", "e5", "Nf3", "Nc6"])?;
    d.wait_status("0", WAIT, "four presses", |v| {
        u(v, "/moves/white") + u(v, "/moves/black") == 4
    })?;
    // Journaled too, so that a SIGKILL now keeps every press.
    wait_journaled_presses(&t.dir.path().join("state"), 4)?;
    Ok(pgn_read(d, t.dir.path(), "before.pgn")?.1)
}

/// What a restart must give back: the moves and each move's clock and time.
fn same_game(before: &Value, after: &Value) -> Result<()> {
    for key in ["san", "clk", "emt"] {
        ensure!(
            before[key] == after[key],
            "{key} before and after the restart:\n{before}\n{after}"
        );
    }
    Ok(())
}

#[test]
fn a_killed_daemon_gives_back_the_game_with_its_corrections_and_reads_on() -> Result<()> {
    let mut t = RuntimeDirRig::new("board-restart-kill")?;
    let mut d = daemon(&t)?;
    let before = opening(&mut t, &d)?;
    let status = d.ctl_json(&["status", "0", "--json"])?;
    d.kill();

    let d = daemon(&t)?;
    let st = wait_moves(&d, &["e4", "e5", "Nf3", "Nc6"])?;
    ensure!(s(&st, "/board_problem").is_empty(), "{st}");
    ensure!(
        st["moves"] == status["moves"] && s(&st, "/fen") == s(&status, "/fen"),
        "the same game:\n{status}\n{st}"
    );
    same_game(&before, &pgn_read(&d, t.dir.path(), "after.pgn")?.1)?;
    same_game(&before, &live_game(&t, 4)?)?;
    // The next move is the same game's.
    play(&mut t, "f1c4")?;
    wait_moves(&d, &["e4", "e5", "Nf3", "Nc6", "Bc4"])?;
    let g = live_game(&t, 5)?;
    ensure!(sans(&g)[..4] == sans(&before)[..], "{g}");
    ensure!(journal_says(
        &t.dir.path().join("state"),
        "\"step\":\"move\""
    ));
    Ok(())
}

/// The game's records in `games/` (any round's folder), PGN paths.
fn records(state: &Path) -> Vec<std::path::PathBuf> {
    let games = state.join("games");
    files_below(&games)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .map(|p| games.join(p))
        .collect()
}

/// The archived record is the whole game's, folded from its journal: after a SIGKILL it
/// holds the moves, clocks and times from before the restart (as python-chess reads them
/// before it), the operator's corrections, and the move after it, as one game.
#[test]
fn the_archived_record_after_a_restart_is_the_whole_game_s() -> Result<()> {
    let mut t = RuntimeDirRig::new("board-restart-record")?;
    let mut d = daemon(&t)?;
    let before = opening(&mut t, &d)?;
    d.kill();
    let d = daemon(&t)?;
    wait_moves(&d, &["e4", "e5", "Nf3", "Nc6"])?;
    play(&mut t, "f1c4")?;
    wait_moves(&d, &["e4", "e5", "Nf3", "Nc6", "Bc4"])?;
    let (_, live) = pgn_read(&d, t.dir.path(), "live.pgn")?;
    ctl_ok(&d, &["result", "0", "1-0"]);
    let state = t.dir.path().join("state");
    let until = std::time::Instant::now() + WAIT;
    let pgn = loop {
        if let [pgn] = records(&state).as_slice() {
            break pgn.clone();
        }
        ensure!(std::time::Instant::now() < until, "no record in games/");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut games = python_reads(&pgn)?;
    ensure!(games.len() == 1, "{}", pgn.display());
    let archived = games.remove(0);
    ensure!(archived["errors"] == serde_json::json!([]), "{archived}");
    ensure!(s(&archived, "/headers/Result") == "1-0", "{archived}");
    for key in ["san", "clk", "emt"] {
        ensure!(
            archived[key].as_array().map(|a| a[..4].to_vec()) == before[key].as_array().cloned()
                && archived[key] == live[key],
            "{key}: the archived record is the game before and after the restart:\n{before}\n{live}\n{archived}"
        );
    }
    let json = std::fs::read_to_string(pgn.with_extension("json"))?;
    let log: Value = serde_json::from_str(&json)?;
    let events = log["events"].as_array().context("events")?;
    let said = |what: &str| events.iter().filter(|e| s(e, "/event") == what).count();
    ensure!(said("move") == 6, "every move read or forced: {json}");
    ensure!(said("pressed") == 5, "every press: {json}");
    for correction in ["correction: undo", "correction: force g1f3"] {
        ensure!(
            events.iter().any(|e| s(e, "/what").starts_with(correction)),
            "the correction {correction:?} from before the restart: {json}"
        );
    }
    Ok(())
}

#[test]
fn a_clean_stop_and_a_reboot_give_back_the_game_and_moves_made_meanwhile_are_read() -> Result<()> {
    let mut t = RuntimeDirRig::new("board-restart-stop")?;
    let mut d = daemon(&t)?;
    let before = opening(&mut t, &d)?;
    ensure!(d.terminate()?, "a clean stop");
    let d = daemon(&t)?;
    wait_moves(&d, &["e4", "e5", "Nf3", "Nc6"])?;
    same_game(&before, &pgn_read(&d, t.dir.path(), "after-stop.pgn")?.1)?;

    // A reboot: the daemon dies, the runtime directory (the live feed) is emptied, and the
    // players go on meanwhile.
    let mut d = d;
    d.kill();
    std::fs::remove_dir_all(t.run.join("live"))?;
    t.emu.send("move f1c4")?;
    // Made before the daemon is back: it reads the board as the emulator shows it then.
    t.emu
        .wait_pieces("r.bqkbnr pppp.ppp ..n..... ....p... ..B.P... .....N.. PPPP.PPP RNBQK..R")?;
    let d = daemon(&t)?;
    let st = wait_moves(&d, &["e4", "e5", "Nf3", "Nc6", "Bc4"])?;
    ensure!(
        st["notices"].as_array().is_some_and(|n| n.iter().any(|n| n
            .as_str()
            .is_some_and(|n| n.contains("while chessclockd was not running")))),
        "the moves read are said: {st}"
    );
    let g = live_game(&t, 5)?;
    ensure!(sans(&g)[..4] == sans(&before)[..], "{g}");
    Ok(())
}

/// Three plies made while the daemon was down: the pieces alone do not explain them, the
/// board's own memory (its move log, dgt-protocol §8a) does. They are read as the game's
/// next moves without clocks, said, and python-chess reads the live PGN with them.
#[test]
fn moves_the_pieces_cannot_explain_are_read_from_the_board_s_memory() -> Result<()> {
    let mut t = RuntimeDirRig::new("board-restart-memory")?;
    let mut d = daemon(&t)?;
    let before = opening(&mut t, &d)?;
    d.kill();
    for uci in ["f1c4", "g8f6", "d2d3"] {
        t.emu.send(&format!("move {uci}"))?;
    }
    t.emu
        .wait_pieces("r.bqkb.r pppp.ppp ..n..n.. ....p... ..B.P... ...P.N.. PPP..PPP RNBQK..R")?;
    let d = daemon(&t)?;
    let st = wait_moves(&d, &["e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6", "d3"])?;
    ensure!(
        st["notices"].as_array().is_some_and(|n| n.iter().any(|n| n
            .as_str()
            .is_some_and(|n| n.contains("the board's memory shows Bc4 Nf6 d3")))),
        "the moves read are said: {st}"
    );
    let st = d.wait_status("0", WAIT, "no board problem", |v| {
        s(v, "/board_problem").is_empty()
    })?;
    ensure!(moves(&st).len() == 7, "{st}");
    let g = live_game(&t, 7)?;
    ensure!(g["errors"] == serde_json::json!([]), "{g}");
    ensure!(sans(&g)[..4] == sans(&before)[..], "{g}");
    let clk = g["clk"].as_array().context("clk")?;
    ensure!(
        clk[..4] == before["clk"].as_array().context("clk before")?[..]
            && clk[4..].iter().all(Value::is_null),
        "the clocks from before, none for the moves from the board's memory: {g}"
    );
    ensure!(journal_says(
        &t.dir.path().join("state"),
        "board memory: Bc4 Nf6 d3"
    ));
    Ok(())
}

#[test]
fn other_pieces_after_a_restart_are_a_board_problem_never_the_start_position() -> Result<()> {
    // A board whose memory keeps nothing: it cannot explain them either.
    let mut t = RuntimeDirRig::with_emu("board-restart-other", &["--ee-log-bytes", "1"])?;
    let mut d = daemon(&t)?;
    opening(&mut t, &d)?;
    d.kill();
    // Three plies while down: no one or two legal moves explain the board.
    for uci in ["f1c4", "g8f6", "d2d3"] {
        t.emu.send(&format!("move {uci}"))?;
    }
    // All three made before the daemon is back (one or two at its start would be read as
    // moves).
    t.emu
        .wait_pieces("r.bqkb.r pppp.ppp ..n..n.. ....p... ..B.P... ...P.N.. PPP..PPP RNBQK..R")?;
    let d = daemon(&t)?;
    let st = d.wait_status("0", WAIT, "the board problem", |v| {
        !s(v, "/board_problem").is_empty()
    })?;
    ensure!(
        moves(&st) == ["e4", "e5", "Nf3", "Nc6"],
        "the game kept: {st}"
    );
    ensure!(s(&st, "/fen") != START, "{st}");
    let st = d.wait_status("0", WAIT, "the board's memory refused", |v| {
        v["notices"].as_array().is_some_and(|n| {
            n.iter().any(|n| {
                n.as_str()
                    .is_some_and(|n| n.contains("the board's memory was not used"))
            })
        })
    })?;
    ensure!(
        moves(&st) == ["e4", "e5", "Nf3", "Nc6"],
        "the game kept: {st}"
    );
    Ok(())
}

/// A battery board unplugged from the host mid-game keeps logging what is played: after the
/// replug the daemon reads those moves from the board's memory (the pieces alone do not
/// explain three plies), and python-chess reads them in the live PGN.
#[test]
fn moves_made_while_the_board_was_unplugged_are_read_from_its_memory() -> Result<()> {
    let links = chessclock_tests::TempDir::new("board-memory-link")?;
    let link = links.path().join("board0");
    let link = link.to_str().context("a UTF-8 temp path")?;
    let mut t = RuntimeDirRig::with_emu("board-memory-unplug", &["--link", link])?;
    let d = daemon(&t)?;
    let before = opening(&mut t, &d)?;
    t.emu.unplug()?;
    d.wait_status("0", WAIT, "disconnected", |v| {
        v.get("connected") == Some(&Value::Bool(false))
    })?;
    for uci in ["f1c4", "g8f6", "d2d3"] {
        t.emu.send(&format!("move {uci}"))?;
    }
    t.emu
        .wait_pieces("r.bqkb.r pppp.ppp ..n..n.. ....p... ..B.P... ...P.N.. PPP..PPP RNBQK..R")?;
    t.emu.replug()?;
    let st = wait_moves(&d, &["e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6", "d3"])?;
    ensure!(
        st["notices"].as_array().is_some_and(|n| n.iter().any(|n| n
            .as_str()
            .is_some_and(|n| n.contains("the board's memory shows Bc4 Nf6 d3")))),
        "the moves read are said: {st}"
    );
    let g = live_game(&t, 7)?;
    ensure!(g["errors"] == serde_json::json!([]), "{g}");
    ensure!(sans(&g)[..4] == sans(&before)[..], "{g}");
    Ok(())
}
