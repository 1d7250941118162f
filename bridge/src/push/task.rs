//! One `[[lichess]]` table's push, for as long as the bridge runs: after every change (on
//! the [`Schedule`]) the table's body is read ([`super::local_body`] or the fleet's), sent to
//! the Lichess round of the daemon's current round, and Lichess's answer made the boards'
//! problems ([`super::problems`]); the round is set started at its first pushed move and
//! finished once every game of the body has a result, or when the daemon's round rolls over;
//! a finished round is not pushed again until a result changes (a push would undo Lichess's
//! finish, §4 of the spec).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use super::answer::{self, Verdict};
use super::body::Body;
use super::client::{self, Answer};
use super::problems::Problems;
use super::schedule::{Outcome, Schedule};
use super::union::Union;
use super::{RATE_LIMITED_MS, REFUSED_MS, RoundSettings};
use crate::hub::Hub;
use crate::mqtt::games::pgn_facts;
use crate::settle::Settle;

/// What the table knows of the Lichess round it pushes to.
#[derive(Debug, Default)]
struct Pushed {
    /// The round's id.
    id: String,
    /// The body last taken by Lichess.
    text: String,
    /// The verdicts of the last push.
    verdicts: Vec<(u32, Verdict)>,
    /// The round was set started.
    started: bool,
    /// The round was set finished with these results; not pushed again while they stand.
    finished: Option<Vec<String>>,
    /// Something was pushed to it.
    any: bool,
}

