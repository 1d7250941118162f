//! Client-side proxies of the daemon's interfaces, for `chessclockctl`, the bridge and the
//! tests.
//!
//! Written from the same member list the service implements; a test of the service keeps it
//! in step with the committed introspection XML (docs/dbus-api.md), and this module's test
//! (`proxy_tests.rs`) keeps these proxies in step with the same XML. No behaviour here.

use std::collections::{BTreeMap, HashMap};

use zbus::{OwnedObjectPath, OwnedVariant, proxy};

/// Proxy of `org.chessclockd.ChessClock1.Manager`.
#[proxy(
    interface = "org.chessclockd.ChessClock1.Manager",
    default_service = "org.chessclockd.ChessClock1",
    default_path = "/org/chessclockd/ChessClock1"
)]
pub trait Manager {
    /// Daemon version.
    #[zbus(property(emits_changed_signal = "const"))]
    fn version(&self) -> zbus::Result<String>;
    /// Attached clocks.
    #[zbus(property)]
    fn clocks(&self) -> zbus::Result<Vec<OwnedObjectPath>>;
    /// Attach a tty.
    fn attach(&self, port: &str) -> zbus::Result<OwnedObjectPath>;
    /// Detach a clock, keeping its game and its board's number.
    fn detach(&self, clock: &zbus::ObjectPath<'_>) -> zbus::Result<()>;
    /// Detach a clock: `keep`, `archive` or `forget` its game (and board number).
    fn detach_with(&self, clock: &zbus::ObjectPath<'_>, what: &str) -> zbus::Result<()>;
    /// Move a clock's game to another board (a port or a board's serial number).
    fn replace(&self, clock: &zbus::ObjectPath<'_>, with: &str) -> zbus::Result<String>;
    /// Give a clock's board a board number.
    fn set_board(&self, clock: &zbus::ObjectPath<'_>, board: u32) -> zbus::Result<String>;
    /// Every clock's Clock properties but `Snapshot`, by path (`LiveSnapshot` computed now).
    fn get_clocks(&self) -> zbus::Result<HashMap<OwnedObjectPath, HashMap<String, OwnedVariant>>>;
    /// Add an emulated clock.
    fn add_virtual(&self, name: &str) -> zbus::Result<OwnedObjectPath>;
    /// The current round.
    #[zbus(property)]
    fn round(&self) -> zbus::Result<u32>;
    /// Load a round's pairings (file content, format, round; 0: the current round).
    fn load_pairings(&self, content: &str, format: &str, round: u32) -> zbus::Result<Vec<String>>;
    /// `load_pairings`, with `force`: even over begun games with other players.
    fn load_pairings_with(
        &self,
        content: &str,
        format: &str,
        round: u32,
        force: bool,
    ) -> zbus::Result<Vec<String>>;
    /// Roll the round over (every clock a new game in the next round); `force`: even while
    /// games are under way.
    fn next_round(&self, force: bool) -> zbus::Result<Vec<String>>;
    /// Roll the round over as `next_round`, and keep `lichess_round` as the Lichess round id
    /// of the next round (`broadcast_rounds`).
    fn next_round_broadcast(&self, force: bool, lichess_round: &str) -> zbus::Result<Vec<String>>;
    /// The Lichess round id kept for each round (`round next --lichess-round`).
    #[zbus(property)]
    fn broadcast_rounds(&self) -> zbus::Result<std::collections::BTreeMap<u32, String>>;
    /// The PGN of the current round's paper boards, by board number.
    #[zbus(property)]
    fn paper_games(&self) -> zbus::Result<std::collections::BTreeMap<u32, String>>;
    /// Set a board's result by its number.
    fn set_board_result(&self, board: u32, result: &str) -> zbus::Result<String>;
    /// Every board of the current round.
    #[allow(clippy::type_complexity)]
    fn get_round_boards(&self) -> zbus::Result<Vec<(u32, String, String, String, i32, String)>>;
    /// The round's go/no-go: (board, clock number or -1, ready, (check, ok, text, fix)).
    #[allow(clippy::type_complexity)]
    fn check_round(
        &self,
        control: &str,
    ) -> zbus::Result<Vec<(u32, i32, bool, Vec<(String, bool, String, String)>)>>;
    /// The round's results for the pairing program (`csv`, `trf`).
    fn export_round(&self, format: &str) -> zbus::Result<String>;
    /// A clock was attached.
    #[zbus(signal)]
    fn clock_added(&self, clock: zbus::ObjectPath<'_>) -> zbus::Result<()>;
    /// A clock was detached.
    #[zbus(signal)]
    fn clock_removed(&self, clock: zbus::ObjectPath<'_>) -> zbus::Result<()>;
}

/// Proxy of `org.chessclockd.ChessClock1.Clock`.
#[proxy(
    interface = "org.chessclockd.ChessClock1.Clock",
    default_service = "org.chessclockd.ChessClock1"
)]
pub trait Clock {
    // The published fields (Name, Fen, BatteryLow, ...) are one table, `PublishedClock`:
    // read them all at once with `crate::read::clock` (or `GetAll`), not one by one.
    /// Board number.
    #[zbus(property)]
    fn board(&self) -> zbus::Result<u32>;
    /// Snapshot with `as_of_us`, as last published (signalled on every state change).
    #[zbus(property)]
    fn snapshot(&self) -> zbus::Result<BTreeMap<String, OwnedVariant>>;
    /// Snapshot computed when read (not signalled).
    #[zbus(property(emits_changed_signal = "false"))]
    fn live_snapshot(&self) -> zbus::Result<BTreeMap<String, OwnedVariant>>;

    /// Set game information tags (an empty value removes a tag).
    fn set_game_info(&self, tags: std::collections::HashMap<&str, &str>) -> zbus::Result<()>;
    /// The game so far as PGN.
    fn get_pgn(&self) -> zbus::Result<String>;

    /// Live snapshot.
    fn get_snapshot(&self) -> zbus::Result<BTreeMap<String, OwnedVariant>>;
    /// Set the time control.
    fn set_time_control(&self, notation: &str) -> zbus::Result<()>;
    /// Start.
    fn start(&self, side: &str) -> zbus::Result<()>;
    /// Pause.
    fn pause(&self) -> zbus::Result<()>;
    /// Resume.
    fn resume(&self) -> zbus::Result<()>;
    /// Press.
    fn press(&self, side: &str) -> zbus::Result<()>;
    /// Adjust.
    fn adjust(&self, side: &str, field: &str, op: &str, ms: i64) -> zbus::Result<()>;
    /// Set a move counter.
    fn set_moves(&self, side: &str, n: u32) -> zbus::Result<()>;
    /// Claim a draw.
    fn claim_draw(&self, side: &str) -> zbus::Result<()>;
    /// Claim of a kind (double-flag, threefold, fifty-moves, insufficient-losing-chances).
    fn claim(&self, side: &str, kind: &str) -> zbus::Result<()>;
    /// The director's ruling on a USCF 14H claim.
    fn rule(&self, ruling: &str, delay_seconds: u32) -> zbus::Result<()>;
    /// Board result.
    fn set_result(&self, result: &str) -> zbus::Result<()>;
    /// New game.
    fn new_game(&self) -> zbus::Result<()>;
    /// Show text.
    fn show_text(&self, text: &str, ms: u32) -> zbus::Result<()>;
    /// Beep.
    fn beep(&self, ms: u32) -> zbus::Result<()>;
    /// Show the board number and beep, to find the board.
    fn identify(&self, seconds: u32) -> zbus::Result<()>;
    /// Set White's half.
    fn set_white_side(&self, side: &str) -> zbus::Result<()>;
    /// Drive the clock, or observe it running its own mode.
    fn set_mode(&self, mode: &str) -> zbus::Result<()>;
    /// Take back plies of the game read from the pieces.
    fn undo_moves(&self, plies: u32) -> zbus::Result<()>;
    /// Play a legal move the board did not show.
    fn force_move(&self, uci: &str) -> zbus::Result<()>;
    /// Begin the board's game from a FEN, or from the pieces ("board") with a turn.
    fn set_position(&self, position: &str, turn: &str) -> zbus::Result<()>;

    /// Game state changed.
    #[zbus(signal)]
    fn state_changed(&self, old: &str, new: &str, reason: &str) -> zbus::Result<()>;
    /// A press.
    #[zbus(signal)]
    fn pressed(
        &self,
        side: &str,
        r#move: u32,
        move_ms: u64,
        white_ms: u64,
        black_ms: u64,
    ) -> zbus::Result<()>;
    /// A move on the board.
    #[zbus(signal)]
    fn r#move(&self, ply: u32, san: &str, uci: &str, fen: &str, mover_ms: u64) -> zbus::Result<()>;
    /// A flag.
    #[zbus(signal)]
    fn flag(&self, side: &str, reason: &str) -> zbus::Result<()>;
    /// A result.
    #[zbus(signal)]
    fn result(&self, result: &str, reason: &str) -> zbus::Result<()>;
}

#[cfg(test)]
mod tests;
