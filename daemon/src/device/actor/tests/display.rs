//! The display follows the game (issue 10 item 6), through the whole actor: a press ends
//! text at once, text is capped, and a double-flag player on extra time keeps the flag icon.

use std::io;
use std::time::Duration;

use chessclock_protocol::emulator::{ClockView, EmuConfig, Running};
use tokio::sync::watch;
use tokio::time::Instant;

use super::{Action, plug, start_actor, start_actor_with, until_state, until_view};
use crate::device::handle::{DeviceError, DeviceState, Request};
use crate::engine::Side;

/// Time from now until the clock shows `f` (virtual time).
async fn shown_within(
    view: &mut watch::Receiver<ClockView>,
    what: &str,
    f: impl Fn(&ClockView) -> bool,
) -> Duration {
    let from = Instant::now();
    until_view(view, what, f).await;
    from.elapsed()
}

/// White presses half a second later, with text on the display: the text ends and Black's
/// time runs within a few command round trips (the text's ack, the set-and-run, the END).
async fn press_ends_the_text(
    actions: &tokio::sync::mpsc::UnboundedSender<Action>,
    view: &mut watch::Receiver<ClockView>,
) {
    tokio::time::sleep(Duration::from_millis(500)).await;
    actions.send(Action::Lever).expect("board alive");
    let took = shown_within(view, "black running, no text", |v| {
        v.text.is_none() && v.running == Running::Right
    })
    .await;
    let ack = Duration::from_millis(EmuConfig::default().ack_delay_ms);
    assert!(took <= 3 * ack + Duration::from_millis(10), "took {took:?}");
}

/// A press while text is on the display (issue 10 item 6): the text ends at once and the
/// times of the press show within a command round trip or so (the text's ack, the
/// set-and-run, the END), not when the text's time is up.
#[tokio::test(start_paused = true)]
async fn a_press_ends_the_text_on_the_display_at_once() {
    let (stream, actions, mut view) = plug();
    let handle = start_actor(stream, Box::new(|| Err(io::Error::other("no replug here"))));
    until_state(&handle, "ready", |s| s == DeviceState::Ready).await;
    handle
        .request(Request::Start(Side::White))
        .await
        .expect("start");
    until_view(&mut view, "white running", |v| v.running == Running::Left).await;
    handle
        .request(Request::ShowText {
            text: "HELLO".into(),
            ms: 5_000,
        })
        .await
        .expect("text");
    until_view(&mut view, "the text", |v| {
        v.text.as_deref() == Some("HELLO")
    })
    .await;
    press_ends_the_text(&actions, &mut view).await;
    let white_ms = handle.live().await.expect("live").snapshot.white_ms;
    assert_eq!(
        u64::from(view.borrow().left_seconds),
        white_ms.div_ceil(1000),
        "white's time after the press"
    );
}

/// Text for longer than the limit is refused with a message saying the limit, and nothing is
/// shown; the limit itself is taken.
#[tokio::test(start_paused = true)]
async fn text_longer_than_ten_seconds_is_refused() {
    let (stream, _actions, mut view) = plug();
    let handle = start_actor(stream, Box::new(|| Err(io::Error::other("no replug here"))));
    until_state(&handle, "ready", |s| s == DeviceState::Ready).await;
    for ms in [10_001, u32::MAX] {
        let err = handle
            .request(Request::ShowText {
                text: "LONG".into(),
                ms,
            })
            .await
            .expect_err("over the limit");
        let DeviceError::Invalid(msg) = &err else {
            panic!("an invalid argument: {err:?}")
        };
        assert!(msg.contains("at most 10000 ms"), "{msg}");
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(view.borrow().text, None, "nothing shown");
    handle
        .request(Request::ShowText {
            text: "TEN".into(),
            ms: 10_000,
        })
        .await
        .expect("the limit itself");
    let took = shown_within(&mut view, "the text", |v| v.text.as_deref() == Some("TEN")).await;
    let gone = shown_within(&mut view, "the times again", |v| v.text.is_none()).await;
    assert!(
        (took + gone).as_millis().abs_diff(10_000) <= 100,
        "{took:?} + {gone:?}"
    );
}

/// Double flag on the clock (issue 10 item 6): the first flag lights the flag icon of that
/// player's half for as long as the player is on extra time; the "W NO WIN" announcement
/// gives way to the player's press; main time given back by the arbiter puts the icon out
/// and the main time on the display.
#[tokio::test(start_paused = true)]
async fn double_flag_extra_time_keeps_the_flag_icon_until_main_time_is_given_back() {
    let (stream, actions, mut view) = plug();
    let handle = start_actor_with(
        stream,
        Box::new(|| Err(io::Error::other("no replug here"))),
        "G/1 df/30:10:hybrid",
    );
    until_state(&handle, "ready", |s| s == DeviceState::Ready).await;
    handle
        .request(Request::Start(Side::White))
        .await
        .expect("start");
    until_view(&mut view, "white running", |v| v.running == Running::Left).await;
    tokio::time::sleep(Duration::from_secs(55)).await;
    assert!(!view.borrow().left_flag_icon, "no icon on main time");
    until_view(&mut view, "the announcement", |v| {
        v.text.as_deref() == Some("W NO WIN")
    })
    .await;
    until_view(&mut view, "white's flag icon", |v| v.left_flag_icon).await;
    press_ends_the_text(&actions, &mut view).await;
    // Lasting: still there several moves later.
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(1_000)).await;
        actions.send(Action::Lever).expect("board alive");
    }
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let v = view.borrow().clone();
    assert!(v.left_flag_icon && !v.right_flag_icon, "{v:?}");
    assert_eq!(v.text, None);
    // The arbiter gives White main time back.
    handle.request(Request::Pause).await.expect("pause");
    handle
        .request(Request::Adjust {
            side: Side::White,
            field: "main_ms".parse().expect("a field"),
            op: chessclock_engine::AdjustOp::Set,
            ms: 20_000,
        })
        .await
        .expect("adjust");
    until_view(&mut view, "the icon out, main time shown", |v| {
        !v.left_flag_icon && v.left_seconds == 20
    })
    .await;
    let live = handle.live().await.expect("live");
    assert_eq!(live.snapshot.white_ms, 20_000);
}
