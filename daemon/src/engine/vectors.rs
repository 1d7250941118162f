//! The conformance-vector schema (spec §1) and a runner that replays a vector's inputs
//! through the engine. It reads only the inputs (control, events, the expected snapshots'
//! `t_ms`), never the expected values.

use serde::Deserialize;
use serde_json::Value;

use super::core::Engine;
use super::types::{AdjustOp, GameResult, Input, Side, Time};
use crate::engine::notation;
use crate::engine::params::{Method, Params, TimeControl};

/// A vectors file.
#[derive(Debug, Clone, Deserialize)]
pub struct VectorFile {
    /// Timing vectors.
    #[serde(default)]
    pub vectors: Vec<TimingVector>,
    /// Notation vectors (inputs only are needed).
    #[serde(default)]
    pub notation_vectors: Vec<NotationVector>,
}

/// A timing vector.
#[derive(Debug, Clone, Deserialize)]
pub struct TimingVector {
    /// Identifier.
    pub id: String,
    /// Method (with `params`).
    #[serde(default)]
    pub method: Option<Method>,
    /// Notation (used when `params` is absent).
    #[serde(default)]
    pub notation: Option<String>,
    /// Parameters.
    #[serde(default)]
    pub params: Option<Params>,
    /// Events.
    pub events: Vec<VectorEvent>,
    /// Expected snapshots (only `t_ms` is read).
    pub expect: Vec<Value>,
}

/// A notation vector (only `input` is read).
#[derive(Debug, Clone, Deserialize)]
pub struct NotationVector {
    /// The notation.
    pub input: String,
}

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
    /// board_result: result.
    #[serde(default)]
    pub result: Option<String>,
}

impl VectorEvent {
    fn input(&self) -> Result<Input, String> {
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
                field: self.field.clone().ok_or("adjust needs a field")?,
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
                    .and_then(GameResult::parse)
                    .ok_or("board_result needs a result 1-0, 0-1 or 1/2-1/2")?,
            },
            other => return Err(format!("unknown action {other:?}")),
        })
    }
}

/// The control a vector runs under.
pub fn control_of(v: &TimingVector) -> Result<TimeControl, String> {
    match (&v.params, v.method) {
        (Some(p), Some(m)) => Ok(TimeControl {
            method: m,
            params: p.clone(),
        }),
        _ => {
            let n = v
                .notation
                .as_deref()
                .ok_or_else(|| format!("{}: neither params nor notation", v.id))?;
            notation::parse(n)
                .map(|p| p.control)
                .map_err(|e| format!("{}: {e}", v.id))
        }
    }
}

/// Replay a vector: the snapshot at each expected `t_ms`, after every event at or before it.
pub fn run_vector(v: &TimingVector) -> Result<Vec<Value>, String> {
    let control = control_of(v)?;
    let mut engine = Engine::new(control).map_err(|e| format!("{}: {e}", v.id))?;
    let mut events = v.events.iter().peekable();
    let mut out = Vec::new();
    for exp in &v.expect {
        let t = exp
            .get("t_ms")
            .and_then(Value::as_u64)
            .ok_or_else(|| format!("{}: an expected snapshot has no t_ms", v.id))?;
        while let Some(ev) = events.next_if(|e| e.t_ms <= t) {
            let input = ev.input().map_err(|e| format!("{}: {e}", v.id))?;
            // Inputs that are not allowed are ignored, as the vectors specify.
            let _ = engine.handle_input(Time::from_ms(ev.t_ms), input);
        }
        engine.handle_timeout(Time::from_ms(t));
        out.push(engine.snapshot(Time::from_ms(t)).0);
    }
    Ok(out)
}

/// Every field present in `expected` (recursively) that `got` lacks or has with another
/// value, as `path: expected X, got Y` lines (the harness rule of spec §1).
pub fn differences(expected: &Value, got: &Value) -> Vec<String> {
    fn walk(path: &str, expected: &Value, got: Option<&Value>, out: &mut Vec<String>) {
        match (expected, got) {
            (Value::Object(e), Some(Value::Object(g))) => {
                for (k, ev) in e {
                    walk(&format!("{path}.{k}"), ev, g.get(k), out);
                }
            }
            (e, Some(g)) if e == g => {}
            (e, g) => out.push(format!(
                "{path}: expected {e}, got {}",
                g.map_or_else(|| "nothing".to_owned(), Value::to_string)
            )),
        }
    }
    let mut out = Vec::new();
    walk("", expected, Some(got), &mut out);
    out
}
