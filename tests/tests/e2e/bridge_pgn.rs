//! The bridge's live PGN: `/pgn/all.pgn` and `/pgn/<clock>.pgn` with their validators, and
//! the push to a Lichess broadcast round against a local HTTP server standing in for
//! lichess.org (the real service is not reachable from here): the request's method, path,
//! bearer token and content type, a body that python-chess reads as the round's games, a
//! retry after a failure, a clear start error for a bad round id, and the push following
//! the daemon's round (`rounds`, or the id given with `round next --lichess-round`) after
//! `round next`.

use std::process::Command;

use anyhow::{Context, Result};
use chessclock_tests::bridge::{Bridge, have};
use chessclock_tests::json::s;
use chessclock_tests::lichess::{Request, StandIn};
use chessclock_tests::rig::{Daemon, WAIT, workspace_bin, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

/// The games python-chess reads from `pgn` (written to a file in `dir`).
fn python_reads(dir: &TempDir, pgn: &str) -> Result<Vec<Value>> {
    let file = dir.path().join("pushed.pgn");
    std::fs::write(&file, pgn)?;
    chessclock_tests::pgn::python_reads(&file)
}

fn settings(dir: &TempDir, server: &str, round: &str, clocks: &str) -> Result<std::path::PathBuf> {
    let token = dir.path().join("lichess.token");
    std::fs::write(&token, "lip_testtoken123\n")?;
    let file = dir.path().join("bridge.toml");
    std::fs::write(
        &file,
        format!(
            "[[lichess]]\nround = \"{round}\"\ntoken_file = \"{}\"\nserver = \"{server}\"\nclocks = [{clocks}]\n",
            token.display()
        ),
    )?;
    Ok(file)
}

#[test]
fn the_round_is_pushed_with_the_token_and_retried_after_a_failure() -> Result<()> {
    if have("python3", "python3")?.is_none() {
        return Ok(());
    }
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-lichess")?;
    let d = Daemon::spawn(bus.address(), &write_config(dir.path(), &[], "")?, &[])?;
    for name in ["board1", "board2", "other"] {
        anyhow::ensure!(d.ctl(&["add-virtual", name]).status.success());
    }
    for (i, (white, black)) in [
        ("Carlsen, Magnus", "Ding, Liren"),
        ("Ju, Wenjun", "Lei, Tingjie"),
    ]
    .iter()
    .enumerate()
    {
        let out = d.ctl(&[
            "info",
            &i.to_string(),
            &format!("white={white}"),
            &format!("black={black}"),
            "round=7",
        ]);
        anyhow::ensure!(
            out.status.success(),
            "info: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The first push fails (a 503 from the network): the bridge retries with the same round.
    let lichess = StandIn::with_rounds(&["AbCd1234"])?;
    lichess.fail_next(&[503]);
    let cfg = settings(&dir, &lichess.base, "AbCd1234", "\"board1\", \"1\"")?;
    let _bridge = Bridge::spawn(bus.address(), &["--config", cfg.to_str().context("utf-8")?])?;
    let first = lichess
        .requests
        .recv_timeout(WAIT)
        .context("no push reached the server")?;
    let second = lichess
        .requests
        .recv_timeout(WAIT)
        .context("no retry after the 503")?;
    assert_eq!((first.status, second.status), (503, 200));
    for r in [&first, &second] {
        assert_eq!(r.method, "POST");
        assert_eq!(r.path, "/api/broadcast/round/AbCd1234/push");
        assert_eq!(r.header("authorization"), Some("Bearer lip_testtoken123"));
        assert!(
            r.header("content-type")
                .is_some_and(|c| c.starts_with("text/plain")),
            "{:?}",
            r.headers
        );
    }
    let games = python_reads(&dir, &second.body)?;
    let players: Vec<(String, String)> = games
        .iter()
        .map(|g| {
            (
                s(g, "/headers/White").to_owned(),
                s(g, "/headers/Black").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        players,
        [
            ("Carlsen, Magnus".to_owned(), "Ding, Liren".to_owned()),
            ("Ju, Wenjun".to_owned(), "Lei, Tingjie".to_owned())
        ],
        "the round's two boards, not `other`: {}",
        second.body
    );
    for g in &games {
        assert_eq!(
            g["errors"],
            serde_json::json!([]),
            "python-chess complains: {g}"
        );
        assert_eq!(s(g, "/headers/Round"), "7");
    }
    Ok(())
}

#[test]
fn a_paper_board_is_pushed_once_with_its_result_and_served_in_all_pgn_and_by_its_number()
-> Result<()> {
    if have("python3", "python3")?.is_none() {
        return Ok(());
    }
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-paper")?;
    let d = Daemon::spawn(bus.address(), &write_config(dir.path(), &[], "")?, &[])?;
    anyhow::ensure!(d.ctl(&["add-virtual", "one"]).status.success());
    // Board 1 has the clock; board 2 is played on paper.
    let csv = dir.path().join("round1.csv");
    std::fs::write(&csv, "board,white,black\n1,Alpha,Beta\n2,Gamma,Delta\n")?;
    anyhow::ensure!(
        d.ctl(&["round", "load", &csv.display().to_string()])
            .status
            .success()
    );
    let lichess = StandIn::with_rounds(&["PaPer123"])?;
    let cfg = settings(&dir, &lichess.base, "PaPer123", "")?;
    let bridge = Bridge::spawn(bus.address(), &["--config", cfg.to_str().context("utf-8")?])?;
    anyhow::ensure!(d.ctl(&["round", "result", "2", "1/2-1/2"]).status.success());
    let deadline = std::time::Instant::now() + WAIT * 2;
    let body = loop {
        let r = lichess
            .requests
            .recv_timeout(deadline.saturating_duration_since(std::time::Instant::now()))
            .context("no push with board 2's result")?;
        if r.body.contains("[Result \"1/2-1/2\"]") {
            break r.body;
        }
    };
    let games = python_reads(&dir, &body)?;
    let boards: Vec<(String, String, String)> = games
        .iter()
        .map(|g| {
            (
                s(g, "/headers/Board").to_owned(),
                s(g, "/headers/White").to_owned(),
                s(g, "/headers/Result").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        boards,
        [
            ("1".to_owned(), "Alpha".to_owned(), "*".to_owned()),
            ("2".to_owned(), "Gamma".to_owned(), "1/2-1/2".to_owned())
        ],
        "each board once: {body}"
    );
    assert_eq!(games[1]["san"], serde_json::json!([]), "a result-only game");
    let (status, all) = bridge.get("/pgn/all.pgn")?;
    assert_eq!(status, 200);
    assert_eq!(all.matches("[White \"Gamma\"]").count(), 1, "{all}");
    let order: Vec<&str> = all
        .lines()
        .filter_map(|l| l.strip_prefix("[Board \""))
        .collect();
    assert_eq!(order, ["1\"]", "2\"]"], "board order: {all}");
    // The paper board is named as a board is, as its tile's links name it.
    let (status, two) = bridge.get("/pgn/board:2.pgn")?;
    assert_eq!(status, 200, "{two}");
    let games = python_reads(&dir, &two)?;
    assert_eq!(games.len(), 1, "{two}");
    assert_eq!(s(&games[0], "/headers/White"), "Gamma");
    assert_eq!(s(&games[0], "/headers/Result"), "1/2-1/2");
    let (status, none) = bridge.get("/pgn/board:9.pgn")?;
    assert_eq!(status, 404, "{none}");
    Ok(())
}

#[test]
fn a_bad_round_id_is_a_clear_start_error() -> Result<()> {
    let dir = TempDir::new("bridge-lichess-bad")?;
    let cfg = settings(&dir, "https://lichess.org", "not a round", "")?;
    let out = Command::new(workspace_bin("chessclock-bridge")?)
        .args(["--session", "--config", cfg.to_str().context("utf-8")?])
        .output()?;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("\"not a round\" is not a round id") && err.contains("8 letters and digits"),
        "{err}"
    );
    assert!(err.lines().count() <= 2, "one sentence: {err}");
    Ok(())
}

/// A bridge and the daemon it follows, one virtual board, pushing to the stand-in Lichess:
/// round 1 to AbCd1234, round 2 (its `rounds`) to EfGh5678.
struct Rounds {
    dir: TempDir,
    _bus: PrivateBus,
    d: Daemon,
    _bridge: Bridge,
    lichess: StandIn,
}

impl Rounds {
    /// Started, with round 1's first push seen.
    fn pushed(tag: &str) -> Result<Rounds> {
        let bus = PrivateBus::start_session()?;
        let dir = TempDir::new(tag)?;
        let d = Daemon::spawn(bus.address(), &write_config(dir.path(), &[], "")?, &[])?;
        anyhow::ensure!(d.ctl(&["add-virtual", "board1"]).status.success());
        let lichess = StandIn::with_rounds(&["AbCd1234", "EfGh5678", "XyZw1234", "QrSt7890"])?;
        let server = &lichess.base;
        let token = dir.path().join("lichess.token");
        std::fs::write(&token, "lip_testtoken123\n")?;
        let cfg = dir.path().join("bridge.toml");
        std::fs::write(
            &cfg,
            format!(
                "[[lichess]]\nround = \"AbCd1234\"\nrounds = {{ 2 = \"EfGh5678\" }}\n\
                 token_file = {:?}\nserver = \"{server}\"\n",
                token.display().to_string()
            ),
        )?;
        let bridge = Bridge::spawn(bus.address(), &["--config", cfg.to_str().context("utf-8")?])?;
        let first = lichess
            .requests
            .recv_timeout(WAIT)
            .context("no push in round 1")?;
        assert_eq!(first.path, "/api/broadcast/round/AbCd1234/push");
        assert!(first.body.contains("[Round \"1.1\"]"), "{}", first.body);
        Ok(Rounds {
            dir,
            _bus: bus,
            d,
            _bridge: bridge,
            lichess,
        })
    }

    /// The next push to Lichess round `id` that `pred` accepts.
    fn push_to(&self, id: &str, what: &str, pred: impl Fn(&Request) -> bool) -> Result<Request> {
        let until = std::time::Instant::now() + WAIT;
        loop {
            let left = until.saturating_duration_since(std::time::Instant::now());
            let r = self
                .lichess
                .requests
                .recv_timeout(left)
                .context(format!("no {what}"))?;
            if r.path == format!("/api/broadcast/round/{id}/push") && pred(&r) {
                return Ok(r);
            }
        }
    }

    /// `chessclockctl ARGS`, which must succeed: its stdout.
    fn ctl(&self, args: &[&str]) -> Result<String> {
        let out = self.d.ctl(args);
        anyhow::ensure!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// `rounds` maps the daemon's rounds to Lichess rounds: after `chessclockctl round next` the
/// bridge pushes the next round's games to its Lichess round without a restart.
#[test]
fn the_push_follows_the_daemon_s_round_to_its_lichess_round() -> Result<()> {
    let r = Rounds::pushed("bridge-lichess-rounds")?;
    r.ctl(&["round", "next"])?;
    let next = r.push_to("EfGh5678", "push to round 2's Lichess round", |_| true)?;
    assert!(next.body.contains("[Round \"2.1\"]"), "{}", next.body);
    Ok(())
}

/// `round next --lichess-round ID`: the daemon keeps the new round's Lichess id and the
/// bridge pushes there when its `rounds` names none for that round (its settings win); a
/// malformed id is refused, naming it, and the round stays.
#[test]
fn the_push_follows_the_lichess_round_given_at_round_next() -> Result<()> {
    let r = Rounds::pushed("bridge-lichess-next")?;
    let next_push = |id: &str, round: &str| -> Result<Request> {
        r.push_to(id, &format!("push of round {round} to {id}"), |p| {
            p.body.contains(&format!("[Round \"{round}.1\"]"))
        })
    };
    let round =
        || -> Result<Value> { Ok(r.d.ctl_json(&["round", "show", "--json"])?["round"].clone()) };

    // Round 2: the bridge's rounds names it; its id wins over the one given.
    let said = r.ctl(&["round", "next", "--lichess-round", "XyZw1234"])?;
    assert!(said.contains("round 2 is Lichess round XyZw1234"), "{said}");
    next_push("EfGh5678", "2")?;

    // A malformed id: refused, naming it; still round 2.
    let out = r.d.ctl(&["round", "next", "--lichess-round", "QrSt-789"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("\"QrSt-789\" is not a Lichess round id: 8 letters and digits")
            && err.contains("nothing was changed"),
        "{err}"
    );
    assert_eq!(round()?, 2);

    // Round 3: the bridge names none; the daemon's id.
    r.ctl(&["round", "next", "--lichess-round", "QrSt7890"])?;
    assert_eq!(round()?, 3);
    let pushed = next_push("QrSt7890", "3")?;
    let games = python_reads(&r.dir, &pushed.body)?;
    assert_eq!(
        games.len(),
        1,
        "python-chess reads round 3's game: {}",
        pushed.body
    );
    Ok(())
}

/// GET `url` with extra headers: status, headers and body.
fn get(url: &str, headers: &[(&str, &str)]) -> Result<(u16, reqwest::header::HeaderMap, String)> {
    let mut req = reqwest::blocking::Client::new().get(url).timeout(WAIT);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req.send()?;
    let status = resp.status().as_u16();
    let h = resp.headers().clone();
    Ok((status, h, resp.text()?))
}

#[test]
fn pgn_files_are_served_with_validators_and_read_by_python_chess() -> Result<()> {
    if have("python3", "python3")?.is_none() {
        return Ok(());
    }
    let bus = PrivateBus::start_session()?;
    let dir = TempDir::new("bridge-pgn")?;
    let d = Daemon::spawn(bus.address(), &write_config(dir.path(), &[], "")?, &[])?;
    for name in ["board1", "board2"] {
        anyhow::ensure!(d.ctl(&["add-virtual", name]).status.success());
    }
    anyhow::ensure!(
        d.ctl(&["info", "1", "white=Ju, Wenjun", "black=Lei, Tingjie"])
            .status
            .success()
    );
    let bridge = Bridge::spawn(bus.address(), &[])?;
    // The bridge serves what it follows: wait until it knows both clocks.
    let mut all = (0, reqwest::header::HeaderMap::new(), String::new());
    for _ in 0..100 {
        all = get(&format!("{}/pgn/all.pgn", bridge.base), &[])?;
        if python_reads(&dir, &all.2).map(|g| g.len()).unwrap_or(0) == 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let (status, headers, body) = all;
    assert_eq!(status, 200, "{body}");
    let games = python_reads(&dir, &body)?;
    assert_eq!(games.len(), 2, "{body}");
    assert_eq!(s(&games[1], "/headers/White"), "Ju, Wenjun");
    let etag = headers.get("etag").context("an ETag")?.to_str()?.to_owned();
    headers.get("last-modified").context("a Last-Modified")?;
    assert!(
        headers.get("content-type").is_some_and(|c| c
            .to_str()
            .unwrap_or("")
            .starts_with("application/x-chess-pgn")),
        "{headers:?}"
    );

    // Unchanged: 304 without a body (every validator: bridge/src/http/tests.rs).
    let url = format!("{}/pgn/all.pgn", bridge.base);
    let (status, _, body) = get(&url, &[("If-None-Match", &etag)])?;
    assert_eq!((status, body.as_str()), (304, ""));

    // A change: a new ETag and the new content.
    anyhow::ensure!(d.ctl(&["info", "1", "round=3"]).status.success());
    let mut changed = None;
    for _ in 0..100 {
        let (status, h, body) = get(&url, &[("If-None-Match", &etag)])?;
        if status == 200 {
            changed = Some((h, body));
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let (h, body) = changed.context("the PGN never changed after SetGameInfo")?;
    assert_ne!(
        h.get("etag").and_then(|v| v.to_str().ok()),
        Some(etag.as_str())
    );
    assert_eq!(s(&python_reads(&dir, &body)?[1], "/headers/Round"), "3");

    // One board, by name or index (an unknown one: bridge/src/http/tests.rs).
    for which in ["board2", "1"] {
        let (status, _, body) = get(&format!("{}/pgn/{which}.pgn", bridge.base), &[])?;
        assert_eq!(status, 200);
        let games = python_reads(&dir, &body)?;
        assert_eq!(games.len(), 1);
        assert_eq!(s(&games[0], "/headers/White"), "Ju, Wenjun");
    }
    Ok(())
}
