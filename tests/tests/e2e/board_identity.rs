//! End to end: the same board after anything (issue 40). The real daemon, CLI and emulator:
//! virtual clocks and an emulated board in a round with a paper board keep every board
//! number, pairing and live file across a restart, whatever order the boards come back in;
//! a board replugged on another port keeps its number, players and game; the same pairings
//! loaded twice change nothing; a file that gives a begun game other players is refused, and
//! `--force` keeps the results entered for the same players; a board swapped for a spare
//! mid-game goes on there as one game, through a restart (issue 44 item 4).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Result, ensure};
use chessclock_tests::e2e::{Shown, ctl_ok, emu, files_below, shown, text};
use chessclock_tests::json::s;
use chessclock_tests::pgn::{python_reads, sans};
use chessclock_tests::rig::{Daemon, Emu, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(10);

const ROUND: &str = "board,white,black\n1,Tanaka,Moreau\n2,Novak,Lindqvist\n3,Okafor,Silva\n\
                     4,Ito,Berg\n";

/// The live game of board `board` once python-chess reads it with `plies` moves: its tags
/// (White, Black, Board) and moves.
fn live_game(
    live: &Path,
    board: u32,
    plies: usize,
) -> Result<(String, String, String, Vec<String>)> {
    let file = live.join(format!("round-1/game-{board}.pgn"));
    let until = Instant::now() + WAIT;
    loop {
        if let Ok(games) = python_reads(&file)
            && let [g] = games.as_slice()
            && sans(g).len() == plies
        {
            let tag = |k: &str| g["headers"][k].as_str().unwrap_or_default().to_owned();
            return Ok((tag("White"), tag("Black"), tag("Board"), sans(g)));
        }
        ensure!(
            Instant::now() < until,
            "no live game of {plies} plies in {}: {:?}",
            file.display(),
            std::fs::read_to_string(&file)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Wait until `clock`'s status satisfies `ok`; the status.
fn wait(d: &Daemon, clock: &str, what: &str, ok: impl Fn(&Value) -> bool) -> Result<Value> {
    d.wait_status(clock, WAIT, what, ok)
}

/// The moves of a status.
fn moves(v: &Value) -> Vec<String> {
    sans(&serde_json::json!({ "san": v["moves_san"] }))
}

/// A round on two virtual clocks (boards 1, 2), an emulated board (board 3) and a paper
/// board (board 4, its result entered); e4 played on board 3.
struct Round {
    dir: TempDir,
    bus: PrivateBus,
    emu: Emu,
    config: std::path::PathBuf,
}

impl Round {
    fn live(&self) -> std::path::PathBuf {
        self.dir.path().join("state").join("live")
    }

    fn start() -> Result<(Round, Daemon)> {
        let bus = PrivateBus::start_session()?;
        let dir = TempDir::new("board-identity")?;
        let config = write_config(dir.path(), &[], "")?;
        let mut emu = emu(&["--board-serial", "13579"])?;
        let d = Daemon::spawn(bus.address(), &config, &[])?;
        ctl_ok(&d, &["add-virtual", "Table 1"]);
        ctl_ok(&d, &["add-virtual", "Table 2"]);
        ctl_ok(&d, &["attach", &emu.path]);
        wait(&d, "2", "the emulated board ready", |v| {
            s(v, "/device_state") == "ready" && s(v, "/board_serial") == "13579"
        })?;
        let csv = dir.path().join("round1.csv");
        std::fs::write(&csv, ROUND)?;
        let said = ctl_ok(&d, &["round", "load", &csv.display().to_string()]);
        ensure!(said.contains("board 3: clock 2"), "{said}");
        ensure!(said.contains("board 4: paper board"), "{said}");
        ctl_ok(&d, &["round", "result", "4", "1-0"]);
        ctl_ok(&d, &["start", "board:3"]);
        emu.send("move e2e4")?;
        emu.send("lever")?;
        wait(&d, "board:3", "e4 read", |v| moves(v) == ["e4"])?;
        Ok((
            Round {
                dir,
                bus,
                emu,
                config,
            },
            d,
        ))
    }

    /// Every board as it was: `round show`, each clock's number, players and game, the live
    /// files.
    fn same_as_before(&self, d: &Daemon) -> Result<()> {
        let boards = shown(d)?;
        let want: Vec<Shown> = [
            (1, "Tanaka", "Moreau", "*", false),
            (2, "Novak", "Lindqvist", "*", false),
            (3, "Okafor", "Silva", "*", false),
            (4, "Ito", "Berg", "1-0", true),
        ]
        .into_iter()
        .map(|(b, w, k, r, p)| (b, w.to_owned(), k.to_owned(), r.to_owned(), p))
        .collect();
        ensure!(boards == want, "round show: {boards:?}");
        let st = wait(d, "board:3", "board 3 with its game", |v| {
            moves(v) == ["e4"] && s(v, "/device_state") == "ready"
        })?;
        ensure!(s(&st, "/board_serial") == "13579", "{st}");
        ensure!(s(&st, "/game_info/White") == "Okafor", "{st}");
        for (board, name) in [(1, "Table 1"), (2, "Table 2")] {
            let st = d.ctl_json(&["status", &format!("board:{board}"), "--json"])?;
            ensure!(s(&st, "/name") == name, "board {board}: {st}");
        }
        let live = self.live();
        ensure!(
            live_game(&live, 3, 1)?
                == (
                    "Okafor".into(),
                    "Silva".into(),
                    "3".into(),
                    vec!["e4".into()]
                ),
            "game-3.pgn"
        );
        let (w, b, board, _) = live_game(&live, 4, 0)?;
        ensure!((w.as_str(), b.as_str(), board.as_str()) == ("Ito", "Berg", "4"));
        // `list` is in board order.
        let list = d.ctl_json(&["list", "--json"])?;
        let order: Vec<u64> = list
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| c["board"].as_u64().unwrap_or(0))
            .collect();
        ensure!(order == [1, 2, 3], "{list}");
        Ok(())
    }
}

#[test]
fn a_restart_in_any_order_keeps_every_board_its_players_and_its_live_file() -> Result<()> {
    let (r, mut d) = Round::start()?;
    r.same_as_before(&d)?;

    // A restart as the daemon does it (the remembered boards, in board order).
    ensure!(d.terminate()?, "the daemon stopped cleanly");
    let mut d = Daemon::spawn(r.bus.address(), &r.config, &[])?;
    r.same_as_before(&d)?;

    // A restart where the boards come back in another order (the emulated board first, as
    // a hotplug at boot would attach it, then the virtual clocks backwards).
    ensure!(d.terminate()?, "the daemon stopped cleanly");
    std::fs::remove_file(r.dir.path().join("state/attached.json"))?;
    let d = Daemon::spawn(r.bus.address(), &r.config, &[])?;
    ctl_ok(&d, &["attach", &r.emu.path]);
    ctl_ok(&d, &["add-virtual", "Table 2"]);
    ctl_ok(&d, &["add-virtual", "Table 1"]);
    let first = d.ctl_json(&["status", "0", "--json"])?;
    ensure!(
        first["board"] == 3,
        "clock 0 is the emulated board, board 3: {first}"
    );
    r.same_as_before(&d)?;
    Ok(())
}

#[test]
fn a_board_replugged_on_another_port_keeps_its_number_players_and_game() -> Result<()> {
    let (mut r, d) = Round::start()?;
    let old = r.emu.path.clone();
    r.emu.unplug()?;
    wait(&d, "board:3", "the board gone", |v| {
        s(v, "/device_state") == "disconnected"
    })?;
    // Another pty meanwhile, so that the board comes back on another one.
    let _other = emu(&[])?;
    let replugged = r.emu.replug()?;
    let new = s(&replugged, "/path").to_owned();
    ensure!(new != old, "the board is on another port: {replugged}");
    // The hotplug attaches the new port; the board's game moves there.
    ctl_ok(&d, &["attach", &new]);
    let st = wait(&d, "board:3", "board 3 on its new port", |v| {
        s(v, "/port") == new && s(v, "/device_state") == "ready" && moves(v) == ["e4"]
    })?;
    ensure!(s(&st, "/game_info/White") == "Okafor", "{st}");
    let list = d.ctl_json(&["list", "--json"])?;
    ensure!(
        list.as_array().map(Vec::len) == Some(3),
        "one clock for the board: {list}"
    );
    r.same_as_before(&d)?;
    // The next move is the same game's.
    r.emu.send("move e7e5")?;
    r.emu.send("lever")?;
    wait(&d, "board:3", "e5 read", |v| moves(v) == ["e4", "e5"])?;
    ensure!(live_game(&r.live(), 3, 2)?.3 == ["e4", "e5"]);
    Ok(())
}

#[test]
fn the_same_pairings_twice_change_nothing_and_other_players_need_force() -> Result<()> {
    let (r, d) = Round::start()?;
    let csv = r.dir.path().join("round1.csv").display().to_string();
    let said = ctl_ok(&d, &["round", "load", &csv]);
    ensure!(said.contains("round 1 (the current round"), "{said}");
    ensure!(said.contains("nothing was changed"), "{said}");
    r.same_as_before(&d)?;

    // Boards 3 and 1 swapped: board 3's game has begun, so nothing changes.
    let swapped = r.dir.path().join("swapped.csv");
    std::fs::write(
        &swapped,
        "board,white,black\n1,Okafor,Silva\n2,Novak,Lindqvist\n3,Tanaka,Moreau\n4,Ito,Berg\n",
    )?;
    let out = d.ctl(&["round", "load", &swapped.display().to_string()]);
    ensure!(out.status.code() == Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    ensure!(
        err.contains("board 3 (clock 2): its game has begun (1 moves) with Okafor - Silva; the file says Tanaka - Moreau"),
        "{err}"
    );
    ensure!(err.contains("--force"), "{err}");
    r.same_as_before(&d)?;

    // Forced: the file's players; the paper board's result stays (same players).
    let said = ctl_ok(
        &d,
        &["round", "load", &swapped.display().to_string(), "--force"],
    );
    ensure!(said.contains("forced: board 3"), "{said}");
    let boards = shown(&d)?;
    ensure!(
        boards[2].1 == "Tanaka" && boards[0].1 == "Okafor",
        "{boards:?}"
    );
    ensure!(
        boards[3].3 == "1-0",
        "the paper board keeps its result: {boards:?}"
    );
    let st = d.ctl_json(&["status", "board:3", "--json"])?;
    ensure!(moves(&st) == ["e4"], "the game keeps its moves: {st}");

    // A paper board given other players loses the result that was theirs, with --force only.
    let other = r.dir.path().join("other.csv");
    std::fs::write(
        &other,
        "board,white,black\n1,Okafor,Silva\n2,Novak,Lindqvist\n3,Tanaka,Moreau\n4,Ito,Kim\n",
    )?;
    let out = d.ctl(&["round", "load", &other.display().to_string()]);
    ensure!(out.status.code() == Some(1), "{}", text(&out));
    ensure!(
        String::from_utf8_lossy(&out.stderr)
            .contains("board 4 (paper board): its result 1-0 is entered for Ito - Berg"),
        "{}",
        text(&out)
    );
    ctl_ok(
        &d,
        &["round", "load", &other.display().to_string(), "--force"],
    );
    let boards = shown(&d)?;
    ensure!(
        boards[3] == (4, "Ito".into(), "Kim".into(), "*".into(), true),
        "{boards:?}"
    );
    Ok(())
}

/// The records of board `board` in `games/` as python-chess reads them.
fn records_of(state: &Path, board: &str) -> Result<Vec<Value>> {
    let games = state.join("games");
    let mut found = Vec::new();
    for p in files_below(&games) {
        if p.extension().is_some_and(|e| e == "pgn") {
            for g in python_reads(&games.join(p))? {
                if s(&g, "/headers/Board") == board {
                    found.push(g);
                }
            }
        }
    }
    Ok(found)
}

#[test]
fn a_board_swapped_for_a_spare_mid_game_goes_on_there_through_a_restart_as_one_game() -> Result<()>
{
    let (r, d) = Round::start()?;
    let failing = r.emu.path.clone();
    let mut spare = emu(&["--board-serial", "24601"])?;
    let said = ctl_ok(&d, &["replace", "board:3", "--with", &spare.path]);
    ensure!(
        said.contains("board 3") && said.contains(&spare.path),
        "{said}"
    );
    let st = wait(&d, "board:3", "board 3 on the spare", |v| {
        s(v, "/port") == spare.path && s(v, "/board_serial") == "24601" && moves(v) == ["e4"]
    })?;
    ensure!(s(&st, "/game_info/White") == "Okafor", "{st}");
    ensure!(s(&st, "/running") == "black", "{st}");
    let list = d.ctl_json(&["list", "--json"])?;
    ensure!(
        list.as_array()
            .is_some_and(|a| a.len() == 3 && !a.iter().any(|c| s(c, "/port") == failing)),
        "the failing board is let go: {list}"
    );

    // A restart in between: the game is on the spare, still board 3 with its players.
    let mut d = d;
    ensure!(d.terminate()?, "the daemon stopped cleanly");
    let d = Daemon::spawn(r.bus.address(), &r.config, &[])?;
    // Its pieces (the start position) are not the game's: a board problem, never a takeback.
    let st = wait(
        &d,
        "board:3",
        "board 3 on the spare again, its pieces awaited",
        |v| {
            s(v, "/port") == spare.path
                && s(v, "/device_state") == "ready"
                && s(v, "/board_problem").contains("position")
        },
    )?;
    ensure!(moves(&st) == ["e4"], "{st}");
    ensure!(shown(&d)?[2].1 == "Okafor");

    // The arbiter sets the spare's pieces to the game's position; play goes on there.
    spare.send("move e2e4")?;
    spare.send("move e7e5")?;
    spare.send("lever")?;
    wait(&d, "board:3", "e5 read on the spare", |v| {
        moves(v) == ["e4", "e5"]
    })?;
    ensure!(live_game(&r.live(), 3, 2)?.3 == ["e4", "e5"]);
    ctl_ok(&d, &["result", "board:3", "1-0"]);
    let state = r.dir.path().join("state");
    let until = Instant::now() + WAIT;
    let records = loop {
        let found = records_of(&state, "3")?;
        if !found.is_empty() {
            break found;
        }
        ensure!(Instant::now() < until, "no record of board 3 in games/");
        std::thread::sleep(Duration::from_millis(20));
    };
    ensure!(records.len() == 1, "one game: {records:?}");
    let g = &records[0];
    ensure!(sans(g) == ["e4", "e5"], "{g}");
    ensure!(
        s(g, "/headers/White") == "Okafor" && s(g, "/headers/Result") == "1-0",
        "{g}"
    );
    Ok(())
}
