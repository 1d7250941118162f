//! The driver's view of the wire: decoded board messages reduced to what the driver acts
//! on, and the commands it sends, encoded.
//!
//! A thin adapter over `chessclock-protocol`: it must not hold state or decide anything; the
//! protocol crate owns the format, the driver owns the behaviour.

use chessclock_protocol::{
    AckMeaning, Button, ClockAck, ClockCommand, ClockModel, ClockTime, Command, Message, RunSide,
    SetAndRun,
};

use super::queue::{ClockCmd, Kind};
use crate::link::display::BoardSide;
use crate::link::display::Face;

/// A board message, reduced to what the driver acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Incoming {
    /// The board answered the version request (end of the handshake).
    BoardVersion,
    /// The board's serial number.
    BoardSerial(String),
    /// An answer to a clock command (ack1 < 0x80).
    Ack(ClockAck),
    /// A clock button was pressed.
    Button(Button),
    /// A clock report.
    Report {
        /// The lever's right end is up (the right half runs when running).
        right_high: bool,
        /// No clock attached, or the clock is off.
        no_clock: bool,
        /// The whole report (times, flags, running), for observe mode.
        report: chessclock_protocol::ClockReport,
    },
    /// The pieces: a board dump or a field update, for the caller's game reconstruction.
    Board(Message),
    /// The board's move log (EE_MOVES payload).
    BoardLog(Vec<u8>),
    /// Nothing the driver acts on (empty Bluetooth reports, other answers...).
    Other,
}

/// What `m` means to the driver.
pub(crate) fn classify(m: Message) -> Incoming {
    match m {
        Message::Version { .. } => Incoming::BoardVersion,
        Message::SerialNumber(s) | Message::LongSerialNumber(s) => {
            Incoming::BoardSerial(s.trim().to_owned())
        }
        Message::ClockAck(ack) => match ack.meaning() {
            AckMeaning::Button { button, .. } => Incoming::Button(button),
            // Version answers are acks too: the queue completes the request with them.
            AckMeaning::Version { .. } | AckMeaning::Ok { .. } | AckMeaning::Error { .. } => {
                Incoming::Ack(ack)
            }
            _ => Incoming::Other,
        },
        Message::ClockReport(r) => Incoming::Report {
            right_high: r.right_high,
            no_clock: !r.clock_connected,
            report: r,
        },
        m @ (Message::BoardDump(_) | Message::FieldUpdate { .. }) => Incoming::Board(m),
        Message::EeMoves(payload) => Incoming::BoardLog(payload),
        _ => Incoming::Other,
    }
}

/// The model and firmware (`major.minor`) in a version ack, if it is one.
pub(crate) fn clock_version(ack: &ClockAck) -> Option<(ClockModel, String)> {
    match ack.meaning() {
        AckMeaning::Version {
            major,
            minor,
            model,
        } => Some((model, format!("{major}.{minor}"))),
        _ => None,
    }
}

/// The board handshake: UPDATE_NICE, then the board's version.
pub(crate) fn handshake() -> Vec<u8> {
    let mut v = Command::SendUpdateNice.encode();
    v.extend(Command::SendVersion.encode());
    v
}

/// Ask for the whole board (a dump of all 64 squares).
pub(crate) fn board_dump_request() -> Vec<u8> {
    Command::SendBoard.encode()
}

/// Ask for one clock report (DGT_SEND_CLK, `0x41`): the clock's times and lever now, as a
/// board in UPDATE_NICE reports only what changes.
pub(crate) fn clock_report_request() -> Vec<u8> {
    Command::SendClock.encode()
}

/// Ask for the board's serial number (also the keep-alive).
pub(crate) fn board_serial_request() -> Vec<u8> {
    Command::ReturnSerialNumber.encode()
}

fn clock(kind: Kind, cmd: ClockCommand) -> ClockCmd {
    ClockCmd {
        kind,
        id: cmd.id(),
        bytes: Command::Clock(cmd).encode(),
    }
}

