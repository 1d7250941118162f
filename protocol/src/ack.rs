//! Clock acknowledgements inside BWTIME (spec §5.1, §5.3).
//!
//! Owns the report-vs-ack test, the reassembly of the four 8-bit ack bytes from the 7-bit
//! payload, and their typed meaning (command ok / error, clock version, buttons, ready, mode).
//! It must not decide what to do about an ack (resend, dedupe): that is the caller's policy;
//! see [`crate::quirks`] for helpers.

use std::fmt;

use crate::clock_command::ClockCommandId;

/// ack0 value of a positive acknowledgement.
pub const ACK_OK: u8 = 0x10;
/// ack0 value of the error "clock not in its computer mode (XL option 23 / DGT 3000 option 25)".
pub const ACK_ERROR_NOT_IN_PC_MODE: u8 = 0x40;

/// True if a 7-byte BWTIME payload is an ack, not a report: byte 3 or byte 6 of the message
/// has the low nibble 0xA (impossible for an hours value).
pub fn is_ack_payload(p: &[u8; 7]) -> bool {
    p[0] & 0x0F == 0x0A || p[3] & 0x0F == 0x0A
}

/// A clock acknowledgement: the four reassembled ack bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClockAck {
    /// ack0..ack3 (ack0 = ok/error class, ack1 = command or event code, ack2/ack3 = data).
    pub bytes: [u8; 4],
}

impl ClockAck {
    /// A positive ack to `command` (what a clock sends after executing it).
    pub fn ok(command: ClockCommandId) -> ClockAck {
        ClockAck {
            bytes: [ACK_OK, command.into(), 0, 0],
        }
    }

    /// An error ack to `command` with error class `code` (e.g. [`ACK_ERROR_NOT_IN_PC_MODE`]).
    pub fn error(command: ClockCommandId, code: u8) -> ClockAck {
        ClockAck {
            bytes: [code, command.into(), 0, 0],
        }
    }

    /// The answer to a VERSION request (major 2 = DGT 3000, 1 = DGT XL). Both parts 0..=15.
    pub fn version(major: u8, minor: u8) -> ClockAck {
        ClockAck {
            bytes: [ACK_OK, 0x09, ((major & 0x0F) << 4) | (minor & 0x0F), 0],
        }
    }

    /// A spontaneous button-press ack: `button` is the reported button, `held` the bitmap of
    /// buttons held down (low field 0x01 as in current logs is added).
    pub fn button(button: Button, held: HeldButtons) -> ClockAck {
        ClockAck {
            bytes: [ACK_OK, 0x88, held.0 | 0x01, button.code()],
        }
    }

    /// The spontaneous "clock ready" ack.
    pub fn ready() -> ClockAck {
        ClockAck {
            bytes: [ACK_OK, 0x81, 0, 0],
        }
    }

    /// Reassemble the ack bytes from a 7-byte BWTIME payload (spec §5.3). Call only when
    /// [`is_ack_payload`] is true; the status byte is ignored.
    pub fn decode_payload(p: &[u8; 7]) -> ClockAck {
        ClockAck {
            bytes: [
                (p[1] & 0x7F) | ((p[3] << 3) & 0x80),
                (p[2] & 0x7F) | ((p[3] << 2) & 0x80),
                (p[4] & 0x7F) | ((p[0] << 3) & 0x80),
                (p[5] & 0x7F) | ((p[0] << 2) & 0x80),
            ],
        }
    }

    /// The 7-byte BWTIME payload carrying this ack, with the marker in both byte 3 and byte 6
    /// and a zero status byte.
    pub fn encode_payload(&self) -> [u8; 7] {
        let [a0, a1, a2, a3] = self.bytes;
        [
            0x0A | ((a2 & 0x80) >> 3) | ((a3 & 0x80) >> 2),
            a0 & 0x7F,
            a1 & 0x7F,
            0x0A | ((a0 & 0x80) >> 3) | ((a1 & 0x80) >> 2),
            a2 & 0x7F,
            a3 & 0x7F,
            0,
        ]
    }

    /// True for ack0 == 0x10.
    pub fn is_positive(&self) -> bool {
        self.bytes[0] == ACK_OK
    }

    /// The clock command this ack answers, if it is a reply (ack1 < 0x80), not an event.
    pub fn answers(&self) -> Option<ClockCommandId> {
        (self.bytes[1] < 0x80).then(|| ClockCommandId::from(self.bytes[1]))
    }

    /// What the ack means.
    pub fn meaning(&self) -> AckMeaning {
        let [a0, a1, a2, a3] = self.bytes;
        if a1 < 0x80 {
            let command = ClockCommandId::from(a1);
            return match (a0, command) {
                (ACK_OK, ClockCommandId::Version) => {
                    let (major, minor) = (a2 >> 4, a2 & 0x0F);
                    AckMeaning::Version {
                        major,
                        minor,
                        model: ClockModel::from_major(major),
                    }
                }
                (ACK_OK, _) => AckMeaning::Ok { command },
                _ => AckMeaning::Error { command, code: a0 },
            };
        }
        match a1 {
            0x81 => AckMeaning::Ready,
            0x88 => AckMeaning::Button {
                button: Button::from_code(a3),
                held: HeldButtons(a2 & 0x7C),
            },
            0x8A => AckMeaning::Mode { mode: a3 },
            0x90 => AckMeaning::NotInPcMode,
            code => AckMeaning::Event { code },
        }
    }
}

