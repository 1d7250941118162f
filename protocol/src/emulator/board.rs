//! The emulated e-board: its mode and its answers to one-byte board commands.
//!
//! Owns the board mode (IDLE / UPDATE / UPDATE_NICE / UPDATE_BRD, spec §7.1), which decides
//! whether clock reports and acks reach the host, and the fixed answers of the board itself
//! (version, serial numbers, trademark, battery), the board dump of the pieces it is given
//! (see [`super::pieces`]) and the move-log dump it is given (see [`super::ee_ring`]). It must not know the clock's state (see [`super::clock`]) or
//! schedule output (see [`super::Emulator`]).

use crate::board::{Board, Orientation, Piece, Square};
use crate::command::Command;
use crate::message::{BatteryStatus, Message};

/// The board's reporting mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoardMode {
    /// After power-up or `0x40`: nothing unsolicited, no clock acks.
    Idle,
    /// `0x43`: field updates, clock reports at least once a second, acks.
    Update,
    /// `0x4B`: field updates, clock reports on change, acks.
    UpdateNice,
    /// `0x44`: field updates only, no clock reports, no acks.
    UpdateBoard,
}

impl BoardMode {
    /// Clock acks (and button events) reach the host in this mode.
    pub fn acks(self) -> bool {
        matches!(self, BoardMode::Update | BoardMode::UpdateNice)
    }

    /// `idle`, `update`, `update_nice` or `update_board`.
    pub fn name(self) -> &'static str {
        match self {
            BoardMode::Idle => "idle",
            BoardMode::Update => "update",
            BoardMode::UpdateNice => "update_nice",
            BoardMode::UpdateBoard => "update_board",
        }
    }
}

/// Fixed facts about the emulated board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardConfig {
    /// Firmware version answered to `0x4D` (major, minor); `(3, 10)` = "3.10".
    pub version: (u8, u8),
    /// Five-digit serial number answered to `0x45`.
    pub serial_number: String,
    /// Ten-digit serial number answered to `0x55`.
    pub long_serial_number: String,
    /// Trademark text answered to `0x47`.
    pub trademark: String,
    /// How the board lies: `Rotated` reports White's pieces on fields 0-15 (board turned
    /// round), as the real capture 2 of spec §9.1 does.
    pub orientation: Orientation,
    /// Payload bytes of the board's move-log dump, the final `0x6B` included
    /// ([`super::ee_ring::EE_LOG_BYTES`] on an 8 KB board; smaller rings wrap sooner).
    pub ee_log_bytes: usize,
    /// How fast the move-log dump comes out, in bytes per second (960 at 9600 baud: an
    /// 8 KB dump takes ~8.3 s); 0 sends it at once.
    pub ee_dump_bytes_per_s: u32,
}

impl Default for BoardConfig {
    fn default() -> Self {
        BoardConfig {
            version: (3, 10),
            serial_number: "24680".into(),
            long_serial_number: "0000024680".into(),
            trademark: "Digital Game Technology (emulated by chessclockd)".into(),
            orientation: Orientation::Normal,
            ee_log_bytes: super::ee_ring::EE_LOG_BYTES,
            ee_dump_bytes_per_s: 960,
        }
    }
}

/// The starting position as the board reports it.
pub fn start_position() -> Board {
    let mut board = Board::empty();
    let back = [
        Piece::WhiteRook,
        Piece::WhiteKnight,
        Piece::WhiteBishop,
        Piece::WhiteQueen,
        Piece::WhiteKing,
        Piece::WhiteBishop,
        Piece::WhiteKnight,
        Piece::WhiteRook,
    ];
    let black = |p: Piece| match p {
        Piece::WhiteRook => Piece::BlackRook,
        Piece::WhiteKnight => Piece::BlackKnight,
        Piece::WhiteBishop => Piece::BlackBishop,
        Piece::WhiteQueen => Piece::BlackQueen,
        Piece::WhiteKing => Piece::BlackKing,
        other => other,
    };
    for file in 0..8u8 {
        let piece = back[usize::from(file)];
        let place = |b: &mut Board, rank: u8, p: Piece| {
            if let Some(sq) = Square::from_file_rank(file, rank) {
                b.fields[usize::from(sq.field())] = Some(p);
            }
        };
        place(&mut board, 0, piece);
        place(&mut board, 1, Piece::WhitePawn);
        place(&mut board, 6, Piece::BlackPawn);
        place(&mut board, 7, black(piece));
    }
    board
}

