//! Requests whose meaning depends on the game's state, through the whole actor.

use std::io;

use super::{plug, start_actor_with, until_state};
use crate::device::handle::{DeviceError, DeviceHandle, DeviceState, Request};
use crate::engine::Side;

/// The clock's time control as it stands now (asked, not read from the last publication).
async fn control_of(handle: &DeviceHandle) -> String {
    handle.live().await.expect("the actor answers").time_control
}

/// A control "before the start" (a `[[clock]]` table applied to a board) is set on a game
/// that has not started, and refused once it has, in the same step as the check: the game
/// keeps its control.
#[tokio::test(start_paused = true)]
async fn a_control_before_the_start_is_refused_once_the_game_runs() {
    let (stream, _actions, _view) = plug();
    let handle = start_actor_with(
        stream,
        Box::new(|| Err(io::Error::other("no replug here"))),
        "G/5 d/0",
    );
    until_state(&handle, "ready", |s| s == DeviceState::Ready).await;
    handle
        .request(Request::SetControlBeforeStart("G/3 inc/2".into()))
        .await
        .expect("a game that has not started takes it");
    assert_eq!(control_of(&handle).await, "G/3 inc/2");
    handle
        .request(Request::Start(Side::White))
        .await
        .expect("start");
    let refused = handle
        .request(Request::SetControlBeforeStart("G/10 d/5".into()))
        .await;
    assert!(
        matches!(&refused, Err(DeviceError::NotAllowed(m)) if m.contains("running")),
        "{refused:?}"
    );
    assert_eq!(control_of(&handle).await, "G/3 inc/2");
}
