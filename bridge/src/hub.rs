//! The bridge's view of the daemon and its event log: the latest [`ClockStatus`] of every
//! clock, the current round's paper boards' games (boards without an e-board, by board
//! number: the daemon's `PaperGames`), whether the daemon runs and when it last answered,
//! and a bounded log of numbered events that the SSE endpoint replays to reconnecting
//! clients and MQTT republishes.
//!
//! The pages read a paper board as [`paper_boards`] gives it (its number, tags and result,
//! from its PGN), in the snapshot and in each `paper` event. Fed by the D-Bus follower only;
//! read by HTTP and MQTT. Owns no IO.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use chessclock_api::ClockStatus;
use chessclock_api::monotonic::monotonic_us;
use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::{broadcast, watch};

/// One numbered event, its JSON already serialized.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    /// Increasing from 1 for the bridge's lifetime (the SSE event id).
    pub(crate) id: u64,
    /// `snapshot`, `clock`, `removed`, `pressed`, `move`, `flag`, `result`, `state_changed`,
    /// `daemon`.
    pub(crate) kind: &'static str,
    /// The clock it is about, if any.
    pub(crate) index: Option<u32>,
    /// JSON payload.
    pub(crate) data: String,
    /// The clock's state after the event, for `clock` events.
    pub(crate) status: Option<Arc<ClockStatus>>,
}

/// A hub's state at one event, kept by the delay layer to be replayed later.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    /// Every clock (shared with the live hub: a frame copies no clock).
    pub(crate) clocks: Vec<Arc<ClockStatus>>,
    /// The paper boards' games (shared with the hub while they do not change).
    pub(crate) paper: Arc<BTreeMap<u32, String>>,
    /// Every clock's PGN, by index (shared with the frames before and after it).
    pub(crate) pgns: BTreeMap<u32, Arc<str>>,
    /// The daemon.
    pub(crate) daemon: Daemon,
}

/// Whether the daemon is on the bus.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Daemon {
    /// It owns its bus name and answered.
    pub(crate) running: bool,
    /// Its version, when running.
    pub(crate) version: String,
    /// What happened last, for people (`connected`, `chessclockd stopped`, ...).
    pub(crate) note: String,
    /// How often it has come back since the bridge started.
    pub(crate) restarts: u32,
}

struct Inner {
    next_id: u64,
    log: VecDeque<Arc<Event>>,
    cap: usize,
    clocks: BTreeMap<u32, Arc<ClockStatus>>,
    paper: Arc<BTreeMap<u32, String>>,
    /// Each clock's PGN as it stood, for a delayed hub (`None`: the outputs read the
    /// daemon's PGN live).
    pgns: Option<BTreeMap<u32, Arc<str>>>,
    daemon: Daemon,
    ever_up: bool,
    /// When the daemon last answered the follower (CLOCK_MONOTONIC µs; `None`: never, or a
    /// delayed hub, which is not told).
    answered_us: Option<u64>,
    /// The Lichess push's problems by board number, added to each clock's `problems`
    /// ([`crate::push::problems`]).
    push_problems: Vec<(u32, chessclock_api::Problem)>,
}

/// `st` with the push's problems of its board added.
fn with_push(push: &[(u32, chessclock_api::Problem)], mut st: ClockStatus) -> ClockStatus {
    chessclock_api::push::merge(std::slice::from_mut(&mut st), push);
    st
}

/// How long an output that starts with the hub's state (an event stream's first snapshot, a
/// PGN file) waits for the follower's first answer: the daemon's clocks, or that it is not
/// there. A daemon that hangs at the bridge's start does not hold the pages up for longer;
/// they are then served what the hub has ("waiting for chessclockd") and follow from there.
pub(crate) const FIRST_ANSWER: Duration = Duration::from_secs(10);

/// Shared state and the event fan-out.
#[derive(Debug)]
pub(crate) struct Hub {
    inner: Mutex<Inner>,
    tx: broadcast::Sender<Arc<Event>>,
    /// The hub holds the follower's first answer (every clock the daemon had, or that it is
    /// not running); a delayed hub from its start.
    answered: watch::Sender<bool>,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inner")
            .field("next_id", &self.next_id)
            .field("clocks", &self.clocks.len())
            .finish()
    }
}

/// What a subscriber gets first: replayed events (a resume) or a fresh snapshot.
#[derive(Debug)]
pub(crate) struct Attach {
    /// Events to send before the live ones.
    pub(crate) first: Vec<Arc<Event>>,
    /// Live events; skip those with an id not above `first`'s last.
    pub(crate) live: broadcast::Receiver<Arc<Event>>,
}

