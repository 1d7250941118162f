//! The fleet as its screens show it (a `fleet = true` bridge's dashboard and
//! `/api/v1/clocks`, `chessclockctl fleet`): every machine's clocks, from the retained
//! `chessclockd/<host>/clock/<i>/state` topics (an empty payload removes a clock), each
//! machine's `online` / `offline` (its last will) and when it was last heard (any of its
//! messages; its heartbeat says so every few seconds, and how its CLOCK_MONOTONIC stands
//! against this machine's, by which a running clock's instant `as_of_us` is moved onto this
//! machine's clock for the pages to count on).
//!
//! [`Fleet::boards`] is the one list they show: this machine's own clocks when it has them
//! (read from its daemon; its own published ones stand in, stale, while its daemon is away)
//! and every other machine's, each with its `host`, whether its machine is `online` and
//! whether it is `stale` (its machine offline or not heard within [`STALE_AFTER_US`]: shown,
//! not gone, with a `stale` problem), two machines with one board number a
//! `duplicate_board` problem on both, in board order.
//!
//! Pure: no MQTT, no HTTP and no clock read here (the time is passed in); it must not
//! subscribe, serve or decide anything but what the screens show.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{HEARTBEAT_EVERY_S, Topics};
use crate::{ClockStatus, Problem};

/// A machine not heard for this long (three heartbeats, µs) has its boards marked stale.
pub const STALE_AFTER_US: u64 = 3 * HEARTBEAT_EVERY_S * 1_000_000;

/// One board of the fleet: the clock's status JSON with its machine and whether its data is
/// stale.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Board {
    /// The machine whose clock it is (its name in the topics).
    pub host: String,
    /// Its machine's bridge said `online` last (this machine's own clocks: true).
    pub online: bool,
    /// Its machine is offline or silent: this is the last state heard.
    pub stale: bool,
    /// The clock, its `as_of_us` on this machine's clock.
    #[serde(flatten)]
    pub clock: ClockStatus,
}

/// What is known of one machine.
#[derive(Debug, Default)]
struct Host {
    /// Its `status` topic: `Some(true)` online, `Some(false)` offline; `None`: not seen.
    online: Option<bool>,
    /// When any of its messages last came (this machine's µs).
    heard_us: u64,
    /// This machine's CLOCK_MONOTONIC less that machine's (µs), from its last heartbeat.
    offset_us: Option<i64>,
}

/// A clock of another machine as last published.
#[derive(Debug)]
struct Remote {
    status: ClockStatus,
    /// When it came (this machine's µs).
    received_us: u64,
}

/// Every machine's clocks and liveness, as heard on the broker.
#[derive(Debug)]
pub struct Fleet {
    /// This machine's name as its topics spell it.
    own: String,
    clocks: BTreeMap<(String, u32), Remote>,
    hosts: BTreeMap<String, Host>,
}

/// A board's number as the fleet's topics use it: its `board`, else index + 1 (a daemon
/// without board numbers), as `board/<B>/pgn` and the push's problems count.
fn number(c: &ClockStatus) -> u32 {
    match c.board {
        0 => c.index + 1,
        b => b,
    }
}

impl Fleet {
    /// An empty fleet seen from the machine `own` (its `host` setting; `""` for a reader on
    /// no machine of the fleet, such as `chessclockctl fleet`).
    pub fn new(own: &str) -> Fleet {
        let status = Topics::new(own).status();
        let own = Topics::parse_status(&status).unwrap_or(own).to_owned();
        Fleet {
            own,
            clocks: BTreeMap::new(),
            hosts: BTreeMap::new(),
        }
    }

    /// This machine's name as its topics spell it.
    pub fn own(&self) -> &str {
        &self.own
    }

    /// Take in one message of the broker, heard at `now_us`; whether what the fleet shows
    /// changed, or why the message was not understood (for the caller to log).
    pub fn apply(&mut self, topic: &str, payload: &[u8], now_us: u64) -> Result<bool, String> {
        if let Some(host) = Topics::parse_status(topic).filter(|h| !h.contains('/')) {
            let online = payload.trim_ascii() == b"online";
            let h = self.heard(host, now_us);
            return Ok(h.online.replace(online) != Some(online));
        }
        if let Some(host) = Topics::parse_heartbeat(topic) {
            #[derive(serde::Deserialize)]
            struct Beat {
                now_us: u64,
            }
            let beat: Beat = serde_json::from_slice(payload)
                .map_err(|e| format!("{topic}: not a heartbeat ({e})"))?;
            let offset = i64::try_from(now_us).unwrap_or(i64::MAX)
                - i64::try_from(beat.now_us).unwrap_or(i64::MAX);
            self.heard(host, now_us).offset_us = Some(offset);
            return Ok(false);
        }
        let Some((host, index)) = Topics::parse_state(topic) else {
            return Ok(false);
        };
        self.heard(host, now_us);
        let key = (host.to_owned(), index);
        if payload.is_empty() {
            return Ok(self.clocks.remove(&key).is_some());
        }
        let status: ClockStatus = serde_json::from_slice(payload)
            .map_err(|e| format!("{topic}: not a clock status ({e})"))?;
        let same = self.clocks.get(&key).is_some_and(|r| r.status == status);
        self.clocks.insert(
            key,
            Remote {
                status,
                received_us: now_us,
            },
        );
        Ok(!same)
    }

