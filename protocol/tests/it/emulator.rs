//! The board + clock emulator, driven in virtual time; everything it sends is read back
//! through the protocol `Decoder`, so its output is checked to be well-formed as well. Board
//! modes, the probe, clock commands, the lever and buttons, a clock off or absent; the
//! Bluetooth quirks and report lag are in `emulator_link.rs`.
#![cfg(feature = "emulator")]

use crate::emulator_support::{acks, clock, nice, reports, run, send, set_and_run};
use chessclock_protocol::emulator::{BoardMode, EmuConfig, Emulator, Running};
use chessclock_protocol::{
    AckMeaning, Button, ClockAck, ClockCommand, ClockCommandId, ClockModel, ClockTime, Command,
    Message, RunSide, SetAndRun,
};

#[test]
fn probe_handshake_is_answered() {
    let mut emu = Emulator::new(EmuConfig::default());
    for cmd in [
        Command::SendUpdateNice,
        Command::SendVersion,
        Command::ReturnSerialNumber,
        Command::SendBoard,
    ] {
        send(&mut emu, 0, cmd);
    }
    clock(&mut emu, 10, ClockCommand::Version);
    let msgs = run(&mut emu, 0, 500);
    let kinds: Vec<&str> = msgs.iter().map(|(_, m)| m.type_name()).collect();
    assert!(kinds.contains(&"version"), "{kinds:?}");
    assert!(msgs.iter().any(|(_, m)| *m
        == Message::Version {
            major: 3,
            minor: 10
        }));
    assert!(
        msgs.iter()
            .any(|(_, m)| matches!(m, Message::SerialNumber(s) if s.len() == 5))
    );
    assert!(msgs.iter().any(|(_, m)| matches!(m, Message::BoardDump(_))));
    let versions: Vec<AckMeaning> = acks(&msgs).iter().map(|(_, a)| a.meaning()).collect();
    assert_eq!(
        versions,
        [AckMeaning::Version {
            major: 2,
            minor: 0,
            model: ClockModel::Dgt3000
        }]
    );
    let log: Vec<Command> = emu.host_log().iter().map(|e| e.command.clone()).collect();
    assert_eq!(log.len(), 5);
    assert_eq!(log[4], Command::Clock(ClockCommand::Version));
}

#[test]
fn xl_answers_major_one() {
    let mut emu = nice(EmuConfig {
        model: ClockModel::DgtXl,
        ..EmuConfig::default()
    });
    clock(&mut emu, 100, ClockCommand::Version);
    let msgs = run(&mut emu, 100, 500);
    let meaning = acks(&msgs).first().map(|(_, a)| a.meaning());
    assert!(
        matches!(
            meaning,
            Some(AckMeaning::Version {
                major: 1,
                model: ClockModel::DgtXl,
                ..
            })
        ),
        "{meaning:?}"
    );
}

#[test]
fn set_and_run_in_pc_mode_is_acked_after_the_delay_and_runs() {
    let cfg = EmuConfig {
        ack_delay_ms: 80,
        ..EmuConfig::default()
    };
    let mut emu = nice(cfg);
    clock(&mut emu, 1000, set_and_run(300, 185, RunSide::Left));
    let msgs = run(&mut emu, 1000, 3500);
    let a = acks(&msgs);
    assert_eq!(a.len(), 1, "{a:?}");
    assert_eq!(a[0], (1080, ClockAck::ok(ClockCommandId::SetAndRun)));
    let view = emu.clock_view(3500);
    assert_eq!(
        (view.left_seconds, view.right_seconds, view.running),
        (298, 185, Running::Left)
    );
    assert!(view.last_set_and_run.is_some());
}

