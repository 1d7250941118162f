//! Push to Lichess broadcasts: for each configured round, the live PGN of its boards (read
//! from chessclockd with `GetPgn`, or for `source = "fleet"` the boards of every machine on
//! the MQTT broker, [`union`]) is sent to `POST /api/broadcast/round/{id}/push` after every
//! change, with a bearer token, one request at a time, with retry and backoff. The id is the
//! one `rounds` gives the current round, else the one the daemon keeps for it
//! (`BroadcastRounds`: `round next --lichess-round ID`), else `round`; the current round is
//! the daemon's `Round`, read before each push (a `round next` is followed without a
//! restart), or for a fleet round the round of its games' `Round` tags.
//!
//! Owns the round settings (the token from `token_file` or systemd's credential, through
//! [`crate::secrets`]; `source` and its rules), the HTTP requests (TLS from [`crate::tls`]:
//! the system's CA store) and what their answers mean; when to push is the pure [`schedule`],
//! what a fleet round holds the pure [`union`] (fed by [`crate::mqtt`]). It never controls a
//! clock and never logs the token.

pub(crate) mod answer;
pub(crate) mod boards;
pub(crate) mod body;
pub(crate) mod client;
pub(crate) mod problems;
pub(crate) mod schedule;
mod task;
#[cfg(test)]
mod tests;
pub(crate) mod union;

pub(crate) use task::run;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use anyhow::{Result, bail};
use chessclock_api::ClockStatus;
use serde::Deserialize;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::hub::Hub;
use crate::secrets::{self, Credentials};
use crate::settings::shorten;
use boards::BoardSet;
use body::Body;
use union::Union;

/// Lichess keeps this many games of a pushed round (`RelayFetch.maxChaptersToShow`, 100
/// since July 2025; more are dropped without a word).
pub(crate) const MAX_GAMES: usize = 100;
/// How long to wait after a 429 (Lichess asks clients to wait a full minute).
const RATE_LIMITED_MS: u64 = 60_000;
/// How long to wait after a refusal a retry will not fix soon (bad token, unknown round).
const REFUSED_MS: u64 = 300_000;

/// One `[[lichess]]` table of the settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RoundSettings {
    /// The broadcast round's id (8 letters and digits, from the round's URL).
    pub(crate) round: String,
    /// The Lichess round id of each of the daemon's rounds (`{ 1 = "AbCd1234" }`); a round
    /// it does not name is pushed to `round`.
    #[serde(default)]
    pub(crate) rounds: std::collections::BTreeMap<String, String>,
    /// A file holding the API token (scope `study:write`; the token's owner must be a
    /// contributor of the broadcast). Without it, systemd's credential `lichess-token`.
    #[serde(default)]
    pub(crate) token_file: Option<PathBuf>,
    /// The clocks whose games make up the round, by name or index; all clocks when empty.
    #[serde(default)]
    pub(crate) clocks: Vec<String>,
    /// The board numbers whose games make up the round (`"1-100"`, `"101-150"`); every
    /// board when left out. No board may be in two tables' `boards`.
    #[serde(default)]
    pub(crate) boards: Option<BoardSet>,
    /// The Lichess server.
    #[serde(default = "default_server")]
    pub(crate) server: String,
    /// Where the round's games come from: this machine's clocks, or every machine's boards
    /// on the MQTT broker.
    #[serde(default)]
    pub(crate) source: Source,
}

/// `source` of a `[[lichess]]` table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub(crate) enum Source {
    /// The clocks of this machine's daemon (`clocks`).
    #[default]
    Local,
    /// The boards every bridge publishes to MQTT (`chessclockd/<host>/board/<B>/pgn`), by
    /// board number, for the current round ([`union`]).
    Fleet,
}

impl TryFrom<String> for Source {
    type Error = String;
    fn try_from(s: String) -> Result<Source, String> {
        match s.as_str() {
            "local" => Ok(Source::Local),
            "fleet" => Ok(Source::Fleet),
            _ => Err(format!(
                "{:?} is not a source: \"local\" (this machine's clocks, the default) or \
                 \"fleet\" (every machine's boards on the MQTT broker)",
                shorten(&s)
            )),
        }
    }
}

