//! The push's problems by board, as every output of the bridge shows them: what Lichess said
//! of each board's game at its table's last push (refused, fewer moves kept), the boards a
//! table leaves out past the 100 games of a round, the boards of the round no table takes,
//! and what the other machines' pushing bridges said of this machine's boards (MQTT,
//! `chessclockd/<host>/push/problems`); and which Lichess round each board's game went to at
//! its table's last push (the round check's `lichess`).
//!
//! Owns that state ([`Problems`], shared by the push tasks, MQTT and the outputs), its D-Bus
//! object (`org.chessclockd.Bridge1.Push` at `/org/chessclockd/Bridge1`: `chessclockctl status`
//! and `watch` read it) and the task that gives it to the hub ([`run`]: each clock's
//! `problems`, so the dashboard, `/api/v1/clocks`, SSE, MQTT states and the alerts see it).
//! The words are the api's ([`chessclock_api::push`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};

use chessclock_api::Problem;
use chessclock_api::push::{self as words, BusProblem};
use tokio::sync::watch;

use super::{MAX_GAMES, RoundSettings, Source, board_of};
use crate::hub::Hub;
use crate::push::answer::Verdict;
use crate::push::union::Union;

#[derive(Debug, Default)]
struct Inner {
    /// Table `i`'s problems by board: its last push's verdicts and the boards past the limit.
    tables: BTreeMap<usize, BTreeMap<u32, Problem>>,
    /// Boards of the round no table takes.
    unassigned: BTreeSet<u32>,
    /// What other machines' bridges said, by host.
    remote: BTreeMap<String, Vec<(u32, Problem)>>,
    /// Table `i`'s last push: the Lichess round and the boards whose games it sent.
    sent: BTreeMap<usize, (String, BTreeSet<u32>)>,
}

/// The push's problems, shared; every change is told on [`Problems::changed`].
#[derive(Debug)]
pub(crate) struct Problems {
    inner: Mutex<Inner>,
    tx: watch::Sender<u64>,
}

impl Default for Problems {
    fn default() -> Problems {
        Problems {
            inner: Mutex::default(),
            tx: watch::channel(0).0,
        }
    }
}

impl Problems {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn bump(&self) {
        self.tx.send_modify(|n| *n += 1);
    }

    /// A receiver told of every change.
    pub(crate) fn changed(&self) -> watch::Receiver<u64> {
        self.tx.subscribe()
    }

    /// Table `table` pushed `verdicts` to Lichess round `round` and left `over` out past the
    /// limit: its problems are now those (a game taken whole has none). `boards`: every board
    /// it sent; a board it no longer sends has no verdict of it any more.
    pub(crate) fn pushed(
        &self,
        table: usize,
        round: &str,
        verdicts: &[(u32, Verdict)],
        over: &[u32],
    ) {
        let mut now = BTreeMap::new();
        for (board, verdict) in verdicts {
            let p = match verdict {
                Verdict::Taken => continue,
                Verdict::Refused(error) => words::refused(*board, round, error),
                Verdict::Short { kept, sent } => words::short(*board, round, *kept, *sent),
            };
            now.insert(*board, p);
        }
        for board in over {
            now.insert(*board, words::past_limit(*board, round, MAX_GAMES));
        }
        let sent = (round.to_owned(), verdicts.iter().map(|(b, _)| *b).collect());
        let mut g = self.lock();
        let mut news = g.sent.get(&table) != Some(&sent);
        g.sent.insert(table, sent);
        let old = g.tables.get(&table);
        if old != Some(&now) && !(old.is_none() && now.is_empty()) {
            for (board, p) in &now {
                if old.and_then(|o| o.get(board)) != Some(p) {
                    tracing::warn!(round, "board {board}: {}: {}", p.text, p.fix);
                }
            }
            g.tables.insert(table, now);
            news = true;
        }
        drop(g);
        if news {
            self.bump();
        }
    }

    /// Table `table` pushes to another round now: what Lichess said of the last one's games
    /// is no longer news.
    pub(crate) fn clear_table(&self, table: usize) {
        let mut g = self.lock();
        let news = g.tables.remove(&table).is_some_and(|t| !t.is_empty());
        let sent = g.sent.remove(&table).is_some();
        drop(g);
        if news || sent {
            self.bump();
        }
    }

    /// Each board whose game a table of this bridge sent at its last push, with the Lichess
    /// round it went to.
    pub(crate) fn sent(&self) -> BTreeMap<u32, String> {
        let g = self.lock();
        let mut out = BTreeMap::new();
        for (round, boards) in g.sent.values() {
            for b in boards {
                out.insert(*b, round.clone());
            }
        }
        out
    }

    /// The boards no table takes are now `boards`.
    pub(crate) fn set_unassigned(&self, boards: BTreeSet<u32>) {
        let mut g = self.lock();
        if g.unassigned == boards {
            return;
        }
        for b in boards.difference(&g.unassigned) {
            tracing::warn!("board {b} is in no [[lichess]] table's boards: its game is not pushed");
        }
        g.unassigned = boards;
        drop(g);
        self.bump();
    }

