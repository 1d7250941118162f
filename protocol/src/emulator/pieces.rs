//! The pieces on the emulated board, and moves played with them piece by piece.
//!
//! Owns turning a move in UCI notation into the physical steps a player makes (lift the
//! mover, lift a captured piece, set the mover down; the rook's second trip when castling),
//! in a chosen order, and the operator's piece actions. It knows only board geometry (which
//! squares a castling rook or an en-passant capture involves), not the rules of chess: it
//! plays any move whose from-square holds a piece. It must not emit bytes: the
//! [`super::Emulator`] turns each step into a FIELD_UPDATE.

use crate::board::{Board, Piece, Square};

/// One physical change on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// The piece on this square is lifted (the square becomes empty).
    Lift(Square),
    /// This piece is set down on this square.
    Place(Square, Piece),
}

/// In which order the pieces of a capture or castling move are handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MoveOrder {
    /// Mover first: lift the mover, lift the captured piece, set the mover down; castling
    /// king first; en passant: the mover is set down before the captured pawn is lifted.
    #[default]
    MoverFirst,
    /// The other piece first: the captured piece is lifted before the mover; castling rook
    /// first.
    OtherFirst,
}

/// A move as the operator writes it: from, to and an optional piece to set down instead of
/// the mover (promotion).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PieceMove {
    /// Where the mover stands.
    pub from: Square,
    /// Where it goes.
    pub to: Square,
    /// The piece set down instead of the mover (`e7e8q`: a queen); `None` sets the mover
    /// itself down (a pawn reaching the last rank stays a pawn on the board).
    pub promotion: Option<Piece>,
}

/// A physical action of the operator on the emulated board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PieceAction {
    /// Lift the piece on a square.
    Lift(Square),
    /// Set a piece down on a square (replacing what stood there).
    Place(Square, Piece),
    /// Play a move piece by piece.
    Move(PieceMove, MoveOrder),
    /// Set up the start position.
    Setup,
    /// Take every piece off.
    Clear,
}

/// A move or action the board cannot carry out, with what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PieceError {
    /// The notation is not a move like `e2e4` or `e7e8q`.
    #[error(
        "{0:?} is not a move; write from and to squares like \"e2e4\", with a promotion letter like \"e7e8q\""
    )]
    Notation(String),
    /// Nothing stands on the from-square.
    #[error("no piece stands on {0}; place one first or check the move")]
    EmptyFrom(Square),
    /// The to-square holds a piece of the mover's own colour.
    #[error("{0} holds a piece of the mover's own colour; lift it first")]
    OwnPiece(Square),
    /// Lifting an empty square.
    #[error("{0} is empty; there is nothing to lift")]
    NothingToLift(Square),
}

fn is_white(p: Piece) -> bool {
    p.code() <= 6
}

fn promotion_piece(c: char, white: bool) -> Option<Piece> {
    let c = if white {
        c.to_ascii_uppercase()
    } else {
        c.to_ascii_lowercase()
    };
    matches!(c.to_ascii_lowercase(), 'q' | 'r' | 'b' | 'n')
        .then(|| Piece::from_char(c))
        .flatten()
}

impl PieceMove {
    /// Parse `e2e4` / `e7e8q` against the board (the promotion letter takes the mover's colour).
    pub fn parse(text: &str, board: &Board) -> Result<PieceMove, PieceError> {
        let bad = || PieceError::Notation(text.to_owned());
        let text_t = text.trim();
        let (from, rest) = text_t.split_at_checked(2).ok_or_else(bad)?;
        let (to, promo) = rest.split_at_checked(2).ok_or_else(bad)?;
        let from: Square = from.parse().map_err(|_| bad())?;
        let to: Square = to.parse().map_err(|_| bad())?;
        let mover = board.get(from).ok_or(PieceError::EmptyFrom(from))?;
        let promotion = match promo.chars().collect::<Vec<_>>().as_slice() {
            [] => None,
            [c] => Some(promotion_piece(*c, is_white(mover)).ok_or_else(bad)?),
            _ => return Err(bad()),
        };
        Ok(PieceMove {
            from,
            to,
            promotion,
        })
    }
}

