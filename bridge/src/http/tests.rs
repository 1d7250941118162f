//! The router in process, over a fake [`ClockSource`], with `tower::ServiceExt::oneshot` (no
//! socket, no daemon): status codes, JSON bodies and errors, the PGN validators, the SSE
//! framing, resume and heartbeat, the pages. The real daemon → bridge path is tested end to end in
//! `tests/tests/e2e/bridge_*.rs`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::anyhow;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use axum::response::Response;
use futures_util::StreamExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use super::*;
use crate::hub::tests::status;

/// The daemon as the router sees it: its clocks (`None`: not on the bus) and the text of
/// each game's PGN (`None`: `GetPgn` fails).
#[derive(Debug, Clone)]
struct Fake {
    clocks: Option<Vec<ClockStatus>>,
    round: Arc<Mutex<Option<u32>>>,
    hub: Arc<Hub>,
}

impl Fake {
    /// Clocks `alpha` (0) and `beta` (1), followed by the hub as the follower would.
    fn two_clocks() -> Fake {
        let clocks: Vec<ClockStatus> = ["alpha", "beta"]
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let mut c = status(i as u32, 300_000);
                c.name = (*name).to_owned();
                c.board = 2 - i as u32;
                c
            })
            .collect();
        let hub = Arc::new(Hub::new(16));
        hub.daemon_up("0.1.0".into(), clocks.clone());
        Fake {
            clocks: Some(clocks),
            round: Arc::new(Mutex::new(Some(1))),
            hub,
        }
    }

    fn set_round(&self, round: Option<u32>) {
        *self.round.lock().expect("round") = round;
    }
}

impl ClockSource for Fake {
    async fn clocks(&self) -> anyhow::Result<Vec<ClockStatus>> {
        self.clocks
            .clone()
            .ok_or_else(|| anyhow!("org.freedesktop.DBus.Error.ServiceUnknown: not on the bus"))
    }

    async fn games(&self, clocks: &[Arc<ClockStatus>]) -> anyhow::Result<String> {
        let round = (*self.round.lock().expect("round")).ok_or_else(|| anyhow!("GetPgn failed"))?;
        Ok(clocks
            .iter()
            .map(|c| format!("[White \"{}\"]\n[Round \"{round}\"]\n\n*\n\n", c.name))
            .collect())
    }

    fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    /// The clocks checked as the daemon would, with board 3 a paper board, and board 3 in
    /// no `[[lichess]]` table of a bridge pushing one.
    async fn round_check(&self) -> Result<super::RoundReport, super::Refusal> {
        use chessclock_api::round_check::{RoundBoard, add_push, check};
        let clocks = self
            .clocks
            .clone()
            .ok_or_else(|| super::Refusal::Daemon(anyhow!("not on the bus")))?;
        let mut boards: Vec<RoundBoard> = clocks
            .iter()
            .map(|c| RoundBoard {
                board: c.board,
                white: "W".into(),
                black: "B".into(),
                clock: Some(c.index),
            })
            .collect();
        boards.push(RoundBoard {
            board: 3,
            white: "W".into(),
            black: "B".into(),
            clock: None,
        });
        boards.sort_by_key(|b| b.board);
        let mut checked = check(&boards, &clocks, None, None);
        let push = chessclock_api::push::Pushing {
            tables: 1,
            pushed: [(1, "AbCd1234".to_owned()), (2, "AbCd1234".to_owned())].into(),
            problems: vec![(3, chessclock_api::push::in_no_table(3))],
        };
        for b in &mut checked {
            add_push(b, &push);
        }
        Ok(super::RoundReport::new(1, checked))
    }
}

async fn send(source: &Fake, method: Method, uri: &str, headers: &[(&str, &str)]) -> Response {
    let mut req = Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    app(source.clone(), None)
        .oneshot(req.body(Body::empty()).expect("a request"))
        .await
        .expect("the router answers")
}

async fn get(source: &Fake, uri: &str, headers: &[(&str, &str)]) -> (StatusCode, String, Response) {
    let resp = send(source, Method::GET, uri, headers).await;
    let status = resp.status();
    let (parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20)
        .await
        .expect("the whole body");
    let text = String::from_utf8(bytes.to_vec()).expect("UTF-8");
    (status, text, Response::from_parts(parts, Body::empty()))
}