#[test]
fn set_and_run_outside_pc_mode_gets_error_ack_and_changes_nothing() {
    let mut emu = nice(EmuConfig {
        pc_mode: false,
        ..EmuConfig::default()
    });
    clock(&mut emu, 200, set_and_run(300, 300, RunSide::Left));
    let msgs = run(&mut emu, 200, 3000);
    let a = acks(&msgs);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].1.bytes[0], 0x40);
    assert_eq!(
        a[0].1.meaning(),
        AckMeaning::Error {
            command: ClockCommandId::SetAndRun,
            code: 0x40
        }
    );
    let view = emu.clock_view(3000);
    assert_eq!((view.left_seconds, view.running), (0, Running::None));
    // Selecting PC mode makes the same command work.
    emu.set_pc_mode(3000, true);
    clock(&mut emu, 3000, set_and_run(300, 300, RunSide::Left));
    let msgs = run(&mut emu, 3000, 3500);
    assert!(acks(&msgs).iter().any(|(_, a)| a.is_positive()));
}

#[test]
fn countdown_has_one_second_resolution_and_freezes_with_final_flag() {
    let mut emu = nice(EmuConfig::default());
    clock(&mut emu, 500, set_and_run(10, 3, RunSide::Right));
    // Before the first whole second nothing is lost.
    assert_eq!(emu.clock_view(1499).right_seconds, 3);
    assert_eq!(emu.clock_view(1500).right_seconds, 2);
    assert_eq!(emu.clock_view(2499).right_seconds, 2);
    let msgs = run(&mut emu, 2499, 10_000);
    let view = emu.clock_view(10_000);
    assert_eq!(view.right_seconds, 0);
    assert!(view.right_flag && !view.left_flag);
    assert_eq!(view.running, Running::None);
    assert_eq!(view.left_seconds, 10, "the other half never ran");
    let last = reports(&msgs)
        .last()
        .map(|(t, r)| (*t, *r))
        .expect("reports");
    assert_eq!(last.0, 3500, "flag falls at the third whole second");
    assert!(last.1.right.final_flag && !last.1.running);
    assert_eq!(last.1.right.total_seconds(), 0);
    // Frozen: no more ticks are scheduled.
    assert_eq!(emu.poll_timeout(), None);
}

#[test]
fn update_nice_reports_on_change_only() {
    let mut emu = nice(EmuConfig::default());
    // Stopped clock: nothing changes, nothing is reported.
    assert!(reports(&run(&mut emu, 100, 5000)).is_empty());
    clock(&mut emu, 5000, set_and_run(60, 60, RunSide::Left));
    let r = reports(&run(&mut emu, 5000, 8000));
    let times: Vec<(u64, u32)> = r
        .iter()
        .map(|(t, r)| (*t, r.left.total_seconds()))
        .collect();
    assert_eq!(times, [(5000, 60), (6000, 59), (7000, 58), (8000, 57)]);
}

#[test]
fn update_mode_reports_every_second_even_when_stopped() {
    let mut emu = Emulator::new(EmuConfig::default());
    send(&mut emu, 0, Command::SendUpdate);
    let r = reports(&run(&mut emu, 0, 4000));
    let at: Vec<u64> = r.iter().map(|(t, _)| *t).collect();
    // From a second after the mode was entered: entering it sends nothing (spec §3, §7.1).
    assert_eq!(at, [1000, 2000, 3000, 4000]);
}

/// Entering UPDATE or UPDATE_NICE sends no report (the spec says none); a host that wants
/// the clock as it stands asks with `0x41`, answered in any mode.
#[test]
fn entering_an_update_mode_sends_no_report_and_0x41_answers_one() {
    for mode in [Command::SendUpdateNice, Command::SendUpdate] {
        let mut emu = Emulator::new(EmuConfig::default());
        emu.press_lever(0);
        send(&mut emu, 10, mode.clone());
        assert!(reports(&run(&mut emu, 10, 900)).is_empty(), "{mode:?}");
        send(&mut emu, 900, Command::SendClock);
        let r = reports(&run(&mut emu, 900, 990));
        assert_eq!(r.len(), 1, "{mode:?}: {r:?}");
        assert!(r[0].1.right_high, "{mode:?}: the lever as it stands");
    }
    // A change after entering UPDATE_NICE is reported.
    let mut emu = nice(EmuConfig::default());
    emu.press_lever(200);
    assert_eq!(reports(&run(&mut emu, 200, 300)).len(), 1);
}

