//! Each board's PGN on MQTT, retained (QoS 1), on `chessclockd/<host>/board/<B>/pgn` by board
//! number (the clock's `board`, index + 1 from a daemon without board numbers): what a fleet
//! bridge (`[[lichess]] source = "fleet"`) pushes to Lichess. The round is the game's own
//! `Round "R.B"` tag, in the payload.
//!
//! Publishes a board when its PGN changed (read with `GetPgn` after a move, a result, new
//! game information...: not per clock tick), gathered and retried on the push's
//! [`Schedule`]; clears a board (an empty retained payload) when it goes away; republishes
//! every board when the broker connection comes back. Reads the [`Hub`] and the daemon only.

use std::collections::HashMap;
use std::sync::Arc;

use chessclock_api::ClockStatus;
use chessclock_api::fleet::Topics;
use rumqttc::AsyncClient;
use tokio::sync::Notify;
use tokio::sync::broadcast::error::RecvError;
use tokio::time::Instant;

use crate::hub::Hub;
use crate::push::schedule::{Outcome, Schedule};

/// The board number a clock's games are published under.
fn board(c: &ClockStatus) -> u32 {
    match c.board {
        0 => c.index + 1,
        b => b,
    }
}

/// What of a clock's state shows in its PGN (a `clock` event without a change here is a tick).
fn pgn_facts(c: &ClockStatus) -> String {
    serde_json::to_string(&(
        board(c),
        &c.game_info,
        &c.moves_san,
        &c.result,
        &c.game_state,
    ))
    .unwrap_or_default()
}

/// Publish the boards' PGN for as long as the hub lives; `reconnected` is notified on every
/// (re)connection to the broker.
pub(crate) async fn run(
    conn: zbus::Connection,
    client: AsyncClient,
    topics: Topics,
    hub: Arc<Hub>,
    reconnected: Arc<Notify>,
) {
    let base = Instant::now();
    let now_ms = || u64::try_from(base.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut live = hub.attach(None).live;
    let mut schedule = Schedule::default();
    // The PGN published per board, and what each clock's PGN was last read from.
    let mut published: HashMap<u32, String> = HashMap::new();
    let mut facts: HashMap<u32, String> = HashMap::new();
    schedule.changed(now_ms());
    loop {
        let wake = schedule
            .poll_timeout()
            .map(|t| base + std::time::Duration::from_millis(t));
        tokio::select! {
            ev = live.recv() => match ev {
                Ok(ev) => {
                    let changed = match (ev.kind, &ev.status) {
                        ("clock", Some(st)) => facts.get(&st.index) != Some(&pgn_facts(st)),
                        ("clock", None) => false,
                        (kind, _) => crate::push::changes_pgn(kind),
                    };
                    if changed {
                        schedule.changed(now_ms());
                    }
                }
                Err(RecvError::Lagged(_)) => schedule.changed(now_ms()),
                Err(RecvError::Closed) => return,
            },
            () = reconnected.notified() => {
                published.clear();
                schedule.changed(now_ms());
            }
            () = crate::push::sleep_until(wake) => {}
        }
        if !schedule.start(now_ms()) {
            continue;
        }
        let outcome = refresh(&conn, &client, &topics, &hub, &mut published, &mut facts).await;
        schedule.done(now_ms(), outcome);
    }
}

/// Read every board's PGN and publish those that changed; clear the boards that went away.
async fn refresh(
    conn: &zbus::Connection,
    client: &AsyncClient,
    topics: &Topics,
    hub: &Hub,
    published: &mut HashMap<u32, String>,
    facts: &mut HashMap<u32, String>,
) -> Outcome {
    let clocks = hub.clocks();
    let mut now: HashMap<u32, String> = HashMap::new();
    for c in &clocks {
        let pgn = match crate::pgn::games(conn, std::slice::from_ref(c)).await {
            Ok(pgn) => pgn,
            Err(e) => {
                tracing::warn!("cannot read the PGN of clock {} for MQTT: {e:#}", c.index);
                return Outcome::Failed;
            }
        };
        facts.insert(c.index, pgn_facts(c));
        // Two clocks of one machine with one board number: the first by index is published
        // (the daemon refuses pairings onto such boards and says so).
        now.entry(board(c)).or_insert(pgn);
    }
    facts.retain(|i, _| clocks.iter().any(|c| c.index == *i));
    for (b, pgn) in &now {
        if published.get(b) != Some(pgn) {
            super::send(client, topics.pgn(*b), true, pgn.clone().into_bytes()).await;
        }
    }
    for b in published.keys().filter(|b| !now.contains_key(b)) {
        // An empty retained message deletes the board's game from the broker.
        super::send(client, topics.pgn(*b), true, Vec::new()).await;
    }
    *published = now;
    Outcome::Done
}
