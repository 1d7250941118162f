//! The emulator under faults and random input: the fault layer is deterministic, the
//! decoder resyncs after it, and no input makes the emulator emit malformed bytes.
#![cfg(feature = "emulator")]

use chessclock_protocol::emulator::{EmuConfig, Emulator, FaultConfig};
use chessclock_protocol::{
    Button, ClockCommand, ClockTime, Command, Decoded, Decoder, RunSide, SetAndRun,
};

fn send(emu: &mut Emulator, now: u64, cmd: Command) {
    emu.on_host_bytes(now, &cmd.encode());
}

fn clock(emu: &mut Emulator, now: u64, cmd: ClockCommand) {
    send(emu, now, Command::Clock(cmd));
}

fn set_and_run(left: u32, right: u32, run: RunSide) -> ClockCommand {
    let t = |s| ClockTime::from_total_seconds(s).expect("in range");
    ClockCommand::SetAndRun(SetAndRun::new(t(left), t(right), run))
}

fn faulty_stream(seed: u64) -> (Vec<u8>, Vec<u8>) {
    let faults = FaultConfig {
        drop: 0.2,
        corrupt: 0.2,
        duplicate: 0.2,
        split: 0.3,
        stall: 0.1,
        stall_ms: 700,
        seed,
        ..FaultConfig::default()
    };
    let drive = |faults: FaultConfig| {
        let mut emu = Emulator::new(EmuConfig {
            faults,
            ..EmuConfig::default()
        });
        send(&mut emu, 0, Command::SendUpdate);
        clock(&mut emu, 0, set_and_run(120, 120, RunSide::Left));
        let mut bytes = Vec::new();
        for now in (0..30_000).step_by(50) {
            if now % 3000 == 0 {
                emu.press_lever(now);
            }
            bytes.extend(emu.poll_output(now));
        }
        bytes
    };
    (drive(faults), drive(FaultConfig::default()))
}

#[test]
fn fault_layer_is_deterministic_and_decoder_survives_it() {
    let (a, clean) = faulty_stream(7);
    let (b, _) = faulty_stream(7);
    let (c, _) = faulty_stream(8);
    assert_eq!(a, b, "same seed, same bytes");
    assert_ne!(a, c, "another seed, other bytes");
    assert_ne!(a, clean, "faults changed the stream");
    // The decoder resyncs: garbage is reported, and most reports still come through.
    let mut dec = Decoder::new();
    dec.push(&a);
    dec.finish();
    let (mut good, mut dropped) = (0, 0);
    for item in dec {
        match item {
            Ok(Decoded::Message(_)) => good += 1,
            Ok(Decoded::Dropped(_)) | Err(_) => dropped += 1,
        }
    }
    let mut clean_dec = Decoder::new();
    clean_dec.push(&clean);
    let clean_count = clean_dec.count();
    assert!(
        dropped > 0,
        "faults show up as dropped bytes or bad payloads"
    );
    assert!(
        good * 2 > clean_count,
        "{good} of {clean_count} messages survived"
    );
}

mod random {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Step {
        Wait(u64),
        Bytes(Vec<u8>),
        Command(u8),
        Lever,
        Button(u8),
        Power(bool),
        PcMode(bool),
        ResetBoard,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0u64..3000).prop_map(Step::Wait),
            prop::collection::vec(any::<u8>(), 0..20).prop_map(Step::Bytes),
            (0u8..6).prop_map(Step::Command),
            Just(Step::Lever),
            (0x31u8..0x36).prop_map(Step::Button),
            any::<bool>().prop_map(Step::Power),
            any::<bool>().prop_map(Step::PcMode),
            Just(Step::ResetBoard),
        ]
    }

    fn command(i: u8) -> Command {
        let t = ClockTime::from_total_seconds(u32::from(i) * 7).expect("in range");
        match i {
            0 => Command::SendUpdate,
            1 => Command::SendUpdateNice,
            2 => Command::Clock(ClockCommand::SetAndRun(SetAndRun::new(t, t, RunSide::Left))),
            3 => Command::Clock(ClockCommand::SetAndRun(SetAndRun::new(
                t,
                t,
                RunSide::Right,
            ))),
            4 => Command::Clock(ClockCommand::Version),
            _ => Command::SendClock,
        }
    }

    proptest! {
        /// Whatever the host sends and the user does, the emulator does not panic and
        /// everything it sends is a well-formed message.
        #[test]
        fn any_input_gives_well_formed_output(
            steps in prop::collection::vec(step(), 0..60),
            bluetooth in any::<bool>(),
        ) {
            let mut emu = Emulator::new(EmuConfig::default().bluetooth(bluetooth));
            let mut dec = Decoder::new();
            let mut now = 0;
            for s in steps {
                match s {
                    Step::Wait(ms) => now += ms,
                    Step::Bytes(b) => emu.on_host_bytes(now, &b),
                    Step::Command(i) => emu.on_host_bytes(now, &command(i).encode()),
                    Step::Lever => emu.press_lever(now),
                    Step::Button(code) => emu.press_button(now, Button::from_code(code)),
                    Step::Power(on) => emu.set_clock_power(now, on),
                    Step::PcMode(on) => emu.set_pc_mode(now, on),
                    Step::ResetBoard => {
                        // The power goes: what the board had sent is read to its end, and
                        // the host starts afresh on the new link (a USB replug). A move-log
                        // dump on the wire at that moment is cut, and only that may be lost.
                        dec.push(&emu.poll_output(now));
                        dec.finish();
                        for item in std::mem::take(&mut dec) {
                            let cut_dump = matches!(
                                &item,
                                Ok(Decoded::Dropped(d)) if d.bytes.first() == Some(&0x8F)
                            );
                            prop_assert!(
                                cut_dump || matches!(item, Ok(Decoded::Message(_))),
                                "{:?}",
                                item
                            );
                        }
                        emu.reset_board(now);
                    }
                }
                dec.push(&emu.poll_output(now));
            }
            now += 10_000;
            emu.handle_timeout(now);
            dec.push(&emu.poll_output(now));
            dec.finish();
            for item in dec {
                prop_assert!(matches!(item, Ok(Decoded::Message(_))), "{:?}", item);
            }
            let view = emu.clock_view(now);
            prop_assert!(view.left_seconds <= 35_999 && view.right_seconds <= 35_999);
        }
    }
}