#[test]
fn idle_and_update_board_send_no_reports_and_no_acks() {
    for mode in [Command::Reset, Command::SendUpdateBoard] {
        let mut emu = Emulator::new(EmuConfig::default());
        send(&mut emu, 0, mode.clone());
        clock(&mut emu, 10, set_and_run(60, 60, RunSide::Left));
        clock(&mut emu, 20, ClockCommand::Version);
        emu.press_button(30, Button::Run);
        let msgs = run(&mut emu, 0, 5000);
        assert!(msgs.is_empty(), "{mode:?}: {msgs:?}");
        // The clock still executed the command (acks are what is missing).
        // Ticks at 1010, 2010, 3010 and 4010 ms.
        assert_eq!(emu.clock_view(5000).left_seconds, 56, "{mode:?}");
        // 0x41 still answers one report.
        send(&mut emu, 5000, Command::SendClock);
        let r = reports(&run(&mut emu, 5000, 6000));
        assert_eq!(r.len(), 1, "{mode:?}");
        assert_eq!(r[0].1.left.total_seconds(), 56);
    }
}

#[test]
fn lever_toggles_bit_one_without_switching_sides_in_pc_mode() {
    let mut emu = nice(EmuConfig::default());
    clock(&mut emu, 100, set_and_run(60, 60, RunSide::Left));
    run(&mut emu, 100, 500);
    emu.press_lever(500);
    let r = reports(&run(&mut emu, 500, 600));
    assert_eq!(r.len(), 1);
    assert!(r[0].1.right_high);
    assert_eq!(r[0].1.status & 0x02, 0x02);
    // PC mode, no flag 0x08: the left half still runs until the host says otherwise.
    assert_eq!(emu.clock_view(2100).running, Running::Left);
    emu.press_lever(2200);
    let r = reports(&run(&mut emu, 2200, 2300));
    let last = r.last().expect("the lever press is reported");
    assert_eq!(last.0, 2200);
    assert!(!last.1.right_high);
}

#[test]
fn lever_switches_sides_with_toggle_flag_and_outside_pc_mode() {
    let mut emu = nice(EmuConfig::default());
    let t = |s| ClockTime::from_total_seconds(s).expect("in range");
    let mut s = SetAndRun::new(t(60), t(60), RunSide::Left);
    s.flags.0 |= 0x08;
    clock(&mut emu, 0, ClockCommand::SetAndRun(s));
    emu.press_lever(500);
    assert_eq!(emu.clock_view(500).running, Running::Right);
    // Outside PC mode the clock behaves like a stand-alone clock.
    emu.set_pc_mode(600, false);
    emu.press_lever(700);
    assert_eq!(emu.clock_view(700).running, Running::Left);
}

#[test]
fn button_presses_are_acked_with_their_code() {
    let mut emu = nice(EmuConfig::default());
    emu.press_button(100, Button::Plus);
    emu.press_button(200, Button::Back);
    let a: Vec<AckMeaning> = acks(&run(&mut emu, 100, 1000))
        .iter()
        .map(|(_, a)| a.meaning())
        .collect();
    assert_eq!(a.len(), 2);
    assert!(
        matches!(a[0], AckMeaning::Button { button: Button::Plus, held } if held.contains(Button::Plus))
    );
    assert!(matches!(
        a[1],
        AckMeaning::Button {
            button: Button::Back,
            ..
        }
    ));
}

