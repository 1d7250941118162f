//! Fifty unplug/replug cycles of a board in the middle of a game (issue 10 item 9), with the
//! whole actor over an in-memory duplex and the sans-IO emulator, in tokio's paused time:
//! deterministic, no pty. Presses, unplug points and the time out are drawn from a seeded
//! generator. After every replug the game must be where the rules say: every press counted,
//! the same side running, the waiting side's time unchanged, the running side charged exactly
//! the time that passed, and the clock showing it.

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chessclock_protocol::emulator::{EmuConfig, Emulator, Lcg, Running};
use tokio::io::DuplexStream;
use tokio::time::Instant;

use super::{Action, plug_with, start_actor_with, until_state, until_view};
use crate::device::io::port::Opener;
use crate::engine::{Side, Status};
use chessclock_device::link::state::DeviceState;
use chessclock_device::session::interface::ClockEvent;

const CYCLES: usize = 50;

/// A board whose lever stands as after `presses` presses (the lever does not move while the
/// cable is out).
fn board_after(presses: u64) -> Emulator {
    let mut emu = Emulator::new(EmuConfig::default());
    if !presses.is_multiple_of(2) {
        emu.press_lever(0);
    }
    emu
}

#[tokio::test(start_paused = true)]
async fn fifty_unplug_replug_cycles_keep_the_game_where_the_rules_say() {
    let seed = 0x00c0_ffee;
    let mut rng = Lcg::new(seed);
    let (stream, mut actions, _first_view) = plug_with(board_after(0));
    let mut view;
    let spare: Arc<Mutex<Option<DuplexStream>>> = Arc::new(Mutex::new(None));
    let next = Arc::clone(&spare);
    let open: Opener<DuplexStream> = Box::new(move || {
        next.lock()
            .expect("lock")
            .take()
            .ok_or_else(|| io::Error::other("not plugged in"))
    });
    let handle = start_actor_with(stream, open, "G/60 inc/2");
    until_state(&handle, "ready", |s| s == DeviceState::Ready).await;
    handle
        .request(chessclock_device::session::interface::Request::Start(
            Side::White,
        ))
        .await
        .expect("start");
    let mut presses = 0u64;
    let mut worst_shown = 0i64;
    for cycle in 0..CYCLES {
        let ctx = format!("seed {seed:#x}, cycle {cycle}");
        for _ in 0..rng.below(3) {
            tokio::time::sleep(Duration::from_millis(300 + rng.below(1_500))).await;
            let mut events = handle.subscribe();
            actions.send(Action::Lever).expect("board alive");
            loop {
                if let ClockEvent::Pressed(chessclock_engine::Press { .. }) =
                    events.recv().await.expect("events")
                {
                    break;
                }
            }
            presses += 1;
        }
        tokio::time::sleep(Duration::from_millis(rng.below(2_000))).await;
        let before = handle.live().await.expect("live").snapshot;
        let unplugged_at = Instant::now();
        // Pull the cable: the board's end goes away, the actor reads EOF.
        drop(actions);
        until_state(&handle, "disconnected", |s| s == DeviceState::Disconnected).await;
        tokio::time::sleep(Duration::from_millis(rng.below(4_000))).await;
        let (stream, new_actions, new_view) = plug_with(board_after(presses));
        (actions, view) = (new_actions, new_view);
        *spare.lock().expect("lock") = Some(stream);
        until_state(&handle, "ready again", |s| s == DeviceState::Ready).await;
        let white = presses.is_multiple_of(2);
        let half = if white { Running::Left } else { Running::Right };
        until_view(&mut view, "the running side shown", |v| v.running == half).await;
        let after = handle.live().await.expect("live").snapshot;
        let passed = u64::try_from(unplugged_at.elapsed().as_millis()).expect("ms");
        assert_eq!(after.status, Status::Running, "{ctx}: {after:?}");
        assert_eq!(
            u64::from(after.moves.white + after.moves.black),
            presses,
            "{ctx}: every press counted"
        );
        let (run, wait) = if white {
            (Side::White, Side::Black)
        } else {
            (Side::Black, Side::White)
        };
        assert_eq!(after.running, Some(run), "{ctx}");
        let ms = |s: &crate::engine::Snapshot, side| match side {
            Side::White => s.white_ms,
            Side::Black => s.black_ms,
        };
        assert_eq!(
            ms(&after, wait),
            ms(&before, wait),
            "{ctx}: the waiting side"
        );
        assert_eq!(
            ms(&before, run) - ms(&after, run),
            passed,
            "{ctx}: the running side is charged exactly the time that passed"
        );
        let shown = view.borrow().clone();
        let shown_s = i64::from(if white {
            shown.left_seconds
        } else {
            shown.right_seconds
        });
        let engine_s = i64::try_from(ms(&after, run).div_ceil(1000)).expect("s");
        assert!(
            (shown_s - engine_s).abs() <= 1,
            "{ctx}: the clock shows {shown_s} s, the engine has {} ms",
            ms(&after, run)
        );
        worst_shown = worst_shown.max((shown_s - engine_s).abs());
    }
    assert!(
        presses >= 30,
        "the cycles pressed the lever {presses} times"
    );
}
