//! The read-only HTTP server: the JSON API, the Server-Sent Events stream (the hub's
//! numbered events, and a heartbeat every 5 s by which the pages judge stale data) and the
//! pages (the dashboard, a board's page, the overlay) with their assets (script, style, the
//! piece set), embedded in the binary so that no page needs the internet.
//!
//! [`app`] is the router over a [`ClockSource`]: what it reads from the daemon (one read of
//! every clock per `/api/v1/clocks` request, the followed state and events of the [`Hub`],
//! the games' PGN). [`Bus`] is the real source; the tests (`http/tests.rs`) drive the router
//! in process over a fake one. With `fleet = true` ([`crate::fleet`]) `/api/v1/clocks`
//! lists every machine's boards (each with `host`, `online` and `stale`), `/api/v1/fleet` is
//! what the pages re-read every 2 s for them, and a board page or overlay may name another
//! machine's board. Never changes anything: control stays on D-Bus,
//! behind its policy.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Json, Response};
use axum::routing::get;
use chessclock_api::ClockStatus;
use futures_util::stream::{self, Stream};
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;
use zbus::Connection;

use crate::fleet::Board;
use crate::follow::read_live;
use crate::hub::{Event, Hub};
use round::{Refusal, RoundReport};

/// What the router reads from the daemon.
pub(crate) trait ClockSource: Clone + Send + Sync + 'static {
    /// Every clock's status, read from the daemon now.
    fn clocks(&self) -> impl Future<Output = anyhow::Result<Vec<ClockStatus>>> + Send;
    /// The PGN of `clocks`' games, one after the other, each ending in a blank line.
    fn games(
        &self,
        clocks: &[Arc<ClockStatus>],
    ) -> impl Future<Output = anyhow::Result<String>> + Send;
    /// The followed state and event log.
    fn hub(&self) -> &Arc<Hub>;
    /// The round's go/no-go: the daemon's `CheckRound` with this bridge's `lichess` check.
    fn round_check(&self) -> impl Future<Output = Result<RoundReport, Refusal>> + Send;
}

/// The real source: the daemon on the bus (reads only) and the hub its follower feeds.
#[derive(Debug, Clone)]
pub(crate) struct Bus {
    /// The bus connection (reads only).
    pub(crate) conn: Connection,
    /// The followed state and event log.
    pub(crate) hub: Arc<Hub>,
    /// The push's problems and where each board went (the round check's `lichess`).
    pub(crate) push: Arc<crate::push::problems::Problems>,
    /// How many `[[lichess]]` tables this bridge pushes.
    pub(crate) tables: u32,
}

impl ClockSource for Bus {
    async fn clocks(&self) -> anyhow::Result<Vec<ClockStatus>> {
        // A delayed hub has the clocks as they stood: the daemon is not to be read live.
        if self.hub.pgns().is_some() {
            return Ok(self.hub.clocks().iter().map(|c| (**c).clone()).collect());
        }
        let mut clocks = read_live(&self.conn).await?;
        self.hub.add_push_problems(&mut clocks);
        Ok(clocks)
    }

    async fn games(&self, clocks: &[Arc<ClockStatus>]) -> anyhow::Result<String> {
        crate::pgn::games(&self.conn, &self.hub, clocks).await
    }

    fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    async fn round_check(&self) -> Result<RoundReport, Refusal> {
        if self.hub.pgns().is_some() {
            return Err(Refusal::Delayed);
        }
        let daemon = |e: zbus::Error| Refusal::Daemon(e.into());
        let mgr = chessclock_api::proxy::ManagerProxy::new(&self.conn)
            .await
            .map_err(daemon)?;
        let round = mgr.round().await.map_err(daemon)?;
        let mut boards: Vec<_> = mgr
            .check_round("")
            .await
            .map_err(daemon)?
            .into_iter()
            .map(chessclock_api::round_check::BoardReadiness::from_bus)
            .collect();
        let push = chessclock_api::push::Pushing {
            tables: self.tables,
            pushed: self.push.sent(),
            problems: self.push.all(),
        };
        for b in &mut boards {
            chessclock_api::round_check::add_push(b, &push);
        }
        Ok(RoundReport::new(round, boards))
    }
}

/// What every handler can reach.
#[derive(Debug, Clone)]
pub(crate) struct Routes<S> {
    /// Where the answers come from.
    pub(crate) source: S,
    /// Validators of the PGN files served.
    pub(crate) pgn: Arc<crate::pgn::Validators>,
    /// Every machine's clocks, with `fleet = true`.
    pub(crate) fleet: Option<crate::fleet::Shared>,
}

