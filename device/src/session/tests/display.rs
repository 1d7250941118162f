//! The display follows the game (issue 10 item 6), through the session in virtual time: a
//! press ends text at once, a double-flag player on extra time keeps the flag icon; and the
//! board counts the moves of a multi-period control.

use chessclock_protocol::emulator::{EmuConfig, Running};

use super::{Rig, config, engine, until};
use crate::session::MoveSource;
use crate::session::interface::Request;
use chessclock_engine::Side;

/// White presses half a second later, with text on the display: the text ends and Black's
/// time runs within a few command round trips (the text's ack, the set-and-run, the END).
fn press_ends_the_text(rig: &mut Rig) {
    rig.run_until(rig.now + 500);
    rig.press();
    let pressed = rig.now;
    let shown = until(rig, 1_000, "black running, no text", |r| {
        let v = r.emu.view();
        v.text.is_none() && v.running == Running::Right
    });
    let ack = EmuConfig::default().ack_delay_ms;
    assert!(
        shown - pressed <= 3 * ack + 10,
        "took {} ms",
        shown - pressed
    );
}

/// A press while text is on the display (issue 10 item 6): the text ends at once and the
/// times of the press show within a command round trip or so (the text's ack, the
/// set-and-run, the END), not when the text's time is up.
#[test]
fn a_press_ends_the_text_on_the_display_at_once() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.start();
    until(&mut rig, 1_000, "white running", |r| {
        r.emu.view().running == Running::Left
    });
    rig.request(Request::ShowText {
        text: "HELLO".into(),
        ms: 5_000,
    })
    .expect("text");
    until(&mut rig, 1_000, "the text", |r| {
        r.emu.view().text.as_deref() == Some("HELLO")
    });
    press_ends_the_text(&mut rig);
    let white_ms = rig.published().snapshot.white_ms;
    assert_eq!(
        u64::from(rig.view().left_seconds),
        white_ms.div_ceil(1000),
        "white's time after the press"
    );
}

/// Double flag on the clock (issue 10 item 6): the first flag lights the flag icon of that
/// player's half for as long as the player is on extra time; the "W NO WIN" announcement
/// gives way to the player's press; main time given back by the arbiter puts the icon out
/// and the main time on the display.
#[test]
fn double_flag_extra_time_keeps_the_flag_icon_until_main_time_is_given_back() {
    let mut rig = Rig::ready("G/1 df/30:10:hybrid", EmuConfig::default());
    rig.start();
    until(&mut rig, 1_000, "white running", |r| {
        r.emu.view().running == Running::Left
    });
    rig.run_until(rig.now + 55_000);
    assert!(!rig.view().left_flag_icon, "no icon on main time");
    until(&mut rig, 10_000, "the announcement", |r| {
        r.emu.view().text.as_deref() == Some("W NO WIN")
    });
    until(&mut rig, 1_000, "white's flag icon", |r| {
        r.emu.view().left_flag_icon
    });
    press_ends_the_text(&mut rig);
    // Lasting: still there several moves later.
    for _ in 0..4 {
        rig.run_until(rig.now + 1_000);
        rig.press();
    }
    rig.run_until(rig.now + 1_000);
    let v = rig.view();
    assert!(v.left_flag_icon && !v.right_flag_icon, "{v:?}");
    assert_eq!(v.text, None);
    // The arbiter gives White main time back.
    rig.request(Request::Pause).expect("pause");
    rig.request(Request::Adjust {
        side: Side::White,
        field: "main_ms".parse().expect("a field"),
        op: chessclock_engine::AdjustOp::Set,
        ms: 20_000,
    })
    .expect("adjust");
    until(&mut rig, 1_000, "the icon out, main time shown", |r| {
        let v = r.emu.view();
        !v.left_flag_icon && v.left_seconds == 20
    });
    assert_eq!(rig.published().snapshot.white_ms, 20_000);
}

