//! The actor's view of the wire: decoded board traffic reduced to what the actor acts on,
//! and the encoded commands it sends.
//!
//! A thin adapter over `chessclock-protocol`: it owns the decoder, the pending write buffer
//! and the clock model, and filters the quirks (all-zero reports, invalid reports). No IO.

use chessclock_protocol::{
    AckMeaning, ClockCommand, ClockModel, ClockTime, Command, Decoded, Decoder, Message, RunSide,
    SetAndRun,
};

use super::display::{Face, Run};
use super::queue::{ClockCmd, Kind};

/// Code of the clock's run/pause button (ack3 of a button ack).
pub(crate) const BUTTON_RUN: u8 = 0x33;

/// The clock model as far as the actor cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Model {
    /// Not identified yet.
    #[default]
    Unknown,
    /// DGT 3000: 8-character ASCII text.
    Dgt3000,
    /// DGT XL: 6 seven-segment characters.
    DgtXl,
}

impl Model {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Model::Unknown => "",
            Model::Dgt3000 => "DGT 3000",
            Model::DgtXl => "DGT XL",
        }
    }
}

/// A clock report reduced to what the actor uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Report {
    /// Lever: right half up (its time runs).
    pub right_high: bool,
    /// The clock is running (not paused with its own button).
    pub running: bool,
    /// No clock attached / clock off.
    pub no_clock: bool,
}

/// What the actor acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Incoming {
    /// The board answered the version request (end of the handshake).
    BoardVersion { major: u8, minor: u8 },
    /// The board's serial number.
    BoardSerial(String),
    /// The clock identified itself.
    ClockVersion { model: Model, firmware: String },
    /// An acknowledgement of a clock command (ack1 < 0x80), as its four bytes.
    Ack([u8; 4]),
    /// A clock button was pressed (button code).
    Button(u8),
    /// A clock report.
    Report(Report),
    /// Anything else (board dumps, field updates...).
    Other,
}

/// Decoder plus write buffer.
#[derive(Debug, Default)]
pub(crate) struct Link {
    decoder: Decoder,
    model: Model,
    writes: Vec<u8>,
}

impl Link {
    /// Feed bytes read from the port.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Vec<Incoming> {
        self.decoder.push(bytes);
        let mut out = Vec::new();
        for item in self.decoder.by_ref() {
            match item {
                Ok(Decoded::Message(m)) => out.push(classify(m)),
                Ok(Decoded::Dropped(d)) => {
                    tracing::debug!(count = d.count, "dropped garbage from the board");
                }
                Err(e) => tracing::debug!("bad frame from the board: {e}"),
            }
        }
        out
    }

    pub(crate) fn model(&self) -> Model {
        self.model
    }

    pub(crate) fn set_model(&mut self, model: Model) {
        self.model = model;
    }

    pub(crate) fn queue_write(&mut self, bytes: Vec<u8>) {
        self.writes.extend_from_slice(&bytes);
    }

    pub(crate) fn take_writes(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.writes)
    }

    pub(crate) fn clear_writes(&mut self) {
        self.writes.clear();
    }
}

fn model_of(m: ClockModel) -> Model {
    match m {
        ClockModel::Dgt3000 => Model::Dgt3000,
        ClockModel::DgtXl => Model::DgtXl,
        // Treat unknown majors like the DGT 3000 (the current model), but say so.
        ClockModel::Unknown(_) => Model::Dgt3000,
    }
}

fn classify(m: Message) -> Incoming {
    match m {
        Message::Version { major, minor } => Incoming::BoardVersion { major, minor },
        Message::SerialNumber(s) | Message::LongSerialNumber(s) => {
            Incoming::BoardSerial(s.trim().to_owned())
        }
        Message::ClockAck(ack) => match ack.meaning() {
            AckMeaning::Button { button, .. } => Incoming::Button(button.code()),
            // Version answers are acks too: the queue completes the request with them.
            AckMeaning::Version { .. } | AckMeaning::Ok { .. } | AckMeaning::Error { .. } => {
                Incoming::Ack(ack.bytes)
            }
            _ => Incoming::Other,
        },
        Message::ClockReport(r) => Incoming::Report(Report {
            right_high: r.right_high,
            running: r.running,
            no_clock: !r.clock_connected,
        }),
        // Bluetooth boards send an all-zero BWTIME after clock commands: not a report.
        Message::EmptyClockReport => Incoming::Other,
        _ => Incoming::Other,
    }
}