/// The steps of `m` on `board`, in `order`.
pub fn move_steps(board: &Board, m: PieceMove, order: MoveOrder) -> Result<Vec<Step>, PieceError> {
    let mover = board.get(m.from).ok_or(PieceError::EmptyFrom(m.from))?;
    let target = board.get(m.to);
    if target.is_some_and(|t| is_white(t) == is_white(mover)) {
        return Err(PieceError::OwnPiece(m.to));
    }
    let placed = m.promotion.unwrap_or(mover);
    let is_king = matches!(mover, Piece::WhiteKing | Piece::BlackKing);
    let is_pawn = matches!(mover, Piece::WhitePawn | Piece::BlackPawn);
    let file_step = i16::from(m.to.file()) - i16::from(m.from.file());
    let other_first = order == MoveOrder::OtherFirst;
    // Castling: the king goes two files; the rook from the corner to the square it crossed.
    if is_king && file_step.abs() == 2 && m.from.rank() == m.to.rank() {
        let (corner, crossed) = if file_step > 0 { (7, 5) } else { (0, 3) };
        let rook_from = Square::from_file_rank(corner, m.from.rank());
        let rook_to = Square::from_file_rank(crossed, m.from.rank());
        if let (Some(rf), Some(rt), Some(rook)) =
            (rook_from, rook_to, rook_from.and_then(|s| board.get(s)))
        {
            let king = [Step::Lift(m.from), Step::Place(m.to, mover)];
            let rook = [Step::Lift(rf), Step::Place(rt, rook)];
            return Ok(if other_first {
                [rook, king].concat()
            } else {
                [king, rook].concat()
            });
        }
    }
    // En passant: a pawn moving diagonally onto an empty square takes the pawn beside it.
    if is_pawn
        && file_step != 0
        && target.is_none()
        && let Some(victim) =
            Square::from_file_rank(m.to.file(), m.from.rank()).filter(|v| board.get(*v).is_some())
    {
        let mv = [Step::Lift(m.from), Step::Place(m.to, placed)];
        return Ok(if other_first {
            [&[Step::Lift(victim)][..], &mv].concat()
        } else {
            [&mv[..], &[Step::Lift(victim)]].concat()
        });
    }
    Ok(match (target.is_some(), other_first) {
        (false, _) => vec![Step::Lift(m.from), Step::Place(m.to, placed)],
        (true, false) => vec![
            Step::Lift(m.from),
            Step::Lift(m.to),
            Step::Place(m.to, placed),
        ],
        (true, true) => vec![
            Step::Lift(m.to),
            Step::Lift(m.from),
            Step::Place(m.to, placed),
        ],
    })
}

/// The steps that turn `from` into `to`: lifts first, then placements, field order.
pub fn diff_steps(from: &Board, to: &Board) -> Vec<Step> {
    let squares = || (0..64u8).filter_map(Square::from_field);
    let lifts = squares().filter(|s| from.get(*s).is_some() && from.get(*s) != to.get(*s));
    let places = squares().filter_map(|s| match to.get(s) {
        Some(p) if from.get(s) != Some(p) => Some(Step::Place(s, p)),
        _ => None,
    });
    lifts.map(Step::Lift).chain(places).collect()
}

/// The steps of an operator action on `board`.
pub fn action_steps(board: &Board, action: PieceAction) -> Result<Vec<Step>, PieceError> {
    Ok(match action {
        PieceAction::Lift(s) => {
            if board.get(s).is_none() {
                return Err(PieceError::NothingToLift(s));
            }
            vec![Step::Lift(s)]
        }
        PieceAction::Place(s, p) => {
            let mut v = Vec::new();
            if board.get(s).is_some() {
                v.push(Step::Lift(s));
            }
            v.push(Step::Place(s, p));
            v
        }
        PieceAction::Move(m, order) => move_steps(board, m, order)?,
        PieceAction::Setup => diff_steps(board, &super::board::start_position()),
        PieceAction::Clear => diff_steps(board, &Board::empty()),
    })
}

