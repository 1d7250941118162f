//! One-line human-readable forms of board messages, for logs and `chessclockctl decode`.
//!
//! Owns only formatting; it must not be parsed back (use the typed values for that).

use std::fmt;

use crate::hex;
use crate::message::Message;
use crate::report::{ClockReport, ClockSide};

impl fmt::Display for ClockSide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.time)?;
        for (on, name) in [
            (self.flag, " flag"),
            (self.final_flag, " final-flag"),
            (self.time_per_move, " tpm"),
        ] {
            if on {
                f.write_str(name)?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for ClockReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.clock_connected {
            return write!(f, "no clock (status 0x{:02X})", self.status);
        }
        let state = if self.running { "running" } else { "stopped" };
        let lever = if self.right_high {
            "right high"
        } else {
            "left high"
        };
        write!(
            f,
            "left {}  right {}  {state}, {lever}",
            self.left, self.right
        )?;
        if self.battery_low {
            f.write_str(", battery low")?;
        }
        write!(f, " (status 0x{:02X})", self.status)
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.type_name();
        match self {
            Message::BoardDump(b) => write!(f, "{name} {}", b.to_piece_string()),
            Message::ClockReport(r) => write!(f, "{name} {r}"),
            Message::ClockAck(a) => {
                let [a0, a1, a2, a3] = a.bytes;
                write!(
                    f,
                    "{name} [{a0:02X} {a1:02X} {a2:02X} {a3:02X}] {}",
                    a.meaning()
                )
            }
            Message::EmptyClockReport => write!(f, "{name} (all-zero BWTIME, ignored)"),
            Message::FieldUpdate { square, piece } => match piece {
                Some(p) => write!(f, "{name} {square} {}", p.to_char()),
                None => write!(f, "{name} {square} empty"),
            },
            Message::BusAddress(a) => write!(f, "{name} {a}"),
            Message::SerialNumber(s) | Message::Trademark(s) | Message::LongSerialNumber(s) => {
                write!(f, "{name} {s:?}")
            }
            Message::Version { major, minor } => write!(f, "{name} {major}.{minor}"),
            Message::BatteryStatus(b) => write!(
                f,
                "{name} {}% left {}h{:02}m status 0x{:02X}",
                b.percent, b.hours_left, b.minutes_left, b.status
            ),
            Message::Unknown { id, payload } => {
                write!(f, "{name} id 0x{id:02X} payload {}", hex(payload))
            }
            Message::EeMoves(p)
            | Message::BoardDump50B(p)
            | Message::BoardDump50W(p)
            | Message::HardwareVersion(p)
            | Message::I2cClock(p) => write!(f, "{name} {} bytes: {}", p.len(), hex(p)),
        }
    }
}
