//! End to end: a game played piece by piece on an emulated DGT board (the real
//! `chessclock-emu` on a pty) under the real `chessclockd`: the moves on D-Bus (`Move`
//! signals, `Fen`, `Moves`), in `status --json`, in `chessclockctl pgn` and in the live PGN
//! files, each PGN read back by python-chess with every move and every `[%clk]`; the mate on
//! the board ends the timed game by itself (docs/rules.md); a board whose pieces were never
//! read publishes no position (an empty `Fen`).

use std::time::Duration;

use anyhow::{Context, Result};
use chessclock_tests::bus_client::Client;
use chessclock_tests::e2e::{board_read, ctl_ok, emu, press_lever, wait_record};
use chessclock_tests::json::s;
use chessclock_tests::pgn::{python_reads, sans};
use chessclock_tests::rig::{Daemon, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(10);
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn a_game_played_on_the_board_reaches_the_bus_and_the_live_pgn() -> Result<()> {
    let dir = TempDir::new("board-game")?;
    let bus = PrivateBus::start_session()?;
    let mut emu = emu(&[])?;
    let config = write_config(dir.path(), &[(&emu.path, "G/5 inc/3")], "")?;
    // Game information from the configuration (the [[clock]] table is the file's last).
    let mut text = std::fs::read_to_string(&config)?;
    text.push_str("game_info = { event = \"Test Open\", Board = \"4\" }\n");
    std::fs::write(&config, text)?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    // Ready, with the start position read from the board's dump.
    board_read(&d, |f| f == START)?;
    let client = Client::connect(bus.address())?;
    ctl_ok(
        &d,
        &[
            "info",
            "0",
            "white=Carlsen, Magnus",
            "black=Ding, Liren",
            "round=7",
        ],
    );
    ctl_ok(&d, &["start", "0"]);

    // Scholar's mate, each move made on the board, then the lever pressed.
    let game = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"];
    let want = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"];
    for (i, uci) in game.iter().enumerate() {
        let mark = client.mark();
        emu.send(&format!("move {uci}"))?;
        let (_, sig) = client.wait_signal(mark, "a Move signal", |m| {
            m.header().member().is_some_and(|n| n == "Move")
        })?;
        let (ply, san, got_uci, fen, mover_ms): (u32, String, String, String, u64) =
            sig.body().deserialize()?;
        assert_eq!(
            (ply as usize, san.as_str(), got_uci.as_str()),
            (i + 1, want[i], *uci)
        );
        assert!(
            mover_ms > 0 && mover_ms <= 300_000 + 3_000 * 4,
            "{mover_ms}"
        );
        assert!(!fen.is_empty());
        if i + 1 < game.len() {
            press_lever(&mut emu, &d, "0")?;
        }
    }
    let st = d.wait_status("0", WAIT, "every move in the status", |v| {
        v["moves_san"]
            .as_array()
            .is_some_and(|a| a.len() == want.len())
    })?;
    assert_eq!(sans(&serde_json::json!({"san": st["moves_san"]})), want);
    assert!(s(&st, "/fen").starts_with("r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b"));
    assert_eq!(s(&st, "/game_info/White"), "Carlsen, Magnus");

    // chessclockctl pgn, read by python-chess.
    let pgn = ctl_ok(&d, &["pgn", "0"]);
    let file = dir.path().join("from-ctl.pgn");
    std::fs::write(&file, &pgn)?;
    let games = python_reads(&file)?;
    assert_eq!(games.len(), 1, "{pgn}");
    let g = &games[0];
    assert_eq!(sans(g), want, "{pgn}");
    assert_eq!(g["errors"], serde_json::json!([]), "{pgn}");
    let clks = g["clk"].as_array().context("clk")?;
    assert_eq!(clks.len(), want.len());
    assert!(
        clks.iter().all(Value::is_number),
        "every move has [%clk]: {pgn}"
    );
    assert_eq!(s(g, "/headers/White"), "Carlsen, Magnus");
    assert_eq!(s(g, "/headers/Round"), "7");
    assert_eq!(
        s(g, "/headers/Event"),
        "Test Open",
        "from the configuration"
    );
    assert_eq!(s(g, "/headers/Board"), "4");
    assert_eq!(s(g, "/headers/TimeControl"), "300+3");

    // The live files: the board's own (board 1 of round 1: the clock's number + 1, no round
    // loaded) and the round's games.pgn, rewritten after each change.
    let live = dir.path().join("state/live/round-1");
    let mut found = None;
    for _ in 0..100 {
        let p = live.join("game-1.pgn");
        if p.exists()
            && python_reads(&p)
                .is_ok_and(|g| g.first().is_some_and(|g| sans(g).len() == want.len()))
        {
            found = Some(p);
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let own = found.context("no live PGN with every move in state/live")?;
    for f in [own, live.join("games.pgn")] {
        let games = python_reads(&f)?;
        assert_eq!(games.len(), 1, "{}", f.display());
        assert_eq!(sans(&games[0]), want, "{}", f.display());
        assert!(
            games[0]["clk"]
                .as_array()
                .is_some_and(|c| c.iter().all(Value::is_number))
        );
    }

    // The mate on the board ended the timed game by itself, unpressed (docs/rules.md): the
    // clocks stopped with the result and its reason, and the record is written.
    let st = d.wait_status("0", WAIT, "the game ended by the mate", |v| {
        s(v, "/status") == "ended"
    })?;
    assert_eq!(s(&st, "/result"), "1-0", "{st}");
    assert_eq!(s(&st, "/reason"), "checkmate", "{st}");
    assert!(st["running"].is_null(), "no clock runs: {st}");
    let err = d.ctl(&["pause", "0"]);
    assert!(!err.status.success(), "nothing to pause after the mate");
    // Round 1's record (its round's folder).
    let games_dir = dir.path().join("state/games/round-1");
    let finished = wait_record(&games_dir)?;
    let games = python_reads(&finished)?;
    assert_eq!(sans(&games[0]), want, "{}", finished.display());
    assert_eq!(s(&games[0], "/headers/Result"), "1-0");
    assert_eq!(s(&games[0], "/headers/Termination"), "normal");
    assert_eq!(s(&games[0], "/headers/White"), "Carlsen, Magnus");

    // The position drawn in the terminal.
    let board = ctl_ok(&d, &["board", "0"]);
    assert!(board.contains("7  p p p p . Q p p"), "{board}");
    Ok(())
}

/// A board with no pieces on it (as a clock used without its e-board): no position is
/// published (an empty `Fen`, not the start position) and `chessclockctl board` says so;
/// once the pieces are set up, their position is read.
#[test]
fn a_board_never_read_publishes_no_position_until_its_pieces_are_set_up() -> Result<()> {
    let dir = TempDir::new("board-empty")?;
    let bus = PrivateBus::start_session()?;
    let mut emu = emu(&[])?;
    // The board is clear before the daemon opens it once the emulator shows it so (its
    // view, which it also parses later commands against, follows the board a moment later).
    let mark = emu.mark();
    emu.send("clear")?;
    let empty = ".".repeat(64);
    emu.wait_for(mark, WAIT, "the emulator's cleared board", |v| {
        v["pieces"].as_str() == Some(empty.as_str())
    })?;
    let config = write_config(dir.path(), &[(&emu.path, "G/5")], "")?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    let st = d.wait_status("0", WAIT, "a ready clock with its board", |v| {
        s(v, "/device_state") == "ready" && !s(v, "/board_serial").is_empty()
    })?;
    assert_eq!(s(&st, "/fen"), "", "{st}");
    let text = ctl_ok(&d, &["board", "0"]);
    assert!(text.contains("no position known"), "{text}");
    assert!(text.contains("chessclockctl position 0 FEN"), "{text}");

    emu.send("setup")?;
    d.wait_status("0", WAIT, "the start position read", |v| {
        s(v, "/fen") == START
    })?;
    let text = ctl_ok(&d, &["board", "0"]);
    assert!(text.contains(START), "{text}");
    Ok(())
}