/// The board's own fields for pieces given by chess square (a rotated board numbers them
/// from h1).
pub fn raw_dump(pieces: &Board, orientation: Orientation) -> Board {
    let mut raw = Board::empty();
    for field in 0..64u8 {
        if let Some(sq) = Square::from_field(field) {
            raw.fields[usize::from(sq.field_oriented(orientation))] = pieces.get(sq);
        }
    }
    raw
}

/// What a board command does to the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BoardAction {
    /// Switch to this mode.
    Mode(BoardMode),
    /// Send one clock report now (in any mode).
    ClockReport,
    /// Answer with this message.
    Reply(Message),
    /// Nothing observable.
    Nothing,
}

/// The board's reaction to a non-clock command.
/// `ee_log` is the payload a `0x49` is answered with (the board's move log).
pub(crate) fn board_action(
    cfg: &BoardConfig,
    cmd: &Command,
    pieces: &Board,
    ee_log: impl FnOnce() -> Vec<u8>,
) -> BoardAction {
    let reply = BoardAction::Reply;
    match cmd {
        Command::Reset => BoardAction::Mode(BoardMode::Idle),
        Command::SendUpdate => BoardAction::Mode(BoardMode::Update),
        Command::SendUpdateNice => BoardAction::Mode(BoardMode::UpdateNice),
        Command::SendUpdateBoard => BoardAction::Mode(BoardMode::UpdateBoard),
        Command::SendClock => BoardAction::ClockReport,
        Command::SendBoard => reply(Message::BoardDump(raw_dump(pieces, cfg.orientation))),
        Command::ReturnSerialNumber => reply(Message::SerialNumber(cfg.serial_number.clone())),
        Command::ReturnLongSerialNumber => {
            reply(Message::LongSerialNumber(cfg.long_serial_number.clone()))
        }
        Command::ReturnBusAddress => reply(Message::BusAddress(0x0101)),
        Command::SendTrademark => reply(Message::Trademark(cfg.trademark.clone())),
        Command::SendVersion => reply(Message::Version {
            major: cfg.version.0,
            minor: cfg.version.1,
        }),
        // 80 %, time left not available, on for 1 h 02, discharging.
        Command::SendBatteryStatus => reply(Message::BatteryStatus(BatteryStatus::from([
            80, 0x7F, 0x7F, 1, 2, 0, 0, 0, 0x02,
        ]))),
        Command::SendEeMoves => reply(Message::EeMoves(ee_log())),
        Command::SendBoard50B => reply(Message::BoardDump50B(vec![0; 50])),
        Command::SendBoard50W => reply(Message::BoardDump50W(vec![0; 50])),
        Command::RequestHardwareVersion
        | Command::ToBusMode
        | Command::StartBootloader
        | Command::Scan50B
        | Command::Scan50W
        | Command::Scan100
        | Command::RequestI2cClock
        | Command::RequestUpdateI2c
        | Command::RequestUpdateI2cNice
        | Command::SetLeds { .. }
        | Command::Clock(_) => BoardAction::Nothing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_matches_capture_layout() {
        // Spec §9.1: the dump starts 08 09 0a 0c 0b 0a 09 08 (black back rank on fields 0-7).
        let codes: Vec<u8> = start_position()
            .fields
            .iter()
            .map(|p| p.map_or(0, Piece::code))
            .collect();
        assert_eq!(codes[..8], [0x08, 0x09, 0x0A, 0x0C, 0x0B, 0x0A, 0x09, 0x08]);
        assert_eq!(
            codes[56..],
            [0x02, 0x03, 0x04, 0x06, 0x05, 0x04, 0x03, 0x02]
        );
        assert!(codes[16..48].iter().all(|c| *c == 0));
    }
}
