//! [`ClockStatus`]: one clock as clients show it, the JSON of `chessclockctl status --json` and
//! of the bridge's `/api/v1/clocks` (docs/cli.md, docs/bridge.md).
//!
//! Built in one place from a clock object's D-Bus properties (the `GetAll` dictionary, as
//! `GetManagedObjects` returns it for every clock at once): the device properties plus the
//! fields of the engine snapshot (spec §1.1). Owns this mapping only; reading the bus is
//! [`crate::read`]'s.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use zbus::{OwnedVariant, Variant};

use crate::attention::{Problem, problems};
use crate::clock::PublishedClock;
use crate::last_move::last_move;
use crate::variant::variant_to_json;

use chessclock_engine::PendingClaim;
/// A player: the engine's, spelled `white` / `black` in JSON.
pub use chessclock_engine::Side;

/// One value per player.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Sides<T> {
    /// White's.
    pub white: T,
    /// Black's.
    pub black: T,
}

impl<T> Sides<T> {
    /// The value of `side`.
    pub fn get(&self, side: Side) -> &T {
        match side {
            Side::White => &self.white,
            Side::Black => &self.black,
        }
    }
}

/// A time event of the game (a flag).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FlagEvent {
    /// Whose flag.
    pub side: Side,
    /// Engine time of the event.
    pub t_ms: u64,
    /// Why (`time`, `control_not_reached`, `overall_cap`, ...).
    pub reason: String,
}

/// One clock: its published facts ([`PublishedClock`], flattened: its fields are read
/// through this status) and its game, at the instant `as_of_us`.
///
/// Field names are the stable JSON schema of `status --json` (docs/cli.md). `running` and
/// `result` are `null` when there is none; `reason` and `flags` are left out then.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClockStatus {
    /// Object path of the clock.
    pub clock: String,
    /// What the daemon publishes about the clock (its device and its board's game).
    #[serde(flatten)]
    pub published: PublishedClock,
    /// CLOCK_MONOTONIC microseconds the game values hold for.
    pub as_of_us: u64,
    /// Engine time in milliseconds.
    pub t_ms: u64,
    /// White's displayed value, exact milliseconds.
    pub white_ms: u64,
    /// Black's displayed value, exact milliseconds.
    pub black_ms: u64,
    /// While the clock runs, the most the waiting side gains as the runner's time is used
    /// (hourglass, phased swing); left out when its value stands (the engine's
    /// `Snapshot::flows_ms`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows_ms: Option<u64>,
    /// Count-up: the running side's value rises with the time it uses instead of falling
    /// (left out when false; the engine's `Snapshot::counts_up`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub counts_up: bool,
    /// What the clock shows (`M:SS` / `H:MM:SS`, rounded up).
    pub text: Sides<String>,
    /// The side whose time runs.
    pub running: Option<Side>,
    /// The game state (same as `game_state`).
    pub status: String,
    /// Phase name per side (`main`, `byoyomi`, `extra`, ...).
    pub phase: Sides<String>,
    /// Completed presses per side.
    pub moves: Sides<u32>,
    /// Method details per side (`main_ms`, `periods_left`, `can_win`, ...).
    pub detail: Sides<BTreeMap<String, Value>>,
    /// `1-0`, `0-1`, `1/2-1/2`.
    pub result: Option<String>,
    /// Why the game ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Armageddon: how the game was drawn (a reason such as `stalemate`) when the draw was
    /// scored `0-1` with reason `armageddon` (the engine's `Snapshot::drawn_by`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drawn_by: Option<String>,
    /// Time events so far.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<FlagEvent>,
    /// A USCF 14H claim waiting for the director's ruling (the clock is paused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<PendingClaim>,
    /// The claimant the director watches after a 14H `watch` ruling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watched: Option<Side>,
    /// What needs the operator at this board, most urgent first (made by the client from
    /// the fields above, [`crate::attention`]; left out when nothing does).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<Problem>,
}

/// A clock object whose properties do not make a [`ClockStatus`] (a daemon of another
/// version, or not chessclockd).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct StatusError(pub String);

impl std::ops::Deref for ClockStatus {
    type Target = PublishedClock;
    fn deref(&self) -> &PublishedClock {
        &self.published
    }
}

