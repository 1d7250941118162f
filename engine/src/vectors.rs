//! The conformance-vector schema (spec §1) and a runner that replays a vector's inputs
//! through the engine. It reads only the inputs (control, events, the expected snapshots'
//! `t_ms`), never the expected values.
//!
//! The runner is lenient on purpose: a vectors file is read as generic JSON and every vector
//! is handled on its own, so one vector this engine does not understand (an unknown params
//! key, an unknown method, an event it cannot read) never hides the results of the others.
//! The public JSON form ([`TimeControl`]) stays strict everywhere else (D-Bus, config).

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

mod event;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::core::Engine;
use super::types::Time;
use crate::notation;
use crate::params::{Credit, DelayKind, OnFlag, Params, Scheme, Segment, TimeControl};

/// A vectors file, read loosely: each vector stays generic JSON until it is run.
#[derive(Debug, Clone, Default)]
pub struct VectorFile {
    /// Timing vectors.
    pub vectors: Vec<TimingVector>,
    /// Notation vectors (inputs only are needed).
    pub notation_vectors: Vec<NotationVector>,
}

impl VectorFile {
    /// Read a vectors document. Fails only if `doc` is not a JSON object; missing or
    /// malformed lists are empty, and each vector is checked when it is run.
    pub fn from_value(doc: &Value) -> Result<VectorFile, String> {
        let obj = doc
            .as_object()
            .ok_or("a vectors file is a JSON object with \"vectors\" and \"notation_vectors\"")?;
        let list = |k: &str| {
            obj.get(k)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        Ok(VectorFile {
            vectors: list("vectors")
                .iter()
                .map(TimingVector::from_value)
                .collect(),
            notation_vectors: list("notation_vectors")
                .iter()
                .map(|n| NotationVector {
                    input: n.get("input").and_then(Value::as_str).map(str::to_owned),
                })
                .collect(),
        })
    }
}

/// A timing vector, with every part kept as JSON until it is used.
#[derive(Debug, Clone)]
pub struct TimingVector {
    /// Identifier (normally a string; echoed back as given).
    pub id: Value,
    /// Method name (with `params`).
    pub method: Option<Value>,
    /// Notation (used when `params` is absent or cannot be used).
    pub notation: Option<String>,
    /// Parameters.
    pub params: Option<Value>,
    /// Events.
    pub events: Vec<Value>,
    /// Expected snapshots (only `t_ms` is read).
    pub expect: Vec<Value>,
}

impl TimingVector {
    /// Take the parts of a vector object; anything missing is empty.
    pub fn from_value(v: &Value) -> TimingVector {
        let arr = |k: &str| {
            v.get(k)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        TimingVector {
            id: v.get("id").cloned().unwrap_or(Value::Null),
            method: v.get("method").cloned(),
            notation: v.get("notation").and_then(Value::as_str).map(str::to_owned),
            params: v.get("params").cloned(),
            events: arr("events"),
            expect: arr("expect"),
        }
    }

    fn name(&self) -> String {
        self.id
            .as_str()
            .map_or_else(|| self.id.to_string(), str::to_owned)
    }
}

/// A notation vector (only `input` is read).
#[derive(Debug, Clone)]
pub struct NotationVector {
    /// The notation (`None` if the vector has no string `input`).
    pub input: Option<String>,
}

pub use event::VectorEvent;

/// Every key a fully populated value of `T` serialises, i.e. the fields `T` knows.
fn known_keys<T: Serialize>(full: &T) -> BTreeSet<String> {
    match serde_json::to_value(full) {
        Ok(Value::Object(m)) => m.keys().cloned().collect(),
        _ => BTreeSet::new(),
    }
}

fn full_segment() -> Segment {
    Segment {
        moves: Some(1),
        base_ms: 1,
        inc_ms: Some(1),
        delay_ms: Some(1),
        delay_kind: Some(DelayKind::Us),
    }
}

fn full_params() -> Params {
    Params {
        segments: Some(vec![]),
        segments_white: Some(vec![]),
        segments_black: Some(vec![]),
        credit: Some(Credit::Fide),
        transition: Some(Default::default()),
        on_flag: Some(OnFlag::Freeze),
        cap_ms: Some(1),
        max_total_ms: Some(1),
        overall_cap_ms: Some(1),
        per_side_ms: Some(1),
        main_ms: Some(1),
        periods: Some(1),
        period_ms: Some(1),
        stones: Some(1),
        main_segments: Some(vec![]),
        extra_ms: Some(1),
        bonus_ms: Some(1),
        scheme: Some(Scheme::Hybrid),
        reserve_incs_ms: Some(vec![]),
        reserve_ms: Some(1),
        swing_ms: Some(1),
        cutoff_moves: Some(1),
        armageddon: Some(true),
        white: Some(Box::new(TimeControl {
            method: crate::params::Method::SuddenDeath,
            params: Params::default(),
        })),
        black: Some(Box::new(TimeControl {
            method: crate::params::Method::SuddenDeath,
            params: Params::default(),
        })),
    }
}

/// `params` with the keys this engine does not know removed (also inside segments); the
/// removed keys are returned.
fn strip_unknown(params: &Value) -> (Value, Vec<String>) {
    let pk = known_keys(&full_params());
    let sk = known_keys(&full_segment());
    let mut dropped = Vec::new();
    let keep =
        |m: &Map<String, Value>, known: &BTreeSet<String>, path: &str, out: &mut Vec<String>| {
            let mut n = Map::new();
            for (k, v) in m {
                if known.contains(k) {
                    n.insert(k.clone(), v.clone());
                } else {
                    out.push(format!("{path}{k}"));
                }
            }
            n
        };
    let Some(obj) = params.as_object() else {
        return (params.clone(), dropped);
    };
    let mut top = keep(obj, &pk, "", &mut dropped);
    for list in [
        "segments",
        "segments_white",
        "segments_black",
        "main_segments",
    ] {
        if let Some(Value::Array(segs)) = top.get(list).cloned() {
            let segs = segs
                .iter()
                .enumerate()
                .map(|(i, s)| match s.as_object() {
                    Some(m) => Value::Object(keep(m, &sk, &format!("{list}[{i}]."), &mut dropped)),
                    None => s.clone(),
                })
                .collect();
            top.insert(list.into(), Value::Array(segs));
        }
    }
    (Value::Object(top), dropped)
}

fn strict_control(method: &Value, params: &Value) -> Result<TimeControl, String> {
    serde_json::from_value::<TimeControl>(json!({"method": method, "params": params}))
        .map_err(|e| format!("params not usable: {e}"))
}

fn engine_for(tc: TimeControl) -> Result<Engine, String> {
    Engine::new(tc).map_err(|e| e.to_string())
}

/// The engine a vector runs under, and warnings about how it was chosen: the strict
/// `method` + `params`; else the `notation`; else the params without the keys this engine
/// does not know.
pub fn engine_of(v: &TimingVector) -> Result<(Engine, Vec<String>), String> {
    let mut reasons = Vec::new();
    match (&v.method, &v.params) {
        (Some(m), Some(p)) => match strict_control(m, p).and_then(engine_for) {
            Ok(e) => return Ok((e, Vec::new())),
            Err(e) => reasons.push(e),
        },
        _ => reasons.push("no method and params".to_owned()),
    }
    match v.notation.as_deref() {
        Some(n) => match notation::parse(n) {
            Ok(p) => match engine_for(p.control) {
                Ok(e) => {
                    let w = if v.params.is_some() {
                        vec![format!(
                            "{}; ran the notation {n:?} instead",
                            reasons.join("; ")
                        )]
                    } else {
                        Vec::new()
                    };
                    return Ok((e, w));
                }
                Err(e) => reasons.push(format!("notation {n:?}: {e}")),
            },
            Err(e) => reasons.push(format!("notation {n:?}: {e}")),
        },
        None => reasons.push("no notation".to_owned()),
    }
    if let (Some(m), Some(p)) = (&v.method, &v.params) {
        let (lenient, dropped) = strip_unknown(p);
        if !dropped.is_empty()
            && let Ok(e) = strict_control(m, &lenient).and_then(engine_for)
        {
            return Ok((
                e,
                vec![format!(
                    "{}; ran the params without the unknown key(s) {}",
                    reasons.join("; "),
                    dropped.join(", ")
                )],
            ));
        }
    }
    Err(reasons.join("; "))
}

/// The result of replaying one vector.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// One snapshot per expected snapshot, in order.
    pub snapshots: Vec<Value>,
    /// What the runner skipped or substituted (unknown events, unusable params, ...).
    pub warnings: Vec<String>,
}

/// Replay a vector: the snapshot at each expected `t_ms`, after every event at or before it.
/// Events that cannot be read are skipped with a warning; an expected snapshot without a
/// `t_ms` gets an `{"error": ..}` entry in its place.
pub fn run_vector(v: &TimingVector) -> Result<Run, String> {
    let (mut engine, mut warnings) = engine_of(v)?;
    let mut events = Vec::new();
    for (k, raw) in v.events.iter().enumerate() {
        match serde_json::from_value::<VectorEvent>(raw.clone())
            .map_err(|e| e.to_string())
            .and_then(|ev| ev.input().map(|i| (ev.t_ms, i)))
        {
            Ok(x) => events.push(x),
            Err(e) => warnings.push(format!("event {k} skipped: {e}")),
        }
    }
    let mut events = events.into_iter().peekable();
    let mut applied = 0u64;
    let mut out = Vec::new();
    for exp in &v.expect {
        let Some(t) = exp.get("t_ms").and_then(Value::as_u64) else {
            out.push(json!({"error": "this expected snapshot has no t_ms"}));
            continue;
        };
        while let Some((te, input)) = events.next_if(|e| e.0 <= t) {
            // Out-of-order events are applied at the latest time reached so far.
            applied = applied.max(te);
            // Inputs that are not allowed are ignored, as the vectors specify.
            let _ = engine.handle_input(Time::from_ms(applied), input);
        }
        applied = applied.max(t);
        engine.handle_timeout(Time::from_ms(applied));
        out.push(serde_json::to_value(engine.snapshot(Time::from_ms(applied))).unwrap_or_default());
    }
    Ok(Run {
        snapshots: out,
        warnings,
    })
}

/// One vector's output entry: `{"id", "snapshots"[, "warnings"]}` or `{"id", "error"}`.
/// A panic inside the engine is reported as that vector's error.
pub fn vector_entry(v: &TimingVector) -> Value {
    match catch_unwind(AssertUnwindSafe(|| run_vector(v))) {
        Ok(Ok(run)) => {
            let mut o = json!({"id": v.id, "snapshots": run.snapshots});
            if !run.warnings.is_empty() {
                o["warnings"] = json!(run.warnings);
            }
            o
        }
        Ok(Err(e)) => json!({"id": v.id, "error": e}),
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            json!({"id": v.id, "error": format!("{}: engine panicked: {what}", v.name())})
        }
    }
}