#[test]
fn clock_off_then_switched_on_late() {
    let mut emu = nice(EmuConfig {
        clock_on: false,
        ..EmuConfig::default()
    });
    send(&mut emu, 100, Command::SendClock);
    clock(&mut emu, 200, ClockCommand::Version);
    let msgs = run(&mut emu, 100, 3000);
    assert!(acks(&msgs).is_empty(), "an off clock does not answer");
    let r = reports(&msgs);
    assert_eq!(r.len(), 1);
    assert!(!r[0].1.clock_connected, "status bit 0x20 when off");
    emu.set_clock_power(3000, true);
    let r = reports(&run(&mut emu, 3000, 3100));
    assert_eq!(r.len(), 1, "switching on is a change that is reported");
    assert!(r[0].1.clock_connected);
    clock(&mut emu, 3100, ClockCommand::Version);
    let a = acks(&run(&mut emu, 3100, 3500));
    assert!(matches!(
        a[0].1.meaning(),
        AckMeaning::Version { major: 2, .. }
    ));
    // Switching off again is reported as "no clock".
    emu.set_clock_power(4000, false);
    let r = reports(&run(&mut emu, 4000, 4100));
    assert!(!r[0].1.clock_connected);
}

#[test]
fn absent_clock_reports_no_clock_and_never_acks() {
    let mut emu = nice(EmuConfig {
        clock_present: false,
        ..EmuConfig::default()
    });
    emu.set_clock_power(50, true);
    clock(&mut emu, 100, ClockCommand::Version);
    clock(&mut emu, 200, set_and_run(60, 60, RunSide::Left));
    send(&mut emu, 300, Command::SendClock);
    let msgs = run(&mut emu, 100, 3000);
    assert!(acks(&msgs).is_empty());
    let r = reports(&msgs);
    assert!(!r.is_empty() && r.iter().all(|(_, r)| r.status & 0x20 != 0));
}

#[test]
fn text_commands_show_and_end_clears() {
    let mut emu = nice(EmuConfig::default());
    clock(&mut emu, 0, ClockCommand::ascii("Nf3", 0).expect("fits"));
    assert_eq!(emu.clock_view(10).text.as_deref(), Some("Nf3"));
    clock(&mut emu, 20, ClockCommand::End);
    assert_eq!(emu.clock_view(30).text, None);
    let mut xl = nice(EmuConfig {
        model: ClockModel::DgtXl,
        ..EmuConfig::default()
    });
    clock(
        &mut xl,
        0,
        ClockCommand::xl_text(" e2 e4", false).expect("fits"),
    );
    assert_eq!(xl.clock_view(10).text.as_deref(), Some(" e2 e4"));
}

#[test]
fn garbage_host_bytes_are_skipped() {
    let mut emu = Emulator::new(EmuConfig::default());
    emu.on_host_bytes(0, &[0x00, 0x7F, 0x4D]);
    assert_eq!(emu.garbage_bytes(), 2);
    let msgs = run(&mut emu, 0, 100);
    assert_eq!(msgs.len(), 1);
    assert_eq!(emu.clock_view(100).board_mode, BoardMode::Idle);
}

#[test]
fn board_reset_goes_idle_but_the_clock_keeps_running() {
    let mut emu = nice(EmuConfig::default());
    clock(&mut emu, 100, set_and_run(60, 60, RunSide::Left));
    emu.reset_board(600);
    assert!(
        run(&mut emu, 600, 3000).is_empty(),
        "IDLE after a power cycle"
    );
    let view = emu.clock_view(3000);
    assert_eq!(view.board_mode, BoardMode::Idle);
    assert_eq!((view.left_seconds, view.running), (58, Running::Left));
}

#[test]
fn flag_fall_report_matches_the_real_capture_shape() {
    // Spec §9.1, end of johan.inbytes: `8d 00 0a 30 00 00 20 00 16 12` (with a
    // time-per-move clock; this emulator never sets bit 5, so byte 3 is 0x10 here).
    let mut emu = nice(EmuConfig::default());
    emu.press_lever(0);
    clock(&mut emu, 0, set_and_run(16, 2, RunSide::Right));
    let msgs = run(&mut emu, 0, 3000);
    let (_, last) = reports(&msgs).pop().expect("reports");
    let bytes = Message::ClockReport(last).encode();
    assert_eq!(
        bytes,
        [0x8D, 0x00, 0x0A, 0x10, 0x00, 0x00, 0x00, 0x00, 0x16, 0x12]
    );
}
