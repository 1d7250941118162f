//! Host commands (PC → board, spec §3 and §2.1).
//!
//! Owns the one-byte command codes, the `0x2B` clock message wrapper (payload layouts are in
//! [`crate::clock_command`]) and `0x60` SET_LEDS, with `encode` and an incremental `decode`
//! for whoever reads host bytes (the emulator). It must not decide which commands are safe to
//! send; the docs of the dangerous ones say why.

use crate::clock_command::{CLOCK_END, CLOCK_MESSAGE, CLOCK_START, ClockCommand};
use crate::error::CommandError;

macro_rules! simple_commands {
    ($( $(#[$doc:meta])* $name:ident = $byte:literal, $snake:literal; )*) => {
        /// A host command.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum Command {
            $( $(#[$doc])* $name, )*
            /// `0x2B`: a clock sub-command, wrapped as `2B LEN 03 CMD ... 00`.
            Clock(ClockCommand),
            /// `0x60` SET_LEDS (Revelation II only): `60 04 MODE FROM TO 00`.
            SetLeds {
                /// LED mode byte.
                mode: u8,
                /// From field.
                from: u8,
                /// To field.
                to: u8,
            },
        }

        impl Command {
            /// The command byte (first byte on the wire).
            pub fn code(&self) -> u8 {
                match self {
                    $( Command::$name => $byte, )*
                    Command::Clock(_) => CLOCK_MESSAGE,
                    Command::SetLeds { .. } => SET_LEDS,
                }
            }

            /// The command's name in snake_case (`send_update_nice`, `clock`, ...).
            pub fn name(&self) -> &'static str {
                match self {
                    $( Command::$name => $snake, )*
                    Command::Clock(_) => "clock",
                    Command::SetLeds { .. } => "set_leds",
                }
            }

            fn simple(byte: u8) -> Option<Command> {
                match byte {
                    $( $byte => Some(Command::$name), )*
                    _ => None,
                }
            }

            /// Every one-byte command, in code order (for tests and tools).
            pub const SIMPLE: &'static [Command] = &[$( Command::$name, )*];
        }
    };
}

/// The SET_LEDS command byte.
pub const SET_LEDS: u8 = 0x60;

simple_commands! {
    /// `0x40` DGT_SEND_RESET: IDLE mode, no automatic messages.
    Reset = 0x40, "reset";
    /// `0x41` DGT_SEND_CLK: one clock report (BWTIME).
    SendClock = 0x41, "send_clock";
    /// `0x42` DGT_SEND_BRD: one board dump.
    SendBoard = 0x42, "send_board";
    /// `0x43` DGT_SEND_UPDATE: UPDATE mode (field updates, clock reports >= 1/s, acks).
    SendUpdate = 0x43, "send_update";
    /// `0x44` DGT_SEND_UPDATE_BRD: field updates only — no clock reports and no acks.
    SendUpdateBoard = 0x44, "send_update_board";
    /// `0x45` DGT_RETURN_SERIALNR: serial number (keep-alive).
    ReturnSerialNumber = 0x45, "return_serial_number";
    /// `0x46` DGT_RETURN_BUSADRES: bus address.
    ReturnBusAddress = 0x46, "return_bus_address";
    /// `0x47` DGT_SEND_TRADEMARK: trademark text.
    SendTrademark = 0x47, "send_trademark";
    /// `0x48` DGT_REQ_HARDWARE_VERSION (P1.0, unverified).
    RequestHardwareVersion = 0x48, "request_hardware_version";
    /// `0x49` DGT_SEND_EE_MOVES: ~8 KB internal log dump (~8 s). Never send by accident.
    SendEeMoves = 0x49, "send_ee_moves";
    /// `0x4A` DGT_TO_BUSMODE: switches to bus mode. Avoid.
    ToBusMode = 0x4A, "to_bus_mode";
    /// `0x4B` DGT_SEND_UPDATE_NICE: like UPDATE, clock reports only on change. Recommended.
    SendUpdateNice = 0x4B, "send_update_nice";
    /// `0x4C` DGT_SEND_BATTERY_STATUS (Bluetooth boards).
    SendBatteryStatus = 0x4C, "send_battery_status";
    /// `0x4D` DGT_SEND_VERSION: board version (good probe).
    SendVersion = 0x4D, "send_version";
    /// `0x4E` DGT_STARTBOOTLOADER: jumps to the boot loader. Never send.
    StartBootloader = 0x4E, "start_bootloader";
    /// `0x50` DGT_SEND_BRD_50B (draughts).
    SendBoard50B = 0x50, "send_board_50b";
    /// `0x51` DGT_SCAN_50B (draughts; writes EEPROM).
    Scan50B = 0x51, "scan_50b";
    /// `0x52` DGT_SEND_BRD_50W (draughts).
    SendBoard50W = 0x52, "send_board_50w";
    /// `0x53` DGT_SCAN_50W (draughts; writes EEPROM).
    Scan50W = 0x53, "scan_50w";
    /// `0x54` DGT_SCAN_100 (draughts; writes EEPROM).
    Scan100 = 0x54, "scan_100";
    /// `0x55` DGT_RETURN_LONG_SERIALNR.
    ReturnLongSerialNumber = 0x55, "return_long_serial_number";
    /// `0x56` DGT_REQ_I2C_CLOCK (P1.0, unverified).
    RequestI2cClock = 0x56, "request_i2c_clock";
    /// `0x57` DGT_REQ_UPDATE_I2C (P1.0, unverified).
    RequestUpdateI2c = 0x57, "request_update_i2c";
    /// `0x58` DGT_REQ_UPDATE_I2C_NICE (P1.0, unverified).
    RequestUpdateI2cNice = 0x58, "request_update_i2c_nice";
}

impl Command {
    /// The bytes to write to the board.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Command::Clock(c) => c.encode(),
            Command::SetLeds { mode, from, to } => vec![SET_LEDS, 0x04, *mode, *from, *to, 0x00],
            simple => vec![simple.code()],
        }
    }

    /// Parse one command from the start of `buf`.
    ///
    /// `Ok(None)`: `buf` holds only the start of a command, read more. `Ok(Some((cmd, n)))`:
    /// a command of `n` bytes. `Err`: no valid command starts here; skip
    /// [`CommandError::skip_len`] bytes and try again.
    pub fn decode(buf: &[u8]) -> Result<Option<(Command, usize)>, CommandError> {
        let Some(&first) = buf.first() else {
            return Ok(None);
        };
        if let Some(c) = Command::simple(first) {
            return Ok(Some((c, 1)));
        }
        match first {
            CLOCK_MESSAGE => decode_clock(buf),
            SET_LEDS => match buf {
                [_, 0x04, mode, from, to, 0x00, ..] => Ok(Some((
                    Command::SetLeds {
                        mode: *mode,
                        from: *from,
                        to: *to,
                    },
                    6,
                ))),
                [_, 0x04, _, _, _, end, ..] => Err(CommandError::BadSetLeds(format!(
                    "SET_LEDS must end with 0x00, got 0x{end:02X}"
                ))),
                [_, len, ..] if *len != 0x04 => Err(CommandError::BadSetLeds(format!(
                    "SET_LEDS length must be 0x04, got 0x{len:02X}"
                ))),
                _ => Ok(None),
            },
            other => Err(CommandError::UnknownCommand(other)),
        }
    }
}

