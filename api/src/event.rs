//! The daemon's signals as typed events ([`ClockEvent`]), one decoder ([`decode`]) for every
//! client: `chessclockctl monitor` / `watch` and the bridge's SSE and MQTT print the same
//! JSON (`{"event": "pressed", "side": "white", ...}`, docs/cli.md).
//!
//! Owns the signals' argument lists (dbus/*.xml) and their JSON names. Property changes are
//! not events here: a client rebuilds its [`crate::ClockStatus`] from them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use zbus::{Message, OwnedObjectPath};

use crate::Side;
pub use chessclock_engine::Press;

/// One signal of the daemon about a clock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ClockEvent {
    /// The game state changed (`StateChanged`).
    StateChanged {
        /// The state before.
        old: String,
        /// The state now.
        new: String,
        /// Why (`start`, `pause`, `flag`, ...).
        reason: String,
    },
    /// A player pressed the lever (`Pressed`): the engine's one press event.
    Pressed(Press),
    /// A move was made on the board (`Move`).
    Move {
        /// Half-move number, 1 = White's first.
        ply: u32,
        /// The move in SAN.
        san: String,
        /// The move in UCI.
        uci: String,
        /// The position after it.
        fen: String,
        /// The mover's clock after the move, ms.
        mover_ms: u64,
    },
    /// A flag fell (`Flag`).
    Flag {
        /// Whose.
        side: Side,
        /// Why (`time`, `control_not_reached`, ...).
        reason: String,
    },
    /// The game has a result (`Result`).
    Result {
        /// `1-0`, `0-1`, `1/2-1/2`.
        result: String,
        /// Why.
        reason: String,
    },
    /// A clock was attached (the manager's `ClockAdded`).
    ClockAdded,
    /// A clock was detached (the manager's `ClockRemoved`).
    ClockRemoved,
}

/// A decoded signal: the clock it is about (object path) and what happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signal {
    /// Object path of the clock (for `ClockAdded` / `ClockRemoved`, the one in the signal).
    pub clock: String,
    /// The event.
    pub event: ClockEvent,
}

impl ClockEvent {
    /// The JSON name of the event (`pressed`, `state_changed`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            ClockEvent::StateChanged { .. } => "state_changed",
            ClockEvent::Pressed(chessclock_engine::Press { .. }) => "pressed",
            ClockEvent::Move { .. } => "move",
            ClockEvent::Flag { .. } => "flag",
            ClockEvent::Result { .. } => "result",
            ClockEvent::ClockAdded => "clock_added",
            ClockEvent::ClockRemoved => "clock_removed",
        }
    }

    /// Whether it is about the game on a clock (not a clock coming or going).
    pub fn is_game(&self) -> bool {
        !matches!(self, ClockEvent::ClockAdded | ClockEvent::ClockRemoved)
    }

    /// The event's fields as JSON, without its name.
    pub fn fields(&self) -> Map<String, Value> {
        let mut obj = match serde_json::to_value(self) {
            Ok(Value::Object(obj)) => obj,
            _ => Map::new(),
        };
        obj.remove("event");
        obj
    }
}

impl Signal {
    /// The JSON of `monitor --json` (without its time and the clock's name): the event's name
    /// and fields and `clock`.
    pub fn to_json(&self) -> Value {
        let mut obj = self.event.fields();
        obj.insert("event".into(), Value::from(self.event.kind()));
        obj.insert("clock".into(), Value::from(self.clock.as_str()));
        Value::Object(obj)
    }
}