    /// `host`'s pushing bridge says `problems` of its boards (an empty list: none).
    pub(crate) fn set_remote(&self, host: &str, problems: Vec<(u32, Problem)>) {
        let mut g = self.lock();
        if g.remote.get(host) == Some(&problems) {
            return;
        }
        match problems.is_empty() {
            true => g.remote.remove(host),
            false => g.remote.insert(host.to_owned(), problems),
        };
        drop(g);
        self.bump();
    }

    /// What this bridge's push says, by board (for the other machines).
    pub(crate) fn local(&self) -> Vec<(u32, Problem)> {
        let g = self.lock();
        let mut out: Vec<(u32, Problem)> = g
            .tables
            .values()
            .flat_map(|t| t.iter().map(|(b, p)| (*b, p.clone())))
            .collect();
        out.extend(g.unassigned.iter().map(|b| (*b, words::in_no_table(*b))));
        out.sort_by_key(|a| (a.0, a.1.rank));
        out
    }

    /// Every push problem known here: this bridge's and the other machines' bridges'.
    pub(crate) fn all(&self) -> Vec<(u32, Problem)> {
        let mut out = self.local();
        let g = self.lock();
        for problems in g.remote.values() {
            for (b, p) in problems {
                if !out.iter().any(|(ob, op)| ob == b && op == p) {
                    out.push((*b, p.clone()));
                }
            }
        }
        out.sort_by_key(|a| (a.0, a.1.rank));
        out
    }
}

/// The boards of the round no table takes: this machine's clocks and paper boards, and the
/// fleet's boards when a table pushes the fleet.
pub(crate) fn unassigned(
    tables: &[RoundSettings],
    hub: &Hub,
    fleet: Option<&Union>,
) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for c in hub.clocks() {
        let b = board_of(&c);
        let local = tables
            .iter()
            .any(|t| t.source == Source::Local && t.has(&c));
        let fleet = tables
            .iter()
            .any(|t| t.source == Source::Fleet && t.takes(b));
        if !local && !fleet {
            out.insert(b);
        }
    }
    let mut others: Vec<u32> = hub.paper_games().into_keys().collect();
    if let Some(u) = fleet {
        others.extend(u.round_boards());
    }
    let driven: BTreeSet<u32> = hub.clocks().iter().map(|c| board_of(c)).collect();
    for b in others {
        if !driven.contains(&b) && !tables.iter().any(|t| t.takes(b)) {
            out.insert(b);
        }
    }
    out
}

/// The bridge's push state on D-Bus (`org.chessclockd.Bridge1.Push`).
#[derive(Debug)]
pub(crate) struct PushObject {
    pub(crate) problems: Arc<Problems>,
    /// How many `[[lichess]]` tables this bridge pushes.
    pub(crate) tables: u32,
}

#[zbus::interface(name = "org.chessclockd.Bridge1.Push")]
impl PushObject {
    /// Each board's push problem: (board, kind, rank, text, fix), by board number.
    #[zbus(property)]
    fn problems(&self) -> Vec<BusProblem> {
        self.problems
            .all()
            .iter()
            .map(|(b, p)| words::to_bus(*b, p))
            .collect()
    }

    /// The Lichess round each board's game went to at its table's last push, by board
    /// number (a board no push has sent yet is not in it).
    #[zbus(property)]
    fn pushed(&self) -> BTreeMap<u32, String> {
        self.problems.sent()
    }

    /// How many `[[lichess]]` tables this bridge pushes (0: it pushes nothing to Lichess).
    #[zbus(property)]
    fn tables(&self) -> u32 {
        self.tables
    }
}