/// The model and firmware in a version ack, if it is one.
pub(crate) fn clock_version_from_ack(ack: [u8; 4]) -> Option<(Model, String)> {
    match (chessclock_protocol::ClockAck { bytes: ack }).meaning() {
        AckMeaning::Version {
            major,
            minor,
            model,
        } => Some((model_of(model), format!("{major}.{minor}"))),
        _ => None,
    }
}

/// The board handshake: UPDATE_NICE, then the board's version.
pub(crate) fn handshake() -> Vec<u8> {
    let mut v = Command::SendUpdateNice.encode();
    v.extend(Command::SendVersion.encode());
    v
}

/// Ask for the board's serial number.
pub(crate) fn board_serial_request() -> Vec<u8> {
    Command::ReturnSerialNumber.encode()
}

fn clock(kind: Kind, cmd: ClockCommand) -> ClockCmd {
    ClockCmd {
        kind,
        subcmd: cmd.id().into(),
        bytes: Command::Clock(cmd).encode(),
    }
}

/// Ask the clock for its version.
pub(crate) fn clock_version() -> ClockCmd {
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

/// Text for the model's display, cut to its width; characters it cannot show become spaces.
pub(crate) fn text(model: Model, text: &str, beep: bool) -> ClockCmd {
    let cmd = match model {
        Model::DgtXl => {
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
            ClockCommand::xl_text(&shown, beep)
        }
        Model::Dgt3000 | Model::Unknown => {
            let shown: String = text
                .chars()
                .take(8)
                .map(|c| if c.is_ascii_graphic() { c } else { ' ' })
                .collect();
            ClockCommand::ascii(&shown, if beep { 3 } else { 0 })
        }
    };
    // Every character was made displayable above, so this cannot fail; fall back to "back to
    // the time display" rather than panic.
    clock(Kind::Text, cmd.unwrap_or(ClockCommand::End))
}

/// Set the clock's times and which half runs.
pub(crate) fn set_and_run(face: Face) -> ClockCmd {
    let t = |s: u64| ClockTime::saturating_from_total_seconds(u32::try_from(s).unwrap_or(u32::MAX));
    let run = match face.run {
        Run::Left => RunSide::Left,
        Run::Right => RunSide::Right,
        Run::None => RunSide::Paused,
    };
    clock(
        Kind::SetAndRun,
        ClockCommand::SetAndRun(SetAndRun::new(t(face.left_s), t(face.right_s), run)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessclock_protocol::Button;

    #[test]
    fn run_button_code_matches_the_protocol() {
        assert_eq!(Button::Run.code(), BUTTON_RUN);
    }

    #[test]
    fn set_and_run_matches_the_spec_example() {
        // dgt-protocol §6.3: left 1:30:00, right 0:05:07, left running.
        let cmd = set_and_run(Face {
            left_s: 5400,
            right_s: 307,
            run: Run::Left,
        });
        assert_eq!(
            cmd.bytes,
            [
                0x2B, 0x0A, 0x03, 0x0A, 0x01, 0x1E, 0x00, 0x00, 0x05, 0x07, 0x01, 0x00
            ]
        );
        assert_eq!(cmd.subcmd, 0x0A);
    }

    #[test]
    fn text_is_cut_to_the_display_width() {
        let cmd = text(Model::Dgt3000, "NO WIN FOR YOU", false);
        assert_eq!(&cmd.bytes[4..12], b"NO WIN F");
        let cmd = text(Model::DgtXl, "flag~x", false);
        assert_eq!(cmd.kind, Kind::Text);
    }
}