fn default_server() -> String {
    "https://lichess.org".into()
}

impl RoundSettings {
    /// Check the round id and the server URL, and read the token (from `token_file`, or the
    /// credential `lichess-token` in `creds`; empty when only checking the settings outside
    /// the service, which cannot read its unit's credentials).
    pub(crate) fn token(&self, creds: &Credentials) -> Result<String> {
        let id_ok = chessclock_api::broadcast::round_id_ok;
        let help = chessclock_api::broadcast::ROUND_ID_HELP;
        if !id_ok(&self.round) {
            bail!(
                "lichess round = {:?} is not a round id: {help}",
                shorten(&self.round)
            );
        }
        for (number, id) in &self.rounds {
            if !number.parse::<u32>().is_ok_and(|n| n > 0) {
                bail!(
                    "lichess rounds: {:?} is not a round number; name the daemon's rounds 1, 2, \
                     ... like rounds = {{ 1 = \"AbCd1234\" }}",
                    shorten(number)
                );
            }
            if !id_ok(id) {
                bail!(
                    "lichess rounds.{number} = {:?} is not a round id: {help}",
                    shorten(id)
                );
            }
        }
        if !(self.server.starts_with("https://") || self.server.starts_with("http://")) {
            bail!(
                "lichess server = {:?} is not an http(s) URL such as https://lichess.org",
                shorten(&self.server)
            );
        }
        let what = format!(
            "the Lichess token for round {} (token_file or LoadCredential=lichess-token:...)",
            self.round
        );
        let (token, source) = match &self.token_file {
            Some(file) => (secrets::read(file, &what)?, file.display().to_string()),
            None => match creds.get(secrets::LICHESS_TOKEN)? {
                Some(token) => (token, "the credential lichess-token".to_owned()),
                // `--check-config` by hand: the unit's credential is not there to read.
                None if creds.outside_service() => return Ok(String::new()),
                None => bail!(
                    "no Lichess token for round {}: set token_file = \
                     \"/etc/chessclockd/lichess.token\" or pass it as a credential, \
                     LoadCredential=lichess-token:/etc/chessclockd/lichess.token in a drop-in \
                     of chessclock-bridge.service (docs/bridge.md)",
                    self.round
                ),
            },
        };
        let token = token.trim().to_owned();
        if token.is_empty() || token.contains(char::is_whitespace) {
            bail!("{source} must hold one Lichess API token (scope study:write) and nothing else");
        }
        Ok(token)
    }

    /// Check `source` against the other settings: a fleet round reads the broker of `[mqtt]`
    /// (`has_mqtt`) and takes every board on it (no `clocks`).
    pub(crate) fn check_source(&self, has_mqtt: bool) -> Result<()> {
        if self.source == Source::Local {
            return Ok(());
        }
        if !has_mqtt {
            bail!(
                "lichess source = \"fleet\" (round {}) pushes the boards every machine's bridge \
                 publishes to MQTT, and this bridge has no broker: add mqtt = \"mqtt://broker\" \
                 (or an [mqtt] table), or set source = \"local\" to push this machine's clocks",
                self.round
            );
        }
        if !self.clocks.is_empty() {
            bail!(
                "lichess clocks picks this machine's clocks, but source = \"fleet\" (round {}) \
                 pushes every board on the broker by its number: leave clocks out, or set \
                 source = \"local\"",
                self.round
            );
        }
        Ok(())
    }

    /// Whether `clock` belongs to this round (its name or index in `clocks`, its board in
    /// `boards`).
    fn has(&self, clock: &ClockStatus) -> bool {
        let picked = self.clocks.is_empty()
            || self
                .clocks
                .iter()
                .any(|c| *c == clock.name || *c == clock.index.to_string());
        picked && self.takes(board_of(clock))
    }

    /// Whether board number `board` is one of this table's `boards`.
    pub(crate) fn takes(&self, board: u32) -> bool {
        self.boards.as_ref().is_none_or(|s| s.contains(board))
    }

