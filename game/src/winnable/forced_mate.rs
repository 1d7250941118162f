//! Whether one side forces mate within a few moves against any defence: the "forced win" of
//! USCF 14E2 and 14E3, where the side with a lone minor piece or two knights may win on time
//! only if it has one.
//!
//! A plain AND-OR search by iterative deepening over shakmaty's legal moves, bounded by the
//! caller's [`MateBudget`] (moves and positions visited), so that it always ends. Not
//! finding a mate within the budget is not a proof that there is none: 14E's "not decided"
//! counts as no forced win, and the caller says so. Pure: no clock, no IO.

use shakmaty::{Chess, Color, Position};

/// How far the forced-mate search may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MateBudget {
    /// The longest mate looked for, in the winner's moves.
    pub moves: u32,
    /// The most positions visited over all depths.
    pub nodes: u64,
}

impl Default for MateBudget {
    /// Mates in up to 5 moves, 200,000 positions (a few tens of milliseconds in a release
    /// build: docs/benchmarks.md).
    fn default() -> MateBudget {
        MateBudget {
            moves: 5,
            nodes: 200_000,
        }
    }
}

/// What the forced-mate search found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForcedMate {
    /// The winner mates in `moves` of its own moves whatever the defence (0: the loser is
    /// mated already).
    Found {
        /// The mate's length.
        moves: u32,
    },
    /// No forced mate in up to `within` moves (every depth to it searched in full); longer
    /// ones were not decided within the budget.
    NotFound {
        /// The depth searched in full.
        within: u32,
    },
}

/// Whether `winner` forces mate in `pos` within `budget`, the side to move as the position
/// says.
pub fn forced_mate(pos: &Chess, winner: Color, budget: MateBudget) -> ForcedMate {
    if pos.is_checkmate() {
        return if pos.turn() == winner {
            ForcedMate::NotFound { within: 0 }
        } else {
            ForcedMate::Found { moves: 0 }
        };
    }
    let mut search = Search {
        winner,
        nodes: 0,
        limit: budget.nodes,
    };
    let mut within = 0;
    for n in 1..=budget.moves {
        let mated = if pos.turn() == winner {
            search.attack(pos, n)
        } else {
            search.defend(pos, n)
        };
        match mated {
            Some(true) => return ForcedMate::Found { moves: n },
            Some(false) => within = n,
            None => break,
        }
    }
    ForcedMate::NotFound { within }
}

struct Search {
    winner: Color,
    nodes: u64,
    limit: u64,
}

impl Search {
    /// Counts a visited position; `None` once the budget is spent.
    fn visit(&mut self) -> Option<()> {
        self.nodes += 1;
        (self.nodes <= self.limit).then_some(())
    }

    /// The winner to move mates in at most `n` moves (`None`: out of budget).
    fn attack(&mut self, pos: &Chess, n: u32) -> Option<bool> {
        self.visit()?;
        // Checks first: a mate is one, and they narrow the defence.
        let mut after: Vec<(bool, Chess)> = pos
            .legal_moves()
            .into_iter()
            .map(|m| {
                let mut next = pos.clone();
                next.play_unchecked(m);
                (next.is_check(), next)
            })
            .filter(|(check, _)| n > 1 || *check)
            .collect();
        after.sort_by_key(|(check, _)| !*check);
        for (check, next) in &after {
            if *check && next.is_checkmate() {
                return Some(true);
            }
        }
        if n == 1 {
            return Some(false);
        }
        for (_, next) in &after {
            if self.defend(next, n - 1)? {
                return Some(true);
            }
        }
        Some(false)
    }

    /// The loser to move is mated within `n` more moves of the winner whatever it plays.
    fn defend(&mut self, pos: &Chess, n: u32) -> Option<bool> {
        self.visit()?;
        let moves = pos.legal_moves();
        if moves.is_empty() {
            // Mated (the winner's last move did it) or stalemated: no win.
            return Some(pos.is_check() && pos.turn() != self.winner);
        }
        for m in moves {
            let mut next = pos.clone();
            next.play_unchecked(m);
            if !self.attack(&next, n)? {
                return Some(false);
            }
        }
        Some(true)
    }
}
