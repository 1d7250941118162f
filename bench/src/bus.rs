//! The bench's D-Bus side: a client on the private bus that records every signal the daemon
//! emits (a match rule on its object tree), starts the games, and reads back the presses and
//! snapshots the signals carried.
//!
//! The only module that names the daemon's client API (`chessclockd::bus::proxy`, through
//! `chessclock_tests::bus_client`), so a move of that API is a change here alone. It decodes
//! what the daemon sends and judges nothing.

use anyhow::{Context, Result};
use chessclock_tests::bus_client::{Client, pressed, props_changed};
use serde_json::Value;

use crate::fidelity::EngineSnap;

/// A `Pressed` signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PressedSignal {
    /// The move number of the side that pressed.
    pub r#move: u32,
    /// The time the move took, as the engine charged it.
    pub move_ms: u64,
}

/// What the signals of one clock said.
#[derive(Debug, Clone, Default)]
pub struct ClockSignals {
    /// `Pressed` signals in order.
    pub pressed: Vec<PressedSignal>,
    /// Snapshots from `PropertiesChanged(Snapshot)`, with the moves made by then.
    pub snaps: Vec<(EngineSnap, u64)>,
}

/// Total moves of a snapshot (`moves.white + moves.black`).
pub fn total_moves(v: &Value) -> u64 {
    ["white", "black"]
        .iter()
        .filter_map(|s| v.pointer(&format!("/moves/{s}")).and_then(Value::as_u64))
        .sum()
}

/// A recording client on the daemon's bus.
#[derive(Debug)]
pub struct Bus {
    client: Client,
}

impl Bus {
    /// Connect to `address` and start recording the daemon's signals.
    pub fn connect(address: &str) -> Result<Bus> {
        Ok(Bus {
            client: Client::connect(address)
                .with_context(|| format!("cannot connect to the bus at {address}"))?,
        })
    }

    /// Start the game of the clock at `path` with White to move.
    pub fn start(&self, path: &str) -> Result<()> {
        let clock = self.client.clock(path)?;
        self.client
            .run(clock.start("white"))
            .with_context(|| format!("cannot start the game of {path}"))
    }

    /// How many signals have been received so far.
    pub fn signal_count(&self) -> usize {
        self.client.mark()
    }

    /// Decode every signal received so far, by clock object path.
    pub fn by_clock(&self) -> std::collections::HashMap<String, ClockSignals> {
        let mut out: std::collections::HashMap<String, ClockSignals> = Default::default();
        for m in self.client.signals(0) {
            let h = m.header();
            let (Some(path), Some(member)) = (h.path(), h.member()) else {
                continue;
            };
            let entry = || path.as_str().to_owned();
            match member.as_str() {
                "Pressed" => {
                    if let Some((_, mv, move_ms, _, _)) = pressed(&m) {
                        out.entry(entry()).or_default().pressed.push(PressedSignal {
                            r#move: mv,
                            move_ms,
                        });
                    }
                }
                "PropertiesChanged" => {
                    let Some((_, props)) = props_changed(&m) else {
                        continue;
                    };
                    if let Some(snap) = props.get("Snapshot")
                        && let Some(e) = EngineSnap::from_json(snap)
                    {
                        out.entry(entry())
                            .or_default()
                            .snaps
                            .push((e, total_moves(snap)));
                    }
                }
                _ => {}
            }
        }
        out
    }
}
