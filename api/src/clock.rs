//! The published clock ([`PublishedClock`]): every fact the daemon publishes about one clock
//! beside the engine's snapshot, declared once here with each field's doc, JSON key and D-Bus
//! property.
//!
//! Everything else is derived from this one table: the daemon's Clock properties, their
//! introspection and their `PropertiesChanged` (daemon/src/bus/clock/published.rs), the
//! client's [`crate::ClockStatus`] (flattened in), the JSON Schema (docs/schema/), and so the
//! CLI, the bridge, MQTT and the bench. Adding a field is a line here, the place the session
//! sets it, its test and its doc. Owns the model and its value types; how a value becomes a
//! D-Bus value is [`bus_value`]'s. No behaviour of the daemon here.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use zbus::OwnedVariant;

use crate::last_move::LastMove;
pub use bus_value::BusValue;
pub use chessclock_engine::{BoardClaim, Mating, Status, WhoCanMate};
pub use chessclock_protocol::{Half, Orientation};

pub mod bus_value;

/// Connection state of the board and its clock.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DeviceState {
    /// The port is being opened.
    Opening,
    /// The board is being probed (mode, version, serial, clock).
    Probing,
    /// Board and clock answer; the clock is in PC mode and driven by the daemon.
    Ready,
    /// The board answers but reports no clock attached (or the clock is off).
    NoClock,
    /// The clock rejected a command: it is not in its PC mode (option 25 / 23).
    NotInPcMode,
    /// The clock stopped acknowledging commands after the retries.
    NotResponding,
    /// The port is gone (unplugged); the game goes on in the engine.
    #[default]
    Disconnected,
}

impl DeviceState {
    /// Whether the board on the port has answered (not still opening or probing, not gone).
    pub fn board_answered(self) -> bool {
        !matches!(
            self,
            DeviceState::Opening | DeviceState::Probing | DeviceState::Disconnected
        )
    }

    /// snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceState::Opening => "opening",
            DeviceState::Probing => "probing",
            DeviceState::Ready => "ready",
            DeviceState::NoClock => "no_clock",
            DeviceState::NotInPcMode => "not_in_pc_mode",
            DeviceState::NotResponding => "not_responding",
            DeviceState::Disconnected => "disconnected",
        }
    }
}

impl std::fmt::Display for DeviceState {
    /// The snake_case name, padded as the format asks (`{:<14}` in a table).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// Who runs the game's time on a clock.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// chessclockd runs the time control and sets the clock's display (set-and-run).
    #[default]
    Drive,
    /// The clock runs its own mode; chessclockd reads its reports and sends it nothing.
    Observe,
}

impl Mode {
    /// `drive` or `observe`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Drive => "drive",
            Mode::Observe => "observe",
        }
    }

    /// Parse `drive` / `observe` (case-insensitive).
    pub fn parse(s: &str) -> Option<Mode> {
        match s.to_ascii_lowercase().as_str() {
            "drive" => Some(Mode::Drive),
            "observe" => Some(Mode::Observe),
            _ => None,
        }
    }
}

impl std::fmt::Display for Mode {
    /// `drive` or `observe`, padded as the format asks.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// One published field as the bus serves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Property {
    /// The D-Bus property's name (`BatteryLow`).
    pub name: &'static str,
    /// The field's JSON key (`battery_low`).
    pub key: &'static str,
    /// The D-Bus type of its value.
    pub signature: &'static str,
    /// Set once when the clock is attached (no change signal).
    pub constant: bool,
    /// A client cannot build a status without it (a daemon of another version, or not
    /// chessclockd, is named in the error); the others default when absent.
    pub required: bool,
}

/// Declares [`PublishedClock`] and its property table from one list: per field its doc and
/// serde attributes, its JSON key (the field's name) and type, its D-Bus property name, and
/// `[Required]` / `[Const, Required]` where they apply.
macro_rules! published_clock {
    ($(
        $(#[$meta:meta])*
        $field:ident: $ty:ty => $prop:literal $([$($flag:ident),*])?;
    )*) => {
        /// Every fact the daemon publishes about one clock beside the engine's snapshot (see the
        /// module docs). Field names are the stable JSON keys of `status --json`.
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
        #[serde(default)]
        pub struct PublishedClock {
            $( $(#[$meta])* pub $field: $ty, )*
        }

        impl PublishedClock {
            /// The D-Bus properties, in the order of the fields.
            pub const PROPERTIES: &'static [Property] = &[$(
                Property {
                    name: $prop,
                    key: stringify!($field),
                    signature: <$ty as BusValue>::SIGNATURE,
                    constant: false $($(|| flag!($flag, Const))*)?,
                    required: false $($(|| flag!($flag, Required))*)?,
                },
            )*];

            /// The value of the D-Bus property `name`, or `None` when it is not one of these.
            pub fn property(&self, name: &str) -> Option<OwnedVariant> {
                match name {
                    $( $prop => Some(self.$field.to_bus()), )*
                    _ => None,
                }
            }

            /// The properties whose values differ between `self` and `other`.
            pub fn changed(&self, other: &PublishedClock) -> Vec<&'static Property> {
                let differs = [$( self.$field != other.$field ),*];
                Self::PROPERTIES
                    .iter()
                    .zip(differs)
                    .filter_map(|(p, d)| d.then_some(p))
                    .collect()
            }
        }
    };
}