/// One notation vector's output entry.
pub fn notation_entry(n: &NotationVector) -> Value {
    let Some(input) = &n.input else {
        return json!({"input": null, "error": "no_input: the notation vector has no string input"});
    };
    match catch_unwind(|| notation::parse(input)) {
        Ok(Ok(p)) => json!({
            "input": input,
            "method": p.control.method,
            "params": p.control.params,
            "canonical": p.canonical_json(),
            "warnings": p.warnings,
        }),
        Ok(Err(e)) => json!({"input": input, "error": e.code}),
        Err(_) => json!({"input": input, "error": "internal: the parser panicked"}),
    }
}

/// The whole `simulate --vectors` document for a vectors file.
pub fn simulate(file: &VectorFile) -> Value {
    let timing: Vec<Value> = file.vectors.iter().map(vector_entry).collect();
    let notations: Vec<Value> = file.notation_vectors.iter().map(notation_entry).collect();
    json!({"vectors": timing, "notation_vectors": notations})
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

/// Run every timing vector of `file` and list what went wrong, one line each naming the
/// vector, the snapshot time and the field: a vector that cannot run, runner warnings
/// (skipped events, substituted controls), and every difference from an expected snapshot.
pub fn failures(file: &VectorFile) -> Vec<String> {
    let mut out = Vec::new();
    for v in &file.vectors {
        let got = match run_vector(v) {
            Ok(g) => g,
            Err(e) => {
                out.push(format!("{}: {e}", v.id));
                continue;
            }
        };
        if !got.warnings.is_empty() {
            out.push(format!("{}: runner warnings {:?}", v.id, got.warnings));
        }
        for (exp, snap) in v.expect.iter().zip(&got.snapshots) {
            let t = exp.get("t_ms").and_then(Value::as_u64).unwrap_or(0);
            for d in differences(exp, snap) {
                out.push(format!("{} @ {t}: {d}", v.id));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The project's own vectors for the game's end judged with the board (docs/rules.md):
    /// the same schema as the conformance vectors, with the actions `board_end`,
    /// `mating_material`, `board_claim`, `claim_losing_chances` and `ruling`.
    #[test]
    fn rules_vectors_pass() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/rules-vectors.json");
        let text = std::fs::read_to_string(path).expect("read the rules vectors");
        let doc: Value = serde_json::from_str(&text).expect("parse the rules vectors");
        let file = VectorFile::from_value(&doc).expect("a vectors object");
        assert!(file.vectors.len() >= 10, "{} vectors", file.vectors.len());
        assert_eq!(failures(&file), Vec::<String>::new());
    }

    #[test]
    fn known_keys_cover_every_field() {
        assert_eq!(known_keys(&full_params()).len(), 25);
        assert_eq!(known_keys(&full_segment()).len(), 5);
    }

    #[test]
    fn unknown_keys_are_stripped_at_both_levels() {
        let p = json!({"segments": [{"moves": null, "base_ms": 1000, "colour": "red"}], "x": 1});
        let (s, dropped) = strip_unknown(&p);
        assert_eq!(
            dropped,
            vec!["x".to_owned(), "segments[0].colour".to_owned()]
        );
        assert_eq!(s, json!({"segments": [{"moves": null, "base_ms": 1000}]}));
    }
}