/// The routes, answering from `source` (and from `fleet`, with `fleet = true`).
pub(crate) fn app<S: ClockSource>(source: S, fleet: Option<crate::fleet::Shared>) -> Router {
    let state = Routes {
        source,
        pgn: Arc::default(),
        fleet,
    };
    Router::new()
        .route("/api/v1/clocks", get(clocks::<S>))
        .route("/api/v1/fleet", get(fleet_view::<S>))
        .route("/api/v1/clocks/{clock}", get(one_clock::<S>))
        .route("/api/v1/events", get(events::<S>))
        .route("/api/v1/round/check", get(round::check::<S>))
        .route("/round", get(|| page(ROUND)))
        .route("/pgn/{file}", get(crate::pgn::serve::<S>))
        .route("/", get(|| page(DASHBOARD)))
        .route("/overlay/{clock}", get(overlay::<S>))
        .route("/board/{clock}", get(board::<S>))
        .route(
            "/assets/bridge.js",
            get(|| asset(SCRIPT, "text/javascript")),
        )
        .route("/assets/bridge.css", get(|| asset(STYLE, "text/css")))
        .route("/assets/pieces.svg", get(|| asset(PIECES, "image/svg+xml")))
        .with_state(state)
}

const DASHBOARD: &str = include_str!("../assets/dashboard.html");
const OVERLAY: &str = include_str!("../assets/overlay.html");
const BOARD: &str = include_str!("../assets/board.html");
const ROUND: &str = include_str!("../assets/round.html");
/// The cburnett piece set (bridge/assets/PIECES.md says whence and its licence).
const PIECES: &str = include_str!("../assets/pieces.svg");
const SCRIPT: &str = include_str!("../assets/bridge.js");
const STYLE: &str = include_str!("../assets/bridge.css");

async fn page(html: &'static str) -> Response {
    asset(html, "text/html; charset=utf-8").await
}

async fn asset(body: &'static str, kind: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

async fn overlay<S: ClockSource>(
    State(app): State<Routes<S>>,
    Path(name): Path<String>,
) -> Response {
    board_page(&app, &name, OVERLAY).await
}

async fn board<S: ClockSource>(State(app): State<Routes<S>>, Path(name): Path<String>) -> Response {
    board_page(&app, &name, BOARD).await
}

/// How often the page of a board that does not exist tries again (an overlay set up before
/// its clock is attached comes up once it is).
const MISSING_RETRY_S: u32 = 10;

/// The page `html` of the board `name` names (a clock, or a paper board's `board:N`); a name
/// that names none while the daemon's clocks are known is a 404 with a page that says why
/// and tries again. While the daemon is not there the page is served: it says so, and
/// follows the boards once they come.
async fn board_page<S: ClockSource>(app: &Routes<S>, name: &str, html: &'static str) -> Response {
    let hub = app.source.hub();
    hub.first_answer().await;
    if !hub.daemon().running {
        return page(html).await;
    }
    let listed: Vec<ClockStatus> = hub.clocks().iter().map(|c| (**c).clone()).collect();
    let missing = match find(&listed, name) {
        Ok(_) => return page(html).await,
        Err(e) => e,
    };
    let number = name
        .strip_prefix("board:")
        .and_then(|n| n.trim().parse::<u32>().ok());
    let paper = number.is_some_and(|b| hub.paper_games().contains_key(&b));
    // With fleet = true, a board of another machine (the page picks it, `?host=` when two
    // machines have its number).
    let remote = || {
        let fleet = app.fleet.as_ref()?;
        let f = fleet.lock().unwrap_or_else(|p| p.into_inner());
        let b = number?;
        f.boards(chessclock_api::monotonic::monotonic_us(), None)
            .iter()
            .any(|x| x.host != f.own() && x.clock.board == b)
            .then_some(())
    };
    if paper || remote().is_some() {
        return page(html).await;
    }
    let body = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"refresh\" content=\"{MISSING_RETRY_S}\">\
         <title>No such board · chessclockd</title>\
         <link rel=\"stylesheet\" href=\"/assets/bridge.css\"></head>\n\
         <body><main class=\"missing\"><h1>No such board</h1>\n<p id=\"why\">{}</p>\n\
         <p>The boards are on <a href=\"/\">the dashboard</a>. This page tries again every \
         {MISSING_RETRY_S} s: a clock attached later is shown here once it is.</p></main>\
         </body></html>\n",
        html_text(&missing)
    );
    (
        StatusCode::NOT_FOUND,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// `text` for an HTML page: `&`, `<`, `>` and `"` escaped.
fn html_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

fn unavailable(e: impl std::fmt::Display) -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Json(json!({"error": format!("cannot read chessclockd: {e}")})),
    )
        .into_response()
}

/// The fleet's boards at this instant with `local`, this machine's clocks (`None`: its
/// daemon is not there).
fn fleet_boards(fleet: &crate::fleet::Shared, local: Option<&[ClockStatus]>) -> Vec<Board> {
    let f = fleet.lock().unwrap_or_else(|p| p.into_inner());
    f.boards(chessclock_api::monotonic::monotonic_us(), local)
}

async fn clocks<S: ClockSource>(State(app): State<Routes<S>>) -> Response {
    if let Some(fleet) = &app.fleet {
        // Without this machine's daemon, the fleet still is: its own boards as last
        // published stand in, stale.
        let local = app.source.clocks().await.ok();
        return Json(fleet_boards(fleet, local.as_deref())).into_response();
    }
    match app.source.clocks().await {
        Ok(mut all) => {
            crate::hub::in_board_order(&mut all);
            Json(all).into_response()
        }
        Err(e) => unavailable(e),
    }
}