/// Whether the flag written in the table is the one asked for (`Const`, `Required`).
macro_rules! flag {
    (Const, Const) => {
        true
    };
    (Required, Required) => {
        true
    };
    ($written:ident, $asked:ident) => {
        false
    };
}

published_clock! {
    /// Index of the clock (last element of its object path).
    index: u32 => "Index" [Const, Required];
    /// The board number: the board of a round's pairings whose game this clock's is
    /// (`[[clock]] board`, else the board's own, given once and kept by its serial number,
    /// port or virtual name; 0 while none is given).
    board: u32 => "Board";
    /// Operator-given name of the clock.
    name: String => "Name" [Required];
    /// The board's tty as it was given (a /dev/dgt/ link stays a link), or `virtual:NAME`
    /// for a virtual clock.
    port: String => "Port" [Required];
    /// Clock model: `DGT 3000`, `DGT XL`, or empty while unknown.
    model: String => "Model" [Required];
    /// Clock firmware version `major.minor`, or empty.
    firmware: String => "Firmware" [Required];
    /// Board serial number, or empty.
    board_serial: String => "BoardSerial" [Required];
    /// Whether the board's port is open.
    connected: bool => "Connected" [Required];
    /// `opening`, `probing`, `ready`, `no_clock`, `not_in_pc_mode`, `not_responding`,
    /// `disconnected`.
    device_state: DeviceState => "DeviceState" [Required];
    /// `ready`, `running`, `paused`, `flagged`, `ended` (the snapshot's `status`).
    game_state: Status => "GameState" [Required];
    /// Canonical notation of the time control.
    time_control: String => "TimeControl" [Required];
    /// Which half of the display shows White: `left` or `right`.
    white_side: Half => "WhiteSide" [Required];
    /// Who runs the time: `drive` (chessclockd runs the time control and sets the clock) or
    /// `observe` (the clock runs its own mode; chessclockd follows its reports and sends it
    /// nothing).
    mode: Mode => "Mode";
    /// The position on the board with the side to move (FEN); empty while no position is
    /// known (no pieces read, no position set: a clock without an e-board).
    fen: String => "Fen";
    /// Which way round the e-board lies, learnt from the start position set up on it:
    /// `normal` (its connector at White's left) or `rotated` (turned round; read as such);
    /// left out (an empty string on the bus) until a start position has been seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    board_orientation: Option<Orientation> => "BoardOrientation";
    /// The moves made on the board so far, SAN.
    moves_san: Vec<String> => "Moves";
    /// The last move made on the board: its number, side, SAN and UCI (left out, and an
    /// empty dictionary on the bus, before the first move).
    #[serde(skip_serializing_if = "Option::is_none")]
    last_move: Option<LastMove> => "LastMove";
    /// Game information: PGN tags such as White, Black, Event, Site, Round, Board.
    game_info: BTreeMap<String, String> => "GameInfo";
    /// What is wrong with the board now (a position no legal move explains), or empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    board_problem: String => "BoardProblem";
    /// In observe mode, what the clock does that the declared control does not (the times it
    /// started at, what it added at a press): its words, then `; fix: ` and what fixes it;
    /// empty while it agrees, and in drive mode.
    #[serde(skip_serializing_if = "String::is_empty")]
    clock_problem: String => "ClockProblem";
    /// The clock's last report said its battery is low (replace it before the next game).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    battery_low: bool => "BatteryLow";
    /// The draws the player to move may claim now from the board's history: `threefold`,
    /// `fifty_moves`; empty unless a game runs (or is paused) under FIDE's draw rules.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    draw_claimable: Vec<BoardClaim> => "DrawClaimable";
    /// Who can still checkmate in the board's position, by search (each of `white` and
    /// `black`: `can_mate`, `cannot_mate`, or `undetermined` while the search runs or where
    /// it could not decide); left out (an empty dictionary on the bus) while no position is
    /// known or the clock is observed. A flag against a side that cannot mate is a draw.
    #[serde(skip_serializing_if = "Option::is_none")]
    can_mate: Option<WhoCanMate> => "CanMate";
    /// What the operator should know about this game that did not happen in play: problems
    /// found when it was resumed after a restart, another board on its port. Cleared by a
    /// new game.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notices: Vec<String> => "Notices";
}

#[cfg(test)]
mod tests;
