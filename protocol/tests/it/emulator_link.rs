//! The emulator's link timing: the Bluetooth quirks (an empty report before an ack, the ack
//! answering clock requests for a while) and reports that lag behind the clock, in virtual
//! time, read back through the `Decoder`.
#![cfg(feature = "emulator")]

use crate::emulator_support::{acks, clock, nice, reports, run, send, set_and_run};
use chessclock_protocol::emulator::{EmuConfig, Emulator};
use chessclock_protocol::{
    AckMeaning, ClockAck, ClockCommand, ClockCommandId, Command, Message, RunSide,
};

/// Clock requests (`0x41`) at `times`, with the emulator run in between and up to `until`;
/// everything the board sent.
fn requests(emu: &mut Emulator, from: u64, times: &[u64], until: u64) -> Vec<(u64, Message)> {
    let mut msgs = Vec::new();
    let mut at = from;
    for &t in times {
        msgs.extend(run(emu, at, t));
        send(emu, t, Command::SendClock);
        at = t;
    }
    msgs.extend(run(emu, at, until));
    msgs
}

fn kinds(msgs: &[(u64, Message)]) -> Vec<(u64, &'static str)> {
    msgs.iter().map(|(t, m)| (*t, m.type_name())).collect()
}

#[test]
fn bluetooth_quirks_empty_report_and_ack_answering_clock_requests() {
    // Spec §7.3: (a) an all-zero BWTIME may precede the ack; (b) for ~1 s after a
    // command+ack, a clock request is answered with that ack again instead of a report.
    let cfg = EmuConfig {
        ack_delay_ms: 50,
        ..EmuConfig::default()
    }
    .bluetooth(true);
    assert_eq!(cfg.bt_duplicate_window_ms, 1000);
    let mut emu = nice(cfg);
    clock(
        &mut emu,
        1000,
        ClockCommand::ascii("hello", 0).expect("fits"),
    );
    // Requests before the ack (a report), inside the window (the ack) and just after it.
    let msgs = requests(&mut emu, 1000, &[1020, 1300, 2049, 2050], 2999);
    assert_eq!(
        kinds(&msgs),
        [
            (1025, "clock_report"),
            (1050, "empty_clock_report"),
            (1050, "clock_ack"),
            (1305, "clock_ack"),
            (2054, "clock_ack"),
            (2055, "clock_report"),
        ],
        "no ack is repeated unasked"
    );
    let ascii_ok = ClockAck::ok(ClockCommandId::Ascii);
    assert!(acks(&msgs).iter().all(|(_, a)| *a == ascii_ok));
    assert_eq!(emu.clock_view(2999).text.as_deref(), Some("hello"));
    // A newer command's ack replaces it.
    clock(&mut emu, 3000, ClockCommand::Version);
    let msgs = requests(&mut emu, 3000, &[3100], 3999);
    let a = acks(&msgs);
    assert_eq!(a.len(), 2, "{msgs:?}");
    assert_eq!(a[0], (3050, a[1].1));
    assert_eq!(a[1].0, 3105);
    assert!(matches!(a[1].1.meaning(), AckMeaning::Version { .. }));
    // A board power cycle forgets it.
    clock(&mut emu, 5000, ClockCommand::End);
    emu.reset_board(5100);
    let msgs = requests(&mut emu, 5100, &[5200], 5999);
    assert_eq!(kinds(&msgs), [(5205, "clock_report")]);
}

#[test]
fn without_bluetooth_quirks_a_clock_request_always_gets_a_report() {
    let mut emu = nice(EmuConfig {
        ack_delay_ms: 50,
        ..EmuConfig::default()
    });
    clock(
        &mut emu,
        1000,
        ClockCommand::ascii("hello", 0).expect("fits"),
    );
    let msgs = requests(&mut emu, 1000, &[1300], 2999);
    assert_eq!(kinds(&msgs), [(1050, "clock_ack"), (1305, "clock_report")]);
}

#[test]
fn report_lag_delays_reports_not_the_clock() {
    let mut emu = nice(EmuConfig {
        report_lag_ms: 400,
        ..EmuConfig::default()
    });
    clock(&mut emu, 0, set_and_run(60, 60, RunSide::Left));
    let r = reports(&run(&mut emu, 0, 1500));
    let at: Vec<(u64, u32)> = r
        .iter()
        .map(|(t, r)| (*t, r.left.total_seconds()))
        .collect();
    assert_eq!(at, [(400, 60), (1400, 59)]);
}
