//! Read-outs of the engine at an instant: the Snapshot of spec §1.1 and the Display a
//! count-down-only clock needs (spec §3). Pure: computed on a copy advanced to `now`.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::core::Engine;
use super::method;
use super::rules::Kind;
use super::types::{Display, Side, Status, Time};

/// The state at an instant, serialised to exactly the shape of spec §1.1.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Snapshot(pub Value);

/// `M:SS` below one hour, `H:MM:SS` from one hour, seconds rounded up (C12).
pub fn clock_text(ms: u64) -> String {
    let secs = ms.div_ceil(1000);
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

impl Engine {
    fn at(&self, now: Time) -> Engine {
        let mut e = self.clone();
        e.advance(now);
        e
    }

    /// The state at `now` (pure: the engine itself does not change).
    pub fn snapshot(&self, now: Time) -> Snapshot {
        let e = self.at(now);
        Snapshot(e.snapshot_value(now))
    }

    fn snapshot_value(&self, now: Time) -> Value {
        let w = self.value(Side::White);
        let b = self.value(Side::Black);
        let mut phase = Map::new();
        let mut detail = Map::new();
        for side in Side::BOTH {
            let i = side.idx();
            let mut name = self.phase_name(side);
            let mut d = method::detail(&self.rules.kind, &self.sides[i]);
            if let Some(cap) = self.cap_left(side) {
                if cap < self.method_value(side) {
                    name.push_str("+cap");
                }
                d.insert("cap_left_ms".into(), json!(cap));
            }
            let mid_turn =
                self.turn == Some(side) && matches!(self.status, Status::Running | Status::Paused);
            if mid_turn
                && !self.sides[i].flagged
                && method::has_window(&self.rules.kind, i, self.moves[i].saturating_add(1))
            {
                d.insert("delay_left_ms".into(), json!(self.sides[i].delay_left));
            }
            phase.insert(side.as_str().into(), json!(name));
            detail.insert(side.as_str().into(), Value::Object(d));
        }
        let mut v = json!({
            "t_ms": now.as_ms(),
            "white_ms": w,
            "black_ms": b,
            "text": {"white": clock_text(w), "black": clock_text(b)},
            "running": self.running_side().map(Side::as_str),
            "status": self.status.as_str(),
            "phase": phase,
            "moves": {"white": self.moves[0], "black": self.moves[1]},
            "detail": detail,
            "result": self.result.map(|r| r.to_string()),
        });
        if let Some(reason) = &self.reason {
            v["reason"] = json!(reason);
        }
        if !self.flags.is_empty() {
            v["flags"] = Value::Array(
                self.flags
                    .iter()
                    .map(|f| json!({"side": f.side.as_str(), "t_ms": f.t_ms, "reason": f.reason}))
                    .collect(),
            );
        }
        v
    }

    /// What a count-down-only clock should show at `now`, and when to push again.
    pub fn display(&self, now: Time) -> Display {
        let e = self.at(now);
        let w = e.value(Side::White);
        let b = e.value(Side::Black);
        let mover = e.running_side();
        let counting = mover.filter(|s| {
            let st = &e.sides[s.idx()];
            let static_window = st.delay_left > 0
                && matches!(&e.rules.kind, Kind::Segments { .. })
                && e.method_value(*s) == st.main;
            !st.flagged && !static_window
        });
        let mut next: Option<u64> = mover.and_then(|s| e.time_to_boundary(s));
        if let Some(s) = mover {
            let opp = s.other();
            let moving_waiting_side = match &e.rules.kind {
                Kind::Hourglass { .. } => true,
                Kind::Swing { .. } => e.sides[s.idx()].swing > 0 && !e.post_cutoff,
                _ => false,
            };
            if moving_waiting_side {
                let v = e.value(opp);
                let r = v % 1000;
                let step = if r == 0 { 1 } else { 1000 - r + 1 };
                next = Some(next.map_or(step, |n| n.min(step)));
            }
        }
        let ms_to_next_second = counting.map(|s| {
            let r = e.value(s) % 1000;
            if r == 0 { 1000 } else { r }
        });
        Display {
            white_s: w.div_ceil(1000),
            black_s: b.div_ceil(1000),
            counting,
            next_refresh: next.map(|d| now.plus(d)),
            ms_to_next_second,
        }
    }
}