fn header_of(resp: &Response, name: header::HeaderName) -> &str {
    resp.headers()
        .get(&name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no {name} header: {:?}", resp.headers()))
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[tokio::test]
async fn clocks_are_the_status_json_named_by_index_board_or_name() {
    let fake = Fake::two_clocks();
    let (code, body, resp) = get(&fake, "/api/v1/clocks", &[]).await;
    assert_eq!(code, StatusCode::OK, "{body}");
    assert_eq!(header_of(&resp, header::CONTENT_TYPE), "application/json");
    // In board order: beta (index 1) plays board 1, alpha (index 0) board 2.
    let mut listed = fake.clocks.clone().expect("clocks");
    listed.reverse();
    let want = serde_json::to_value(&listed).expect("JSON");
    assert_eq!(json_of(&body), want);
    assert_eq!(json_of(&body)[0]["name"], "beta");

    for which in ["1", "beta", "board:1"] {
        let (code, body, _) = get(&fake, &format!("/api/v1/clocks/{which}"), &[]).await;
        assert_eq!(code, StatusCode::OK, "{which}: {body}");
        assert_eq!(json_of(&body), want[0], "{which}");
    }

    let (code, body, resp) = get(&fake, "/api/v1/clocks/gamma", &[]).await;
    assert_eq!(code, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(header_of(&resp, header::CONTENT_TYPE), "application/json");
    let error = json_of(&body)["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        error.contains("\"gamma\"") && error.contains("board:N"),
        "{body}"
    );
    let (code, body, _) = get(&fake, "/api/v1/clocks/board:9", &[]).await;
    assert_eq!(code, StatusCode::NOT_FOUND, "{body}");
    assert!(body.contains("no clock plays board 9"), "{body}");
}

#[tokio::test]
async fn only_get_is_served() {
    let fake = Fake::two_clocks();
    for uri in ["/api/v1/clocks", "/api/v1/clocks/0", "/pgn/all.pgn", "/"] {
        let resp = send(&fake, Method::POST, uri, &[]).await;
        assert_eq!(resp.status(), StatusCode::METHOD_NOT_ALLOWED, "POST {uri}");
    }
    let (code, _, _) = get(&fake, "/api/v1/nothing", &[]).await;
    assert_eq!(code, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn without_the_daemon_the_api_is_a_503_that_says_so() {
    let fake = Fake {
        clocks: None,
        ..Fake::two_clocks()
    };
    for uri in ["/api/v1/clocks", "/api/v1/clocks/0"] {
        let (code, body, _) = get(&fake, uri, &[]).await;
        assert_eq!(code, StatusCode::SERVICE_UNAVAILABLE, "{uri}: {body}");
        let error = json_of(&body)["error"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            error.starts_with("cannot read chessclockd: ") && error.contains("not on the bus"),
            "{uri}: {body}"
        );
    }
}

#[tokio::test]
async fn pgn_files_have_validators_and_are_not_modified_while_unchanged() {
    let fake = Fake::two_clocks();
    let (code, all, resp) = get(&fake, "/pgn/all.pgn", &[]).await;
    assert_eq!(code, StatusCode::OK, "{all}");
    assert_eq!(all.matches("[White ").count(), 2, "{all}");
    assert_eq!(
        header_of(&resp, header::CONTENT_TYPE),
        "application/x-chess-pgn; charset=utf-8"
    );
    assert_eq!(header_of(&resp, header::CACHE_CONTROL), "no-cache");
    let etag = header_of(&resp, header::ETAG).to_owned();
    let modified = header_of(&resp, header::LAST_MODIFIED).to_owned();
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");

    // Unchanged: 304 without a body for either validator, a list of tags or `*`.
    let other_then_ours = format!("\"x\", {etag}");
    let weak = format!("W/{etag}");
    for h in [
        ("if-none-match", etag.as_str()),
        ("if-none-match", weak.as_str()),
        ("if-none-match", "*"),
        ("if-none-match", other_then_ours.as_str()),
        ("if-modified-since", modified.as_str()),
    ] {
        let (code, body, resp) = get(&fake, "/pgn/all.pgn", &[h]).await;
        assert_eq!(
            (code, body.as_str()),
            (StatusCode::NOT_MODIFIED, ""),
            "{h:?}"
        );
        assert_eq!(header_of(&resp, header::ETAG), etag, "{h:?}");
    }
    let (code, body, _) = get(&fake, "/pgn/all.pgn", &[("if-none-match", "\"x\"")]).await;
    assert_eq!((code, body.as_str()), (StatusCode::OK, all.as_str()));

    // A change: a new ETag and the new content, also for a client that had the old one.
    fake.set_round(Some(3));
    let (code, body, resp) = get(&fake, "/pgn/all.pgn", &[("if-none-match", &etag)]).await;
    assert_eq!(code, StatusCode::OK);
    assert!(body.contains("[Round \"3\"]"), "{body}");
    assert_ne!(header_of(&resp, header::ETAG), etag);
}

/// The round with a paper board, board 3 (no e-board): `all.pgn` holds every board in board
/// order, the paper board's game in its place; `board:3.pgn` is that game; a board nobody
/// plays is a 404 that says so.
#[tokio::test]
async fn a_paper_board_s_game_is_served_by_its_number_and_in_its_place_in_all_pgn() {
    let fake = Fake::two_clocks();
    let paper =
        "[Event \"Open\"]\n[White \"Paper, Petra\"]\n[Board \"3\"]\n[Result \"1-0\"]\n\n1-0\n";
    fake.hub
        .paper(std::collections::BTreeMap::from([(3, paper.to_owned())]));
    let (code, all, _) = get(&fake, "/pgn/all.pgn", &[]).await;
    assert_eq!(code, StatusCode::OK, "{all}");
    let whites: Vec<&str> = all
        .lines()
        .filter_map(|l| l.strip_prefix("[White \""))
        .collect();
    assert_eq!(
        whites,
        ["beta\"]", "alpha\"]", "Paper, Petra\"]"],
        "boards 1, 2, 3: {all}"
    );
    let (code, body, resp) = get(&fake, "/pgn/board:3.pgn", &[]).await;
    assert_eq!(code, StatusCode::OK, "{body}");
    assert_eq!(body, format!("{}\n\n", paper.trim_end()));
    assert_eq!(
        header_of(&resp, header::CONTENT_TYPE),
        "application/x-chess-pgn; charset=utf-8"
    );
    let (code, body, _) = get(&fake, "/pgn/board:9.pgn", &[]).await;
    assert_eq!(code, StatusCode::NOT_FOUND, "{body}");
    assert!(body.contains("no clock plays board 9"), "{body}");
}

#[tokio::test]
async fn one_board_is_named_by_index_or_name_and_bad_names_are_404s_that_say_why() {
    let fake = Fake::two_clocks();
    for which in ["1", "beta", "board:1"] {
        let (code, body, _) = get(&fake, &format!("/pgn/{which}.pgn"), &[]).await;
        assert_eq!(code, StatusCode::OK, "{which}: {body}");
        assert_eq!(body, "[White \"beta\"]\n[Round \"1\"]\n\n*\n\n", "{which}");
    }
    let (code, body, _) = get(&fake, "/pgn/nope.pgn", &[]).await;
    assert_eq!(code, StatusCode::NOT_FOUND);
    assert!(
        body.contains("\"nope\"") && body.contains("/api/v1/clocks"),
        "{body}"
    );
    let (code, body, _) = get(&fake, "/pgn/all.txt", &[]).await;
    assert_eq!(code, StatusCode::NOT_FOUND);
    assert!(
        body.contains("is not a PGN file") && body.contains("/pgn/all.pgn"),
        "{body}"
    );

    fake.set_round(None);
    let (code, body, _) = get(&fake, "/pgn/all.pgn", &[]).await;
    assert_eq!(code, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        body,
        "cannot read the games from chessclockd: GetPgn failed\n"
    );
}

/// One SSE frame's fields (`id`, `event`, `data`), in order.
type Frame = Vec<(String, String)>;

/// Reads frames from an event stream's body.
struct Frames {
    body: axum::body::BodyDataStream,
    buf: String,
}

impl Frames {
    async fn open(fake: &Fake, last_id: Option<u64>) -> Frames {
        let last = last_id.map(|i| i.to_string());
        let headers: Vec<(&str, &str)> =
            last.iter().map(|l| ("last-event-id", l.as_str())).collect();
        let resp = send(fake, Method::GET, "/api/v1/events", &headers).await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(header_of(&resp, header::CONTENT_TYPE), "text/event-stream");
        assert_eq!(
            header_of(&resp, header::HeaderName::from_static("x-accel-buffering")),
            "no"
        );
        Frames {
            body: resp.into_body().into_data_stream(),
            buf: String::new(),
        }
    }

    /// The next frame: the lines up to a blank line, each `field: value`.
    async fn next(&mut self) -> Frame {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let frame: String = self.buf.drain(..end + 2).take(end).collect();
                return frame
                    .lines()
                    .map(|l| {
                        let (k, v) = l.split_once(':').unwrap_or_else(|| panic!("{l:?}"));
                        (k.to_owned(), v.strip_prefix(' ').unwrap_or(v).to_owned())
                    })
                    .collect();
            }
            // A guard against a hang, not a timing: the event is already in the hub.
            let chunk = tokio::time::timeout(Duration::from_secs(10), self.body.next())
                .await
                .expect("a frame within 10 s")
                .expect("the stream goes on")
                .expect("a chunk");
            self.buf
                .push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
        }
    }
}

fn field<'a>(frame: &'a Frame, name: &str) -> &'a str {
    let mut values = frame.iter().filter(|(k, _)| k == name);
    let (_, v) = values
        .next()
        .unwrap_or_else(|| panic!("no {name}: {frame:?}"));
    assert!(values.next().is_none(), "one {name}: {frame:?}");
    v
}