/// The typed meaning of a [`ClockAck`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckMeaning {
    /// The clock executed `command`.
    Ok {
        /// The acknowledged sub-command.
        command: ClockCommandId,
    },
    /// The clock rejected `command`; `code` is ack0 (0x40 = not in PC mode, 0x20 seen on XL).
    Error {
        /// The rejected sub-command.
        command: ClockCommandId,
        /// ack0.
        code: u8,
    },
    /// Answer to VERSION.
    Version {
        /// Major version (ack2 high nibble).
        major: u8,
        /// Minor version (ack2 low nibble).
        minor: u8,
        /// The clock model the major version implies.
        model: ClockModel,
    },
    /// A button was pressed (spontaneous, ack1 = 0x88).
    Button {
        /// The button reported in ack3.
        button: Button,
        /// Buttons held down (ack2 bitmap).
        held: HeldButtons,
    },
    /// The clock reports it is ready (ack1 = 0x81).
    Ready,
    /// "Mode" event (ack1 = 0x8A); ack3 may be the clock's mode (DGT's own uncertainty).
    Mode {
        /// ack3.
        mode: u8,
    },
    /// "Not in mode 23" event (ack1 = 0x90).
    NotInPcMode,
    /// Another spontaneous event code (ack1 >= 0x80).
    Event {
        /// ack1.
        code: u8,
    },
}

impl fmt::Display for AckMeaning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AckMeaning::Ok { command } => write!(f, "ok: {command}"),
            AckMeaning::Error {
                command,
                code: ACK_ERROR_NOT_IN_PC_MODE,
            } => write!(
                f,
                "error 0x40 for {command}: clock not in PC mode (select option 25 on a DGT 3000, 23 on a DGT XL)"
            ),
            AckMeaning::Error { command, code } => write!(f, "error 0x{code:02X} for {command}"),
            AckMeaning::Version {
                major,
                minor,
                model,
            } => write!(f, "version {major}.{minor} ({model})"),
            AckMeaning::Button { button, held } => {
                write!(f, "button {button} pressed (held 0x{:02X})", held.0)
            }
            AckMeaning::Ready => f.write_str("clock ready"),
            AckMeaning::Mode { mode } => write!(f, "mode {mode}"),
            AckMeaning::NotInPcMode => f.write_str("clock not in PC mode"),
            AckMeaning::Event { code } => write!(f, "clock event 0x{code:02X}"),
        }
    }
}

/// Clock model, from the VERSION ack's major number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClockModel {
    /// DGT XL (major 1).
    DgtXl,
    /// DGT 3000 (major 2).
    Dgt3000,
    /// Any other major version.
    Unknown(u8),
}

impl ClockModel {
    /// Model for a VERSION major number.
    pub fn from_major(major: u8) -> ClockModel {
        match major {
            1 => ClockModel::DgtXl,
            2 => ClockModel::Dgt3000,
            m => ClockModel::Unknown(m),
        }
    }
}

impl fmt::Display for ClockModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClockModel::DgtXl => f.write_str("DGT XL"),
            ClockModel::Dgt3000 => f.write_str("DGT 3000"),
            ClockModel::Unknown(m) => write!(f, "unknown clock, major {m}"),
        }
    }
}

/// A clock button as reported in ack3 of a button ack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Button {
    /// Back `<` (0x31), leftmost.
    Back,
    /// Minus `-` (0x34).
    Minus,
    /// Run / pause (0x33).
    Run,
    /// Plus `+` (0x32).
    Plus,
    /// Forward / OK `>` (0x35), rightmost.
    Forward,
    /// Any other code.
    Unknown(u8),
}

impl Button {
    /// Button for an ack3 code.
    pub fn from_code(code: u8) -> Button {
        match code {
            0x31 => Button::Back,
            0x34 => Button::Minus,
            0x33 => Button::Run,
            0x32 => Button::Plus,
            0x35 => Button::Forward,
            c => Button::Unknown(c),
        }
    }

    /// The ack3 code.
    pub fn code(self) -> u8 {
        match self {
            Button::Back => 0x31,
            Button::Minus => 0x34,
            Button::Run => 0x33,
            Button::Plus => 0x32,
            Button::Forward => 0x35,
            Button::Unknown(c) => c,
        }
    }

    /// Position on the panel left to right (0 = back ... 4 = forward), as PicoChess numbers them.
    pub fn position(self) -> Option<u8> {
        match self {
            Button::Back => Some(0),
            Button::Minus => Some(1),
            Button::Run => Some(2),
            Button::Plus => Some(3),
            Button::Forward => Some(4),
            Button::Unknown(_) => None,
        }
    }