/// The signal in `msg` as an event; `None` for other messages and for a body that does not
/// have the signal's arguments (a daemon of another version).
pub fn decode(msg: &Message) -> Option<Signal> {
    let header = msg.header();
    let member = header.member()?.as_str().to_owned();
    let path = header.path()?.as_str().to_owned();
    let body = msg.body();
    let side = |s: String| s.parse::<Side>().ok();
    let event = match member.as_str() {
        "StateChanged" => {
            let (old, new, reason): (String, String, String) = body.deserialize().ok()?;
            ClockEvent::StateChanged { old, new, reason }
        }
        "Pressed" => {
            let (s, move_number, move_ms, white_ms, black_ms): (String, u32, u64, u64, u64) =
                body.deserialize().ok()?;
            ClockEvent::Pressed(Press {
                side: side(s)?,
                move_number,
                move_ms,
                white_ms,
                black_ms,
            })
        }
        "Move" => {
            let (ply, san, uci, fen, mover_ms): (u32, String, String, String, u64) =
                body.deserialize().ok()?;
            ClockEvent::Move {
                ply,
                san,
                uci,
                fen,
                mover_ms,
            }
        }
        "Flag" => {
            let (s, reason): (String, String) = body.deserialize().ok()?;
            ClockEvent::Flag {
                side: side(s)?,
                reason,
            }
        }
        "Result" => {
            let (result, reason): (String, String) = body.deserialize().ok()?;
            ClockEvent::Result { result, reason }
        }
        "ClockAdded" | "ClockRemoved" => {
            let (clock,): (OwnedObjectPath,) = body.deserialize().ok()?;
            let event = if member == "ClockAdded" {
                ClockEvent::ClockAdded
            } else {
                ClockEvent::ClockRemoved
            };
            return Some(Signal {
                clock: clock.to_string(),
                event,
            });
        }
        _ => return None,
    };
    Some(Signal { clock: path, event })
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use zbus::message::Message;

    use super::*;
    use crate::names::CLOCK_INTERFACE;

    const CLOCK: &str = "/org/chessclockd/ChessClock1/Clock/2";

    fn signal<B>(path: &str, member: &str, body: &B) -> Message
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        Message::signal(path, CLOCK_INTERFACE, member)
            .build(body)
            .expect("body")
    }

    #[test]
    fn clock_signals_decode_to_the_monitor_json() {
        let m = signal(
            CLOCK,
            "Pressed",
            &("white", 3u32, 2_500u64, 297_500u64, 300_000u64),
        );
        let s = decode(&m).expect("pressed");
        assert_eq!(
            s.to_json(),
            json!({"event": "pressed", "side": "white", "move": 3, "move_ms": 2_500,
                   "white_ms": 297_500, "black_ms": 300_000, "clock": CLOCK})
        );
        assert_eq!(s.event.kind(), "pressed");
        assert!(s.event.is_game());
        let m = signal(CLOCK, "Flag", &("black", "time"));
        assert_eq!(
            decode(&m).expect("flag").to_json(),
            json!({"event": "flag", "side": "black", "reason": "time", "clock": CLOCK})
        );
        let m = signal(CLOCK, "StateChanged", &("ready", "running", "start"));
        assert_eq!(
            decode(&m).expect("state").event.fields(),
            json!({"old": "ready", "new": "running", "reason": "start"})
                .as_object()
                .cloned()
                .expect("object")
        );
        let m = signal(CLOCK, "Move", &(1u32, "e4", "e2e4", "fen", 299_000u64));
        assert_eq!(decode(&m).expect("move").to_json()["uci"], json!("e2e4"));
        let m = signal(CLOCK, "Result", &("1-0", "flag"));
        assert_eq!(decode(&m).expect("result").event.kind(), "result");
    }

    #[test]
    fn clocks_coming_and_going_name_the_clock_and_others_are_none() {
        let path = OwnedObjectPath::try_from(CLOCK).expect("path");
        let m = signal("/org/chessclockd/ChessClock1", "ClockAdded", &(path,));
        let s = decode(&m).expect("added");
        assert_eq!(s.clock, CLOCK);
        assert!(!s.event.is_game());
        assert_eq!(s.to_json(), json!({"event": "clock_added", "clock": CLOCK}));
        assert_eq!(decode(&signal(CLOCK, "Tick", &(1u32,))), None);
        assert_eq!(
            decode(&signal(
                CLOCK,
                "Pressed",
                &("purple", 1u32, 1u64, 1u64, 1u64)
            )),
            None,
            "a side that is not one"
        );
        assert_eq!(
            decode(&signal(CLOCK, "Flag", &(1u32,))),
            None,
            "wrong arguments"
        );
    }
}