/// `/api/v1/fleet`: every board of the fleet as the dashboard re-reads it, this machine's
/// clocks as the hub follows them (no read of the daemon per request): `{"host": this
/// machine's name, "now_us": this machine's CLOCK_MONOTONIC, "boards": [...]}`. A 404 unless
/// `fleet = true`.
async fn fleet_view<S: ClockSource>(State(app): State<Routes<S>>) -> Response {
    let Some(fleet) = &app.fleet else {
        let error = "this bridge does not follow the fleet: set fleet = true (and mqtt) in \
                     bridge.toml (docs/bridge.md, The fleet)";
        return (StatusCode::NOT_FOUND, Json(json!({ "error": error }))).into_response();
    };
    let hub = app.source.hub();
    let local: Option<Vec<ClockStatus>> = hub
        .daemon()
        .running
        .then(|| hub.clocks().iter().map(|c| (**c).clone()).collect());
    let host = fleet
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .own()
        .to_owned();
    let boards = fleet_boards(fleet, local.as_deref());
    let now_us = chessclock_api::monotonic::monotonic_us();
    Json(json!({ "host": host, "now_us": now_us, "boards": boards })).into_response()
}

/// The clock named by `name`, as every client names one ([`chessclock_api::select`]: index,
/// `board:N`, name, ...), or why there is none.
pub(crate) fn find<'a>(all: &'a [ClockStatus], name: &str) -> Result<&'a ClockStatus, String> {
    chessclock_api::select(all, name)
        .map(|i| &all[i])
        .map_err(|e| format!("{e} (GET /api/v1/clocks lists them)"))
}

async fn one_clock<S: ClockSource>(
    State(app): State<Routes<S>>,
    Path(name): Path<String>,
) -> Response {
    let all = match app.source.clocks().await {
        Ok(all) => all,
        Err(e) => return unavailable(e),
    };
    match find(&all, &name) {
        Ok(c) => Json(c).into_response(),
        Err(e) => (StatusCode::NOT_FOUND, Json(json!({"error": e}))).into_response(),
    }
}

fn sse_event(e: &Event) -> SseEvent {
    SseEvent::default()
        .id(e.id.to_string())
        .event(e.kind)
        .data(e.data.as_str())
}

/// How often the event stream says it is alive (`heartbeat`, not numbered and not logged):
/// a page that hears nothing for a few of these knows its stream is down, and judges how
/// old a board's data is by the daemon's last answer it carries.
const HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(5);

fn heartbeat(hub: &Hub) -> SseEvent {
    let data = json!({
        "now_us": chessclock_api::monotonic::monotonic_us(),
        "answered_us": hub.answered_us(),
        "every_ms": HEARTBEAT.as_millis() as u64,
    });
    SseEvent::default()
        .event("heartbeat")
        .data(data.to_string())
}

struct Feed {
    first: std::vec::IntoIter<Arc<Event>>,
    beat: tokio::time::Interval,
    live: tokio::sync::broadcast::Receiver<Arc<Event>>,
    last: u64,
    hub: Arc<Hub>,
}

async fn events<S: ClockSource>(
    State(app): State<Routes<S>>,
    headers: HeaderMap,
) -> impl IntoResponse {
    let last_id = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let hub = app.source.hub();
    // The first snapshot holds every clock the daemon has: a stream opened as the bridge
    // starts waits for the follower's first answer.
    hub.first_answer().await;
    let attach = hub.attach(last_id);
    tracing::debug!(
        "event stream client attached (resume after {last_id:?}: {} event(s) first)",
        attach.first.len()
    );
    let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + HEARTBEAT, HEARTBEAT);
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let feed = Feed {
        beat,
        last: 0,
        first: attach.first.into_iter(),
        live: attach.live,
        hub: hub.clone(),
    };
    let mut resp = Sse::new(feed_stream(feed))
        .keep_alive(KeepAlive::default())
        .into_response();
    // Tell proxies (nginx) not to buffer the stream.
    resp.headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    resp
}

fn feed_stream(feed: Feed) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    stream::unfold(feed, |mut f| async move {
        if let Some(e) = f.first.next() {
            f.last = e.id;
            return Some((Ok(sse_event(&e)), f));
        }
        loop {
            let next = tokio::select! {
                e = f.live.recv() => e,
                _ = f.beat.tick() => return Some((Ok(heartbeat(&f.hub)), f)),
            };
            match next {
                Ok(e) if e.id <= f.last => continue,
                Ok(e) => {
                    f.last = e.id;
                    return Some((Ok(sse_event(&e)), f));
                }
                Err(RecvError::Lagged(_)) => {
                    // Too slow a reader: start it over from a fresh snapshot.
                    let a = f.hub.attach(None);
                    f.live = a.live;
                    f.first = a.first.into_iter();
                    if let Some(e) = f.first.next() {
                        f.last = e.id;
                        return Some((Ok(sse_event(&e)), f));
                    }
                }
                Err(RecvError::Closed) => return None,
            }
        }
    })
}

mod round;

#[cfg(test)]
mod tests;
