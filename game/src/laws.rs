//! What the rules of chess say of a game's positions: a game ended on the board (checkmate,
//! stalemate, fivefold repetition, 75 moves), the draws a player may claim (threefold
//! repetition, fifty moves) and which sides can still checkmate by the material, inline
//! (FIDE 5.1, 5.2, 6.9, 9.2, 9.3, 9.6; docs/rules.md).
//!
//! Pure functions of the positions since the game's start (shakmaty's rules; no move
//! generator or material table of our own). Who can still mate is [`crate::winnable`]'s to
//! say: [`Assessment::can_mate`] is its quick check, and the search that sees locked walls
//! and forced sequences runs where the caller can afford it. It must not know the clock:
//! the session feeds the engine what is decided here.

use chessclock_engine::{BoardClaim, BoardEnd, Side, WhoCanMate};
use shakmaty::{Board, Chess, Color, EnPassantMode, Position, Square};

/// The rules' verdict on the latest position of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Assessment {
    /// The game ended on the board with the last move, if it did. A mate takes precedence
    /// over a repetition or the 75-move count it completes (FIDE 9.6).
    pub end: Option<BoardEnd>,
    /// The player to move may claim a threefold repetition now (FIDE 9.2: the position has
    /// stood three times).
    pub threefold: bool,
    /// The player to move may claim the fifty-move draw now (FIDE 9.3).
    pub fifty_moves: bool,
    /// Who can still checkmate, by the material alone ([`crate::winnable::quick`]:
    /// `cannot_mate` or `undetermined`; the search decides the rest).
    pub can_mate: WhoCanMate,
}

impl Assessment {
    /// Whether `claim` is right now.
    pub fn claim_holds(&self, claim: BoardClaim) -> bool {
        match claim {
            BoardClaim::Threefold => self.threefold,
            BoardClaim::FiftyMoves => self.fifty_moves,
        }
    }
}

/// Assess the last of `positions` (the game's positions from its start, oldest first; the
/// start alone is a game without moves). `None` for no positions.
pub fn assess(positions: &[Chess]) -> Option<Assessment> {
    let last = positions.last()?;
    let repeats = repetitions(positions);
    let halfmoves = last.halfmoves();
    let end = if last.is_checkmate() {
        Some(BoardEnd::Checkmate {
            winner: side(!last.turn()),
        })
    } else if last.is_stalemate() {
        Some(BoardEnd::Stalemate)
    } else if repeats >= 5 {
        Some(BoardEnd::FivefoldRepetition)
    } else if halfmoves >= 150 {
        Some(BoardEnd::SeventyFiveMoves)
    } else {
        None
    };
    Some(Assessment {
        end,
        threefold: repeats >= 3,
        fifty_moves: halfmoves >= 100,
        can_mate: crate::winnable::quick(last),
    })
}

/// How often the last position has stood, counting it (FIDE 9.2.2: same player to move,
/// same pieces on the same squares, same castling rights and en passant captures). Only
/// positions since the last capture or pawn move can repeat it.
fn repetitions(positions: &[Chess]) -> u32 {
    let Some(last) = positions.last() else {
        return 0;
    };
    let key = identity(last);
    let window = usize::try_from(last.halfmoves()).unwrap_or(usize::MAX);
    let first = positions.len().saturating_sub(window.saturating_add(1));
    let same = positions[first..]
        .iter()
        .filter(|p| identity(p) == key)
        .count();
    u32::try_from(same).unwrap_or(u32::MAX)
}

type Identity = (Board, Color, shakmaty::Bitboard, Option<Square>);

fn identity(p: &Chess) -> Identity {
    (
        p.board().clone(),
        p.turn(),
        p.castles().castling_rights(),
        p.ep_square(EnPassantMode::Legal),
    )
}

/// The engine's side for a colour.
pub fn side(c: Color) -> Side {
    match c {
        Color::White => Side::White,
        Color::Black => Side::Black,
    }
}

#[cfg(test)]
mod tests;
