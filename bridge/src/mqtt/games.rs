//! Each board's PGN on MQTT, retained (QoS 1), on `chessclockd/<host>/board/<B>/pgn` by board
//! number (the clock's `board`, index + 1 from a daemon without board numbers), and each
//! paper board's (the round's boards without an e-board, the daemon's `PaperGames`) on
//! `chessclockd/<host>/paper/<B>/pgn`: what a fleet bridge (`[[lichess]] source = "fleet"`)
//! pushes to Lichess. The round is the game's own
//! `Round "R.B"` tag, in the payload.
//!
//! Publishes a board when its PGN changed (its clock's `GetPgn` read again after a move, a
//! result, new game information...: not per clock tick), gathered and retried on the push's
//! [`Schedule`]; clears a board (an empty retained payload) when it goes away (detached, not
//! while the daemon restarts); republishes
//! every board when the broker connection comes back. Reads the [`Hub`] and the daemon only.

use std::collections::{BTreeMap, BTreeSet, HashMap};
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
pub(crate) fn pgn_facts(c: &ClockStatus) -> String {
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
    let mut boards = Boards::default();
    schedule.changed(now_ms());
    loop {
        let wake = schedule
            .poll_timeout()
            .map(|t| base + std::time::Duration::from_millis(t));
        tokio::select! {
            ev = live.recv() => match ev {
                Ok(ev) => {
                    let changed = match (ev.kind, ev.index, &ev.status) {
                        ("clock", _, Some(st)) => boards.stale(st),
                        ("clock", _, None) => false,
                        (kind, Some(i), _) if crate::push::changes_pgn(kind) => {
                            boards.dirty.insert(i);
                            true
                        }
                        ("paper", _, _) => true,
                        (kind, _, _) if crate::push::changes_pgn(kind) => {
                            boards.all = true;
                            true
                        }
                        _ => false,
                    };
                    if changed {
                        schedule.changed(now_ms());
                    }
                }
                Err(RecvError::Lagged(_)) => {
                    boards.all = true;
                    schedule.changed(now_ms());
                }
                Err(RecvError::Closed) => return,
            },
            () = reconnected.notified() => {
                boards.published.clear();
                boards.paper.clear();
                schedule.changed(now_ms());
            }
            () = crate::push::sleep_until(wake) => {}
        }
        if !schedule.start(now_ms()) {
            continue;
        }
        let outcome = boards.sync(&conn, &client, &topics, &hub).await;
        schedule.done(now_ms(), outcome);
    }
}

/// What is known of the boards: each clock's PGN as last read, which clocks to read again,
/// and what the broker holds.
#[derive(Default)]
struct Boards {
    /// By clock index: the facts its PGN was read with, its board number and its PGN.
    read: HashMap<u32, (String, u32, String)>,
    /// Clocks whose PGN may have changed since.
    dirty: BTreeSet<u32>,
    /// Read every clock again (a snapshot, a daemon restart, events missed).
    all: bool,
    /// The PGN published per board number.
    published: BTreeMap<u32, String>,
    /// The paper boards' PGN published, per board number.
    paper: BTreeMap<u32, String>,
}

impl Boards {
    /// Whether a clock's new state may show in its PGN (it is then read again).
    fn stale(&mut self, st: &ClockStatus) -> bool {
        let stale = self
            .read
            .get(&st.index)
            .is_none_or(|(facts, _, _)| *facts != pgn_facts(st));
        if stale {
            self.dirty.insert(st.index);
        }
        stale
    }

    /// Read the clocks that may have changed and publish the boards that did; clear the
    /// boards that went away.
    async fn sync(
        &mut self,
        conn: &zbus::Connection,
        client: &AsyncClient,
        topics: &Topics,
        hub: &Hub,
    ) -> Outcome {
        // While the daemon is away its boards are not gone: the broker keeps their games
        // until it is back and they are read again.
        if !hub.daemon().running {
            return Outcome::Done;
        }
        let clocks = hub.clocks();
        self.read
            .retain(|i, _| clocks.iter().any(|c| c.index == *i));
        for c in &clocks {
            if !(self.all || self.dirty.contains(&c.index) || !self.read.contains_key(&c.index)) {
                continue;
            }
            match crate::pgn::games(conn, hub, std::slice::from_ref(c)).await {
                Ok(pgn) => {
                    self.read.insert(c.index, (pgn_facts(c), board(c), pgn));
                    self.dirty.remove(&c.index);
                }
                Err(e) => {
                    tracing::warn!("cannot read the PGN of clock {} for MQTT: {e:#}", c.index);
                    return Outcome::Failed;
                }
            }
        }
        self.all = false;
        self.dirty.clear();
        // By index: of two clocks of one machine with one board number, the first is
        // published (the daemon refuses pairings onto such boards and says so).
        let mut indices: Vec<&u32> = self.read.keys().collect();
        indices.sort();
        let mut now: BTreeMap<u32, String> = BTreeMap::new();
        for i in indices {
            let (_, b, pgn) = &self.read[i];
            now.entry(*b).or_insert_with(|| pgn.clone());
        }
        for (b, pgn) in &now {
            if self.published.get(b) != Some(pgn) {
                super::send(client, topics.pgn(*b), true, pgn.clone().into_bytes()).await;
            }
        }
        for b in self.published.keys().filter(|b| !now.contains_key(b)) {
            // An empty retained message deletes the board's game from the broker.
            super::send(client, topics.pgn(*b), true, Vec::new()).await;
        }
        self.published = now;
        let paper = hub.paper_games();
        for (b, pgn) in &paper {
            if self.paper.get(b) != Some(pgn) {
                super::send(client, topics.paper(*b), true, pgn.clone().into_bytes()).await;
            }
        }
        for b in self.paper.keys().filter(|b| !paper.contains_key(b)) {
            super::send(client, topics.paper(*b), true, Vec::new()).await;
        }
        self.paper = paper;
        Outcome::Done
    }
}