/// A piece command in the emulator's text form, checked against `board`: `move UCI
/// [other-first]`, `lift SQUARE`, `place SQUARE PIECE` (`PRNBQK` / `prnbqk`), `setup`,
/// `clear`. `Ok(None)`: the words are not a piece command.
pub fn parse_command(words: &[&str], board: &Board) -> Result<Option<PieceAction>, String> {
    let square = |s: &str| -> Result<Square, String> {
        s.parse()
            .map_err(|e: crate::board::SquareParseError| e.to_string())
    };
    let action = match words {
        ["move", uci, rest @ ..] => {
            let order = match rest {
                [] => MoveOrder::MoverFirst,
                ["other-first"] => MoveOrder::OtherFirst,
                _ => {
                    return Err("move takes a UCI move and optionally other-first, \
                                e.g. \"move e1g1 other-first\""
                        .into());
                }
            };
            PieceAction::Move(
                PieceMove::parse(uci, board).map_err(|e| e.to_string())?,
                order,
            )
        }
        ["lift", s] => PieceAction::Lift(square(s)?),
        ["place", s, piece] => {
            let mut chars = piece.chars();
            let p = match (chars.next(), chars.next()) {
                (Some(c), None) => Piece::from_char(c).filter(|p| p.code() <= 12),
                _ => None,
            }
            .ok_or_else(|| {
                format!("{piece:?} is not a piece; use one of PRNBQK (White) or prnbqk (Black)")
            })?;
            PieceAction::Place(square(s)?, p)
        }
        ["setup"] => PieceAction::Setup,
        ["clear"] => PieceAction::Clear,
        _ => return Ok(None),
    };
    action_steps(board, action).map_err(|e| e.to_string())?;
    Ok(Some(action))
}

