//! What stands on the physical board, read as chess squares.
//!
//! Owns the translation from the board's raw fields (DGT field order, as the hardware reports
//! them) to a chess piece placement for a given orientation, the start-position test that
//! detects the orientation (also of a Chess960 start, [`chess960_start`]), the two "stands
//! for" rules (a pawn on its last rank is a queen;
//! magic pieces are not chess pieces) and the kings-in-the-centre result convention. It must
//! not know the game's history: that is [`crate::tracker`]'s.

use chessclock_protocol::{Orientation, Piece as DgtPiece, Square as DgtSquare};
use shakmaty::{Board, Color, File, Piece, Rank, Role, Square};

/// A result set on the board is a game result, the engine's type (its PGN token is
/// [`GameResult::pgn`]).
pub use chessclock_engine::GameResult;

/// The board's 64 fields as reported, field 0 first (the board's own numbering).
pub type RawFields = [Option<DgtPiece>; 64];

/// The chess square a raw field means when the board lies in `orientation`.
pub fn square_of_field(field: u8, orientation: Orientation) -> Option<Square> {
    let sq = DgtSquare::from_field_oriented(field, orientation)?;
    Some(Square::from_coords(
        File::new(u32::from(sq.file())),
        Rank::new(u32::from(sq.rank())),
    ))
}

/// The raw field that holds `square` when the board lies in `orientation`.
pub fn field_of_square(square: Square, orientation: Orientation) -> u8 {
    let file = u8::try_from(u32::from(square.file())).unwrap_or(0);
    let rank = u8::try_from(u32::from(square.rank())).unwrap_or(0);
    DgtSquare::from_file_rank(file, rank)
        .map(|s| s.field_oriented(orientation))
        .unwrap_or(0)
}

/// The chess piece a DGT piece code stands for; `None` for the magic pieces.
pub fn chess_piece(p: DgtPiece) -> Option<Piece> {
    use DgtPiece::*;
    let (color, role) = match p {
        WhitePawn => (Color::White, Role::Pawn),
        WhiteRook => (Color::White, Role::Rook),
        WhiteKnight => (Color::White, Role::Knight),
        WhiteBishop => (Color::White, Role::Bishop),
        WhiteKing => (Color::White, Role::King),
        WhiteQueen => (Color::White, Role::Queen),
        BlackPawn => (Color::Black, Role::Pawn),
        BlackRook => (Color::Black, Role::Rook),
        BlackKnight => (Color::Black, Role::Knight),
        BlackBishop => (Color::Black, Role::Bishop),
        BlackKing => (Color::Black, Role::King),
        BlackQueen => (Color::Black, Role::Queen),
        MagicDraw | MagicWhiteWins | MagicBlackWins => return None,
    };
    Some(Piece { color, role })
}

/// The DGT piece code for a chess piece.
pub fn dgt_piece(p: Piece) -> DgtPiece {
    use DgtPiece::*;
    match (p.color, p.role) {
        (Color::White, Role::Pawn) => WhitePawn,
        (Color::White, Role::Knight) => WhiteKnight,
        (Color::White, Role::Bishop) => WhiteBishop,
        (Color::White, Role::Rook) => WhiteRook,
        (Color::White, Role::Queen) => WhiteQueen,
        (Color::White, Role::King) => WhiteKing,
        (Color::Black, Role::Pawn) => BlackPawn,
        (Color::Black, Role::Knight) => BlackKnight,
        (Color::Black, Role::Bishop) => BlackBishop,
        (Color::Black, Role::Rook) => BlackRook,
        (Color::Black, Role::Queen) => BlackQueen,
        (Color::Black, Role::King) => BlackKing,
    }
}

/// The chess placement the raw fields show for `orientation`, with the promotion rule
/// applied: a pawn standing on its last rank (where no pawn can stand) is read as a queen.
/// Magic pieces are left out.
pub fn placement(raw: &RawFields, orientation: Orientation) -> Board {
    let mut board = Board::empty();
    for (field, piece) in (0u8..).zip(raw.iter()) {
        let (Some(piece), Some(sq)) = (
            piece.and_then(chess_piece),
            square_of_field(field, orientation),
        ) else {
            continue;
        };
        let last_rank = match piece.color {
            Color::White => Rank::Eighth,
            Color::Black => Rank::First,
        };
        let piece = if piece.role == Role::Pawn && sq.rank() == last_rank {
            Piece {
                role: Role::Queen,
                ..piece
            }
        } else {
            piece
        };
        board.set_piece_at(sq, piece);
    }
    board
}