impl std::ops::DerefMut for ClockStatus {
    fn deref_mut(&mut self) -> &mut PublishedClock {
        &mut self.published
    }
}

impl ClockStatus {
    /// Build from the `GetAll` dictionary of the clock at `path`. The game values come from
    /// `LiveSnapshot` (computed when read) and, from a daemon without it or in a
    /// `PropertiesChanged`-maintained cache, from `Snapshot`.
    pub fn from_properties(
        path: &str,
        props: &HashMap<String, OwnedVariant>,
    ) -> Result<ClockStatus, StatusError> {
        Self::from_lookup(path, |name| props.get(name).map(|v| &**v))
    }

    /// [`ClockStatus::from_properties`] from any property lookup (a dictionary read in place
    /// from the message, without owned copies).
    pub fn from_lookup<'v, 'a: 'v>(
        path: &str,
        props: impl Fn(&str) -> Option<&'v Variant<'a>>,
    ) -> Result<ClockStatus, StatusError> {
        let snapshot = props("LiveSnapshot")
            .or_else(|| props("Snapshot"))
            .ok_or_else(|| StatusError(format!("clock {path}: no Snapshot property")))?;
        let mut obj = match variant_to_json(snapshot) {
            Value::Object(obj) => obj,
            other => {
                return Err(StatusError(format!(
                    "clock {path}: the Snapshot property is not a dictionary: {other}"
                )));
            }
        };
        for p in PublishedClock::PROPERTIES {
            let Some(v) = props(p.name) else {
                if p.required {
                    return Err(StatusError(format!("clock {path}: no {} property", p.name)));
                }
                // Absent from daemons before it: the field's default.
                continue;
            };
            let value = variant_to_json(v);
            // An empty dictionary or word is a value not there (`LastMove` before the first
            // move, `BoardOrientation` before a start position): the field's default.
            if value.as_object().is_some_and(Map::is_empty) || value == "" {
                continue;
            }
            obj.insert(p.key.into(), value);
        }
        // The game state is the snapshot's status, so the two never disagree.
        if let Some(status) = obj.get("status").cloned() {
            obj.insert("game_state".into(), status);
        }
        obj.insert("clock".into(), Value::from(path));
        Self::from_object(path, obj)
    }

    fn from_object(path: &str, mut obj: Map<String, Value>) -> Result<ClockStatus, StatusError> {
        // D-Bus has no null: a missing key is a null.
        for key in ["running", "result"] {
            obj.entry(key).or_insert(Value::Null);
        }
        let mut st: ClockStatus = serde_json::from_value(Value::Object(obj))
            .map_err(|e| StatusError(format!("clock {path}: {e}")))?;
        st.derive();
        Ok(st)
    }

    /// Make the fields derived from the others again: `problems`, and `last_move` from a
    /// daemon that does not publish it.
    pub fn derive(&mut self) {
        if self.last_move.is_none() {
            self.published.last_move = last_move(&self.moves_san, &self.game_info);
        }
        self.problems = problems(self);
    }

    /// The players as the pairings gave them: `White`/`Black` tags with title and Elo
    /// (`GM Carlsen, Magnus (2830)`), `?` for one not given.
    pub fn player(&self, side: Side) -> String {
        let tag = match side {
            Side::White => "White",
            Side::Black => "Black",
        };
        let get = |suffix: &str| {
            self.game_info
                .get(&format!("{tag}{suffix}"))
                .map(|v| v.trim())
                .filter(|v| !v.is_empty() && *v != "?" && *v != "-")
        };
        let mut s = String::new();
        if let Some(t) = get("Title") {
            s.push_str(t);
            s.push(' ');
        }
        s.push_str(get("").unwrap_or("?"));
        if let Some(elo) = get("Elo").filter(|e| *e != "0") {
            s.push_str(&format!(" ({elo})"));
        }
        s
    }

    /// The value of `side` in exact milliseconds.
    pub fn ms(&self, side: Side) -> u64 {
        match side {
            Side::White => self.white_ms,
            Side::Black => self.black_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::object_to_dict;
    use serde_json::json;

    fn props(snapshot: Value) -> HashMap<String, OwnedVariant> {
        let mut p: HashMap<String, OwnedVariant> = HashMap::new();
        p.insert("Index".into(), OwnedVariant::from(3u32));
        for (k, v) in [
            ("Name", "b3"),
            ("Port", "/dev/ttyACM0"),
            ("Model", "DGT 3000"),
            ("Firmware", "2.1"),
            ("BoardSerial", "24680"),
            ("DeviceState", "ready"),
            ("GameState", "ready"),
            ("TimeControl", "G/5"),
            ("WhiteSide", "left"),
        ] {
            p.insert(k.into(), OwnedVariant::from(zbus::Str::from(v.to_owned())));
        }
        p.insert("Connected".into(), OwnedVariant::from(true));
        let Value::Object(obj) = snapshot else {
            panic!("snapshot not an object")
        };
        p.insert("Snapshot".into(), OwnedVariant::from(object_to_dict(&obj)));
        p
    }

    fn snapshot() -> Value {
        json!({"as_of_us": 5_000_000u64, "t_ms": 1200, "white_ms": 299_000, "black_ms": 300_000,
            "text": {"white": "4:59", "black": "5:00"}, "running": "white", "status": "running",
            "phase": {"white": "main", "black": "main"}, "moves": {"white": 0, "black": 0},
            "detail": {"white": {"main_ms": 299_000}, "black": {"main_ms": 300_000}},
            "result": null})
    }

    #[test]
    fn a_pending_claim_the_watched_side_and_the_draws_claimable_are_read() {
        let mut snap = snapshot();
        snap["claim"] = json!({"side": "black", "flag_fell": true});
        snap["watched"] = json!("white");
        let mut p = props(snap);
        p.insert(
            "DrawClaimable".into(),
            OwnedVariant::try_from(zbus::Variant::from(vec!["threefold".to_owned()]))
                .expect("variant"),
        );
        let st = ClockStatus::from_properties("/c/1", &p).expect("status");
        assert_eq!(
            st.claim,
            Some(PendingClaim {
                side: Side::Black,
                flag_fell: true
            })
        );
        assert_eq!(st.watched, Some(Side::White));
        assert_eq!(
            st.draw_claimable,
            vec![chessclock_engine::BoardClaim::Threefold]
        );
        let plain = ClockStatus::from_properties("/c/1", &props(snapshot())).expect("status");
        let v = serde_json::to_value(&plain).expect("json");
        for key in ["claim", "watched", "draw_claimable"] {
            assert!(v.get(key).is_none(), "{key} left out when absent: {v}");
        }
    }

    #[test]
    fn properties_make_the_status_json_with_nulls_and_without_empty_optionals() {
        let st = ClockStatus::from_properties(
            "/org/chessclockd/ChessClock1/Clock/3",
            &props(snapshot()),
        )
        .expect("status");
        assert_eq!(st.running, Some(Side::White));
        assert_eq!(
            st.game_state,
            chessclock_engine::Status::Running,
            "the snapshot's status wins"
        );
        let v = serde_json::to_value(&st).expect("json");
        assert_eq!(v["result"], Value::Null);
        assert_eq!(v["board_serial"], "24680");
        assert_eq!(v["clock"], "/org/chessclockd/ChessClock1/Clock/3");
        assert_eq!(v["detail"]["white"]["main_ms"], 299_000);
        assert!(v.get("reason").is_none() && v.get("flags").is_none(), "{v}");
        let back: ClockStatus = serde_json::from_value(v).expect("back");
        assert_eq!(back, st);
    }

    #[test]
    fn the_live_snapshot_is_preferred_and_a_missing_property_is_named() {
        let mut p = props(snapshot());
        let mut live = snapshot();
        live["white_ms"] = json!(1000);
        live["flags"] = json!([{"side": "white", "t_ms": 5, "reason": "time"}]);
        let Value::Object(obj) = live else { panic!() };
        p.insert(
            "LiveSnapshot".into(),
            OwnedVariant::from(object_to_dict(&obj)),
        );
        let st = ClockStatus::from_properties("/c", &p).expect("status");
        assert_eq!(st.white_ms, 1000);
        assert_eq!(st.flags.len(), 1);
        p.remove("BoardSerial");
        let e = ClockStatus::from_properties("/c", &p).expect_err("missing");
        assert!(e.0.contains("BoardSerial"), "{e}");
    }
}