#[tokio::test]
async fn events_are_sse_frames_a_snapshot_first_then_live_and_a_resume_replays() {
    let fake = Fake::two_clocks();
    let mut sse = Frames::open(&fake, None).await;
    let snap = sse.next().await;
    assert_eq!(snap.len(), 3, "id, event and one data line: {snap:?}");
    assert_eq!(field(&snap, "event"), "snapshot");
    let snap_id: u64 = field(&snap, "id").parse().expect("a numeric id");
    let data = json_of(field(&snap, "data"));
    assert_eq!(data["clocks"].as_array().map(Vec::len), Some(2), "{data}");
    assert_eq!(data["daemon"]["running"], Value::Bool(true));

    fake.hub
        .game_event("pressed", 0, json!({"side": "white", "move": 1}));
    let pressed = sse.next().await;
    assert_eq!(field(&pressed, "event"), "pressed");
    assert_eq!(field(&pressed, "id"), (snap_id + 1).to_string());
    let data = json_of(field(&pressed, "data"));
    assert_eq!(
        (data["side"].as_str(), data["index"].as_u64()),
        (Some("white"), Some(0))
    );

    // A client that saw the snapshot resumes after it: the press, no new snapshot.
    let mut resumed = Frames::open(&fake, Some(snap_id)).await;
    let again = resumed.next().await;
    assert_eq!(again, pressed);
    // One that names no event the log holds gets a snapshot of now.
    let mut fresh = Frames::open(&fake, Some(snap_id + 100)).await;
    let snap = fresh.next().await;
    assert_eq!(field(&snap, "event"), "snapshot");
    assert_eq!(field(&snap, "id"), (snap_id + 1).to_string());
}

