//! A virtual clock's board follows its game: when the game changes by the operator's hand
//! (a move forced or typed, a move taken back, a position set), the emulated pieces are set
//! as the game stands, as the players at a real board would set them.
//!
//! Why the pieces follow, rather than the session ignoring a virtual board's pieces: a
//! virtual board is an emulated DGT board, and the game is read from its pieces like any
//! other (moves, takebacks, results, the reconciliation after a restart). Nobody can set its
//! pieces but through the game (no player sits at it; neither D-Bus nor the CLI moves them),
//! so the moves entered with `chessclockctl move N force` are the players' moves, made on
//! the emulated board at once. A real board shows the game's position once its players have
//! set the pieces; the emulated one does so straight away. No rule of the session knows that
//! a board is virtual.
//!
//! Owns turning the clock's published position (its FEN) into the physical steps that set
//! the pieces (every square that differs lifted first, then the pieces set down: every board
//! on the way is the game's position with pieces in the air, never another position), and the
//! task that watches the published state. It must not know the protocol (the emulator turns
//! each step into a FIELD_UPDATE) nor the game's rules (the FEN is the game's).

use chessclock_game::shakmaty::fen::Fen;
use chessclock_game::shakmaty::{File, Rank, Square as ChessSquare};
use chessclock_protocol::emulator::PieceAction;
use chessclock_protocol::{Board, Piece, Square};
use tokio::sync::{mpsc, watch};

use super::VirtualControl;
use crate::device::ClockState;

/// The pieces of `fen` by chess square; `None` for an empty or malformed FEN (no position is
/// known: nothing to set).
pub(crate) fn placement(fen: &str) -> Option<Board> {
    let fen: Fen = fen.parse().ok()?;
    let setup = fen.as_setup();
    let mut board = Board::empty();
    for rank in 0..8u8 {
        for file in 0..8u8 {
            let chess =
                ChessSquare::from_coords(File::new(u32::from(file)), Rank::new(u32::from(rank)));
            let (Some(piece), Some(square)) = (
                setup.board.piece_at(chess),
                Square::from_file_rank(file, rank),
            ) else {
                continue;
            };
            board.fields[usize::from(square.field())] = Piece::from_char(piece.char());
        }
    }
    Some(board)
}

/// The steps that turn the pieces `from` into `to`: each square that differs lifted (if a
/// piece stands on it), then each piece of `to` set down where it differs.
pub(crate) fn arrange_steps(from: &Board, to: &Board) -> Vec<PieceAction> {
    let differing: Vec<Square> = (0..64u8)
        .filter_map(Square::from_field)
        .filter(|sq| from.get(*sq) != to.get(*sq))
        .collect();
    let lifts = differing
        .iter()
        .filter(|sq| from.get(**sq).is_some())
        .map(|sq| PieceAction::Lift(*sq));
    let places = differing
        .iter()
        .filter_map(|sq| to.get(*sq).map(|p| PieceAction::Place(*sq, p)));
    lifts.chain(places).collect()
}

/// Set the pieces of the board behind `control` as the game in `state` stands, now and after
/// every change of its position, for as long as both live. The position at the start (a game
/// resumed after a restart) is sent before this returns, so that it is on the board before
/// the clock's actor first asks for the pieces. Must be called within a tokio runtime.
pub(crate) fn follow_game(
    control: mpsc::UnboundedSender<VirtualControl>,
    mut state: watch::Receiver<ClockState>,
) {
    let mut shown = state.borrow_and_update().fen.clone();
    if let Some(board) = placement(&shown)
        && control.send(VirtualControl::Arrange(board)).is_err()
    {
        return;
    }
    tokio::spawn(async move {
        while state.changed().await.is_ok() {
            let fen = state.borrow_and_update().fen.clone();
            if fen == shown {
                continue;
            }
            shown = fen;
            if let Some(board) = placement(&shown)
                && control.send(VirtualControl::Arrange(board)).is_err()
            {
                return;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessclock_protocol::emulator::board::start_position;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    fn sq(s: &str) -> Square {
        s.parse().expect("a square")
    }

    #[test]
    fn a_fen_s_pieces_are_placed_by_chess_square_and_no_position_places_nothing() {
        assert_eq!(placement(START), Some(start_position()));
        let after = placement("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
            .expect("a position");
        assert_eq!(after.get(sq("e4")), Some(Piece::WhitePawn));
        assert_eq!(after.get(sq("e2")), None);
        assert_eq!(after.get(sq("e8")), Some(Piece::BlackKing));
        assert_eq!(placement(""), None);
        assert_eq!(placement("not a fen"), None);
    }

    #[test]
    fn arranging_lifts_what_differs_first_then_sets_the_pieces_down() {
        let from = start_position();
        // 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O
        let to = placement("r1bqkbnr/1pp2ppp/p1p5/4p3/4P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 0 5")
            .expect("a position");
        let steps = arrange_steps(&from, &to);
        let first_place = steps
            .iter()
            .position(|s| matches!(s, PieceAction::Place(..)))
            .expect("pieces set down");
        assert!(
            steps[..first_place]
                .iter()
                .all(|s| matches!(s, PieceAction::Lift(_))),
            "{steps:?}"
        );
        assert!(
            steps[first_place..]
                .iter()
                .all(|s| matches!(s, PieceAction::Place(..))),
            "{steps:?}"
        );
        let mut board = from.clone();
        for step in &steps {
            match step {
                PieceAction::Lift(s) => board.fields[usize::from(s.field())] = None,
                PieceAction::Place(s, p) => board.fields[usize::from(s.field())] = Some(*p),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(board, to);
        assert!(arrange_steps(&to, &to).is_empty(), "nothing to do");
    }
}
