//! End to end: who can still mate, on an emulated DGT board (the real `chessclock-emu` on a
//! pty) under the real `chessclockd`: a check whose only answer takes the queen ends the game
//! at once as a dead position (the clock stops, `dead_position` in `status --json`, `CanMate`
//! published, the PGN's draw read back by python-chess); under US Chess rules a flag against
//! a lone knight draws (14E2) and the arbiter is told (docs/rules.md, "Who can still mate").

use std::time::Duration;

use anyhow::Result;
use chessclock_tests::e2e::{board_read, ctl_ok, emu, pgn_read};
use chessclock_tests::json::s;
use chessclock_tests::rig::{Daemon, Emu, write_config};
use chessclock_tests::{PrivateBus, TempDir};

const WAIT: Duration = Duration::from_secs(10);

/// Set `fen` as clock 0's game and the emulated board's pieces so; wait for the daemon to
/// read them.
fn set_up(d: &Daemon, emu: &mut Emu, fen: &str) -> Result<()> {
    ctl_ok(d, &["position", "0", fen]);
    emu.send("clear")?;
    let placement = fen.split(' ').next().unwrap_or_default();
    for (r, rank) in placement.split('/').enumerate() {
        let mut file = 0u8;
        for c in rank.chars() {
            match c.to_digit(10) {
                Some(n) => file += u8::try_from(n)?,
                None => {
                    emu.send(&format!("place {}{} {c}", char::from(b'a' + file), 8 - r))?;
                    file += 1;
                }
            }
        }
    }
    let want = placement.to_owned();
    d.wait_status("0", WAIT, "the pieces show the position", |v| {
        s(v, "/fen").starts_with(&want) && v.get("board_problem").is_none()
    })?;
    Ok(())
}

#[test]
fn a_check_whose_only_answer_takes_the_queen_ends_the_game_at_once() -> Result<()> {
    let dir = TempDir::new("dead-position")?;
    let bus = PrivateBus::start_session()?;
    let mut emu = emu(&[])?;
    let config = write_config(dir.path(), &[(&emu.path, "G/5 inc/3")], "")?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    board_read(&d, |f| !f.is_empty())?;
    set_up(&d, &mut emu, "8/8/8/8/4K3/6Q1/8/7k w - - 0 1")?;
    ctl_ok(&d, &["start", "0"]);
    let st = d.wait_status("0", WAIT, "who can mate published", |v| {
        v["can_mate"]["black"] == "cannot_mate"
    })?;
    assert_eq!(st["can_mate"]["white"], "can_mate", "{st}");
    let human = ctl_ok(&d, &["status", "0"]);
    assert!(human.contains("Black can no longer win"), "{human}");
    // 1. Qg2+: Black's only legal move takes the queen.
    emu.send("move g3g2")?;
    let st = d.wait_status("0", WAIT, "the dead position ends the game", |v| {
        s(v, "/status") == "ended"
    })?;
    assert_eq!(s(&st, "/result"), "1/2-1/2", "{st}");
    assert_eq!(s(&st, "/reason"), "dead_position", "{st}");
    assert_eq!(st["can_mate"]["white"], "cannot_mate", "{st}");
    assert_eq!(st["can_mate"]["black"], "cannot_mate", "{st}");
    // The clock stopped: no side runs.
    assert!(st["running"].is_null(), "{st}");
    let (_, game) = pgn_read(&d, dir.path(), "dead.pgn")?;
    assert_eq!(game["headers"]["Result"], "1/2-1/2", "{game}");
    Ok(())
}

#[test]
fn under_us_chess_rules_a_flag_against_a_lone_knight_draws_and_the_arbiter_is_told() -> Result<()> {
    let dir = TempDir::new("uscf-flag")?;
    let bus = PrivateBus::start_session()?;
    let mut emu = emu(&[])?;
    let config = write_config(
        dir.path(),
        &[(&emu.path, "G/4s d/0")],
        "draw_rules = \"uscf\"",
    )?;
    let d = Daemon::spawn(bus.address(), &config, &[])?;
    board_read(&d, |f| !f.is_empty())?;
    // K+R v K+N, White to move: Black can be helped to mate (FIDE: White's flag loses), but
    // forces no mate (14E2: drawn).
    set_up(&d, &mut emu, "8/8/5n2/5k2/8/8/2K5/7R w - - 0 1")?;
    ctl_ok(&d, &["start", "0"]);
    let st = d.wait_status("0", WAIT, "White's flag judged", |v| {
        s(v, "/status") == "flagged" && v.get("result").is_some_and(|r| !r.is_null())
    })?;
    assert_eq!(s(&st, "/result"), "1/2-1/2", "{st}");
    assert_eq!(s(&st, "/reason"), "insufficient_material", "{st}");
    let notices = st["notices"].to_string();
    assert!(
        notices.contains("14E2") && notices.contains("arbiter may review"),
        "{notices}"
    );
    Ok(())
}
