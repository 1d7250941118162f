//! One event of a conformance vector (spec §1: `t_ms`, `action` and the action's fields), read
//! loosely and turned into the engine's [`Input`]. Owns the actions' spellings only; running a
//! vector is the parent module's.

use serde::Deserialize;

use crate::types::{AdjustOp, BoardClaim, BoardEnd, GameResult, Input, Ruling, Side};
use crate::verdict::DEFAULT_RULING_DELAY_MS;

/// One event of a timing vector.
#[derive(Debug, Clone, Deserialize)]
pub struct VectorEvent {
    /// When.
    pub t_ms: u64,
    /// What.
    pub action: String,
    /// Side, where the action has one.
    #[serde(default)]
    pub side: Option<Side>,
    /// Adjust: field.
    #[serde(default)]
    pub field: Option<String>,
    /// Adjust: set / add.
    #[serde(default)]
    pub op: Option<AdjustOp>,
    /// Adjust: amount.
    #[serde(default)]
    pub ms: Option<i64>,
    /// set_moves: new count.
    #[serde(default)]
    pub moves: Option<u32>,
    /// board_result, board_end `signal`: result.
    #[serde(default)]
    pub result: Option<String>,
    /// board_end: `checkmate` (with `winner`), `stalemate`, `signal` (with `result`),
    /// `fivefold_repetition`, `seventy_five_moves`, `dead_position`.
    #[serde(default)]
    pub end: Option<String>,
    /// board_end `checkmate`: who mates.
    #[serde(default)]
    pub winner: Option<Side>,
    /// mating_material: whether White wins on Black's flag (absent: not known yet, a search
    /// runs; a flag waits for it).
    #[serde(default)]
    pub white: Option<bool>,
    /// mating_material: whether Black wins on White's flag (absent: not known yet).
    #[serde(default)]
    pub black: Option<bool>,
    /// board_claim: `threefold` or `fifty_moves`.
    #[serde(default)]
    pub claim: Option<BoardClaim>,
    /// board_claim: whether the board's history bears the claim out.
    #[serde(default)]
    pub valid: Option<bool>,
    /// ruling: `draw`, `deny`, `delay` (with `delay_ms`, default 5000) or `watch`.
    #[serde(default)]
    pub ruling: Option<String>,
    /// ruling `delay`: the delay placed on the clock.
    #[serde(default)]
    pub delay_ms: Option<u64>,
}

impl VectorEvent {
    pub(super) fn input(&self) -> Result<Input, String> {
        let side = || {
            self.side
                .ok_or_else(|| format!("{} at {} needs a side", self.action, self.t_ms))
        };
        Ok(match self.action.as_str() {
            "start" => Input::Start {
                side: self.side.unwrap_or(Side::White),
            },
            "press" => Input::Press { side: side()? },
            "pause" => Input::Pause,
            "resume" => Input::Resume,
            "adjust" => Input::Adjust {
                side: side()?,
                field: self
                    .field
                    .as_deref()
                    .ok_or("adjust needs a field")?
                    .parse()?,
                op: self.op.ok_or("adjust needs an op")?,
                ms: self.ms.ok_or("adjust needs ms")?,
            },
            "set_moves" => Input::SetMoves {
                side: side()?,
                moves: self.moves.ok_or("set_moves needs moves")?,
            },
            "claim_draw" => Input::ClaimDraw { side: side()? },
            "board_result" => Input::BoardResult {
                result: self
                    .result
                    .as_deref()
                    .and_then(|r| r.parse::<GameResult>().ok())
                    .ok_or("board_result needs a result 1-0, 0-1 or 1/2-1/2")?,
            },
            "board_end" => Input::BoardEnd {
                end: self.board_end()?,
            },
            "mating_material" => Input::MatingMaterial {
                white: self.white,
                black: self.black,
            },
            "board_claim" => Input::BoardClaim {
                side: side()?,
                claim: self
                    .claim
                    .ok_or("board_claim needs a claim threefold or fifty_moves")?,
                valid: self.valid.ok_or("board_claim needs valid: true|false")?,
            },
            "claim_losing_chances" => Input::ClaimLosingChances { side: side()? },
            "ruling" => Input::Ruling {
                ruling: match self.ruling.as_deref() {
                    Some("draw") => Ruling::Draw,
                    Some("deny") => Ruling::Deny,
                    Some("delay") => Ruling::Delay {
                        delay_ms: self.delay_ms.unwrap_or(DEFAULT_RULING_DELAY_MS),
                    },
                    Some("watch") => Ruling::Watch,
                    _ => return Err("ruling needs a ruling draw, deny, delay or watch".into()),
                },
            },
            other => return Err(format!("unknown action {other:?}")),
        })
    }
}

impl VectorEvent {
    fn board_end(&self) -> Result<BoardEnd, String> {
        Ok(match self.end.as_deref() {
            Some("checkmate") => BoardEnd::Checkmate {
                winner: self.winner.ok_or("board_end checkmate needs a winner")?,
            },
            Some("stalemate") => BoardEnd::Stalemate,
            Some("signal") => BoardEnd::Signal {
                result: self
                    .result
                    .as_deref()
                    .and_then(|r| r.parse::<GameResult>().ok())
                    .ok_or("board_end signal needs a result 1-0, 0-1 or 1/2-1/2")?,
            },
            Some("fivefold_repetition") => BoardEnd::FivefoldRepetition,
            Some("seventy_five_moves") => BoardEnd::SeventyFiveMoves,
            Some("dead_position") => BoardEnd::DeadPosition,
            _ => {
                return Err("board_end needs an end checkmate, stalemate, signal, \
                            fivefold_repetition, seventy_five_moves or dead_position"
                    .into());
            }
        })
    }
}
