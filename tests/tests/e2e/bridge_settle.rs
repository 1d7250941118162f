//! End to end: the settle time of the Lichess push. The real `chessclock-emu`,
//! `chessclockd` and `chessclock-bridge` against the Lichess stand-in: a move the board
//! misread (a knight knocked onto f3) and the operator took back (`move undo`) within the
//! settle time never reaches Lichess, where it would stay for good; the bridge's own
//! `/api/v1/clocks` (the operator's screen) shows it at once; the moves that stood are pushed.

use anyhow::{Context, Result};
use chessclock_tests::bridge::Bridge;
use chessclock_tests::e2e::{ctl_ok, wait_moves};
use chessclock_tests::lichess::StandIn;
use chessclock_tests::lichess::rig::PushRig;

#[test]
fn a_misread_move_taken_back_within_the_settle_time_never_reaches_lichess() -> Result<()> {
    let lichess = StandIn::with_rounds(&["SeTl1234"])?;
    // A settle time long enough for the undo below on a loaded test machine.
    let PushRig {
        dir: _dir,
        bus,
        mut emu,
        daemon: d,
        bridge_toml: cfg,
    } = PushRig::start("bridge-settle", &lichess, "SeTl1234", "settle = \"8s\"\n")?;
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
    let bridge = Bridge::spawn(bus.address(), &["--config", cfg.to_str().context("utf-8")?])?;
    ctl_ok(&d, &["start", "0"]);
    for uci in ["e2e4", "e7e5"] {
        emu.send(&format!("move {uci}"))?;
        emu.send("lever")?;
    }
    emu.send("move g1f3")?;
    wait_moves(&d, &["e4", "e5", "Nf3"])?;
    let api = bridge.get_json("/api/v1/clocks")?;
    assert_eq!(
        api[0]["moves_san"],
        serde_json::json!(["e4", "e5", "Nf3"]),
        "at once on the screen"
    );
    // Longer than the push's 0.5 s gathering of changes: without a settle time Nf3 would be
    // pushed in this window (and stay on Lichess for good).
    std::thread::sleep(std::time::Duration::from_secs(2));
    ctl_ok(&d, &["move", "0", "undo"]);
    wait_moves(&d, &["e4", "e5"])?;
    // The moves that stood are pushed once settled; Nf3 never was.
    let round = lichess.wait_round("SeTl1234", "e4 e5", |r| {
        r.games().iter().any(|g| g.moves == ["e4", "e5"])
    })?;
    for g in round.games() {
        assert!(
            !g.every_move().contains(&"Nf3"),
            "the misread move reached Lichess: {g:?}"
        );
    }
    let pushes: Vec<_> = std::iter::from_fn(|| lichess.requests.try_recv().ok())
        .filter(|r| r.path.ends_with("/push"))
        .collect();
    assert!(
        pushes.iter().all(|r| !r.body.contains("Nf3")),
        "a push held Nf3: {pushes:#?}"
    );
    Ok(())
}
