//! Board squares, pieces and board dumps.
//!
//! Owns the mapping between DGT field indexes and square names (spec §4: field 0 = a8,
//! 63 = h1 with the connector on White's left) and DGT piece codes. It must not track game
//! state: a [`Board`] is one dump as the hardware reported it.

use std::fmt;
use std::str::FromStr;

use crate::error::PayloadError;

/// How the physical board lies relative to the players.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Orientation {
    /// Connector on White's left: field 0 is a8 (the DGT default).
    #[default]
    Normal,
    /// Board turned round: field 0 is h1 (White's pieces on fields 0-15).
    Rotated,
}

impl Orientation {
    /// `normal` or `rotated`.
    pub fn as_str(self) -> &'static str {
        match self {
            Orientation::Normal => "normal",
            Orientation::Rotated => "rotated",
        }
    }
}

/// A square of the chess board, stored as its DGT field index in normal orientation
/// (0 = a8, 7 = h8, 8 = a7, ..., 63 = h1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square with this field index in normal orientation; `None` outside 0..=63.
    pub fn from_field(field: u8) -> Option<Square> {
        (field < 64).then_some(Square(field))
    }

    /// The square a field index means for a board lying in `orientation`.
    pub fn from_field_oriented(field: u8, orientation: Orientation) -> Option<Square> {
        let sq = Square::from_field(field)?;
        Some(match orientation {
            Orientation::Normal => sq,
            Orientation::Rotated => Square(63 - field),
        })
    }

    /// The field index the board uses for this square when lying in `orientation`.
    pub fn field_oriented(self, orientation: Orientation) -> u8 {
        match orientation {
            Orientation::Normal => self.0,
            Orientation::Rotated => 63 - self.0,
        }
    }

    /// The field index in normal orientation.
    pub fn field(self) -> u8 {
        self.0
    }

    /// The square from file (0 = a) and rank (0 = rank 1); `None` if either is out of range.
    pub fn from_file_rank(file: u8, rank: u8) -> Option<Square> {
        (file < 8 && rank < 8).then(|| Square((7 - rank) * 8 + file))
    }

    /// File, 0 = a ... 7 = h.
    pub fn file(self) -> u8 {
        self.0 % 8
    }

    /// Rank, 0 = rank 1 ... 7 = rank 8.
    pub fn rank(self) -> u8 {
        7 - self.0 / 8
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = char::from(b'a' + self.file());
        let rank = char::from(b'1' + self.rank());
        write!(f, "{file}{rank}")
    }
}

/// A square name that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a square name; expected a file a-h and a rank 1-8, like \"e4\"")]
pub struct SquareParseError(pub String);

impl FromStr for Square {
    type Err = SquareParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || SquareParseError(s.to_owned());
        match s.as_bytes() {
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
                Square::from_file_rank(f - b'a', r - b'1').ok_or_else(err)
            }
            _ => Err(err()),
        }
    }
}

/// What a DGT board can report on a square (piece codes 0x01..=0x0F; 0x00 is "empty").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Piece {
    /// White pawn (0x01).
    WhitePawn,
    /// White rook (0x02).
    WhiteRook,
    /// White knight (0x03).
    WhiteKnight,
    /// White bishop (0x04).
    WhiteBishop,
    /// White king (0x05).
    WhiteKing,
    /// White queen (0x06).
    WhiteQueen,
    /// Black pawn (0x07).
    BlackPawn,
    /// Black rook (0x08).
    BlackRook,
    /// Black knight (0x09).
    BlackKnight,
    /// Black bishop (0x0A).
    BlackBishop,
    /// Black king (0x0B).
    BlackKing,
    /// Black queen (0x0C).
    BlackQueen,
    /// "Magic piece" meaning draw (0x0D).
    MagicDraw,
    /// "Magic piece" meaning white wins (0x0E).
    MagicWhiteWins,
    /// "Magic piece" meaning black wins (0x0F).
    MagicBlackWins,
}

const PIECES: [Piece; 15] = [
    Piece::WhitePawn,
    Piece::WhiteRook,
    Piece::WhiteKnight,
    Piece::WhiteBishop,
    Piece::WhiteKing,
    Piece::WhiteQueen,
    Piece::BlackPawn,
    Piece::BlackRook,
    Piece::BlackKnight,
    Piece::BlackBishop,
    Piece::BlackKing,
    Piece::BlackQueen,
    Piece::MagicDraw,
    Piece::MagicWhiteWins,
    Piece::MagicBlackWins,
];