/// Ask the clock for its version.
pub(crate) fn version_request() -> ClockCmd {
    clock(Kind::Version, ClockCommand::Version)
}

/// Back to the time display after text.
pub(crate) fn end() -> ClockCmd {
    clock(Kind::End, ClockCommand::End)
}

/// Beep for about `ms` milliseconds (64 ms units, 1..=255).
pub(crate) fn beep(ms: u32) -> ClockCmd {
    let units = u8::try_from((ms / 64).clamp(1, 255)).unwrap_or(u8::MAX);
    clock(Kind::Beep, ClockCommand::Beep { units })
}

/// The flag icons of the two halves (ICONS, dgt-protocol §6.2: L2/R2 bit 5), kept across
/// time changes (special bit 6), every other icon off.
pub(crate) fn flag_icons(left: bool, right: bool) -> ClockCmd {
    const FLAG: u8 = 0x20;
    const PERSIST: u8 = 0x40;
    let bit = |on: bool| if on { FLAG } else { 0 };
    clock(
        Kind::Icons,
        ClockCommand::Icons {
            left1: 0,
            right1: 0,
            left2: bit(left),
            right2: bit(right),
            special: PERSIST,
        },
    )
}

/// Text for the model's display, cut to its width; characters it cannot show become spaces.
/// A clock not identified yet, or of an unknown model, gets DGT 3000 ASCII text.
pub(crate) fn text(model: Option<ClockModel>, text: &str) -> ClockCmd {
    let cmd = if model == Some(ClockModel::DgtXl) {
        let shown: String = text
            .chars()
            .take(6)
            .map(|c| {
                if chessclock_protocol::clock_text::seven_segment(c).is_some() {
                    c
                } else {
                    ' '
                }
            })
            .collect();
        ClockCommand::xl_text(&shown, false)
    } else {
        let shown: String = text
            .chars()
            .take(8)
            .map(|c| if c.is_ascii_graphic() { c } else { ' ' })
            .collect();
        ClockCommand::ascii(&shown, 0)
    };
    // Every character was made displayable above, so this cannot fail; fall back to "back to
    // the time display" rather than panic.
    clock(Kind::Text, cmd.unwrap_or(ClockCommand::End))
}

/// Set the clock's times and which half runs.
pub(crate) fn set_and_run(face: Face) -> ClockCmd {
    let t = |s: u64| ClockTime::saturating_from_total_seconds(u32::try_from(s).unwrap_or(u32::MAX));
    let run = match face.run {
        Some(BoardSide::Left) => RunSide::Left,
        Some(BoardSide::Right) => RunSide::Right,
        None => RunSide::Paused,
    };
    clock(
        Kind::SetAndRun,
        ClockCommand::SetAndRun(SetAndRun::new(t(face.left_s), t(face.right_s), run)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessclock_protocol::ClockCommandId;

    #[test]
    fn set_and_run_matches_the_spec_example() {
        // dgt-protocol §6.3: left 1:30:00, right 0:05:07, left running.
        let cmd = set_and_run(Face {
            left_s: 5400,
            right_s: 307,
            run: Some(BoardSide::Left),
        });
        assert_eq!(
            cmd.bytes,
            [
                0x2B, 0x0A, 0x03, 0x0A, 0x01, 0x1E, 0x00, 0x00, 0x05, 0x07, 0x01, 0x00
            ]
        );
        assert_eq!(cmd.id, ClockCommandId::SetAndRun);
    }

    #[test]
    fn text_is_cut_to_the_display_width() {
        let cmd = text(Some(ClockModel::Dgt3000), "NO WIN FOR YOU");
        assert_eq!(&cmd.bytes[4..12], b"NO WIN F");
        let cmd = text(None, "é");
        assert_eq!(cmd.bytes[4], b' ', "not showable: a space");
        let cmd = text(Some(ClockModel::DgtXl), "flag~x");
        assert_eq!((cmd.kind, cmd.id), (Kind::Text, ClockCommandId::Display));
    }
}
