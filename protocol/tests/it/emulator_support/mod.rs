//! Helpers shared by the emulator's test files: drive it in virtual time, decode what it sent,
//! pick out acks and reports. Test scaffolding only; it must not assert anything itself.

use chessclock_protocol::emulator::{EmuConfig, Emulator};
use chessclock_protocol::{
    ClockAck, ClockCommand, ClockReport, ClockTime, Command, Decoded, Decoder, Message, RunSide,
    SetAndRun,
};

/// Run the emulator from `from` to `to` ms, waking at each of its timeouts, and decode what
/// it sent. Panics on any malformed output.
pub(crate) fn run(emu: &mut Emulator, from: u64, to: u64) -> Vec<(u64, Message)> {
    let mut out = Vec::new();
    let mut dec = Decoder::new();
    let mut now = from;
    loop {
        dec.push(&emu.poll_output(now));
        for item in dec.by_ref() {
            match item {
                Ok(Decoded::Message(m)) => out.push((now, m)),
                other => panic!("malformed emulator output at {now} ms: {other:?}"),
            }
        }
        match emu.poll_timeout() {
            Some(t) if t <= to => {
                now = t.max(now);
                emu.handle_timeout(now);
            }
            _ => break,
        }
    }
    out
}

pub(crate) fn send(emu: &mut Emulator, now: u64, cmd: Command) {
    emu.on_host_bytes(now, &cmd.encode());
}

pub(crate) fn clock(emu: &mut Emulator, now: u64, cmd: ClockCommand) {
    send(emu, now, Command::Clock(cmd));
}

pub(crate) fn set_and_run(left: u32, right: u32, run: RunSide) -> ClockCommand {
    let t = |s| ClockTime::from_total_seconds(s).expect("in range");
    ClockCommand::SetAndRun(SetAndRun::new(t(left), t(right), run))
}

pub(crate) fn acks(msgs: &[(u64, Message)]) -> Vec<(u64, ClockAck)> {
    msgs.iter()
        .filter_map(|(t, m)| match m {
            Message::ClockAck(a) => Some((*t, *a)),
            _ => None,
        })
        .collect()
}

pub(crate) fn reports(msgs: &[(u64, Message)]) -> Vec<(u64, ClockReport)> {
    msgs.iter()
        .filter_map(|(t, m)| match m {
            Message::ClockReport(r) => Some((*t, *r)),
            _ => None,
        })
        .collect()
}

/// A board in UPDATE_NICE with the default DGT 3000 in PC mode, handshake answers drained.
pub(crate) fn nice(cfg: EmuConfig) -> Emulator {
    let mut emu = Emulator::new(cfg);
    send(&mut emu, 0, Command::SendUpdateNice);
    run(&mut emu, 0, 100);
    emu
}
