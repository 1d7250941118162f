//! The board's move log over the link (dgt-protocol §8a): IDLE and `0x49`, nothing else sent
//! during the ~8 s dump, no dead link meanwhile, update mode, the lever and the board asked
//! for again afterwards; a board that does not send it.

use chessclock_protocol::emulator::{EE_LOG_BYTES, EmuConfig, MoveOrder, PieceAction, PieceMove};
use chessclock_protocol::{ClockCommand, Command};

use super::{Pair, ready, running_left};
use crate::link::driver::DriverEvent;
use crate::link::driver::board_log::BOARD_LOG_QUIET;

fn knights_out_and_back_until_the_ring_is_full(p: &mut Pair) {
    while p.emu.ee_log().len() < EE_LOG_BYTES {
        for uci in ["g1f3", "f3g1"] {
            let m = PieceMove::parse(uci, p.emu.pieces()).expect("move");
            p.emu
                .piece_action(p.now, PieceAction::Move(m, MoveOrder::MoverFirst))
                .expect("the board carries it out");
            p.run_for(50);
        }
    }
}

fn log_events(p: &Pair, from: u64) -> Vec<(u64, DriverEvent)> {
    p.events_since(from, |e| matches!(e, DriverEvent::BoardLog(_)))
}

#[test]
fn the_log_takes_8_s_without_a_dead_link_and_update_mode_comes_back() {
    let mut p = ready(EmuConfig::default());
    p.show(running_left());
    knights_out_and_back_until_the_ring_is_full(&mut p);
    p.run_for(1000);
    let asked = p.now;
    let expected = p.emu.ee_log();
    assert!(p.driver.request_board_log(p.at()));
    assert!(!p.driver.request_board_log(p.at()), "asked once at a time");
    p.run_for(1000);
    // During the dump the display changes and the lever is pressed: the set-and-run waits,
    // and the press is read from the lever once update mode is back.
    p.show(running_left());
    p.run_for(2000);
    p.emu.press_lever(p.now);
    p.run_until(asked + 12_000);
    let logs = log_events(&p, asked);
    let [(at, DriverEvent::BoardLog(Some(payload)))] = logs.as_slice() else {
        panic!("expected one log, got {logs:?}");
    };
    let at = *at;
    assert_eq!(payload.len(), EE_LOG_BYTES);
    assert!(*payload == expected, "the log as it stood when asked for");
    assert!(
        (asked + 8_000..asked + 9_000).contains(&at),
        "the dump took {} ms",
        at - asked
    );
    assert!(
        p.events_since(asked, |e| *e == DriverEvent::LinkDead)
            .is_empty(),
        "{:?}",
        p.events
    );
    // Between the request and the log: only IDLE and the request itself.
    let during: Vec<&Command> = p
        .host
        .iter()
        .filter(|(t, _)| (asked..at).contains(t))
        .map(|(_, c)| c)
        .collect();
    assert_eq!(during, [&Command::Reset, &Command::SendEeMoves]);
    // Afterwards: update mode, the clock's lever and the whole board, then the held push.
    assert_eq!(p.sent(&Command::SendUpdateNice).last(), Some(&at));
    assert_eq!(p.sent(&Command::SendClock).last(), Some(&at));
    assert_eq!(p.sent(&Command::SendBoard).last(), Some(&at));
    assert!(
        p.sent_clock(|c| matches!(c, ClockCommand::SetAndRun(_)))
            .iter()
            .any(|t| *t >= at),
        "the held set-and-run goes out after the log"
    );
    let presses = p.events_since(asked, |e| matches!(e, DriverEvent::Lever { .. }));
    assert_eq!(presses.len(), 1, "{presses:?}");
    assert!(presses[0].0 >= at);
}

#[test]
fn a_board_that_does_not_send_its_log_is_given_up_and_the_link_goes_on() {
    let mut p = ready(EmuConfig::default());
    p.muted = true;
    let asked = p.now;
    assert!(p.driver.request_board_log(p.at()));
    p.run_for(BOARD_LOG_QUIET.as_millis() as u64 + 100);
    assert_eq!(
        log_events(&p, asked),
        [(
            asked + BOARD_LOG_QUIET.as_millis() as u64,
            DriverEvent::BoardLog(None)
        )]
    );
    p.muted = false;
    p.run_for(20_000);
    assert!(
        p.events_since(asked, |e| *e == DriverEvent::LinkDead)
            .is_empty()
    );
    assert!(
        p.sent(&Command::SendUpdateNice).iter().any(|t| *t > asked),
        "update mode is re-armed"
    );
    // A log nobody asked for is drained, no event.
    let from = p.now;
    p.inject(&chessclock_protocol::Message::EeMoves(vec![0x6B]).encode());
    assert!(log_events(&p, from).is_empty());
}