impl Hub {
    /// An empty hub that keeps the last `cap` events for resuming clients, fed by the
    /// follower: outputs wait for its first answer ([`Hub::first_answer`]).
    pub(crate) fn new(cap: usize) -> Hub {
        Hub::with_answer(cap, false)
    }

    /// An empty hub fed by the delay layer ([`Hub::replay`]): it shows nothing until the
    /// delay has passed, by design, so its outputs do not wait for an answer.
    pub(crate) fn delayed(cap: usize) -> Hub {
        Hub::with_answer(cap, true)
    }

    fn with_answer(cap: usize, answered: bool) -> Hub {
        let (tx, _) = broadcast::channel(cap.max(16));
        Hub {
            answered: watch::Sender::new(answered),
            inner: Mutex::new(Inner {
                next_id: 1,
                log: VecDeque::new(),
                cap,
                clocks: BTreeMap::new(),
                paper: Arc::default(),
                pgns: None,
                daemon: Daemon {
                    running: false,
                    version: String::new(),
                    note: "waiting for chessclockd".into(),
                    restarts: 0,
                },
                ever_up: false,
                answered_us: None,
                push_problems: Vec::new(),
            }),
            tx,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn push(
        &self,
        g: &mut Inner,
        kind: &'static str,
        index: Option<u32>,
        data: Value,
        status: Option<Arc<ClockStatus>>,
    ) {
        let ev = Arc::new(Event {
            id: g.next_id,
            kind,
            index,
            data: data.to_string(),
            status,
        });
        g.next_id += 1;
        g.log.push_back(ev.clone());
        while g.log.len() > g.cap {
            g.log.pop_front();
        }
        // No subscriber is not an error.
        let _ = self.tx.send(ev);
    }

    fn snapshot_value(g: &Inner) -> Value {
        let mut clocks: Vec<&ClockStatus> = g.clocks.values().map(|c| &**c).collect();
        in_board_order(&mut clocks);
        json!({
            "daemon": g.daemon,
            "now_us": monotonic_us(),
            "clocks": clocks,
            "paper": paper_boards(&g.paper),
        })
    }

    /// The daemon answered with these clocks (at start or after a restart).
    pub(crate) fn daemon_up(&self, version: String, clocks: Vec<ClockStatus>) {
        let mut g = self.lock();
        if g.ever_up {
            g.daemon.restarts += 1;
        }
        g.ever_up = true;
        g.answered_us = Some(monotonic_us());
        g.daemon.running = true;
        g.daemon.version = version;
        g.daemon.note = if g.daemon.restarts > 0 {
            format!("chessclockd is back (restart {})", g.daemon.restarts)
        } else {
            "connected to chessclockd".into()
        };
        let push = std::mem::take(&mut g.push_problems);
        g.clocks = clocks
            .into_iter()
            .map(|c| (c.index, Arc::new(with_push(&push, c))))
            .collect();
        g.push_problems = push;
        let v = Self::snapshot_value(&g);
        self.push(&mut g, "snapshot", None, v, None);
        self.answered.send_replace(true);
    }

    /// The daemon left the bus (or cannot be reached); `note` says why.
    pub(crate) fn daemon_down(&self, note: String) {
        self.answered.send_replace(true);
        let mut g = self.lock();
        // Once said, a daemon that stays away is not news.
        if !g.daemon.running && (g.ever_up || g.daemon.note == note) {
            return;
        }
        g.daemon.running = false;
        g.daemon.note = note;
        g.clocks.clear();
        g.paper = Arc::default();
        let v = json!({"daemon": g.daemon});
        self.push(&mut g, "daemon", None, v, None);
    }

    /// A clock's state is now `st` (added or changed); no event when nothing changed.
    pub(crate) fn clock(&self, st: ClockStatus) {
        let mut g = self.lock();
        let st = with_push(&g.push_problems, st);
        if g.clocks.get(&st.index).is_some_and(|old| **old == st) {
            return;
        }
        let st = Arc::new(st);
        g.clocks.insert(st.index, st.clone());
        let v = json!({"now_us": monotonic_us(), "clock": &*st});
        self.push(&mut g, "clock", Some(st.index), v, Some(st));
    }

    /// The clock at `index` was detached.
    pub(crate) fn removed(&self, index: u32, path: &str) {
        let mut g = self.lock();
        if g.clocks.remove(&index).is_none() {
            return;
        }
        let v = json!({"index": index, "clock": path});
        self.push(&mut g, "removed", Some(index), v, None);
    }

    /// A game event of the clock at `index` (`pressed`, `flag`, `result`, `state_changed`).
    pub(crate) fn game_event(&self, kind: &'static str, index: u32, mut data: Value) {
        let mut g = self.lock();
        if let Some(o) = data.as_object_mut() {
            o.insert("index".into(), json!(index));
            o.insert("event".into(), json!(kind));
        }
        self.push(&mut g, kind, Some(index), data, None);
    }

    /// The round's paper boards' games are now `games` (PGN by board number); a `paper`
    /// event when they changed.
    pub(crate) fn paper(&self, games: BTreeMap<u32, String>) {
        let mut g = self.lock();
        if *g.paper == games {
            return;
        }
        let boards: Vec<u32> = games.keys().copied().collect();
        let paper = paper_boards(&games);
        g.paper = Arc::new(games);
        self.push(
            &mut g,
            "paper",
            None,
            json!({ "boards": boards, "paper": paper }),
            None,
        );
    }

    /// The Lichess push's problems are now `push` (by board number): each clock whose list
    /// changes has it in a `clock` event. The daemon's own problems of a clock are derived
    /// from its state again ([`ClockStatus::derive`]).
    pub(crate) fn set_push_problems(&self, push: Vec<(u32, chessclock_api::Problem)>) {
        let mut g = self.lock();
        if g.push_problems == push {
            return;
        }
        g.push_problems = push;
        let clocks: Vec<Arc<ClockStatus>> = g.clocks.values().cloned().collect();
        for old in clocks {
            let mut st = (*old).clone();
            st.derive();
            let st = with_push(&g.push_problems, st);
            if st.problems != old.problems {
                let st = Arc::new(st);
                g.clocks.insert(st.index, st.clone());
                let v = json!({"now_us": monotonic_us(), "clock": &*st});
                self.push(&mut g, "clock", Some(st.index), v, Some(st));
            }
        }
    }

    /// Clocks read from the daemon (not through the hub) with the push's problems added.
    pub(crate) fn add_push_problems(&self, clocks: &mut [ClockStatus]) {
        chessclock_api::push::merge(clocks, &self.lock().push_problems);
    }

    /// The daemon answered the follower just now (its periodic ping).
    pub(crate) fn answered(&self) {
        self.lock().answered_us = Some(monotonic_us());
    }

    /// When the daemon last answered (CLOCK_MONOTONIC µs), if this hub is told: what the
    /// pages judge a board's data's age by, with the stream's heartbeat.
    pub(crate) fn answered_us(&self) -> Option<u64> {
        self.lock().answered_us
    }

    /// The round's paper boards' games, by board number.
    pub(crate) fn paper_games(&self) -> BTreeMap<u32, String> {
        (*self.lock().paper).clone()
    }

    /// Every clock's PGN as the hub's state has it: `Some` for a delayed hub (the games as
    /// they stood), `None` when the daemon is to be read live.
    pub(crate) fn pgns(&self) -> Option<BTreeMap<u32, Arc<str>>> {
        self.lock().pgns.clone()
    }

    /// Replay `ev` of another hub with that hub's state as it stood then (`frame`): the
    /// delay layer ([`crate::delay`]) feeds its delayed hub so. The event keeps its kind,
    /// clock and data (a `clock` event's and a snapshot's rebuilt from `frame`'s clocks, whose
    /// `as_of_us` is moved on by `shift_us`: a running clock counts as it did then).
    pub(crate) fn replay(&self, ev: &Event, frame: Frame, shift_us: u64) {
        let mut g = self.lock();
        let push = std::mem::take(&mut g.push_problems);
        g.clocks = frame
            .clocks
            .into_iter()
            .map(|c| {
                let mut c = (*c).clone();
                c.as_of_us = c.as_of_us.saturating_add(shift_us);
                (c.index, Arc::new(with_push(&push, c)))
            })
            .collect();
        g.push_problems = push;
        g.paper = frame.paper;
        g.pgns = Some(frame.pgns);
        g.ever_up |= frame.daemon.running;
        g.daemon = frame.daemon;
        let (data, status) = match ev.kind {
            "snapshot" => (Self::snapshot_value(&g), None),
            "clock" => {
                let st = ev.index.and_then(|i| g.clocks.get(&i).cloned());
                match &st {
                    Some(st) => (
                        json!({"now_us": monotonic_us(), "clock": &**st}),
                        st.clone().into(),
                    ),
                    None => return,
                }
            }
            _ => (serde_json::from_str(&ev.data).unwrap_or(Value::Null), None),
        };
        self.push(&mut g, ev.kind, ev.index, data, status);
    }

    /// This hub's state now, to be replayed later ([`Hub::replay`]) with `pgns`.
    pub(crate) fn frame(&self, pgns: BTreeMap<u32, Arc<str>>) -> Frame {
        let g = self.lock();
        Frame {
            clocks: g.clocks.values().cloned().collect(),
            paper: g.paper.clone(),
            pgns,
            daemon: g.daemon.clone(),
        }
    }

    /// Every clock now, in board order.
    pub(crate) fn clocks(&self) -> Vec<Arc<ClockStatus>> {
        let mut clocks: Vec<Arc<ClockStatus>> = self.lock().clocks.values().cloned().collect();
        in_board_order(&mut clocks);
        clocks
    }

    /// The daemon's state now.
    pub(crate) fn daemon(&self) -> Daemon {
        self.lock().daemon.clone()
    }

    /// Wait until the hub holds the follower's first answer (the daemon's clocks, or that
    /// it is not running), at most [`FIRST_ANSWER`]: a page opened as the bridge starts gets
    /// every clock the daemon has in its first snapshot, not an empty hub that fills a
    /// moment later.
    pub(crate) async fn first_answer(&self) {
        let mut answered = self.answered.subscribe();
        if tokio::time::timeout(FIRST_ANSWER, answered.wait_for(|a| *a))
            .await
            .is_err()
        {
            tracing::warn!(
                "chessclockd has not answered the bridge within {FIRST_ANSWER:?}; serving what                  the bridge has (no clocks yet)"
            );
        }
    }

    /// A new subscriber: after `last_id` (a resume) the events since, if the log still holds
    /// them all; otherwise a snapshot event of now, numbered as the last event so far.
    pub(crate) fn attach(&self, last_id: Option<u64>) -> Attach {
        let g = self.lock();
        let live = self.tx.subscribe();
        let newest = g.next_id - 1;
        if let Some(last) = last_id {
            let oldest = g.log.front().map_or(g.next_id, |e| e.id);
            if last <= newest && last + 1 >= oldest {
                let first = g.log.iter().filter(|e| e.id > last).cloned().collect();
                return Attach { first, live };
            }
        }
        let snapshot = Arc::new(Event {
            id: newest,
            kind: "snapshot",
            index: None,
            data: Self::snapshot_value(&g).to_string(),
            status: None,
        });
        Attach {
            first: vec![snapshot],
            live,
        }
    }
}

/// Put `clocks` in board order ([`ClockStatus::board_order`]): every list the bridge serves
/// (the snapshot, `/api/v1/clocks`, the PGN files, MQTT's) is in this order.
pub(crate) fn in_board_order<C: std::borrow::Borrow<ClockStatus>>(clocks: &mut [C]) {
    clocks.sort_by_key(|c| c.borrow().board_order());
}

/// The paper boards as the pages show them, in board order: each board's number, its game's
/// tags (`game_info`, as a clock's) and its result (`null` while it has none), read from its
/// result-only PGN.
pub(crate) fn paper_boards(games: &BTreeMap<u32, String>) -> Vec<Value> {
    games
        .iter()
        .map(|(board, pgn)| {
            let tags: BTreeMap<String, String> = chessclock_game::pgn::read::games(pgn)
                .into_iter()
                .next()
                .map(|g| g.tags.into_iter().collect())
                .unwrap_or_default();
            let result = tags
                .get("Result")
                .filter(|r| matches!(r.as_str(), "1-0" | "0-1" | "1/2-1/2"))
                .cloned();
            json!({"board": board, "game_info": tags, "result": result})
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A ready clock's status (also the HTTP tests' clocks).
    pub(crate) fn status(index: u32, white_ms: u64) -> ClockStatus {
        serde_json::from_value(json!({
            "clock": format!("/org/chessclockd/ChessClock1/Clock/{index}"), "index": index,
            "name": "b", "port": "/dev/x", "model": "", "firmware": "", "board_serial": "",
            "connected": true, "device_state": "ready", "white_side": "left",
            "time_control": "G/5", "game_state": "ready", "status": "ready", "as_of_us": 1,
            "t_ms": 1, "white_ms": white_ms, "black_ms": 300_000, "running": null,
            "text": {"white": "5:00", "black": "5:00"}, "phase": {"white": "main", "black": "main"},
            "moves": {"white": 0, "black": 0}, "detail": {"white": {}, "black": {}},
            "result": null}))
        .expect("status")
    }

    #[test]
    fn a_resume_replays_what_was_missed_and_an_old_id_gets_a_snapshot() {
        let hub = Hub::new(3);
        hub.daemon_up("0.1.0".into(), vec![status(0, 300_000)]); // id 1
        hub.clock(status(0, 300_000)); // unchanged: no event
        hub.clock(status(0, 299_000)); // id 2
        hub.game_event("pressed", 0, json!({"side": "white"})); // id 3
        let a = hub.attach(Some(1));
        let ids: Vec<u64> = a.first.iter().map(|e| e.id).collect();
        assert_eq!(ids, [2, 3]);
        hub.removed(0, "/x"); // id 4
        hub.clock(status(1, 1)); // id 5: the log holds 3..=5 now
        let a = hub.attach(Some(1));
        assert_eq!(a.first.len(), 1);
        assert_eq!(a.first[0].kind, "snapshot");
        assert_eq!(a.first[0].id, 5, "numbered as the newest event");
        let a = hub.attach(Some(2));
        let ids: Vec<u64> = a.first.iter().map(|e| e.id).collect();
        assert_eq!(ids, [3, 4, 5]);
        assert_eq!(hub.attach(None).first[0].kind, "snapshot");
        assert_eq!(
            hub.attach(Some(99)).first[0].kind,
            "snapshot",
            "an id from the future"
        );
    }

    #[test]
    fn clocks_are_listed_in_board_order_whatever_their_index() {
        let hub = Hub::new(10);
        let numbered = |index: u32, board: u32| {
            let mut c = status(index, 1);
            c.board = board;
            c
        };
        // A restart that attached the boards in another order: indices 0-3 are boards
        // 2, 1, 4, 3; a clock of an older daemon has no number and comes last.
        hub.daemon_up(
            "v".into(),
            vec![
                numbered(0, 2),
                numbered(1, 1),
                numbered(2, 0),
                numbered(3, 4),
                numbered(4, 3),
            ],
        );
        let boards: Vec<(u32, u32)> = hub.clocks().iter().map(|c| (c.board, c.index)).collect();
        assert_eq!(boards, [(1, 1), (2, 0), (3, 4), (4, 3), (0, 2)]);
        let snap: Value = serde_json::from_str(&hub.attach(None).first[0].data).expect("json");
        let listed: Vec<u64> = snap["clocks"]
            .as_array()
            .expect("clocks")
            .iter()
            .map(|c| c["board"].as_u64().expect("a board"))
            .collect();
        assert_eq!(listed, [1, 2, 3, 4, 0], "{snap}");
    }

    #[test]
    fn the_daemon_leaving_clears_clocks_and_coming_back_counts_a_restart() {
        let hub = Hub::new(10);
        hub.daemon_up("v".into(), vec![status(0, 1)]);
        hub.daemon_down("chessclockd stopped".into());
        assert!(hub.clocks().is_empty());
        assert!(!hub.daemon().running);
        hub.daemon_up("v".into(), vec![]);
        assert_eq!(hub.daemon().restarts, 1);
        assert!(hub.daemon().note.contains("back"), "{}", hub.daemon().note);
    }

    #[test]
    fn a_paper_board_is_shown_by_its_tags_and_result() {
        let hub = Hub::new(10);
        let pgn = |result: &str| {
            format!(
                "[Event \"Open\"]\n[Round \"2.5\"]\n[White \"Lee, Ann\"]\n[Black \"Bo\"]\n\
                 [WhiteElo \"2100\"]\n[Board \"5\"]\n[Result \"{result}\"]\n\n{result}\n"
            )
        };
        hub.paper(BTreeMap::from([(5, pgn("*"))]));
        let first = hub.attach(None).first[0].data.clone();
        let snap: Value = serde_json::from_str(&first).expect("json");
        let five = &snap["paper"][0];
        assert_eq!(five["board"], 5, "{snap}");
        assert_eq!(five["game_info"]["White"], "Lee, Ann", "{snap}");
        assert_eq!(five["game_info"]["WhiteElo"], "2100", "{snap}");
        assert_eq!(five["result"], Value::Null, "no result yet: {snap}");
        hub.paper(BTreeMap::from([(5, pgn("0-1"))]));
        let a = hub.attach(Some(1));
        assert_eq!(a.first.len(), 1, "one paper event");
        assert_eq!(a.first[0].kind, "paper");
        let ev: Value = serde_json::from_str(&a.first[0].data).expect("json");
        assert_eq!(ev["boards"], json!([5]));
        assert_eq!(ev["paper"][0]["result"], "0-1", "{ev}");
    }
}