/// Apply one step to a board.
pub fn apply(board: &mut Board, step: Step) {
    let (sq, piece) = match step {
        Step::Lift(s) => (s, None),
        Step::Place(s, p) => (s, Some(p)),
    };
    board.fields[usize::from(sq.field())] = piece;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulator::board::start_position;

    fn sq(s: &str) -> Square {
        s.parse().expect("square")
    }

    fn play(board: &mut Board, text: &str, order: MoveOrder) -> Vec<Step> {
        let m = PieceMove::parse(text, board).expect("move");
        let steps = move_steps(board, m, order).expect("steps");
        for s in &steps {
            apply(board, *s);
        }
        steps
    }

    #[test]
    fn captures_castling_en_passant_and_promotion_in_both_orders() {
        let mut b = start_position();
        for m in ["e2e4", "d7d5"] {
            play(&mut b, m, MoveOrder::MoverFirst);
        }
        let mut b2 = b.clone();
        let steps = play(&mut b, "e4d5", MoveOrder::MoverFirst);
        assert_eq!(
            steps,
            [
                Step::Lift(sq("e4")),
                Step::Lift(sq("d5")),
                Step::Place(sq("d5"), Piece::WhitePawn)
            ]
        );
        let steps = play(&mut b2, "e4d5", MoveOrder::OtherFirst);
        assert_eq!(steps[0], Step::Lift(sq("d5")));
        assert_eq!(b, b2);

        let mut b = start_position();
        for m in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"] {
            play(&mut b, m, MoveOrder::MoverFirst);
        }
        let steps = play(&mut b.clone(), "e1g1", MoveOrder::MoverFirst);
        assert_eq!(
            steps[..2],
            [
                Step::Lift(sq("e1")),
                Step::Place(sq("g1"), Piece::WhiteKing)
            ]
        );
        let steps = play(&mut b, "e1g1", MoveOrder::OtherFirst);
        assert_eq!(
            steps[..2],
            [
                Step::Lift(sq("h1")),
                Step::Place(sq("f1"), Piece::WhiteRook)
            ]
        );
        assert_eq!(b.get(sq("g1")), Some(Piece::WhiteKing));
        assert_eq!(b.get(sq("h1")), None);

        let mut b = start_position();
        for m in ["e2e4", "a7a6", "e4e5", "d7d5"] {
            play(&mut b, m, MoveOrder::MoverFirst);
        }
        let steps = play(&mut b, "e5d6", MoveOrder::MoverFirst);
        assert_eq!(steps.last(), Some(&Step::Lift(sq("d5"))));

        let mut b = Board::empty();
        b.fields[usize::from(sq("b7").field())] = Some(Piece::WhitePawn);
        let steps = play(&mut b, "b7b8n", MoveOrder::MoverFirst);
        assert_eq!(steps[1], Step::Place(sq("b8"), Piece::WhiteKnight));
        let mut b = Board::empty();
        b.fields[usize::from(sq("b2").field())] = Some(Piece::BlackPawn);
        play(&mut b, "b2b1", MoveOrder::MoverFirst);
        assert_eq!(
            b.get(sq("b1")),
            Some(Piece::BlackPawn),
            "without a letter the pawn is set down"
        );
    }

    #[test]
    fn bad_moves_are_refused_with_reasons() {
        let b = start_position();
        assert_eq!(
            PieceMove::parse("e3e4", &b),
            Err(PieceError::EmptyFrom(sq("e3")))
        );
        assert_eq!(
            PieceMove::parse("e2", &b),
            Err(PieceError::Notation("e2".into()))
        );
        assert_eq!(
            PieceMove::parse("e2e4x", &b),
            Err(PieceError::Notation("e2e4x".into()))
        );
        assert_eq!(
            PieceMove::parse("e2e4qq", &b),
            Err(PieceError::Notation("e2e4qq".into()))
        );
        let m = PieceMove::parse("a1a2", &b).expect("parses");
        assert_eq!(
            move_steps(&b, m, MoveOrder::MoverFirst),
            Err(PieceError::OwnPiece(sq("a2")))
        );
        assert_eq!(
            action_steps(&b, PieceAction::Lift(sq("e4"))),
            Err(PieceError::NothingToLift(sq("e4")))
        );
        assert!(
            PieceError::EmptyFrom(sq("e3"))
                .to_string()
                .contains("no piece stands on e3")
        );
    }

    #[test]
    fn text_commands_parse_and_are_checked_against_the_board() {
        let b = start_position();
        assert_eq!(
            parse_command(&["move", "e2e4"], &b),
            Ok(Some(PieceAction::Move(
                PieceMove {
                    from: sq("e2"),
                    to: sq("e4"),
                    promotion: None
                },
                MoveOrder::MoverFirst
            )))
        );
        assert!(matches!(
            parse_command(&["move", "e2e4", "other-first"], &b),
            Ok(Some(PieceAction::Move(_, MoveOrder::OtherFirst)))
        ));
        assert_eq!(
            parse_command(&["place", "e4", "Q"], &b),
            Ok(Some(PieceAction::Place(sq("e4"), Piece::WhiteQueen)))
        );
        assert_eq!(parse_command(&["setup"], &b), Ok(Some(PieceAction::Setup)));
        assert_eq!(parse_command(&["clear"], &b), Ok(Some(PieceAction::Clear)));
        assert_eq!(parse_command(&["lever"], &b), Ok(None));
        for (bad, says) in [
            (&["move", "e3e4"][..], "no piece stands on e3"),
            (&["move", "e2"][..], "not a move"),
            (&["move", "a1a2"][..], "own colour"),
            (&["lift", "e4"][..], "nothing to lift"),
            (&["place", "e4", "X"][..], "not a piece"),
            (&["place", "e4", "="][..], "not a piece"),
            (&["place", "z9", "Q"][..], "not a square name"),
            (&["move", "e2e4", "sideways"][..], "other-first"),
        ] {
            let err = parse_command(bad, &b).expect_err(says);
            assert!(err.contains(says), "{bad:?}: {err}");
        }
    }

    #[test]
    fn setup_and_clear_are_diffs() {
        let steps = action_steps(&Board::empty(), PieceAction::Setup).expect("setup");
        assert_eq!(steps.len(), 32);
        let steps = action_steps(&start_position(), PieceAction::Clear).expect("clear");
        assert_eq!(steps.len(), 32);
        assert!(steps.iter().all(|s| matches!(s, Step::Lift(_))));
    }
}