const PIECE_CHARS: &[u8; 15] = b"PRNBKQprnbkq=+-";

impl Piece {
    /// Decode a DGT piece code: `Ok(None)` for 0x00 (empty), an error above 0x0F.
    pub fn from_code(code: u8) -> Result<Option<Piece>, PayloadError> {
        match code {
            0 => Ok(None),
            1..=15 => Ok(PIECES.get(usize::from(code - 1)).copied()),
            _ => Err(PayloadError::PieceCode { code, offset: 0 }),
        }
    }

    /// The DGT piece code (0x01..=0x0F).
    pub fn code(self) -> u8 {
        self as u8 + 1
    }

    /// FEN letter (`PRNBKQ` white, `prnbkq` black); magic pieces are `=` (draw), `+` (white
    /// wins) and `-` (black wins).
    pub fn to_char(self) -> char {
        char::from(PIECE_CHARS[self as usize])
    }

    /// The piece for a letter produced by [`Piece::to_char`].
    pub fn from_char(c: char) -> Option<Piece> {
        let i = PIECE_CHARS.iter().position(|&b| char::from(b) == c)?;
        PIECES.get(i).copied()
    }
}

/// Piece code of an optional piece (0x00 = empty).
pub fn piece_code(piece: Option<Piece>) -> u8 {
    piece.map_or(0, Piece::code)
}

/// A full board dump: what each field holds, indexed by field (normal orientation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    /// Contents of fields 0 (a8) ... 63 (h1).
    pub fields: [Option<Piece>; 64],
}

impl Board {
    /// An empty board.
    pub fn empty() -> Board {
        Board { fields: [None; 64] }
    }

    /// What the board reports on `square`.
    pub fn get(&self, square: Square) -> Option<Piece> {
        self.fields[usize::from(square.field())]
    }

    /// 64 characters, a8 ... h1, `.` for empty squares, letters as in [`Piece::to_char`].
    pub fn to_piece_string(&self) -> String {
        self.fields
            .iter()
            .map(|p| p.map_or('.', Piece::to_char))
            .collect()
    }
}

impl Default for Board {
    fn default() -> Self {
        Board::empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_numbering_matches_spec() {
        let name = |f| Square::from_field(f).map(|s| s.to_string());
        assert_eq!(name(0).as_deref(), Some("a8"));
        assert_eq!(name(7).as_deref(), Some("h8"));
        assert_eq!(name(36).as_deref(), Some("e4"));
        assert_eq!(name(52).as_deref(), Some("e2"));
        assert_eq!(name(63).as_deref(), Some("h1"));
        assert_eq!(name(64), None);
    }

    #[test]
    fn rotated_board_maps_field_zero_to_h1() {
        let sq = Square::from_field_oriented(0, Orientation::Rotated).map(|s| s.to_string());
        assert_eq!(sq.as_deref(), Some("h1"));
        let e4: Square = "e4".parse().expect("valid name");
        assert_eq!(e4.field_oriented(Orientation::Rotated), 63 - 36);
    }

    #[test]
    fn square_names_parse_and_reject() {
        for f in 0..64 {
            let sq = Square::from_field(f).expect("in range");
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
        }
        assert!("i1".parse::<Square>().is_err());
        assert!("e9".parse::<Square>().is_err());
        assert!("e44".parse::<Square>().is_err());
    }

    #[test]
    fn piece_codes_follow_spec_table() {
        assert_eq!(Piece::from_code(0x01), Ok(Some(Piece::WhitePawn)));
        assert_eq!(Piece::from_code(0x06), Ok(Some(Piece::WhiteQueen)));
        assert_eq!(Piece::from_code(0x0B), Ok(Some(Piece::BlackKing)));
        assert_eq!(Piece::from_code(0x0F), Ok(Some(Piece::MagicBlackWins)));
        assert_eq!(Piece::from_code(0x00), Ok(None));
        assert!(Piece::from_code(0x10).is_err());
        for code in 1..=15u8 {
            let p = Piece::from_code(code).expect("valid").expect("not empty");
            assert_eq!(p.code(), code);
            assert_eq!(Piece::from_char(p.to_char()), Some(p));
        }
    }
}
