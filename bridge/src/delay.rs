//! The broadcast delay (`delay = "15m"` in the settings): every output of the bridge shows
//! the boards as they stood `delay` ago.
//!
//! One layer between the daemon's state and every output: the follower feeds the live
//! [`Hub`]; this task takes each of its events with the hub's state at that moment (every
//! clock, the paper boards, the daemon) and each changed clock's PGN read then (`GetPgn`),
//! and replays them, `delay` later, into the hub every output reads ([`Hub::replay`]): the
//! HTTP JSON and SSE, the pages, the PGN URLs, MQTT, the alerts and the Lichess push see only
//! the delayed hub, and read the PGN from it ([`Hub::pgns`]) instead of the daemon. A clock's
//! `as_of_us` is moved on by the delay, so a running clock counts down on the pages as it
//! did then. Nothing here is kept on disk: a bridge restarted shows nothing for `delay`.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use chessclock_api::ClockStatus;
use tokio::sync::broadcast::error::RecvError;
use tokio::time::Instant;

use crate::hub::{Event, Frame, Hub};

/// A duration setting such as `15m`, `90s`, `1h30m` or `0` (none): hours, minutes and
/// seconds, at most a day.
pub(crate) fn parse(text: &str) -> Result<Duration, String> {
    let bad = || {
        format!(
            "{:?} is not a delay; write a duration such as \"15m\", \"90s\" or \"1h30m\" (\"0\": \
             none), at most a day",
            crate::settings::shorten(text)
        )
    };
    let t = text.trim();
    if t == "0" {
        return Ok(Duration::ZERO);
    }
    let mut total: u64 = 0;
    let mut number = String::new();
    let mut units = 0;
    for c in t.chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let scale = match c {
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return Err(bad()),
        };
        let n: u64 = number.parse().map_err(|_| bad())?;
        total = n
            .checked_mul(scale)
            .and_then(|v| total.checked_add(v))
            .ok_or_else(bad)?;
        number.clear();
        units += 1;
    }
    if !number.is_empty() || units == 0 || total > 86_400 {
        return Err(bad());
    }
    Ok(Duration::from_secs(total))
}

/// Events after which a clock's PGN may have changed (read it again).
fn pgn_may_change(kind: &str) -> bool {
    kind == "clock" || crate::push::changes_pgn(kind)
}

/// Replay `live` into `out`, `delay` later, for as long as `live` lives.
pub(crate) async fn run(conn: zbus::Connection, live: Arc<Hub>, out: Arc<Hub>, delay: Duration) {
    let shift_us = u64::try_from(delay.as_micros()).unwrap_or(u64::MAX);
    let attach = live.attach(None);
    let mut rx = attach.live;
    let mut pgns: BTreeMap<u32, Arc<str>> = BTreeMap::new();
    let mut queue: VecDeque<(Instant, Arc<Event>, Frame)> = VecDeque::new();
    for ev in attach.first {
        let frame = capture(&conn, &live, &ev, &mut pgns).await;
        queue.push_back((Instant::now() + delay, ev, frame));
    }
    loop {
        let due = queue.front().map(|(t, _, _)| *t);
        tokio::select! {
            ev = rx.recv() => {
                let ev = match ev {
                    Ok(ev) => ev,
                    // Events missed: the state as it is now stands for them.
                    Err(RecvError::Lagged(_)) => Arc::new(Event {
                        id: 0,
                        kind: "snapshot",
                        index: None,
                        data: String::new(),
                        status: None,
                    }),
                    Err(RecvError::Closed) => return,
                };
                let frame = capture(&conn, &live, &ev, &mut pgns).await;
                queue.push_back((Instant::now() + delay, ev, frame));
            }
            () = crate::push::sleep_until(due) => {
                let now = Instant::now();
                while queue.front().is_some_and(|(t, _, _)| *t <= now) {
                    if let Some((_, ev, frame)) = queue.pop_front() {
                        out.replay(&ev, frame, shift_us);
                    }
                }
            }
        }
    }
}

/// `live`'s state after `ev`, with the PGN of the clocks `ev` may have changed read now
/// (all of them after a snapshot). A frame shares the clocks and the texts it did not change
/// with the frames before it: a long delay over many boards keeps one copy of each.
async fn capture(
    conn: &zbus::Connection,
    live: &Hub,
    ev: &Event,
    pgns: &mut BTreeMap<u32, Arc<str>>,
) -> Frame {
    let clocks = live.clocks();
    pgns.retain(|i, _| clocks.iter().any(|c| c.index == *i));
    let stale: Vec<&Arc<ClockStatus>> = match (ev.kind, ev.index) {
        ("snapshot" | "daemon", _) => clocks.iter().collect(),
        (kind, Some(i)) if pgn_may_change(kind) => clocks.iter().filter(|c| c.index == i).collect(),
        _ => Vec::new(),
    };
    for c in stale {
        match crate::pgn::read(conn, c).await {
            Ok(pgn) => {
                pgns.insert(c.index, Arc::from(pgn));
            }
            Err(e) => tracing::debug!("delay: cannot read clock {}'s PGN: {e:#}", c.index),
        }
    }
    live.frame(pgns.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_are_hours_minutes_and_seconds_and_bad_ones_say_how() {
        assert_eq!(parse("15m"), Ok(Duration::from_secs(900)));
        assert_eq!(parse("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse(" 90s "), Ok(Duration::from_secs(90)));
        assert_eq!(parse("0"), Ok(Duration::ZERO));
        for bad in [
            "",
            "15",
            "m",
            "15 min",
            "-5m",
            "25h",
            "1.5m",
            "99999999999999999999h",
        ] {
            let e = parse(bad).expect_err(bad);
            assert!(e.contains("is not a delay"), "{e}");
        }
    }
}