    /// The Lichess round id of the daemon's round `current`: the one `rounds` names, else
    /// the one the daemon keeps for it (`daemon`, its `BroadcastRounds`: `round next
    /// --lichess-round`), else `round`.
    pub(crate) fn id_for<'a>(&'a self, current: u32, daemon: &'a BTreeMap<u32, String>) -> &'a str {
        self.rounds
            .iter()
            .find(|(n, _)| n.parse::<u32>().ok() == Some(current))
            .map(|(_, id)| id.as_str())
            .or_else(|| daemon.get(&current).map(String::as_str))
            .unwrap_or(self.round.as_str())
    }

    pub(crate) fn url(&self, id: &str) -> String {
        format!(
            "{}/api/broadcast/round/{id}/push",
            self.server.trim_end_matches('/'),
        )
    }
}

/// The board number a clock's game is pushed under (index + 1 from a daemon without board
/// numbers, as MQTT publishes it).
pub(crate) fn board_of(c: &ClockStatus) -> u32 {
    match c.board {
        0 => c.index + 1,
        b => b,
    }
}

/// Events after which the round's PGN may have changed.
pub(crate) fn changes_pgn(kind: &str) -> bool {
    matches!(
        kind,
        "snapshot"
            | "move"
            | "result"
            | "pressed"
            | "state_changed"
            | "removed"
            | "daemon"
            | "paper"
    )
}

/// The daemon's current round (its Manager's `Round`).
pub(crate) async fn current_round(conn: &zbus::Connection) -> Result<u32> {
    let mgr = chessclock_api::proxy::ManagerProxy::new(conn).await?;
    Ok(mgr.round().await?)
}

/// The Lichess round ids the daemon keeps by round (its Manager's `BroadcastRounds`; none
/// from a daemon that cannot say).
pub(crate) async fn daemon_rounds(conn: &zbus::Connection) -> BTreeMap<u32, String> {
    let ids = async {
        let mgr = chessclock_api::proxy::ManagerProxy::new(conn).await?;
        mgr.broadcast_rounds().await
    };
    ids.await
        .map(|ids| {
            ids.into_iter()
                .filter(|(_, id)| chessclock_api::broadcast::round_id_ok(id))
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}

/// The next change of the fleet's boards (`None` without a fleet: never).
pub(crate) async fn fleet_changed(
    fleet: &mut Option<watch::Receiver<Union>>,
) -> Option<Result<(), watch::error::RecvError>> {
    match fleet {
        Some(rx) => Some(rx.changed().await),
        None => std::future::pending().await,
    }
}

/// A fleet round's body and the round of its games; each conflict warned about once.
pub(crate) fn fleet_body(
    fleet: &Union,
    round: &RoundSettings,
    warned: &mut BTreeSet<String>,
) -> (Body, Option<u32>) {
    let games = fleet.round_games();
    for what in Union::news(&games, warned) {
        tracing::warn!(round = %round.round, "{what}");
    }
    (Body::pick(games.games, round.boards.as_ref()), games.round)
}

/// The round's body from this machine's clocks and paper boards: the games the table takes,
/// read from the daemon (or the delayed hub), in board order. Of two clocks with one board
/// number the first by index is pushed.
pub(crate) async fn local_body(
    conn: &zbus::Connection,
    hub: &Hub,
    round: &RoundSettings,
) -> Result<Body> {
    let mut candidates: Vec<(u32, String)> = Vec::new();
    for c in hub.clocks().into_iter().filter(|c| round.has(c)) {
        let board = board_of(&c);
        if candidates.iter().any(|(b, _)| *b == board) {
            continue;
        }
        let pgn = crate::pgn::games(conn, hub, std::slice::from_ref(&c)).await?;
        if !pgn.trim().is_empty() {
            candidates.push((board, pgn));
        }
    }
    for (board, pgn) in hub.paper_games() {
        if round.takes(board) && !candidates.iter().any(|(b, _)| *b == board) {
            candidates.push((board, pgn));
        }
    }
    Ok(Body::pick(candidates, round.boards.as_ref()))
}
