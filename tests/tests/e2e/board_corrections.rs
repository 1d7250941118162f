//! End to end: an operator corrects the game read from an emulated board's pieces (the real
//! `chessclock-emu` on a pty, the real `chessclockd`) with `chessclockctl move ... undo|force`
//! and `position`: the moves change at once on D-Bus (`Move` signals, `PropertiesChanged`),
//! in `status --json` and the live PGN, which python-chess reads (with `SetUp`/`FEN` after a
//! position, `Variant "Chess960"` for a Chess960 start set up on the board); the journal
//! says so; the board that still shows the corrected-away move is a problem, not that move
//! again; bad corrections fail with their reason and change nothing.

use std::time::Duration;

use anyhow::Result;
use chessclock_tests::bus_client::Client;
use chessclock_tests::e2e::{board_read, ctl_ok, emu, journal_says, moves, pgn_read, wait_moves};
use chessclock_tests::json::s;
use chessclock_tests::pgn::sans;
use chessclock_tests::rig::{Daemon, write_config};
use chessclock_tests::{PrivateBus, TempDir};

const WAIT: Duration = Duration::from_secs(10);

/// A `chessclockctl` that must fail: its stderr.
fn ctl_fails(d: &Daemon, args: &[&str]) -> String {
    let out = d.ctl(args);
    assert!(!out.status.success(), "chessclockctl {args:?} succeeded");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn undo_and_force_correct_a_misread_move_at_once_and_bad_ones_change_nothing() -> Result<()> {
    let dir = TempDir::new("board-corrections")?;
    let bus = PrivateBus::start_session()?;
    let mut emu = emu(&[])?;
    let config = write_config(dir.path(), &[(&emu.path, "G/5 inc/3")], "")?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    board_read(&d, |f| !f.is_empty())?;
    let client = Client::connect(bus.address())?;
    ctl_ok(&d, &["start", "0"]);
    for uci in ["e2e4", "e7e5"] {
        emu.send(&format!("move {uci}"))?;
        emu.send("lever")?;
    }
    // A knight knocked onto f3 is read as Nf3.
    emu.send("move g1f3")?;
    wait_moves(&d, &["e4", "e5", "Nf3"])?;

    // Undo: the moves, the PGN, a PropertiesChanged, the notice and the journal, at once.
    let mark = client.mark();
    ctl_ok(&d, &["move", "0", "undo"]);
    let st = wait_moves(&d, &["e4", "e5"])?;
    client.wait_signal(mark, "PropertiesChanged for the undo", |m| {
        m.header()
            .member()
            .is_some_and(|n| n == "PropertiesChanged")
    })?;
    assert!(
        st["notices"].as_array().is_some_and(|n| n
            .iter()
            .any(|n| n.as_str().is_some_and(|n| n.contains("undo 1")))),
        "{st}"
    );
    let (pgn, g) = pgn_read(&d, dir.path(), "undone.pgn")?;
    assert_eq!(sans(&g), ["e4", "e5"], "{pgn}");
    // The knight still on f3 is not read as Nf3 again: after the settle time the board is
    // a problem that says where the pieces stand wrong.
    let st = d.wait_status("0", WAIT, "the board problem", |v| {
        !s(v, "/board_problem").is_empty()
    })?;
    assert_eq!(moves(&st), ["e4", "e5"]);
    assert!(s(&st, "/board_problem").contains("f3"), "{st}");
    assert!(journal_says(
        &dir.path().join("state"),
        "correction: undo 1 -> "
    ));

    // Bad corrections: the reason, and nothing changed.
    let fen = s(&st, "/fen").to_owned();
    for (args, want) in [
        (
            &["move", "0", "undo", "3"][..],
            "cannot take back 3 plies: the game has 2",
        ),
        (&["move", "0", "force", "e2e5"][..], "not a legal move"),
        (
            &["move", "0", "force", "xyz"][..],
            "not a move in UCI notation",
        ),
        (
            &["position", "0", "not", "a", "fen"][..],
            "not a position to play from",
        ),
        (
            &["position", "0", START_FEN, "--turn", "black"][..],
            "a turn goes with",
        ),
    ] {
        let err = ctl_fails(&d, args);
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let st = d.wait_status("0", WAIT, "the status", |_| true)?;
    assert_eq!(
        (moves(&st), s(&st, "/fen")),
        (vec!["e4".into(), "e5".into()], fen.as_str())
    );

    // The knight goes home: the board is explained; the move White really made is forced
    // (a Move signal), and the board catches up with it.
    emu.send("lift f3")?;
    emu.send("place g1 N")?;
    d.wait_status("0", WAIT, "the problem solved", |v| {
        s(v, "/board_problem").is_empty()
    })?;
    let mark = client.mark();
    ctl_ok(&d, &["move", "0", "force", "b1c3"]);
    let (_, sig) = client.wait_signal(mark, "a Move signal", |m| {
        m.header().member().is_some_and(|n| n == "Move")
    })?;
    let (ply, san, uci, _, _): (u32, String, String, String, u64) = sig.body().deserialize()?;
    assert_eq!((ply, san.as_str(), uci.as_str()), (3, "Nc3", "b1c3"));
    emu.send("move b1c3")?;
    emu.send("move g8f6")?;
    let st = wait_moves(&d, &["e4", "e5", "Nc3", "Nf6"])?;
    assert!(s(&st, "/board_problem").is_empty(), "{st}");
    let (pgn, g) = pgn_read(&d, dir.path(), "forced.pgn")?;
    assert_eq!(sans(&g), ["e4", "e5", "Nc3", "Nf6"], "{pgn}");
    assert!(journal_says(
        &dir.path().join("state"),
        "correction: force b1c3 -> "
    ));
    Ok(())
}

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn a_position_and_a_chess960_start_give_a_pgn_with_setup_that_python_chess_reads() -> Result<()> {
    let dir = TempDir::new("board-position")?;
    let bus = PrivateBus::start_session()?;
    let mut emu = emu(&[])?;
    let config = write_config(dir.path(), &[(&emu.path, "G/5 inc/3")], "")?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    board_read(&d, |f| f == START_FEN)?;

    // A Chess960 start set up on the board (king and queen swapped: RNBKQBNR) is a new game.
    for cmd in [
        "lift d1",
        "lift e1",
        "place d1 K",
        "place e1 Q",
        "lift d8",
        "lift e8",
        "place d8 k",
        "place e8 q",
    ] {
        emu.send(cmd)?;
    }
    let sp = "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w KQkq - 0 1";
    d.wait_status("0", WAIT, "the Chess960 start", |v| s(v, "/fen") == sp)?;
    emu.send("move e2e4")?;
    emu.send("move e7e5")?;
    wait_moves(&d, &["e4", "e5"])?;
    let (pgn, g) = pgn_read(&d, dir.path(), "chess960.pgn")?;
    assert_eq!(s(&g, "/headers/Variant"), "Chess960", "{pgn}");
    assert_eq!(s(&g, "/headers/FEN"), sp, "{pgn}");
    assert_eq!(sans(&g), ["e4", "e5"], "{pgn}");

    // An illegal move stood (White's king stepped d1-d3 unseen): the position is taken from
    // the board as it stands, White to move; the king that moved has lost castling.
    emu.send("lift d1")?;
    emu.send("place d3 K")?;
    emu.wait_pieces("rnbkqbnr pppp.ppp ........ ....p... ....P... ...K.... PPPP.PPP RNB.QBNR")?;
    // The daemon has read the king on d3 too (the emulator shows its pieces before their
    // field updates have crossed the pty) once its board problem names the square.
    d.wait_status("0", WAIT, "the king on d3 read as a board problem", |v| {
        s(v, "/board_problem").contains("d3")
    })?;
    ctl_ok(&d, &["position", "0", "board"]);
    let st = wait_moves(&d, &[])?;
    let fen = "rnbkqbnr/pppp1ppp/8/4p3/4P3/3K4/PPPP1PPP/RNB1QBNR w kq - 0 2";
    assert_eq!(s(&st, "/fen"), fen);
    emu.send("move g1f3")?;
    wait_moves(&d, &["Nf3"])?;
    let (pgn, g) = pgn_read(&d, dir.path(), "from-board.pgn")?;
    assert_eq!(s(&g, "/headers/SetUp"), "1", "{pgn}");
    assert_eq!(s(&g, "/headers/FEN"), fen, "{pgn}");
    assert_eq!(s(&g, "/headers/Variant"), "Chess960", "{pgn}");
    assert_eq!(sans(&g), ["Nf3"], "{pgn}");

    // An adjourned game, given as a FEN (unquoted words): the board is expected to show it.
    let adjourned = "8/5pk1/6p1/8/3R4/6P1/5PK1/3r4 b - - 12 41";
    let mut args = vec!["position", "0"];
    args.extend(adjourned.split(' '));
    ctl_ok(&d, &args);
    d.wait_status("0", WAIT, "the adjourned position", |v| {
        s(v, "/fen") == adjourned
    })?;
    emu.send("clear")?;
    for cmd in [
        "place f7 p",
        "place g7 k",
        "place g6 p",
        "place d4 R",
        "place g3 P",
        "place f2 P",
        "place g2 K",
        "place d1 r",
    ] {
        emu.send(cmd)?;
    }
    emu.wait_pieces("........ .....pk. ......p. ........ ...R.... ......P. .....PK. ...r....")?;
    emu.send("move d1d4")?;
    let st = wait_moves(&d, &["Rxd4"])?;
    assert!(s(&st, "/board_problem").is_empty(), "{st}");
    let (pgn, g) = pgn_read(&d, dir.path(), "adjourned.pgn")?;
    assert_eq!(s(&g, "/headers/FEN"), adjourned, "{pgn}");
    assert!(g["headers"].get("Variant").is_none(), "{pgn}");
    assert!(pgn.contains("41... Rxd4"), "{pgn}");
    assert!(journal_says(
        &dir.path().join("state"),
        "correction: position board -> "
    ));
    Ok(())
}
