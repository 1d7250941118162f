//! The live PGN of the boards, read from chessclockd (`GetPgn` per clock), served as
//! `/pgn/all.pgn` (every board in board order, the round's paper boards among them) and
//! `/pgn/<clock>.pgn` (`board:N` of a paper board too) with validators (ETag,
//! Last-Modified) so that a broadcast polling every few seconds gets a `304 Not Modified`
//! while nothing changed.
//!
//! Owns reading and joining the games and the validators; the push to Lichess reuses
//! [`games`]. Never writes anything to the daemon.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use anyhow::{Context, Result};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chessclock_api::ClockStatus;
use chessclock_api::names::{BUS_NAME, CLOCK_INTERFACE};
use headers::{ETag, HeaderMapExt, IfNoneMatch};

use crate::http::{ClockSource, Routes, find};

/// Clock `c`'s PGN read from the daemon now (`GetPgn`).
pub(crate) async fn read(conn: &zbus::Connection, c: &ClockStatus) -> Result<String> {
    let reply = conn
        .call_method(
            Some(BUS_NAME),
            c.clock.as_str(),
            Some(CLOCK_INTERFACE),
            "GetPgn",
            &(),
        )
        .await
        .with_context(|| format!("GetPgn on clock {} ({})", c.index, c.name))?;
    Ok(reply.body().deserialize()?)
}

/// The PGN of `clocks`' games, one after the other, each ending in a blank line: as `hub`
/// has them when it is delayed ([`crate::delay`]), else read from the daemon now.
pub(crate) async fn games(
    conn: &zbus::Connection,
    hub: &crate::hub::Hub,
    clocks: &[Arc<ClockStatus>],
) -> Result<String> {
    let kept = hub.pgns();
    let mut all = String::new();
    for c in clocks {
        let pgn = match &kept {
            Some(kept) => match kept.get(&c.index) {
                Some(pgn) => pgn.to_string(),
                None => continue,
            },
            None => read(conn, c).await?,
        };
        all.push_str(pgn.trim_end());
        all.push_str("\n\n");
    }
    Ok(all)
}

/// The round's games one after the other, each ending in a blank line, in board order: the
/// clocks' (`clocks`: each clock with its games' text, as [`games`] gives it) and the paper
/// boards' (boards without an e-board, by board number) in their places among them
/// ([`crate::hub::in_board_order`]'s order: a paper board is where a clock of its number
/// would be).
pub(crate) fn in_board_order(
    clocks: &[(Arc<ClockStatus>, String)],
    paper: &BTreeMap<u32, String>,
) -> String {
    let mut games: Vec<((bool, u32, u32), &str)> = clocks
        .iter()
        .map(|(c, pgn)| (c.board_order(), pgn.as_str()))
        .collect();
    games.extend(
        paper
            .iter()
            .map(|(board, pgn)| ((false, *board, u32::MAX), pgn.as_str())),
    );
    games.sort_by_key(|(key, _)| *key);
    let mut all = String::new();
    for (_, pgn) in games {
        if !pgn.trim().is_empty() {
            all.push_str(pgn.trim_end());
            all.push_str("\n\n");
        }
    }
    all
}

/// When each served body was first seen, by URL path (for Last-Modified).
#[derive(Debug, Default)]
pub(crate) struct Validators {
    seen: Mutex<HashMap<String, (String, SystemTime)>>,
}

impl Validators {
    /// The ETag of `body`, and when `path` first served it.
    fn of(&self, path: &str, body: &str) -> (String, SystemTime) {
        let tag = format!(
            "\"{:x}-{:08x}\"",
            body.len(),
            crc32fast::hash(body.as_bytes())
        );
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let entry = seen
            .entry(path.to_owned())
            .or_insert_with(|| (tag.clone(), SystemTime::now()));
        if entry.0 != tag {
            *entry = (tag.clone(), SystemTime::now());
        }
        (tag, entry.1)
    }
}

/// `GET /pgn/all.pgn` and `GET /pgn/<clock>.pgn`.
pub(crate) async fn serve<S: ClockSource>(
    State(app): State<Routes<S>>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(name) = file.strip_suffix(".pgn") else {
        return not_found(format!(
            "{file:?} is not a PGN file; use /pgn/all.pgn or /pgn/<clock>.pgn"
        ));
    };
    let hub = app.source.hub();
    hub.first_answer().await;
    let all = hub.clocks();
    let body = if name == "all" {
        let mut each = Vec::with_capacity(all.len());
        let mut failed = None;
        for c in all {
            match app.source.games(std::slice::from_ref(&c)).await {
                Ok(text) => each.push((c, text)),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        match failed {
            None => Ok(in_board_order(&each, &hub.paper_games())),
            Some(e) => Err(e),
        }
    } else {
        let listed: Vec<ClockStatus> = all.iter().map(|c| (**c).clone()).collect();
        match find(&listed, name) {
            Ok(c) => app.source.games(&[Arc::new(c.clone())]).await,
            // A paper board (no e-board) is named as a board is: its result-only game.
            Err(e) => match paper_board(name).and_then(|b| hub.paper_games().remove(&b)) {
                Some(pgn) => Ok(format!("{}\n\n", pgn.trim_end())),
                None => return not_found(e),
            },
        }
    };
    let body = match body {
        Ok(b) => b,
        Err(e) => {
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("cannot read the games from chessclockd: {e:#}\n"),
            )
                .into_response();
        }
    };
    let (etag, modified) = app.pgn.of(&file, &body);
    // If-None-Match compares weakly (RFC 9110 13.1.2): W/"x" matches our "x", as a cache or
    // a compressing proxy may send it.
    let fresh = match (
        headers.typed_get::<IfNoneMatch>(),
        etag.parse::<ETag>().ok(),
    ) {
        (Some(condition), Some(ours)) => !condition.precondition_passes(&ours),
        (Some(_), None) => false,
        (None, _) => headers
            .get(header::IF_MODIFIED_SINCE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| httpdate::parse_http_date(v).ok())
            .is_some_and(|since| whole_seconds(modified) <= since),
    };
    let validators = [
        (header::ETAG, etag),
        (header::LAST_MODIFIED, httpdate::fmt_http_date(modified)),
        (header::CACHE_CONTROL, "no-cache".to_owned()),
    ];
    if fresh {
        return (StatusCode::NOT_MODIFIED, validators).into_response();
    }
    (
        validators,
        [(
            header::CONTENT_TYPE,
            "application/x-chess-pgn; charset=utf-8",
        )],
        body,
    )
        .into_response()
}

/// The board number of a name of the form `board:N`.
fn paper_board(name: &str) -> Option<u32> {
    name.strip_prefix("board:")?.trim().parse().ok()
}

/// HTTP dates have whole seconds.
fn whole_seconds(t: SystemTime) -> SystemTime {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs)
}

fn not_found(msg: String) -> Response {
    (StatusCode::NOT_FOUND, msg + "\n").into_response()
}