/// With `move_source = "board"` (the default) a multi-period control counts the moves on the
/// pieces: an extra press without a move does not bring the period's time early.
#[test]
fn the_board_counts_the_moves_of_a_multi_period_control() {
    let cfg = super::super::SessionConfig {
        move_source: MoveSource::Board,
        ..config()
    };
    let mut rig = Rig::with(cfg, engine("2/1 SD/1"), 0, None, EmuConfig::default());
    rig.run_until(1_000);
    rig.start();
    let play = |rig: &mut Rig, uci: &str| {
        rig.move_piece(uci);
    };
    for action in ["e2e4", "lever", "e7e5", "lever", "lever", "lever"] {
        rig.run_until(rig.now + 1_000);
        match action {
            "lever" => rig.press(),
            uci => play(&mut rig, uci),
        }
    }
    rig.run_until(rig.now + 1_000);
    let live = rig.published();
    // White presses without moving: still one move on the board.
    assert_eq!(live.moves_san, ["e4", "e5"], "{:?}", live.clock);
    assert_eq!(
        live.snapshot.moves.white, 1,
        "the extra press is not a move"
    );
    assert!(
        live.snapshot.white_ms < 60_000,
        "no period time without the board's second move: {}",
        live.snapshot.white_ms
    );
    // White's second move on the board, then the press: the period's minute is added.
    play(&mut rig, "g1f3");
    rig.run_until(rig.now + 1_000);
    rig.press();
    rig.run_until(rig.now + 1_000);
    let live = rig.published();
    assert_eq!(live.snapshot.moves.white, 2);
    assert!(
        live.snapshot.white_ms > 60_000,
        "{}",
        live.snapshot.white_ms
    );
}

#[test]
fn a_clock_reporting_a_low_battery_is_published_so() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    assert!(!rig.published().battery_low);
    rig.emu.set_battery_low(rig.now, true);
    rig.run_until(rig.now + 1_500);
    assert!(rig.published().battery_low, "the report's bit");
    rig.emu.set_battery_low(rig.now, false);
    rig.run_until(rig.now + 1_500);
    assert!(!rig.published().battery_low, "changed");
}

/// The times the session's own timer was due until `until_ms`: the wake-ups the device
/// thread pays beyond reading the clock.
fn own_wakeups(rig: &mut Rig, until_ms: u64) -> usize {
    let mut woke = 0;
    for _ in 0..100_000 {
        let own = rig
            .session
            .poll_timeout()
            .map(crate::link::driver::Instant::as_ms);
        let clock = rig.emu.poll_timeout();
        match [own, clock].into_iter().flatten().min() {
            Some(t) if t <= until_ms => {
                // The clock's own deadlines (its display's seconds) are no wake-up of the
                // session's: only its bytes are, and they come with their lag.
                if own == Some(t) {
                    woke += 1;
                }
                rig.now = rig.now.max(t);
                rig.step();
            }
            _ => break,
        }
    }
    rig.now = until_ms;
    rig.step();
    woke
}

/// A running clock reports as its display changes; each report's wake-up compares the
/// display as the device's own second would, so a quiet game (a countdown the clock keeps
/// by itself) wakes the session by its timer hardly at all, not once per second.
#[test]
fn a_running_clock_s_reports_stand_for_the_device_s_seconds() {
    // Its reports come a little after its display changed, as over USB.
    let clock = EmuConfig {
        report_lag_ms: 7,
        ..EmuConfig::default()
    };
    let mut rig = Rig::ready("G/5 inc/3", clock);
    rig.start();
    until(&mut rig, 1_000, "white running", |r| {
        r.emu.view().running == Running::Left
    });
    rig.run_until(rig.now + 2_000);
    let until_ms = rig.now + 20_000;
    let woke = own_wakeups(&mut rig, until_ms);
    assert!(woke <= 2, "{woke} wake-ups of the session's own in 20 s");
    assert_eq!(rig.emu.view().running, Running::Left, "the game ran on");
}
