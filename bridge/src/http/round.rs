//! The round's go/no-go on the bridge (`GET /api/v1/round/check` and the page `/round`): the
//! daemon's `CheckRound` with this bridge's `lichess` check added, so the operator's screen
//! says what `chessclockctl round check` says.
//!
//! Owns the route's answer and its refusals; the checks and their words are
//! `chessclock_api::round_check`'s. A delayed bridge does not serve it: it would show the
//! boards as they are now.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Json, Response};
use chessclock_api::round_check::BoardReadiness;
use serde::Serialize;
use serde_json::json;

use super::{ClockSource, Routes};

/// The round's readiness as the route serves it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct RoundReport {
    pub(crate) round: u32,
    pub(crate) ready: bool,
    pub(crate) boards: Vec<BoardReadiness>,
}

impl RoundReport {
    pub(crate) fn new(round: u32, boards: Vec<BoardReadiness>) -> RoundReport {
        RoundReport {
            round,
            ready: boards.iter().all(|b| b.ready),
            boards,
        }
    }
}

/// Why the round check cannot be served.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The bridge shows the boards delayed.
    Delayed,
    /// The daemon could not be asked.
    Daemon(anyhow::Error),
}

pub(super) async fn check<S: ClockSource>(State(app): State<Routes<S>>) -> Response {
    match app.source.round_check().await {
        Ok(report) => Json(report).into_response(),
        Err(Refusal::Delayed) => (
            StatusCode::NOT_FOUND,
            Json(
                json!({"error": "this bridge shows the boards delayed (`delay` in \
                bridge.toml): the round check, which reads them as they are now, is on \
                the bridge without a delay, or `chessclockctl round check`"}),
            ),
        )
            .into_response(),
        Err(Refusal::Daemon(e)) => super::unavailable(e),
    }
}