/// A page opened as the bridge starts, before the follower has read the daemon: its first
/// snapshot waits for that answer and holds every clock, not the empty hub of before
/// (e2e `bridge_http::events_start_with_a_snapshot...` once saw 0 clocks of 1).
#[tokio::test(start_paused = true)]
async fn a_stream_opened_before_the_daemon_answered_starts_with_every_clock() {
    let answered = Fake::two_clocks();
    let fake = Fake {
        hub: Arc::new(Hub::new(16)),
        ..answered.clone()
    };
    let opening = {
        let fake = fake.clone();
        tokio::spawn(async move { Frames::open(&fake, None).await.next().await })
    };
    // Every task runs until it waits (paused time moves on only then): the stream's handler
    // has been called and waits for the answer.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(
        !opening.is_finished(),
        "no snapshot before the daemon answered"
    );
    fake.hub
        .daemon_up("0.1.0".into(), answered.clocks.clone().expect("clocks"));
    let snap = opening.await.expect("the stream opens");
    assert_eq!(field(&snap, "event"), "snapshot");
    let data = json_of(field(&snap, "data"));
    assert_eq!(data["clocks"].as_array().map(Vec::len), Some(2), "{data}");
    assert_eq!(data["daemon"]["running"], Value::Bool(true), "{data}");
}

/// A daemon that never answers the follower holds a stream up for [`FIRST_ANSWER`] at
/// most: then it starts with what the hub has, and says why there are no clocks.
#[tokio::test(start_paused = true)]
async fn a_stream_waits_for_a_silent_daemon_only_so_long() {
    let fake = Fake {
        hub: Arc::new(Hub::new(16)),
        ..Fake::two_clocks()
    };
    let started = tokio::time::Instant::now();
    let snap = Frames::open(&fake, None).await.next().await;
    assert_eq!(started.elapsed(), crate::hub::FIRST_ANSWER);
    let data = json_of(field(&snap, "data"));
    assert_eq!(data["clocks"], json!([]), "{data}");
    assert_eq!(data["daemon"]["note"], "waiting for chessclockd", "{data}");
    // A daemon known not to run is an answer: no wait.
    let fake = Fake {
        hub: Arc::new(Hub::new(16)),
        ..Fake::two_clocks()
    };
    fake.hub.daemon_down("chessclockd is not running".into());
    let started = tokio::time::Instant::now();
    let snap = Frames::open(&fake, None).await.next().await;
    assert_eq!(started.elapsed(), Duration::ZERO);
    assert_eq!(json_of(field(&snap, "data"))["daemon"]["running"], false);
}

