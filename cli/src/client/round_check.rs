//! `chessclockctl round check`: the round's go/no-go, printed one line per board (each
//! failed check with its fix), or as JSON; `--wait` checks again on every signal of the
//! daemon (and of the bridge's push) until every board is ready.
//!
//! Owns the printing and the waiting; the checks are `chessclock_api::round_check`'s. It must
//! not decide what a board needs.

use chessclock_api::proxy::ManagerProxy;
use chessclock_api::round_check::{self, BoardReadiness, RoundBoard};
use chessclock_engine::notation;
use zbus::Connection;

use super::commands::{out_line, to_json};
use super::feed::{Feed, Happening};
use super::resolve::all_clocks;
use super::said::Voice;
use super::{BusArgs, Failure, Result, bus_failure};

/// Check the current round (`control`: the round's, else the one most clocks have); with
/// `wait`, again on every change until every board is ready. Exit 1 when a board is not.
pub(super) async fn run(
    conn: &Connection,
    bus: &BusArgs,
    mgr: &ManagerProxy<'_>,
    control: Option<&str>,
    wait: bool,
    voice: Voice,
) -> Result<()> {
    let control = match control {
        Some(typed) => Some(
            notation::parse(typed)
                .map_err(|e| {
                    Failure::Action(format!(
                        "--control {typed:?} is not a time control ({e}); e.g. \"G/90 inc/30\""
                    ))
                })?
                .canonical,
        ),
        None => None,
    };
    let mut feed = if wait {
        Some(Feed::open(conn).await.map_err(|e| bus_failure(bus, e))?.0)
    } else {
        None
    };
    let mut shown: Vec<BoardReadiness> = Vec::new();
    loop {
        let round = mgr.round().await.map_err(|e| bus_failure(bus, e))?;
        let boards: Vec<RoundBoard> = mgr
            .get_round_boards()
            .await
            .map_err(|e| bus_failure(bus, e))?
            .into_iter()
            .map(|(board, white, black, _, index, _)| RoundBoard {
                board,
                white,
                black,
                clock: u32::try_from(index).ok(),
            })
            .collect();
        let clocks = all_clocks(conn, bus).await?;
        let push = chessclock_api::push::pushing(conn).await;
        let checked = round_check::check(&boards, &clocks, control.as_deref(), push.as_ref());
        let ready = checked.iter().filter(|b| b.ready).count();
        let all = ready == checked.len();
        if voice.json {
            if feed.is_none() || all {
                out_line(&to_json(&serde_json::json!({
                    "round": round, "ready": all, "boards": checked,
                }))?)?;
            }
        } else {
            for b in checked.iter().filter(|b| !shown.contains(b)) {
                out_line(&line(b))?;
            }
            if feed.is_none() || all || checked != shown {
                out_line(&format!(
                    "round {round}: {ready} of {} boards ready",
                    checked.len()
                ))?;
            }
        }
        if all {
            return Ok(());
        }
        let Some(feed) = feed.as_mut() else {
            return Err(Failure::Action(format!(
                "{} boards of round {round} are not ready",
                checked.len() - ready
            )));
        };
        shown = checked;
        // Check again at the daemon's next signal (a property, a clock come or gone).
        loop {
            match feed.next().await {
                Happening::Signal(_) | Happening::Push | Happening::Back => break,
                Happening::Gone => continue,
                Happening::Lost(e) => {
                    return Err(Failure::NotRunning(format!("lost the bus ({e})")));
                }
            }
        }
    }
}

/// `board 3 (clock 2): ready`, or each failed check with its fix.
fn line(b: &BoardReadiness) -> String {
    let what = match b.clock {
        Some(i) => format!("board {} (clock {i})", b.board),
        None => format!("board {} (paper)", b.board),
    };
    if b.ready {
        return format!("{what}: ready");
    }
    let failed: Vec<String> = b
        .checks
        .iter()
        .filter(|c| !c.ok)
        .map(|c| format!("{}: {} ({})", c.check, c.text, c.fix))
        .collect();
    format!("{what}: NOT READY: {}", failed.join("; "))
}