/// The raw fields a board lying in `orientation` reports for this placement.
pub fn raw_fields(board: &Board, orientation: Orientation) -> RawFields {
    let mut raw = [None; 64];
    for (sq, piece) in board.iter() {
        raw[usize::from(field_of_square(sq, orientation))] = Some(dgt_piece(piece));
    }
    raw
}

/// The orientation in which the raw fields show exactly the start position, if any.
pub fn start_orientation(raw: &RawFields) -> Option<Orientation> {
    let start = Board::default();
    [Orientation::Normal, Orientation::Rotated]
        .into_iter()
        .find(|o| {
            raw.iter()
                .all(|p| p.is_none_or(|p| chess_piece(p).is_some()))
                && placement(raw, *o) == start
        })
}

/// A Chess960 start position other than the standard one, and the orientation it stands in:
/// all 32 pieces, the pawns on ranks 2 and 7, White's pieces on rank 1 in a Chess960
/// arrangement (bishops on squares of both colours, the king between the rooks) and Black's
/// mirroring them on rank 8. The position castles as Chess960 does.
pub fn chess960_start(raw: &RawFields) -> Option<(Orientation, shakmaty::Chess)> {
    use shakmaty::{CastlingMode, fen::Fen};
    if raw
        .iter()
        .any(|p| p.is_some_and(|p| chess_piece(p).is_none()))
    {
        return None;
    }
    [Orientation::Normal, Orientation::Rotated]
        .into_iter()
        .find_map(|o| {
            let board = placement(raw, o);
            if board == Board::default() || !is_chess960_start(&board) {
                return None;
            }
            let fen: Fen = format!("{board} w KQkq - 0 1").parse().ok()?;
            let pos = fen.into_position(CastlingMode::Chess960).ok()?;
            Some((o, pos))
        })
}

fn is_chess960_start(board: &Board) -> bool {
    if board.occupied().count() != 32 {
        return false;
    }
    let mut back = Vec::new();
    for file in File::ALL {
        let at = |rank, color: Color| {
            board
                .piece_at(Square::from_coords(file, rank))
                .filter(|p| p.color == color)
        };
        let (Some(w), Some(b)) = (
            at(Rank::First, Color::White),
            at(Rank::Eighth, Color::Black),
        ) else {
            return false;
        };
        let pawns = at(Rank::Second, Color::White).map(|p| p.role) == Some(Role::Pawn)
            && at(Rank::Seventh, Color::Black).map(|p| p.role) == Some(Role::Pawn);
        if w.role != b.role || w.role == Role::Pawn || !pawns {
            return false;
        }
        back.push(w.role);
    }
    let files = |role| (0..8).filter(|i| back[*i] == role).collect::<Vec<usize>>();
    let (rooks, knights, bishops, queens, kings) = (
        files(Role::Rook),
        files(Role::Knight),
        files(Role::Bishop),
        files(Role::Queen),
        files(Role::King),
    );
    match (rooks.as_slice(), bishops.as_slice(), kings.as_slice()) {
        (&[r1, r2], &[b1, b2], &[k]) => {
            knights.len() == 2 && queens.len() == 1 && r1 < k && k < r2 && (b1 + b2) % 2 == 1
        }
        _ => false,
    }
}

/// How a result was signalled on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultSignal {
    /// Both kings on the centre squares (d4, e4, d5, e5).
    KingsInCentre,
    /// A DGT magic piece (codes 0x0D-0x0F) on the board.
    MagicPiece,
}