    fn heard(&mut self, host: &str, now_us: u64) -> &mut Host {
        let h = self.hosts.entry(host.to_owned()).or_default();
        h.heard_us = now_us;
        h
    }

    /// Why `host`'s boards are stale at `now_us`, as a problem, or `None`.
    fn silent(&self, host: &str, now_us: u64) -> Option<Problem> {
        let h = self.hosts.get(host)?;
        let text = if h.online == Some(false) {
            format!("stale: {host}'s bridge is offline (its last state shown)")
        } else if now_us.saturating_sub(h.heard_us) > STALE_AFTER_US {
            format!(
                "stale: no news from {host} for over {} s (its last state shown)",
                STALE_AFTER_US / 1_000_000
            )
        } else {
            return None;
        };
        Some(Problem {
            kind: "stale".into(),
            rank: 0,
            text,
            fix: format!(
                "check {host}: is it on and on the network? systemctl status chessclock-bridge \
                 there"
            ),
        })
    }

    /// Every board of the fleet at `now_us`, in board order: `local`, this machine's clocks
    /// as its daemon has them (`None`: the daemon is not there; its clocks as this machine
    /// last published them stand in, stale), and every other machine's.
    pub fn boards(&self, now_us: u64, local: Option<&[ClockStatus]>) -> Vec<Board> {
        let mut out: Vec<Board> = local
            .unwrap_or_default()
            .iter()
            .map(|c| Board {
                host: self.own.clone(),
                online: true,
                stale: false,
                clock: c.clone(),
            })
            .collect();
        for ((host, _), r) in &self.clocks {
            let own = *host == self.own;
            if own && local.is_some() {
                continue;
            }
            let mut clock = r.status.clone();
            let offset = self.hosts.get(host).and_then(|h| h.offset_us);
            clock.as_of_us = match offset {
                Some(o) => u64::try_from(i64::try_from(clock.as_of_us).unwrap_or(i64::MAX) + o)
                    .unwrap_or(0),
                None => r.received_us,
            };
            let stale = match own {
                true => Some(Problem {
                    kind: "stale".into(),
                    rank: 0,
                    text: format!(
                        "stale: chessclockd on {host} does not answer this bridge (its last \
                         state shown)"
                    ),
                    fix: "check chessclockd: systemctl status chessclockd; journalctl -u \
                          chessclockd"
                        .into(),
                }),
                false => self.silent(host, now_us),
            };
            let is_stale = stale.is_some();
            if let Some(p) = stale {
                clock.problems.insert(0, p);
            }
            let online = self.hosts.get(host).and_then(|h| h.online) == Some(true);
            out.push(Board {
                host: host.clone(),
                online,
                stale: is_stale,
                clock,
            });
        }
        let mut hosts: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
        for b in &out {
            hosts
                .entry(number(&b.clock))
                .or_default()
                .insert(b.host.clone());
        }
        for b in &mut out {
            let n = number(&b.clock);
            let others: Vec<&str> = hosts[&n]
                .iter()
                .map(String::as_str)
                .filter(|h| *h != b.host)
                .collect();
            if others.is_empty() {
                continue;
            }
            let others = others.join(" and ");
            b.clock.problems.push(Problem {
                kind: "duplicate_board".into(),
                rank: 1,
                text: format!("board {n} is also on {others}"),
                fix: format!(
                    "give each board its own number: board = N in the [[clock]] tables of {} or \
                     {others}, then restart chessclockd there",
                    b.host
                ),
            });
            b.clock.problems.sort_by_key(|p| p.rank);
        }
        out.sort_by(|a, b| {
            let key = |x: &Board| {
                let (none, board, index) = x.clock.board_order();
                (none, board, x.host.clone(), index)
            };
            key(a).cmp(&key(b))
        });
        out
    }
}

#[cfg(test)]
mod tests;
