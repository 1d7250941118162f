//! The demo's players: real games made piece by piece on the emulated board, each move
//! followed by a press of the lever, so a newcomer sees the board and the clock judge
//! together. The games take turns: one ends in a mate on the board, one in the kings'
//! result signal set by an arbiter, one is decided by the clock (a repetition played on
//! until the double-flag rule ends it).
//!
//! Pure: [`Player::poll`] is told the time, whose turn the clock shows and how many moves
//! the daemon has read from the board, and says what to do on the board; sending it is the
//! demo loop's. It must not know the rules: the daemon judges what it plays.

use chessclock_protocol::board::{Piece, Square};
use chessclock_protocol::emulator::{MoveOrder, PieceAction, PieceMove};

use crate::engine::Side;

/// How a demo game ends when the clock does not end it first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The last move mates.
    Mate,
    /// After the moves, an arbiter moves the kings (White's, Black's: from, to) onto the
    /// centre squares.
    Signal((&'static str, &'static str), (&'static str, &'static str)),
    /// The moves repeat until the clock ends the game.
    Clock,
}

/// A game the demo plays: its moves (UCI) and how it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DemoGame {
    /// What the game shows, for the demo's first lines.
    pub name: &'static str,
    pub moves: &'static [&'static str],
    pub ending: Ending,
}

/// The demo's games, in turn.
pub(crate) const GAMES: [DemoGame; 3] = [
    DemoGame {
        name: "Legal's mate",
        moves: &[
            "e2e4", "e7e5", "g1f3", "d7d6", "f1c4", "c8g4", "b1c3", "g7g6", "f3e5", "g4d1", "c4f7",
            "e8e7", "c3d5",
        ],
        ending: Ending::Mate,
    },
    DemoGame {
        name: "a Queen's Gambit agreed drawn with the kings",
        moves: &[
            "d2d4", "d7d5", "c2c4", "e7e6", "b1c3", "g8f6", "c1g5", "f8e7", "e2e3", "e8g8", "g1f3",
            "b8d7", "a1c1", "c7c6", "f1d3", "d5c4", "d3c4", "f6d5",
        ],
        ending: Ending::Signal(("e1", "d4"), ("g8", "d5")),
    },
    DemoGame {
        name: "knights out and back until the clock decides",
        moves: &["g1f3", "g8f6", "f3g1", "f6g8"],
        ending: Ending::Clock,
    },
];

/// How long after a move is read its player presses the lever.
const PRESS_AFTER_MS: u64 = 300;
/// How long a move may go unread before the player presses anyway (and follows the board).
const READ_TIMEOUT_MS: u64 = 3_000;

/// What the player does on the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Act {
    Pieces(PieceAction),
    Lever,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for the player's turn.
    Idle,
    /// Thinking until then.
    Think(u64),
    /// The move was made at this time; waiting for the daemon to read it.
    Read(u64),
    /// Pressing the lever then.
    Press(u64),
    /// The lever was pressed at this time for this side; waiting for the clock to pass
    /// the turn.
    Pressed(Side, u64),
    /// The game's moves are over.
    Done,
}

/// The player of both sides. See the module docs.
#[derive(Debug)]
pub(crate) struct Player {
    game: usize,
    ply: usize,
    phase: Phase,
    seed: u64,
}

impl Player {
    /// The first game's player.
    pub(crate) fn new() -> Player {
        Player {
            game: 0,
            ply: 0,
            phase: Phase::Idle,
            seed: 0x2545_F491_4F6C_DD1D,
        }
    }

    /// The game being played.
    pub(crate) fn game(&self) -> DemoGame {
        GAMES[self.game % GAMES.len()]
    }

    /// On to the next game: the pieces go back to their start squares.
    pub(crate) fn next_game(&mut self) -> Act {
        self.game += 1;
        self.ply = 0;
        self.phase = Phase::Idle;
        Act::Pieces(PieceAction::Setup)
    }

    fn think_ms(&mut self) -> u64 {
        self.seed = self
            .seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        800 + (self.seed >> 33) % 2201
    }

    /// What to do at `now_ms`, with `to_move` the side whose clock runs (`None`: the game
    /// is not running) and `read` the moves the daemon has read from the board.
    pub(crate) fn poll(&mut self, now_ms: u64, to_move: Option<Side>, read: usize) -> Vec<Act> {
        let Some(side) = to_move else {
            if self.phase != Phase::Done {
                self.phase = Phase::Idle;
            }
            return Vec::new();
        };
        match self.phase {
            Phase::Idle => {
                let mover = if self.ply.is_multiple_of(2) {
                    Side::White
                } else {
                    Side::Black
                };
                let think = now_ms + self.think_ms();
                // Out of step with the clock (a press it missed): a bare press passes the
                // turn back to the game's mover.
                self.phase = if side == mover {
                    Phase::Think(think)
                } else {
                    Phase::Press(think)
                };
                Vec::new()
            }
            Phase::Think(at) if now_ms >= at => self.play(now_ms),
            Phase::Read(since) if read >= self.ply || now_ms >= since + READ_TIMEOUT_MS => {
                self.ply = self.ply.max(read);
                self.phase = Phase::Press(now_ms + PRESS_AFTER_MS);
                Vec::new()
            }
            Phase::Press(at) if now_ms >= at => {
                self.phase = Phase::Pressed(side, now_ms);
                vec![Act::Lever]
            }
            Phase::Pressed(pressed, at) if side != pressed || now_ms >= at + READ_TIMEOUT_MS => {
                self.phase = Phase::Idle;
                self.poll(now_ms, to_move, read)
            }
            _ => Vec::new(),
        }
    }

    /// Make the next move, or the game's ending.
    fn play(&mut self, now_ms: u64) -> Vec<Act> {
        let game = self.game();
        let uci = match game.ending {
            Ending::Clock => Some(game.moves[self.ply % game.moves.len()]),
            Ending::Mate | Ending::Signal(..) => game.moves.get(self.ply).copied(),
        };
        if let Some(uci) = uci {
            self.ply += 1;
            self.phase = Phase::Read(now_ms);
            return piece_move(uci)
                .map(|m| vec![Act::Pieces(PieceAction::Move(m, MoveOrder::MoverFirst))])
                .unwrap_or_default();
        }
        self.phase = Phase::Done;
        match game.ending {
            Ending::Signal(white, black) => signal(white, black),
            Ending::Mate | Ending::Clock => Vec::new(),
        }
    }
}

fn square(name: &str) -> Option<Square> {
    name.parse().ok()
}

fn piece_move(uci: &str) -> Option<PieceMove> {
    Some(PieceMove {
        from: square(uci.get(0..2)?)?,
        to: square(uci.get(2..4)?)?,
        promotion: None,
    })
}

/// Both kings lifted, then set down on the centre squares: the DGT result signal.
fn signal(white: (&str, &str), black: (&str, &str)) -> Vec<Act> {
    let squares = [white.0, black.0, white.1, black.1].map(square);
    let [Some(wf), Some(bf), Some(wt), Some(bt)] = squares else {
        return Vec::new();
    };
    vec![
        Act::Pieces(PieceAction::Lift(wf)),
        Act::Pieces(PieceAction::Lift(bf)),
        Act::Pieces(PieceAction::Place(wt, Piece::WhiteKing)),
        Act::Pieces(PieceAction::Place(bt, Piece::BlackKing)),
    ]
}

#[cfg(test)]
mod tests;