fn decode_clock(buf: &[u8]) -> Result<Option<(Command, usize)>, CommandError> {
    let bad = |m: String| Err(CommandError::BadClockMessage(m));
    let Some(&len) = buf.get(1) else {
        return Ok(None);
    };
    if !(3..=0x0F).contains(&len) {
        return bad(format!("length byte 0x{len:02X} is outside 0x03..=0x0F"));
    }
    if let Some(&start) = buf.get(2)
        && start != CLOCK_START
    {
        return bad(format!("start marker must be 0x03, got 0x{start:02X}"));
    }
    let total = usize::from(len) + 2;
    let Some(frame) = buf.get(..total) else {
        return Ok(None);
    };
    let end = frame[total - 1];
    if end != CLOCK_END {
        return bad(format!(
            "end marker must be 0x00, got 0x{end:02X} (LEN counts 03 through 00)"
        ));
    }
    match ClockCommand::decode(frame[3], &frame[4..total - 1]) {
        Ok(cmd) => Ok(Some((Command::Clock(cmd), total))),
        Err(e) => Err(CommandError::InvalidClockCommand {
            frame_len: total,
            source: Box::new(e),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_commands_are_single_bytes() {
        assert_eq!(Command::SendUpdateNice.encode(), [0x4B]);
        assert_eq!(Command::SendVersion.encode(), [0x4D]);
        for c in Command::SIMPLE {
            let bytes = c.encode();
            assert_eq!(bytes.len(), 1);
            assert_eq!(Command::decode(&bytes), Ok(Some((c.clone(), 1))));
        }
        assert_eq!(Command::SIMPLE.len(), 24);
    }

    #[test]
    fn clock_message_is_reassembled_incrementally() {
        let bytes = Command::Clock(ClockCommand::Version).encode();
        assert_eq!(bytes, [0x2B, 0x03, 0x03, 0x09, 0x00]);
        for n in 0..bytes.len() {
            assert_eq!(
                Command::decode(&bytes[..n]),
                Ok(None),
                "prefix of {n} bytes"
            );
        }
        assert_eq!(
            Command::decode(&bytes),
            Ok(Some((Command::Clock(ClockCommand::Version), 5)))
        );
    }

    #[test]
    fn bad_commands_say_what_is_wrong() {
        assert_eq!(
            Command::decode(&[0x20]),
            Err(CommandError::UnknownCommand(0x20))
        );
        let e = Command::decode(&[0x2B, 0x03, 0x03, 0x09, 0x07]).expect_err("bad end marker");
        assert!(e.to_string().contains("end marker"), "{e}");
        let e = Command::decode(&[0x2B, 0x03, 0x04]).expect_err("bad start marker");
        assert!(e.to_string().contains("start marker"), "{e}");
        let leds = Command::SetLeds {
            mode: 1,
            from: 12,
            to: 28,
        };
        assert_eq!(Command::decode(&leds.encode()), Ok(Some((leds, 6))));
    }

    #[test]
    fn a_well_framed_clock_message_with_a_bad_sub_command_is_skipped_whole() {
        // Sub-command 0x7E does not exist; the payload "IK" must not be read as commands.
        let e = Command::decode(&[0x2B, 0x05, 0x03, 0x7E, b'I', b'K', 0x00]).expect_err("bad");
        assert_eq!(e.skip_len(), 7, "{e}");
        assert_eq!(Command::decode(&[0x20]).map_err(|e| e.skip_len()), Err(1));
    }
}
