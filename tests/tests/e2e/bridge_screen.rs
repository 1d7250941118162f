//! The operator's screen with a round of 64 boards (docs/bridge.md, "Dashboard"), in a real
//! headless Chromium: a tile per board in board order (the one that needs the operator
//! marked in its place), each with its players, clocks, a diagram and its last move or
//! result; a board's
//! page (moves, PGN link, fix commands); the overlay with the players, a board named by
//! number and `?board=1`'s diagram, readable in both themes. Screenshots go to
//! `target/bridge-screenshots/` (docs/bridge.md shows them).
//!
//! The real daemon with 64 virtual clocks (`add-virtual`), the real CLI loading the round's
//! pairings and making a move, a result and a pause, and the real bridge.
//!
//! A round with paper boards (boards of the pairings without an e-board): their tiles in
//! board order with the clocks' (players, result, the `round result` command, no clock or
//! diagram, no taller than a clock's tile), a result entered with the CLI reaching the tile
//! without a reload, their page and overlay; a clock that counted presses while its pieces
//! showed no move has no start-position diagram (tile, page, overlay); and stale data judged
//! by the page: the daemon hanging (SIGSTOP) and the bridge's stream going silent, each
//! said on every clock's tile and gone once the data comes again.

use std::time::Duration;

use anyhow::{Context, Result};
use chessclock_tests::bridge::{Bridge, have};
use chessclock_tests::chromium::{Page, shots_dir};
use chessclock_tests::json::s;
use chessclock_tests::rig::{Daemon, WAIT, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

const BOARDS: u32 = 64;

/// What each tile shows, in order.
const TILES: &str = "JSON.stringify([...document.querySelectorAll('#boards .tile')].map(t => ({\
    board: t.dataset.board, no: t.querySelector('.no').textContent, \
    white: t.querySelector('.pl.white .who').textContent, \
    white_elo: t.querySelector('.pl.white .elo').textContent, \
    black: t.querySelector('.pl.black .who').textContent, \
    time: t.querySelector('.pl.white .time').textContent, \
    turn: (t.querySelector('.pl.turn') || {dataset: {}}).dataset.side || '', \
    res: t.querySelector('.res').textContent, last: t.querySelector('.lastmove').textContent, \
    pieces: t.querySelectorAll('svg.diagram use.piece').length, \
    nodia: (t.querySelector('.nodia') || {textContent: ''}).textContent, \
    marked: [...t.querySelectorAll('svg.diagram rect.last')].map(r => r.dataset.square).sort().join(' '), \
    problems: [...t.querySelectorAll('.problem .what')].map(p => p.textContent).join('; '), \
    href: t.getAttribute('href')})))";

fn ok(d: &Daemon, args: &[&str]) -> Result<()> {
    let out = d.ctl(args);
    anyhow::ensure!(
        out.status.success(),
        "chessclockctl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

#[test]
fn the_operators_screen_shows_every_board_of_the_round_and_the_overlay_its_players() -> Result<()> {
    let Some(browser) = have("chromium", "chromium")? else {
        return Ok(());
    };
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-screen")?;
    let d = Daemon::spawn(bus.address(), &write_config(dir.path(), &[], "")?, &[])?;
    for i in 1..=BOARDS {
        ok(&d, &["add-virtual", &format!("table-{i}")])?;
    }
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let all = d.ctl_json(&["list", "--json"])?;
        let ready = all.as_array().is_some_and(|a| {
            a.len() == BOARDS as usize && a.iter().all(|c| s(c, "/device_state") == "ready")
        });
        if ready {
            break;
        }
        anyhow::ensure!(
            std::time::Instant::now() < deadline,
            "64 clocks never ready"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Round 3's pairings: every board's players, titles, ratings and teams.
    let mut csv = String::from(
        "board,white,black,white_elo,black_elo,white_title,black_title,white_team,black_team\n",
    );
    for b in 1..=BOARDS {
        csv.push_str(&format!(
            "{b},\"White{b}, Anna\",\"Black{b}, Bo\",{},{},{},,NOR,IND\n",
            2000 + b,
            1900 + b,
            if b == 1 { "GM" } else { "" }
        ));
    }
    let file = dir.path().join("round3.csv");
    std::fs::write(&file, csv)?;
    ok(
        &d,
        &["round", "load", &file.display().to_string(), "--round", "3"],
    )?;
    ok(&d, &["info", "board:1", "event=Test Open"])?;
    // Board 1: a move; board 2: a result; board 3: paused mid-game.
    ok(&d, &["start", "board:1"])?;
    ok(&d, &["move", "board:1", "force", "e2e4"])?;
    ok(&d, &["press", "board:1", "white"])?;
    ok(&d, &["start", "board:2"])?;
    ok(&d, &["result", "board:2", "1-0"])?;
    ok(&d, &["start", "board:3"])?;
    ok(&d, &["press", "board:3", "white"])?;
    ok(&d, &["pause", "board:3"])?;

    let bridge = Bridge::spawn(bus.address(), &[])?;
    let mut page = Page::open(
        &browser,
        &dir.path().join("profile-screen"),
        &format!("{}/", bridge.base),
    )?;
    page.call(
        "Emulation.setDeviceMetricsOverride",
        serde_json::json!({"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": false}),
    )?;
    let tiles = page
        .wait_shown(TILES, Duration::from_secs(30), |v| {
            v.as_array().is_some_and(|a| {
                a.len() == BOARDS as usize
                    // Every board but 3 (a press and no move read: no position to show).
                    && a.iter().all(|t| t["board"] == "3" || t["pieces"].as_u64().unwrap_or(0) > 0)
                    // Board 1 shows the move forced on it; board 3 needs the operator.
                    && a.iter().any(|t| t["board"] == "1" && t["last"] == "1. e4")
                    && a.iter().any(|t| t["board"] == "3" && t["problems"] == "paused mid-game")
            })
        })
        .context("the dashboard's tiles")?;
    let tile = |b: u32| tile_of(&tiles, b);
    // Board order, whatever needs the operator: board 3, paused, is marked in its place.
    let order: Vec<String> = tiles
        .as_array()
        .map(|a| a.iter().map(|t| s(t, "/board").to_owned()).collect())
        .unwrap_or_default();
    let want: Vec<String> = (1..=BOARDS).map(|b| b.to_string()).collect();
    assert_eq!(order, want, "board order: {}", tile(3));
    // A virtual board's pieces follow the move forced on it: no board problem.
    assert_eq!(s(&tile(1), "/problems"), "", "{}", tile(1));
    assert_eq!(s(&tile(3), "/problems"), "paused mid-game", "{}", tile(3));
    // Board 3's clock counted White's press, its pieces no move: no start position shown as
    // its game, but why.
    assert_eq!(tile(3)["pieces"], 0, "{}", tile(3));
    assert_eq!(
        s(&tile(3), "/nodia"),
        "no board position: the clock counted presses, the pieces no move",
        "{}",
        tile(3)
    );
    // Players, titles, ratings and teams as the pairings gave them.
    let one = tile(1);
    assert_eq!(s(&one, "/white"), "GM White1, Anna", "{one}");
    assert_eq!(s(&one, "/white_elo"), "2001 NOR", "{one}");
    assert_eq!(s(&one, "/black"), "Black1, Bo", "{one}");
    assert_eq!(s(&one, "/no"), "1", "{one}");
    // The last move, in SAN with its number, marked on the diagram; Black to move.
    assert_eq!(s(&one, "/last"), "1. e4", "{one}");
    assert_eq!(s(&one, "/marked"), "e2 e4", "{one}");
    assert_eq!(s(&one, "/turn"), "black", "{one}");
    assert_eq!(one["pieces"], 32, "{one}");
    // A result and why; every other board its diagram of the start, its clock shown.
    assert!(s(&tile(2), "/res").starts_with("1-0"), "{}", tile(2));
    for b in 4..=BOARDS {
        let t = tile(b);
        assert_eq!(t["pieces"], 32, "{t}");
        assert_eq!(s(&t, "/white"), format!("White{b}, Anna"), "{t}");
        assert_eq!(s(&t, "/time"), "1:30:30", "{t}");
    }
    let title = page.eval("document.getElementById('title').textContent")?;
    assert_eq!(title, "Round 3 · Test Open");
    // 64 boards fit a 1080p screen, and a phone's width.
    let height = page.eval("document.documentElement.scrollHeight")?;
    assert!(
        height.as_u64().is_some_and(|h| h <= 1080),
        "64 boards in {height} px"
    );
    let shots = shots_dir()?;
    page.screenshot(1920, 1080, false, &shots.join("dashboard-64.png"))?;
    page.screenshot(390, 844, true, &shots.join("dashboard-phone.png"))?;
    let wide = page.eval("document.documentElement.scrollWidth")?;
    assert!(
        wide.as_u64().is_some_and(|w| w <= 390),
        "no sideways scroll on a phone: {wide}"
    );
    drop(page);

    // A tile opens its board's page: moves, the PGN link, status and fix commands.
    let href = s(&one, "/href").to_owned();
    assert_eq!(href, "/board/board%3A1");
    let mut board = Page::open(
        &browser,
        &dir.path().join("profile-board"),
        &format!("{}{href}", bridge.base),
    )?;
    let shown_board = board
        .wait_shown(
            "JSON.stringify({title: document.getElementById('title').textContent, \
         moves: document.getElementById('moves').textContent, \
         pgn: document.getElementById('pgn').getAttribute('href'), \
         pieces: document.querySelectorAll('#diagram use.piece').length, \
         commands: document.getElementById('commands').textContent})",
            WAIT,
            |v| v["moves"] == "e4",
        )
        .context("the board's page")?;
    assert!(
        s(&shown_board, "/title").starts_with("Board 1 · round 3"),
        "{shown_board}"
    );
    assert_eq!(shown_board["pieces"], 32, "{shown_board}");
    assert!(
        s(&shown_board, "/commands").contains("chessclockctl move board:1 undo"),
        "{shown_board}"
    );
    let pgn_url = s(&shown_board, "/pgn").to_owned();
    let (code, pgn) = bridge.get(&pgn_url)?;
    assert_eq!(code, 200, "{pgn_url}: {pgn}");
    assert!(
        pgn.contains("[White \"White1, Anna\"]") && pgn.contains("1. e4"),
        "{pgn}"
    );
    board.screenshot(1000, 700, false, &shots.join("board-page.png"))?;
    drop(board);

    // The overlay of board 1, named by number, with the diagram.
    let mut overlay = Page::open(
        &browser,
        &dir.path().join("profile-overlay"),
        &format!("{}/overlay/board:1?board=1", bridge.base),
    )?;
    let o = overlay
        .wait_shown(
            "JSON.stringify({white: document.querySelector('.side.white .who').textContent.trim(), \
         black: document.querySelector('.side.black .who').textContent.trim(), \
         status: document.querySelector('.status').textContent, \
         turn: (document.querySelector('.side.turn') || {dataset: {}}).dataset.side || '', \
         marked: [...document.querySelectorAll('svg.diagram rect.last')].length})",
            WAIT,
            |v| v["marked"] == 2,
        )
        .context("the overlay with the diagram")?;
    assert_eq!(s(&o, "/white"), "GM White1, Anna 2001", "{o}");
    assert_eq!(s(&o, "/black"), "Black1, Bo 1901", "{o}");
    assert_eq!(s(&o, "/status"), "Board 1 · 1. e4", "{o}");
    assert_eq!(s(&o, "/turn"), "black", "{o}");
    overlay.screenshot(700, 700, false, &shots.join("overlay-board.png"))?;
    drop(overlay);

    // The light theme: a paused board's state is readable (dark on light, not white on
    // white), as a result is.
    let mut light = Page::open(
        &browser,
        &dir.path().join("profile-light"),
        &format!("{}/overlay/board:3", bridge.base),
    )?;
    let colours = light
        .wait_shown(
            "JSON.stringify({text: document.querySelector('.status').textContent, \
         colour: getComputedStyle(document.querySelector('.status')).color, \
         background: getComputedStyle(document.querySelector('.status')).backgroundColor})",
            WAIT,
            |v| v["text"] == "Board 3 · paused",
        )
        .context("the light overlay")?;
    assert_eq!(s(&colours, "/colour"), "rgb(17, 17, 17)", "{colours}");
    assert!(
        s(&colours, "/background").starts_with("rgba(255, 255, 255"),
        "{colours}"
    );
    light.screenshot(700, 260, false, &shots.join("overlay-light.png"))?;
    drop(light);

    // The dark theme: a finished board's result, the players above their clocks.
    let mut dark = Page::open(
        &browser,
        &dir.path().join("profile-dark"),
        &format!("{}/overlay/board:2?theme=dark", bridge.base),
    )?;
    dark.wait("document.querySelector('.status').textContent", WAIT, |v| {
        v.as_str().is_some_and(|t| t.starts_with("Board 2 · 1-0"))
    })
    .context("the dark overlay's result")?;
    let who = dark.eval("document.querySelector('.side.white .who').textContent.trim()")?;
    assert_eq!(who, "White2, Anna 2002");
    dark.screenshot(700, 260, false, &shots.join("overlay-dark-result.png"))?;
    Ok(())
}

/// What each tile of the round shows (clock tiles and paper tiles alike), in order.
const ROUND_TILES: &str = "JSON.stringify([...document.querySelectorAll('#boards .tile')].map(t => ({\
    board: t.dataset.board, paper: t.dataset.paper || '', \
    white: t.querySelector('.pl.white .who').textContent, \
    white_elo: t.querySelector('.pl.white .elo').textContent, \
    black: t.querySelector('.pl.black .who').textContent, \
    times: t.querySelectorAll('.time').length, \
    res: t.querySelector('.res').textContent, \
    kind: (t.querySelector('.kind') || {textContent: ''}).textContent, \
    height: t.offsetHeight, \
    diagrams: t.querySelectorAll('svg.diagram').length, \
    pieces: t.querySelectorAll('svg.diagram use.piece').length, \
    nodia: (t.querySelector('.nodia') || {textContent: ''}).textContent, \
    fix: (t.querySelector('.fix') || {textContent: ''}).textContent, \
    fix_title: (t.querySelector('.fix') || {title: ''}).title, \
    problems: [...t.querySelectorAll('.problem .what')].map(p => p.textContent).join('; '), \
    href: t.getAttribute('href')})))";

/// The tile of board `b` in `tiles` (as [`ROUND_TILES`] gives them).
fn tile_of(tiles: &Value, b: u32) -> Value {
    tiles
        .as_array()
        .and_then(|a| a.iter().find(|t| t["board"] == b.to_string().as_str()))
        .cloned()
        .unwrap_or(Value::Null)
}

/// Every clock tile (not a paper one) of `tiles` says `needle` among its problems, or none
/// does.
fn clock_tiles_say(tiles: &Value, needle: &str, want: bool) -> bool {
    tiles.as_array().is_some_and(|a| {
        let clocks: Vec<&Value> = a.iter().filter(|t| t["paper"] == "").collect();
        !clocks.is_empty()
            && clocks
                .iter()
                .all(|t| s(t, "/problems").contains(needle) == want)
    })
}

#[test]
fn paper_boards_a_clock_without_a_known_position_and_stale_boards_on_the_operators_screen()
-> Result<()> {
    let Some(browser) = have("chromium", "chromium")? else {
        return Ok(());
    };
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-round")?;
    let d = Daemon::spawn(bus.address(), &write_config(dir.path(), &[], "")?, &[])?;
    for i in 1..=3 {
        ok(&d, &["add-virtual", &format!("table-{i}")])?;
    }
    for i in 0..3 {
        d.wait_status(&i.to_string(), WAIT, "a ready clock", |v| {
            s(v, "/device_state") == "ready"
        })?;
    }
    // Five boards, three clocks: boards 4 and 5 are played on paper.
    let csv = "board,white,black,white_elo,black_elo,white_title,black_title,white_team,black_team\n\
               1,\"Ann, A\",\"Bo, B\",2101,2001,,,,\n\
               2,\"Cy, C\",\"Di, D\",2102,2002,,,,\n\
               3,\"Ed, E\",\"Fa, F\",2103,2003,,,,\n\
               4,\"Paper, Petra\",\"Sheet, Sam\",2404,2304,GM,IM,NOR,IND\n\
               5,\"Ink, Ida\",\"Pen, Per\",1805,1705,,,,\n";
    let file = dir.path().join("round2.csv");
    std::fs::write(&file, csv)?;
    ok(
        &d,
        &["round", "load", &file.display().to_string(), "--round", "2"],
    )?;
    // Board 2 is kept as a clock alone: presses, and no move read from its pieces.
    ok(&d, &["start", "board:2"])?;
    ok(&d, &["press", "board:2", "white"])?;
    ok(&d, &["press", "board:2", "black"])?;

    let bridge = Bridge::spawn(bus.address(), &[])?;
    let mut page = Page::open(
        &browser,
        &dir.path().join("profile-round"),
        &format!("{}/", bridge.base),
    )?;
    let tiles = page
        .wait_shown(ROUND_TILES, WAIT, |v| {
            v.as_array().is_some_and(|a| a.len() == 5)
        })
        .context("five tiles: three clocks, two paper boards")?;
    let order: Vec<&str> = tiles
        .as_array()
        .map(|a| a.iter().map(|t| s(t, "/board")).collect())
        .unwrap_or_default();
    assert_eq!(order, ["1", "2", "3", "4", "5"], "board order: {tiles}");
    // A paper board: its players, no clock, no diagram, marked as paper, the command that
    // enters its result.
    let four = tile_of(&tiles, 4);
    assert_eq!(s(&four, "/paper"), "1", "{four}");
    assert_eq!(s(&four, "/white"), "GM Paper, Petra", "{four}");
    assert_eq!(s(&four, "/white_elo"), "2404 NOR", "{four}");
    assert_eq!(s(&four, "/black"), "IM Sheet, Sam", "{four}");
    assert_eq!(four["times"], 0, "{four}");
    assert_eq!(four["diagrams"], 0, "{four}");
    assert_eq!(s(&four, "/kind"), "paper board", "{four}");
    assert_eq!(s(&four, "/res"), "", "{four}");
    assert_eq!(s(&four, "/fix"), "chessclockctl round result 4 R", "{four}");
    assert_eq!(
        s(&four, "/fix_title"),
        "chessclockctl round result 4 1-0|0-1|1/2-1/2 (* clears it)",
        "{four}"
    );
    // No taller than a clock's tile: a round of 64 boards still fits a 1080p screen.
    let three = tile_of(&tiles, 3);
    assert!(
        four["height"].as_u64() <= three["height"].as_u64(),
        "paper {four} against clock {three}"
    );
    assert_eq!(s(&four, "/href"), "/board/board%3A4", "{four}");
    // A clock whose pieces never showed the game: no start position passed off as it.
    let two = tile_of(&tiles, 2);
    assert_eq!(two["diagrams"], 0, "{two}");
    assert_eq!(
        s(&two, "/nodia"),
        "no board position: the clock counted presses, the pieces no move",
        "{two}"
    );
    assert_eq!(two["times"], 2, "its clocks are shown: {two}");
    // A board whose game is at the start before any press shows the start.
    assert_eq!(three["pieces"], 32, "{three}");

    // A result entered for a paper board reaches its tile without a reload.
    page.eval("window.sameLoad = 'yes'")?;
    ok(&d, &["round", "result", "4", "0-1"])?;
    page.wait_shown(ROUND_TILES, WAIT, |v| s(&tile_of(v, 4), "/res") == "0-1")
        .context("the paper board's result on its tile")?;
    assert_eq!(page.eval("window.sameLoad || ''")?, "yes", "no reload");
    let shots = shots_dir()?;
    page.call(
        "Emulation.setDeviceMetricsOverride",
        serde_json::json!({"width": 1000, "height": 420, "deviceScaleFactor": 1, "mobile": false}),
    )?;
    page.screenshot(1000, 420, false, &shots.join("dashboard-paper.png"))?;

    // The paper board's page and overlay: its players and result.
    let mut board = Page::open(
        &browser,
        &dir.path().join("profile-paper-board"),
        &format!("{}/board/board:4", bridge.base),
    )?;
    let b = board
        .wait_shown(
            "JSON.stringify({title: document.getElementById('title').textContent, \
             white: document.querySelector('#white .who').textContent, \
             result: document.getElementById('result').textContent, \
             diagrams: document.querySelectorAll('#diagram svg.diagram').length, \
             commands: document.getElementById('commands').textContent})",
            WAIT,
            |v| v["result"] == "0-1",
        )
        .context("the paper board's page")?;
    assert!(
        s(&b, "/title").starts_with("Board 4 · round 2 · paper board"),
        "{b}"
    );
    assert_eq!(s(&b, "/white"), "GM Paper, Petra", "{b}");
    assert_eq!(b["diagrams"], 0, "{b}");
    assert!(
        s(&b, "/commands").contains("chessclockctl round result 4"),
        "{b}"
    );
    drop(board);
    let mut overlay = Page::open(
        &browser,
        &dir.path().join("profile-paper-overlay"),
        &format!("{}/overlay/board:4?board=1", bridge.base),
    )?;
    let o = overlay
        .wait_shown(
            "JSON.stringify({white: document.querySelector('.side.white .who').textContent.trim(), \
             status: document.querySelector('.status').textContent, \
             diagrams: document.querySelectorAll('svg.diagram').length})",
            WAIT,
            |v| v["status"] == "Board 4 · 0-1",
        )
        .context("the paper board's overlay")?;
    assert_eq!(s(&o, "/white"), "GM Paper, Petra 2404", "{o}");
    assert_eq!(o["diagrams"], 0, "{o}");
    drop(overlay);
    // Board 2's page and overlay with the diagram: why there is none, not the start.
    for (what, url) in [
        ("page", "/board/board:2"),
        ("overlay", "/overlay/board:2?board=1"),
    ] {
        let mut p = Page::open(
            &browser,
            &dir.path().join(format!("profile-two-{what}")),
            &format!("{}{url}", bridge.base),
        )?;
        let v = p
            .wait_shown(
                "JSON.stringify({nodia: (document.querySelector('.nodia') || {textContent: ''}).textContent, \
                 diagrams: document.querySelectorAll('svg.diagram').length})",
                WAIT,
                |v| v["nodia"] != "",
            )
            .with_context(|| format!("board 2's {what}"))?;
        assert_eq!(v["diagrams"], 0, "{what}: {v}");
        assert!(
            s(&v, "/nodia").starts_with("no board position"),
            "{what}: {v}"
        );
    }

    // The daemon hangs (SIGSTOP): it owns its name but sends nothing and answers nothing.
    // Every clock's tile says its data is stale, and stops saying so once it answers again.
    let slow = Duration::from_secs(60);
    d.signal("STOP")?;
    let stale = page.wait_shown(ROUND_TILES, slow, |v| {
        clock_tiles_say(v, "stale clock: no update for over", true)
    });
    let head = page.eval("document.getElementById('daemon').textContent");
    d.signal("CONT")?;
    let stale = stale.context("stale clocks while the daemon hangs")?;
    let head = head?;
    assert!(
        head.as_str()
            .is_some_and(|h| h.contains("does not answer the bridge")),
        "the header says it: {head}"
    );
    assert_eq!(
        s(&tile_of(&stale, 4), "/problems"),
        "",
        "a paper board has no clock to go stale: {stale}"
    );
    page.screenshot(1000, 420, false, &shots.join("dashboard-stale.png"))?;
    page.wait_shown(ROUND_TILES, slow, |v| clock_tiles_say(v, "stale", false))
        .context("fresh again once the daemon answers")?;
    // The stream itself goes silent (the bridge hangs): every clock's tile says so.
    bridge.signal("STOP")?;
    let silent = page.wait_shown(ROUND_TILES, slow, |v| {
        clock_tiles_say(v, "stale: no news from the bridge", true)
    });
    bridge.signal("CONT")?;
    let silent = silent.context("stale tiles while the stream is silent")?;
    assert_eq!(s(&tile_of(&silent, 4), "/problems"), "", "{silent}");
    page.wait_shown(ROUND_TILES, slow, |v| clock_tiles_say(v, "stale", false))
        .context("fresh again once the stream is back")?;
    Ok(())
}
