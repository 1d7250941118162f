//! The last move of a board's game as clients show it: its SAN, its UCI (the squares a
//! diagram marks) and its number, found by replaying the published SAN moves (shakmaty)
//! from the start, or from the game's `FEN` tag when it has one. Pure.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Position};

use crate::Side;

/// The last move made on the board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LastMove {
    /// Its move number (`23` in `23... Nf6`).
    pub number: u32,
    /// Who made it.
    pub side: Side,
    /// In SAN, as published (`Nf6`).
    pub san: String,
    /// In UCI (`g8f6`), or empty when the moves do not replay from the game's start.
    pub uci: String,
}

/// The last of `moves_san`, with its number and squares; `None` before the first move.
pub fn last_move(moves_san: &[String], game_info: &BTreeMap<String, String>) -> Option<LastMove> {
    let san = moves_san.last()?.clone();
    let start = start(game_info);
    let replayed = start.as_ref().and_then(|pos| {
        let mut pos = pos.clone();
        let (last, before) = moves_san.split_last()?;
        for m in before {
            let mv = San::from_ascii(m.trim_end_matches(['+', '#']).as_bytes())
                .ok()?
                .to_move(&pos)
                .ok()?;
            pos.play_unchecked(mv);
        }
        let mv = San::from_ascii(last.trim_end_matches(['+', '#']).as_bytes())
            .ok()?
            .to_move(&pos)
            .ok()?;
        Some((
            pos.fullmoves().get(),
            side(pos.turn()),
            mv.to_uci(CastlingMode::Standard).to_string(),
        ))
    });
    Some(match replayed {
        Some((number, side, uci)) => LastMove {
            number,
            side,
            san,
            uci,
        },
        None => {
            // Counted from a standard start: White's moves are the odd plies.
            let plies = u32::try_from(moves_san.len()).unwrap_or(u32::MAX);
            LastMove {
                number: plies.div_ceil(2),
                side: if plies % 2 == 1 {
                    Side::White
                } else {
                    Side::Black
                },
                san,
                uci: String::new(),
            }
        }
    })
}

fn start(game_info: &BTreeMap<String, String>) -> Option<Chess> {
    match game_info.get("FEN") {
        None => Some(Chess::default()),
        Some(fen) => {
            let fen: Fen = fen.parse().ok()?;
            match fen.clone().into_position(CastlingMode::Standard) {
                Ok(pos) => Some(pos),
                Err(_) => fen.into_position(CastlingMode::Chess960).ok(),
            }
        }
    }
}

fn side(c: shakmaty::Color) -> Side {
    match c {
        shakmaty::Color::White => Side::White,
        shakmaty::Color::Black => Side::Black,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn the_last_move_has_its_number_side_and_squares() {
        let none = BTreeMap::new();
        assert_eq!(last_move(&[], &none), None);
        let m = last_move(&moves("e4 e5 Nf3 Nc6 Bb5 a6 O-O"), &none).expect("a move");
        assert_eq!(
            (m.number, m.side, m.san.as_str(), m.uci.as_str()),
            (4, Side::White, "O-O", "e1g1")
        );
        let m = last_move(&moves("e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#"), &none).expect("a move");
        assert_eq!(m.uci, "h5f7");
        let m = last_move(&moves("e4 e5 Nf3"), &none).expect("a move");
        assert_eq!((m.number, m.side), (2, Side::White));
    }

    #[test]
    fn a_game_from_a_fen_counts_from_it_and_bad_moves_keep_the_san() {
        let mut info = BTreeMap::new();
        info.insert(
            "FEN".to_owned(),
            "4k3/8/8/8/8/8/4P3/4K3 b - - 0 40".to_owned(),
        );
        let m = last_move(&moves("Kd7 e4"), &info).expect("a move");
        assert_eq!(
            (m.number, m.side, m.uci.as_str()),
            (41, Side::White, "e2e4")
        );
        let m = last_move(&moves("e4 Zz9"), &BTreeMap::new()).expect("a move");
        assert_eq!((m.number, m.side, m.uci.as_str()), (1, Side::Black, ""));
    }
}