/// Push table `table` (`round`) for as long as the bridge runs; `tls` for an https server;
/// `fleet`, the boards of every machine, for a `source = "fleet"` round; a half-move is
/// pushed once it stood `settle` ([`crate::settle`]).
#[allow(clippy::too_many_arguments)]
pub(crate) async fn run(
    conn: zbus::Connection,
    hub: Arc<Hub>,
    table: usize,
    round: RoundSettings,
    token: String,
    tls: Option<Arc<rustls::ClientConfig>>,
    mut fleet: Option<watch::Receiver<Union>>,
    problems: Arc<Problems>,
    settle: Duration,
) {
    let client = match crate::tls::http_client(Duration::from_secs(20), tls) {
        Ok(c) => c,
        Err(e) => {
            tracing::error!(round = %round.round, "cannot make an HTTP client: {e}");
            return;
        }
    };
    let base = Instant::now();
    let now_ms = || u64::try_from(base.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut live = hub.attach(None).live;
    let mut schedule = Schedule::default();
    let mut warned = BTreeSet::new();
    let mut facts: HashMap<u32, String> = HashMap::new();
    let mut settled = Settle::new(u64::try_from(settle.as_millis()).unwrap_or(u64::MAX));
    // When a held-back half-move is due.
    let mut settle_due: Option<u64> = None;
    let mut pushed = Pushed {
        id: round.round.clone(),
        ..Pushed::default()
    };
    schedule.changed(now_ms());
    loop {
        let wake = schedule
            .poll_timeout()
            .map(|t| base + Duration::from_millis(t));
        tokio::select! {
            ev = live.recv() => match ev {
                Ok(ev) if super::changes_pgn(ev.kind) => schedule.changed(now_ms()),
                // Game information (a name fixed, the colours swapped, a board renumbered)
                // changes a clock's state and its PGN: pushed as any change.
                Ok(ev) if ev.kind == "clock" => {
                    if let Some(st) = &ev.status {
                        let now = pgn_facts(st);
                        if facts.insert(st.index, now.clone()).is_some_and(|old| old != now) {
                            schedule.changed(now_ms());
                        }
                    }
                }
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => schedule.changed(now_ms()),
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            },
            Some(changed) = super::fleet_changed(&mut fleet) => match changed {
                Ok(()) => schedule.changed(now_ms()),
                Err(_) => return,
            },
            () = super::sleep_until(wake) => {}
            () = super::sleep_until(settle_due.map(|t| base + Duration::from_millis(t))) => {
                settle_due = None;
                schedule.changed(now_ms());
            }
        }
        if !schedule.start(now_ms()) {
            continue;
        }
        // The current round picks the Lichess round (unknown: the last one pushed to).
        let (body, fleet_round) = match &fleet {
            Some(fleet) => {
                let (body, current) = super::fleet_body(&fleet.borrow(), &round, &mut warned);
                (Ok(body), current)
            }
            None => (super::local_body(&conn, &hub, &round).await, None),
        };
        // Only the half-moves that stood the settle time.
        let body = body.map(|mut body| {
            let now = now_ms();
            settle_due = None;
            for g in &mut body.games {
                let (public, due) = settled.public(g.board, &g.pgn, now);
                g.pgn = public;
                settle_due = match (settle_due, due) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
            let boards: Vec<u32> = body.games.iter().map(|g| g.board).collect();
            settled.keep(&boards);
            body
        });
        let current = match fleet_round {
            Some(r) => Ok(r),
            None => super::current_round(&conn).await,
        };
        let daemon = super::daemon_rounds(&conn).await;
        if let Ok(current) = current
            && round.id_for(current, &daemon) != pushed.id
        {
            let id = round.id_for(current, &daemon).to_owned();
            tracing::info!(round = %id, "the round is {current}: pushing to Lichess round {id}");
            // The last round is over: finished, unless it is already.
            if pushed.any && pushed.finished.is_none() {
                let old = pushed.id.clone();
                set_status(&client, &round, &old, &token, "finished").await;
            }
            pushed = Pushed {
                id,
                ..Pushed::default()
            };
            problems.clear_table(table);
        }
        let outcome = match body {
            Ok(body) => {
                let outcome = send(&client, &round, &token, &body, &mut pushed).await;
                problems.pushed(table, &pushed.id, &pushed.verdicts, &body.over);
                outcome
            }
            Err(e) => {
                tracing::warn!(round = %pushed.id, "cannot read the round's PGN: {e:#}");
                Outcome::Failed
            }
        };
        if outcome == Outcome::Done && schedule.failures() > 0 {
            tracing::info!(round = %pushed.id, "pushing works again after {} failures", schedule.failures());
        }
        schedule.done(now_ms(), outcome);
    }
}

/// Push `body` to `pushed`'s round unless Lichess has it already (or the round is finished
/// with the same results); then set the round started or finished as it now is.
async fn send(
    client: &reqwest::Client,
    round: &RoundSettings,
    token: &str,
    body: &Body,
    pushed: &mut Pushed,
) -> Outcome {
    let text = body.text();
    let results = body.results();
    if text.is_empty() || text == pushed.text || pushed.finished.as_ref() == Some(&results) {
        return Outcome::Done;
    }
    let id = pushed.id.clone();
    let what = format!("round {id}");
    match client::post(
        client,
        &round.url(&id),
        token,
        client::Body::Pgn(&text),
        &what,
    )
    .await
    {
        Answer::Ok(answer) => {
            pushed.verdicts = answer::read(body, &answer);
            let refused = pushed
                .verdicts
                .iter()
                .filter(|(_, v)| *v != Verdict::Taken)
                .count();
            tracing::info!(round = %id, games = body.games.len(), refused, "pushed");
            pushed.text = text;
            pushed.any = true;
        }
        Answer::SlowDown(why) => {
            tracing::warn!(round = %id, "{why}");
            return Outcome::WaitFor(RATE_LIMITED_MS);
        }
        Answer::Refused(why) => {
            tracing::error!(round = %id, "{why}; retrying in 5 minutes");
            return Outcome::WaitFor(REFUSED_MS);
        }
        Answer::Failed(why) => {
            tracing::warn!(round = %id, "push failed, will retry: {why}");
            return Outcome::Failed;
        }
    }
    if !pushed.started && body.has_moves() && set_status(client, round, &id, token, "started").await
    {
        pushed.started = true;
    }
    let all = !results.is_empty() && results.iter().all(|r| r != "*");
    if all {
        if pushed.finished.as_ref() != Some(&results)
            && set_status(client, round, &id, token, "finished").await
        {
            tracing::info!(round = %id, "every game has its result: the round is finished");
            pushed.finished = Some(results);
        }
    } else {
        pushed.finished = None;
    }
    Outcome::Done
}

/// Set Lichess round `id` `status`; whether Lichess took it (else it is logged).
async fn set_status(
    client: &reqwest::Client,
    round: &RoundSettings,
    id: &str,
    token: &str,
    status: &str,
) -> bool {
    match client::set_status(client, &round.server, id, token, status).await {
        Answer::Ok(_) => {
            tracing::info!(round = %id, "Lichess round {id} is {status}");
            true
        }
        Answer::SlowDown(why) | Answer::Refused(why) | Answer::Failed(why) => {
            tracing::warn!(round = %id, "cannot set the round {status}: {why}");
            false
        }
    }
}