/// Give the hub every change of `problems` (each clock's list, and so every output); with
/// `tables`, judge which boards no table takes on every change of the hub or the fleet; tell
/// the D-Bus object's readers (`PropertiesChanged`) when `conn` serves it.
pub(crate) async fn run(
    hub: Arc<Hub>,
    problems: Arc<Problems>,
    tables: Vec<RoundSettings>,
    mut fleet: Option<watch::Receiver<Union>>,
    conn: zbus::Connection,
) {
    let mut changed = problems.changed();
    let mut live = hub.attach(None).live;
    // `changed()` marks what it saw as seen: the news is kept here.
    let mut news = true;
    loop {
        if !tables.is_empty() {
            let boards = match &fleet {
                Some(f) => unassigned(&tables, &hub, Some(&f.borrow())),
                None => unassigned(&tables, &hub, None),
            };
            problems.set_unassigned(boards);
        }
        if std::mem::take(&mut news) || changed.has_changed().unwrap_or(false) {
            changed.mark_unchanged();
            hub.set_push_problems(problems.all());
            if let Ok(iface) = conn
                .object_server()
                .interface::<_, PushObject>(words::BRIDGE_PATH)
                .await
            {
                let object = iface.get().await;
                let _ = object.problems_changed(iface.signal_emitter()).await;
                let _ = object.pushed_changed(iface.signal_emitter()).await;
            }
        }
        tokio::select! {
            r = changed.changed() => match r {
                Ok(()) => news = true,
                Err(_) => return,
            },
            ev = live.recv() => match ev {
                Ok(ev) if matches!(ev.kind, "clock" | "removed" | "snapshot" | "paper") => {}
                Ok(_) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                Err(_) => {}
            },
            Some(r) = async { match fleet.as_mut() { Some(f) => Some(f.changed().await), None => None } } => {
                if r.is_err() { fleet = None }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::push::boards::BoardSet;
    use chessclock_api::ClockStatus;

    fn table(boards: &str, source: Source) -> RoundSettings {
        RoundSettings {
            round: "AbCd1234".into(),
            rounds: BTreeMap::new(),
            token_file: None,
            clocks: Vec::new(),
            boards: Some(BoardSet::parse(boards).expect("boards")),
            server: "http://127.0.0.1:1".into(),
            source,
        }
    }

    #[test]
    fn a_board_of_the_round_no_table_takes_is_named_and_a_taken_one_is_not() {
        let hub = Hub::new(16);
        for (index, board) in [(0, 1), (1, 2), (2, 3), (3, 0)] {
            let c = ClockStatus {
                published: chessclock_api::PublishedClock {
                    index,
                    board,
                    ..Default::default()
                },
                ..ClockStatus::default()
            };
            hub.clock(c);
        }
        // Clock 3 has no board number: it is pushed as board 4 (index + 1).
        let tables = [table("1-2", Source::Local)];
        assert_eq!(unassigned(&tables, &hub, None), [3, 4].into());
        let tables = [table("1-2", Source::Local), table("3-4", Source::Fleet)];
        assert!(unassigned(&tables, &hub, None).is_empty());
        let p = Problems::default();
        p.set_unassigned([3].into());
        let all = p.all();
        assert_eq!(all.len(), 1);
        assert_eq!((all[0].0, all[0].1.kind.as_str()), (3, words::LEFT_OUT));
        assert!(all[0].1.fix.contains("boards = "), "{:?}", all[0].1);
    }

    #[test]
    fn each_board_sent_is_known_with_its_lichess_round_until_its_table_moves_on() {
        let p = Problems::default();
        let mut rx = p.changed();
        p.pushed(
            0,
            "AbCd1234",
            &[(1, Verdict::Taken), (2, Verdict::Taken)],
            &[],
        );
        p.pushed(1, "EfGh5678", &[(101, Verdict::Taken)], &[]);
        assert!(rx.has_changed().expect("open"), "a first push is news");
        rx.mark_unchanged();
        let sent = p.sent();
        assert_eq!(
            sent.into_iter().collect::<Vec<_>>(),
            [
                (1, "AbCd1234".to_owned()),
                (2, "AbCd1234".to_owned()),
                (101, "EfGh5678".to_owned())
            ]
        );
        p.pushed(
            0,
            "AbCd1234",
            &[(1, Verdict::Taken), (2, Verdict::Taken)],
            &[],
        );
        assert!(
            !rx.has_changed().expect("open"),
            "the same push again is no news"
        );
        p.pushed(0, "AbCd1234", &[(1, Verdict::Taken)], &[]);
        assert!(
            rx.has_changed().expect("open"),
            "a board no longer sent is news"
        );
        assert!(!p.sent().contains_key(&2));
        p.clear_table(1);
        assert_eq!(p.sent().keys().copied().collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn a_refusal_is_a_problem_until_the_game_is_taken_and_others_say_theirs() {
        let p = Problems::default();
        let mut rx = p.changed();
        p.pushed(
            0,
            "AbCd1234",
            &[
                (3, Verdict::Taken),
                (7, Verdict::Refused("PGN Error: No move found".into())),
            ],
            &[],
        );
        assert!(rx.has_changed().expect("open"));
        rx.mark_unchanged();
        let all = p.all();
        assert_eq!(all.len(), 1);
        assert_eq!((all[0].0, all[0].1.kind.as_str()), (7, words::REFUSED));
        p.pushed(
            0,
            "AbCd1234",
            &[
                (3, Verdict::Taken),
                (7, Verdict::Refused("PGN Error: No move found".into())),
            ],
            &[],
        );
        assert!(
            !rx.has_changed().expect("open"),
            "the same again is no change"
        );
        p.pushed(
            0,
            "AbCd1234",
            &[(3, Verdict::Taken), (7, Verdict::Taken)],
            &[101],
        );
        let all = p.all();
        assert_eq!(all.len(), 1, "board 7's problem went: {all:?}");
        assert_eq!((all[0].0, all[0].1.kind.as_str()), (101, words::LEFT_OUT));
        p.set_unassigned([160].into());
        p.set_remote("pi-b", vec![(20, words::short(20, "x", 3, 4))]);
        let boards: Vec<u32> = p.all().iter().map(|(b, _)| *b).collect();
        assert_eq!(boards, [20, 101, 160]);
        assert_eq!(p.local().len(), 2, "the other machine's are not said again");
        p.clear_table(0);
        p.set_remote("pi-b", Vec::new());
        assert_eq!(p.all().len(), 1);
    }
}
