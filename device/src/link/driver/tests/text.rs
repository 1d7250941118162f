//! Text on the display and the game (issue 10 item 6): text is capped at [`MAX_TEXT`], and
//! [`Driver::end_text`](crate::link::driver::Driver::end_text) with a push shows the times
//! within a command round trip, whatever the text's own time.

use std::time::Duration;

use chessclock_protocol::ClockCommand;
use chessclock_protocol::emulator::{EmuConfig, Running};

use super::{Instant, Pair, ready, running_left};
use crate::link::display::BoardSide;
use crate::link::display::Face;
use crate::link::driver::MAX_TEXT;

fn ends(p: &Pair) -> Vec<u64> {
    p.sent_clock(|c| matches!(c, ClockCommand::End))
}

fn texts(p: &Pair) -> Vec<u64> {
    p.sent_clock(|c| matches!(c, ClockCommand::Ascii { .. }))
}

fn text(p: &mut Pair, what: &str, ms: u64) {
    let at = Instant::from_ms(p.now);
    p.driver.show_text(at, what, Duration::from_millis(ms));
}

/// The right half runs: the press of the left player.
fn pressed() -> Face {
    Face {
        left_s: 299,
        right_s: 180,
        run: Some(BoardSide::Right),
    }
}

#[test]
fn a_push_that_ends_the_text_shows_the_times_within_a_round_trip() {
    let mut p = ready(EmuConfig::default());
    p.show(running_left());
    p.run_until(1_500);
    text(&mut p, "HELLO", 5_000);
    p.run_until(2_000);
    assert_eq!(p.emu.view().text.as_deref(), Some("HELLO"));
    // The press: its times first, then END.
    p.face = Some(pressed());
    p.driver.end_text();
    p.driver
        .push_times(Instant::from_ms(2_000), pressed(), None);
    assert!(!p.driver.text_showing());
    p.run_until(2_000);
    let ack = EmuConfig::default().ack_delay_ms;
    p.run_for(2 * ack);
    let v = p.emu.view();
    assert_eq!((v.text, v.running), (None, Running::Right));
    assert_eq!(ends(&p), [2_000 + ack], "END right after the set-and-run");
    // The text's own end does not come back later.
    p.run_until(10_000);
    assert_eq!(ends(&p), [2_000 + ack]);
}

#[test]
fn text_not_sent_yet_is_dropped_when_the_game_ends_it() {
    let mut p = ready(EmuConfig::default());
    // A set-and-run in flight, the text waits behind it.
    p.show(running_left());
    text(&mut p, "HELLO", 5_000);
    p.face = Some(pressed());
    p.driver.end_text();
    p.driver
        .push_times(Instant::from_ms(p.now), pressed(), None);
    p.run_for(1_000);
    assert!(texts(&p).is_empty(), "the text never went out");
    assert_eq!(p.emu.view().text, None);
    assert_eq!(p.emu.view().running, Running::Right);
    // With no text at all, ending it sends nothing.
    let before = p.host.len();
    p.driver.end_text();
    p.run_for(1_000);
    assert_eq!(p.host.len(), before, "{:?}", &p.host[before..]);
}

#[test]
fn text_is_capped_at_ten_seconds() {
    let mut p = ready(EmuConfig::default());
    p.show(running_left());
    p.run_until(2_000);
    text(&mut p, "FOREVER", u64::from(u32::MAX));
    p.run_until(2_000 + 60_000);
    let cap = u64::try_from(MAX_TEXT.as_millis()).unwrap_or(u64::MAX);
    assert_eq!(cap, 10_000);
    assert_eq!(ends(&p), [2_000 + cap]);
    assert_eq!(p.emu.view().text, None, "the times are back");
}