#[tokio::test(start_paused = true)]
async fn the_stream_beats_every_5_s_unnumbered_with_the_daemons_last_answer() {
    let fake = Fake::two_clocks();
    let mut sse = Frames::open(&fake, None).await;
    let snap = sse.next().await;
    assert_eq!(field(&snap, "event"), "snapshot");
    let snap_id: u64 = field(&snap, "id").parse().expect("a numeric id");
    // Nothing happens: the next frame is the heartbeat, 5 s (of paused time) on.
    let beat = sse.next().await;
    assert_eq!(field(&beat, "event"), "heartbeat", "{beat:?}");
    assert!(
        beat.iter().all(|(k, _)| k != "id"),
        "not numbered: {beat:?}"
    );
    let data = json_of(field(&beat, "data"));
    assert_eq!(data["every_ms"], 5000, "{data}");
    let (now, answered) = (data["now_us"].as_u64(), data["answered_us"].as_u64());
    assert!(
        answered.is_some() && answered <= now,
        "the daemon answered when it came up: {data}"
    );
    // The numbered events go on from the snapshot's id.
    fake.hub.game_event("pressed", 0, json!({"side": "white"}));
    let pressed = sse.next().await;
    assert_eq!(field(&pressed, "event"), "pressed");
    assert_eq!(field(&pressed, "id"), (snap_id + 1).to_string());
}

/// A page of a board that does not exist is a 404 that says why, and tries again; a paper
/// board's page is served; while the daemon is away every board's page is (it says so).
#[tokio::test]
async fn the_page_of_a_board_nobody_plays_is_a_404_that_says_why() {
    let fake = Fake::two_clocks();
    fake.hub.paper(std::collections::BTreeMap::from([(
        4,
        "[Board \"4\"]\n[Result \"*\"]\n\n*\n".to_owned(),
    )]));
    for uri in [
        "/overlay/9",
        "/board/9",
        "/overlay/board:7",
        "/overlay/%3Cb%3Ex",
    ] {
        let (code, body, resp) = get(&fake, uri, &[]).await;
        assert_eq!(code, StatusCode::NOT_FOUND, "{uri}: {body}");
        assert_eq!(
            header_of(&resp, header::CONTENT_TYPE),
            "text/html; charset=utf-8",
            "{uri}"
        );
        assert!(body.contains("No such board"), "{uri}: {body}");
        assert!(
            body.contains("no clock") && body.contains("http-equiv=\"refresh\""),
            "{uri}: {body}"
        );
        assert!(!body.contains("<b>"), "the name is escaped: {body}");
    }
    for uri in [
        "/overlay/board:4",
        "/board/board:4",
        "/overlay/beta",
        "/board/1",
    ] {
        let (code, body, _) = get(&fake, uri, &[]).await;
        assert_eq!(code, StatusCode::OK, "{uri}: {body}");
    }
    fake.hub.daemon_down("chessclockd stopped".into());
    let (code, _, _) = get(&fake, "/overlay/9", &[]).await;
    assert_eq!(code, StatusCode::OK, "no daemon: the page waits for it");
}

#[tokio::test]
async fn pages_and_assets_are_served_with_their_types() {
    let fake = Fake::two_clocks();
    for (uri, kind, has) in [
        ("/", "text/html; charset=utf-8", "<html"),
        ("/overlay/0", "text/html; charset=utf-8", "<html"),
        ("/overlay/board:1", "text/html; charset=utf-8", "<html"),
        ("/board/board:1", "text/html; charset=utf-8", "id=\"moves\""),
        ("/assets/bridge.js", "text/javascript", ""),
        ("/assets/pieces.svg", "image/svg+xml", "id=\"cc-wK\""),
        ("/assets/bridge.css", "text/css", ""),
    ] {
        let (code, body, resp) = get(&fake, uri, &[]).await;
        assert_eq!(code, StatusCode::OK, "{uri}");
        assert_eq!(header_of(&resp, header::CONTENT_TYPE), kind, "{uri}");
        assert_eq!(header_of(&resp, header::CACHE_CONTROL), "no-cache", "{uri}");
        assert!(!body.is_empty() && body.contains(has), "{uri}");
    }
}

mod fleet;
mod round;