/// The result the board signals, if any.
///
/// Kings: exactly one king of each colour on the board, both on centre squares. Both on light
/// squares (d5, e4): 1-0; both on dark squares (d4, e5): 0-1; one on each: 1/2-1/2. Two kings
/// on centre squares are always adjacent, so no legal position looks like this. Magic pieces:
/// `=` draw, `+` white wins, `-` black wins (the first one found).
pub fn signalled_result(
    raw: &RawFields,
    orientation: Orientation,
) -> Option<(GameResult, ResultSignal)> {
    for piece in raw.iter().flatten() {
        let r = match piece {
            DgtPiece::MagicDraw => GameResult::Draw,
            DgtPiece::MagicWhiteWins => GameResult::WhiteWins,
            DgtPiece::MagicBlackWins => GameResult::BlackWins,
            _ => continue,
        };
        return Some((r, ResultSignal::MagicPiece));
    }
    let board = placement(raw, orientation);
    let kings = board.kings();
    if kings.count() != 2 || (board.by_color(Color::White) & kings).count() != 1 {
        return None;
    }
    let centre = [Square::D4, Square::E4, Square::D5, Square::E5];
    if !kings.into_iter().all(|k| centre.contains(&k)) {
        return None;
    }
    let light = kings.into_iter().filter(|k| k.is_light()).count();
    Some(match light {
        2 => (GameResult::WhiteWins, ResultSignal::KingsInCentre),
        0 => (GameResult::BlackWins, ResultSignal::KingsInCentre),
        _ => (GameResult::Draw, ResultSignal::KingsInCentre),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_detected_in_both_orientations() {
        let normal = raw_fields(&Board::default(), Orientation::Normal);
        assert_eq!(normal[0], Some(DgtPiece::BlackRook));
        assert_eq!(start_orientation(&normal), Some(Orientation::Normal));
        let rotated = raw_fields(&Board::default(), Orientation::Rotated);
        assert_eq!(rotated[0], Some(DgtPiece::WhiteRook));
        assert_eq!(rotated[3], Some(DgtPiece::WhiteKing));
        assert_eq!(start_orientation(&rotated), Some(Orientation::Rotated));
        let mut moved = normal;
        moved.swap(52, 36);
        assert_eq!(start_orientation(&moved), None);
    }

    #[test]
    fn pawn_on_last_rank_reads_as_queen() {
        let mut raw = [None; 64];
        raw[4] = Some(DgtPiece::WhitePawn); // e8
        raw[60] = Some(DgtPiece::BlackPawn); // e1
        raw[12] = Some(DgtPiece::WhitePawn); // e7 stays a pawn
        let b = placement(&raw, Orientation::Normal);
        assert_eq!(b.piece_at(Square::E8), Some(Color::White.queen()));
        assert_eq!(b.piece_at(Square::E1), Some(Color::Black.queen()));
        assert_eq!(b.piece_at(Square::E7), Some(Color::White.pawn()));
    }

    fn kings_on(white: Square, black: Square, o: Orientation) -> RawFields {
        let mut raw = [None; 64];
        raw[usize::from(field_of_square(white, o))] = Some(DgtPiece::WhiteKing);
        raw[usize::from(field_of_square(black, o))] = Some(DgtPiece::BlackKing);
        raw[usize::from(field_of_square(Square::A2, o))] = Some(DgtPiece::WhitePawn);
        raw
    }

    #[test]
    fn kings_in_centre_follow_the_dgt_convention() {
        use GameResult::*;
        for o in [Orientation::Normal, Orientation::Rotated] {
            let r = |w, b| signalled_result(&kings_on(w, b, o), o).map(|(r, _)| r);
            assert_eq!(r(Square::E4, Square::D5), Some(WhiteWins));
            assert_eq!(r(Square::D5, Square::E4), Some(WhiteWins));
            assert_eq!(r(Square::D4, Square::E5), Some(BlackWins));
            assert_eq!(r(Square::E5, Square::D4), Some(BlackWins));
            assert_eq!(r(Square::E4, Square::E5), Some(Draw));
            assert_eq!(r(Square::D4, Square::D5), Some(Draw));
            assert_eq!(r(Square::E4, Square::C5), None);
            assert_eq!(r(Square::E1, Square::E8), None);
        }
    }

    #[test]
    fn magic_pieces_signal_results() {
        let mut raw = raw_fields(&Board::default(), Orientation::Normal);
        raw[30] = Some(DgtPiece::MagicBlackWins);
        assert_eq!(
            signalled_result(&raw, Orientation::Normal),
            Some((GameResult::BlackWins, ResultSignal::MagicPiece))
        );
    }

    #[test]
    fn fields_and_squares_round_trip() {
        for o in [Orientation::Normal, Orientation::Rotated] {
            for f in 0..64u8 {
                let sq = square_of_field(f, o).expect("in range");
                assert_eq!(field_of_square(sq, o), f);
            }
        }
        assert_eq!(square_of_field(36, Orientation::Normal), Some(Square::E4));
        assert_eq!(square_of_field(0, Orientation::Rotated), Some(Square::H1));
    }
}
