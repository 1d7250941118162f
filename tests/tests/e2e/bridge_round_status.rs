//! End to end: the bridge keeps the Lichess round's status, which Lichess does not do for a
//! pushed round by itself (spec/lichess-broadcast.md §4). The real `chessclock-emu`,
//! `chessclockd` and `chessclock-bridge` against the Lichess stand-in: the round is set
//! `started` (`edit?patch=1`) at its first pushed move and `finished` once every board has a
//! result; a change after that which is not a result (a name fixed) is not pushed, so it
//! cannot clear the finish.

use std::time::Duration;

use anyhow::{Context, Result};
use chessclock_tests::bridge::Bridge;
use chessclock_tests::e2e::{ctl_ok, wait_moves};
use chessclock_tests::lichess::rig::PushRig;
use chessclock_tests::lichess::{Request, StandIn};

fn is_status(r: &Request, status: &str) -> bool {
    r.path == "/broadcast/round/StAt1234/edit?patch=1" && r.body == format!("status={status}")
}

#[test]
fn the_round_is_started_at_its_first_move_and_finished_once_every_board_has_a_result() -> Result<()>
{
    let lichess = StandIn::with_rounds(&["StAt1234"])?;
    let PushRig {
        dir: _dir,
        bus,
        mut emu,
        daemon: d,
        bridge_toml: cfg,
    } = PushRig::start("bridge-round-status", &lichess, "StAt1234", "")?;
    ctl_ok(
        &d,
        &[
            "info",
            "0",
            "white=Ju, Wenjun",
            "black=Lei, Tingjie",
            "round=1",
        ],
    );
    let _bridge = Bridge::spawn(bus.address(), &["--config", cfg.to_str().context("utf-8")?])?;
    ctl_ok(&d, &["start", "0"]);
    emu.send("move e2e4")?;
    emu.send("lever")?;
    wait_moves(&d, &["e4"])?;
    let started = lichess.next_request("the round set started", |r| is_status(r, "started"))?;
    assert_eq!(started.status, 200, "{started:?}");

    ctl_ok(&d, &["result", "0", "1-0"]);
    let finished = lichess.next_request("the round set finished", |r| is_status(r, "finished"))?;
    assert_eq!(finished.status, 200, "{finished:?}");
    let round = lichess.wait_round("StAt1234", "its finish", |r| r.finished_at.is_some())?;
    assert!(
        round.games().iter().all(|g| g.result.is_some()),
        "{round:#?}"
    );

    // A name fixed after the round is over: not pushed, the round stays finished.
    ctl_ok(&d, &["info", "0", "white=Ju, Wen-jun"]);
    let deadline = std::time::Instant::now() + Duration::from_secs(3);
    while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
        if let Ok(r) = lichess.requests.recv_timeout(left) {
            assert!(!r.path.ends_with("/push"), "a push after the finish: {r:?}");
        }
    }
    assert!(
        lichess
            .round("StAt1234")
            .is_some_and(|r| r.finished_at.is_some())
    );
    Ok(())
}