    /// Bit of this button in [`HeldButtons`].
    pub fn held_mask(self) -> u8 {
        match self {
            Button::Back => 0x04,
            Button::Plus => 0x08,
            Button::Run => 0x10,
            Button::Minus => 0x20,
            Button::Forward => 0x40,
            Button::Unknown(_) => 0,
        }
    }
}

impl fmt::Display for Button {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Button::Back => f.write_str("back"),
            Button::Minus => f.write_str("minus"),
            Button::Run => f.write_str("run"),
            Button::Plus => f.write_str("plus"),
            Button::Forward => f.write_str("forward"),
            Button::Unknown(c) => write!(f, "unknown 0x{c:02X}"),
        }
    }
}

/// Bitmap of buttons held down in a button ack (ack2 without its low field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct HeldButtons(pub u8);

impl HeldButtons {
    /// Bitmap holding exactly `buttons`.
    pub fn of(buttons: &[Button]) -> HeldButtons {
        HeldButtons(buttons.iter().fold(0, |m, b| m | b.held_mask()))
    }

    /// True if `button` is held.
    pub fn contains(self, button: Button) -> bool {
        let mask = button.held_mask();
        mask != 0 && self.0 & mask == mask
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Constructed frames of spec §9.3 (payload, ack tuple).
    const VECTORS: [([u8; 6], [u8; 4]); 7] = [
        (
            [0x0A, 0x10, 0x09, 0x0A, 0x20, 0x00],
            [0x10, 0x09, 0x20, 0x00],
        ),
        (
            [0x0A, 0x10, 0x0C, 0x0A, 0x00, 0x00],
            [0x10, 0x0C, 0x00, 0x00],
        ),
        (
            [0x0A, 0x10, 0x0A, 0x0A, 0x00, 0x00],
            [0x10, 0x0A, 0x00, 0x00],
        ),
        (
            [0x0A, 0x40, 0x0A, 0x0A, 0x00, 0x00],
            [0x40, 0x0A, 0x00, 0x00],
        ),
        (
            [0x0A, 0x10, 0x08, 0x2A, 0x05, 0x31],
            [0x10, 0x88, 0x05, 0x31],
        ),
        (
            [0x0A, 0x10, 0x08, 0x2A, 0x45, 0x35],
            [0x10, 0x88, 0x45, 0x35],
        ),
        (
            [0x0A, 0x10, 0x01, 0x2A, 0x00, 0x00],
            [0x10, 0x81, 0x00, 0x00],
        ),
    ];

    #[test]
    fn spec_vectors_reassemble_and_encode() {
        for (raw, ack) in VECTORS {
            let p = [raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], 0];
            assert!(is_ack_payload(&p));
            assert_eq!(ClockAck::decode_payload(&p).bytes, ack);
            assert_eq!(ClockAck { bytes: ack }.encode_payload(), p);
        }
    }

    #[test]
    fn marker_in_byte_6_only_is_an_ack() {
        let p = [0x20, 0x10, 0x0C, 0x0A, 0x00, 0x00, 0x09];
        assert!(is_ack_payload(&p));
        assert!(!is_ack_payload(&[0x20, 0x03, 0x02, 0x20, 0x03, 0x01, 0x13]));
    }

    #[test]
    fn meanings() {
        let m = |b| ClockAck { bytes: b }.meaning();
        assert_eq!(
            m([0x10, 0x09, 0x20, 0x00]),
            AckMeaning::Version {
                major: 2,
                minor: 0,
                model: ClockModel::Dgt3000
            }
        );
        assert_eq!(
            m([0x10, 0x0C, 0, 0]),
            AckMeaning::Ok {
                command: ClockCommandId::Ascii
            }
        );
        assert_eq!(
            m([0x40, 0x0A, 0, 0]),
            AckMeaning::Error {
                command: ClockCommandId::SetAndRun,
                code: 0x40
            }
        );
        assert_eq!(
            m([0x20, 0x00, 0, 0]),
            AckMeaning::Error {
                command: ClockCommandId::Unknown(0),
                code: 0x20
            }
        );
        assert_eq!(m([0x10, 0x81, 0, 0]), AckMeaning::Ready);
        let chord = m([0x10, 0x88, 0x45, 0x35]);
        let AckMeaning::Button { button, held } = chord else {
            panic!("not a button ack: {chord:?}")
        };
        assert_eq!(button, Button::Forward);
        assert!(
            held.contains(Button::Back)
                && held.contains(Button::Forward)
                && !held.contains(Button::Run)
        );
        assert_eq!(
            ClockAck::button(Button::Back, HeldButtons::of(&[Button::Back])).bytes,
            [0x10, 0x88, 0x05, 0x31]
        );
        assert_eq!(ClockAck::version(2, 0).bytes, [0x10, 0x09, 0x20, 0x00]);
    }
}
