//! The `org.chessclockd.ChessClock1.Clock` interface: one object per attached board.
//!
//! Holds a [`DeviceHandle`] only: properties read the actor's latest published state,
//! methods become requests to the actor (their words parsed here, where they come in: a
//! side, a time control's notation); [`forward`] turns state changes and events into
//! `PropertiesChanged` and signals. No game logic here.

use std::collections::{BTreeMap, HashMap};

use zbus::object_server::SignalEmitter;
use zbus::{OwnedVariant, interface};

use super::error::BusError;
use crate::device::observe::Mode;
use crate::device::{ClockState, DeviceError, DeviceHandle, Request};

mod bulk;
mod dict;
mod forward;
mod published;
pub(crate) use bulk::Clocks;
use bulk::PropsCache;
use chessclock_engine::{AdjustField, AdjustOp, ClaimKind, GameResult, Ruling, Side};
use chessclock_game::Correction;
use chessclock_game::shakmaty::Color;
use dict::{SnapshotCache, SnapshotDict, dict_of};
pub use forward::forward;
pub use published::ClockServed;

/// How long a `LiveSnapshot` read waits for the clock's actor before it falls back to the
/// last published state.
const LIVE_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// The D-Bus object of one clock.
#[derive(Debug)]
pub struct ClockIface {
    handle: DeviceHandle,
    /// The `Snapshot` dictionary of the latest published state, built once for its signal
    /// and every read until the state changes.
    snapshot: SnapshotCache,
    /// The `GetAll` dictionary of the latest published state, for the Manager's `GetClocks`.
    props: PropsCache,
}

impl ClockIface {
    /// Serve `handle` on the bus.
    pub fn new(handle: DeviceHandle) -> Self {
        ClockIface {
            props: PropsCache::new(handle.watch_state()),
            handle,
            snapshot: SnapshotCache::default(),
        }
    }

    /// The published state, borrowed (not copied: a `status` of every clock reads some 20
    /// properties of each). Never held across an await.
    fn st(&self) -> tokio::sync::watch::Ref<'_, ClockState> {
        self.handle.borrow_state()
    }

    /// `state`'s snapshot as the value its `PropertiesChanged` carries: built for the signal
    /// and moved into it (a client follows the signal and does not read the property back,
    /// so the cache is filled by a read, not here).
    pub(crate) fn snapshot_variant(state: &ClockState) -> zbus::Variant<'static> {
        zbus::Variant::from(snapshot_dict(state))
    }

    /// The snapshot computed now, as `a{sv}` (the `LiveSnapshot` property).
    async fn live_dict(&self) -> BTreeMap<String, OwnedVariant> {
        // From the engine published with the state: no round trip to the actor, so that
        // reading every clock (status, GetManagedObjects) costs no wait on the device thread.
        let computed = self.st().live_at(crate::monotonic::monotonic_us());
        if let Some((snapshot, as_of_us)) = computed {
            return dict_of(&snapshot, as_of_us);
        }
        // Observe mode: ask the actor. One that does not answer at once still shows its last
        // published state.
        let live = tokio::time::timeout(LIVE_WAIT, self.handle.live()).await;
        match live {
            Ok(Ok(state)) => snapshot_dict(&state),
            _ => snapshot_dict(&self.st()),
        }
    }

    async fn ask(&self, request: Request) -> Result<(), BusError> {
        self.handle.request(request).await.map_err(device_error)
    }
}

pub(crate) fn device_error(e: DeviceError) -> BusError {
    match e {
        DeviceError::Invalid(m) => BusError::InvalidArgument(m),
        DeviceError::NotAllowed(m) => BusError::NotAllowed(m),
        DeviceError::Refused(e) => BusError::from(e),
        DeviceError::Device(m) => BusError::DeviceFailed(m),
        DeviceError::Gone => BusError::Gone(DeviceError::Gone.to_string()),
    }
}

/// One word of a method's arguments through its type's own parser (`chessclock_engine::words`):
/// the same spellings as the CLI and the configuration; an error lists them.
pub(crate) fn parse_arg<T>(s: &str) -> Result<T, BusError>
where
    T: std::str::FromStr<Err = chessclock_engine::words::WordError>,
{
    s.parse()
        .map_err(|e: chessclock_engine::words::WordError| BusError::InvalidArgument(e.to_string()))
}

/// The snapshot as `a{sv}`, with `as_of_us`.
pub fn snapshot_dict(state: &ClockState) -> BTreeMap<String, OwnedVariant> {
    dict_of(&state.snapshot, state.as_of_us)
}

#[interface(name = "org.chessclockd.ChessClock1.Clock")]
impl ClockIface {
    /// The engine snapshot (times, phases, moves, details, result, flags) plus `as_of_us`,
    /// the CLOCK_MONOTONIC microseconds it holds for. Changes are signalled on every state
    /// change, not on every tick: extrapolate the running side from `as_of_us`.
    #[zbus(property)]
    fn snapshot(&self) -> SnapshotDict {
        self.snapshot.get(&self.st())
    }

    /// The snapshot computed when read (same keys as the Snapshot property), so that one
    /// `GetManagedObjects` gives every clock's exact live values. Not signalled: follow
    /// `Snapshot` for changes.
    #[zbus(property(emits_changed_signal = "false"))]
    async fn live_snapshot(&self) -> BTreeMap<String, OwnedVariant> {
        self.live_dict().await
    }

    /// The snapshot computed now (same keys as the Snapshot property), for clients that
    /// want exact live values instead of extrapolating.
    async fn get_snapshot(&self) -> Result<BTreeMap<String, OwnedVariant>, BusError> {
        let live = self.handle.live().await.map_err(device_error)?;
        Ok(snapshot_dict(&live))
    }

    /// Set the time control from its notation (see docs/timecontrols.md). Mid-game the
    /// remaining times and move counters are kept.
    async fn set_time_control(&self, notation: &str) -> Result<(), BusError> {
        // Parsed here, where the text comes in (a long bad notation is quoted back only in
        // part); the clock gets the control.
        let parsed = chessclock_engine::notation::parse(notation).map_err(|e| {
            BusError::InvalidArgument(format!(
                "{}: {}",
                chessclock_engine::words::quote(notation),
                e.message
            ))
        })?;
        self.ask(Request::SetTimeControl(Box::new(parsed.control)))
            .await
    }

    /// Start the game; `side` ("white" or "black") moves first.
    async fn start(&self, side: &str) -> Result<(), BusError> {
        let side = parse_arg::<Side>(side)?;
        self.ask(Request::Start(side)).await
    }

    /// Pause the running clock.
    async fn pause(&self) -> Result<(), BusError> {
        self.ask(Request::Pause).await
    }

    /// Resume after a pause.
    async fn resume(&self) -> Result<(), BusError> {
        self.ask(Request::Resume).await
    }

    /// Press for `side`, as if its lever had been pressed.
    async fn press(&self, side: &str) -> Result<(), BusError> {
        let side = parse_arg::<Side>(side)?;
        self.ask(Request::Press(side)).await
    }

    /// Arbiter adjustment while paused/ready/flagged: `field` is a detail field
    /// (e.g. "main_ms"), `op` is "set" or "add", `ms` may be negative with "add".
    async fn adjust(&self, side: &str, field: &str, op: &str, ms: i64) -> Result<(), BusError> {
        let side = parse_arg::<Side>(side)?;
        let op: AdjustOp = parse_arg(op)?;
        let field: AdjustField = field.parse().map_err(BusError::InvalidArgument)?;
        self.ask(Request::Adjust {
            side,
            field,
            op,
            ms,
        })
        .await
    }

    /// Correct a side's move counter.
    async fn set_moves(&self, side: &str, n: u32) -> Result<(), BusError> {
        let side = parse_arg::<Side>(side)?;
        self.ask(Request::SetMoves { side, moves: n }).await
    }

    /// Double-flag: the side still on main time claims the draw.
    async fn claim_draw(&self, side: &str) -> Result<(), BusError> {
        let side = parse_arg::<Side>(side)?;
        self.ask(Request::Claim {
            side,
            kind: ClaimKind::DoubleFlag,
        })
        .await
    }

    /// `side` claims: `kind` is "double-flag" (as ClaimDraw), "threefold" or "fifty-moves"
    /// (judged from the board's history at once: right, drawn; wrong, two minutes more for
    /// the opponent) or "insufficient-losing-chances" (USCF 14H: the clock pauses for
    /// Rule).
    async fn claim(&self, side: &str, kind: &str) -> Result<(), BusError> {
        let side = parse_arg::<Side>(side)?;
        let kind = parse_arg::<ClaimKind>(kind)?;
        self.ask(Request::Claim { side, kind }).await
    }

    /// The director's ruling on a pending USCF 14H claim: "draw", "deny", "delay" (the
    /// claimant's time halved and `delay_seconds` of delay for the rest of the game, 0 for
    /// the default 5) or "watch".
    async fn rule(&self, ruling: &str, delay_seconds: u32) -> Result<(), BusError> {
        let delay_ms = (delay_seconds > 0).then(|| u64::from(delay_seconds) * 1000);
        let ruling = Ruling::parse(ruling, delay_ms)
            .map_err(|e| BusError::InvalidArgument(e.to_string()))?;
        self.ask(Request::Rule(ruling)).await
    }

    /// Result reached on the board: "1-0", "0-1" or "1/2-1/2".
    async fn set_result(&self, result: &str) -> Result<(), BusError> {
        let result: GameResult = parse_arg(result)?;
        self.ask(Request::SetResult(result)).await
    }

    /// Discard the current game and set up a new one with the same time control.
    async fn new_game(&self) -> Result<(), BusError> {
        self.ask(Request::NewGame).await
    }

    /// Show `text` on the clock for `ms` milliseconds, at most 10000 (more is
    /// InvalidArgument); the game's next change ends it sooner (DGT 3000: 8 characters,
    /// DGT XL: 6).
    async fn show_text(&self, text: &str, ms: u32) -> Result<(), BusError> {
        self.ask(Request::ShowText {
            text: text.to_owned(),
            ms,
        })
        .await
    }

    /// Beep for `ms` milliseconds.
    async fn beep(&self, ms: u32) -> Result<(), BusError> {
        self.ask(Request::Beep(ms)).await
    }

    /// Find the board in the hall: the clock shows its board number (`bd 137`; a clock
    /// without one, its index: `cl 3`) and beeps, for `seconds` (0: 5, at most 10; more is
    /// InvalidArgument), then its times again. NotAllowed while the game runs, in observe
    /// mode, or with no clock on the board (the message says what to do).
    async fn identify(&self, seconds: u32) -> Result<(), BusError> {
        self.ask(Request::Identify { seconds }).await
    }

    /// Which half of the display shows White: "left" or "right".
    async fn set_white_side(&self, side: &str) -> Result<(), BusError> {
        let side = chessclock_device::link::display::parse_board_side(side)
            .map_err(|e| BusError::InvalidArgument(e.to_string()))?;
        self.ask(Request::SetWhiteSide(side)).await
    }

    /// `drive` or `observe` (see the `Mode` property). Observe is refused while a game driven
    /// by chessclockd is running (NotAllowed).
    async fn set_mode(&self, mode: &str) -> Result<(), BusError> {
        let mode = Mode::parse(mode).ok_or_else(|| {
            BusError::InvalidArgument(format!(
                "{} is not a mode; use \"drive\" or \"observe\"",
                chessclock_engine::words::quote(mode)
            ))
        })?;
        self.ask(Request::SetMode(mode)).await
    }

    /// Take back the last `plies` plies of the game read from the pieces (the board misread
    /// them); the board is then expected to show the position before them.
    async fn undo_moves(&self, plies: u32) -> Result<(), BusError> {
        self.ask(Request::Correct(Correction::Undo(plies))).await
    }

    /// Play `uci`, a legal move the board did not show, in the game read from the pieces;
    /// the board is then expected to catch up.
    async fn force_move(&self, uci: &str) -> Result<(), BusError> {
        self.ask(Request::Correct(Correction::Force(uci.to_owned())))
            .await
    }

    /// The game read from the pieces begins anew from `position`: a FEN, or "board" for the
    /// pieces as they stand with `turn` ("white", "black", or "" to keep the side to move).
    async fn set_position(&self, position: &str, turn: &str) -> Result<(), BusError> {
        let turn = match turn {
            "" => None,
            t => Some(match parse_arg::<Side>(t)? {
                Side::White => Color::White,
                Side::Black => Color::Black,
            }),
        };
        let correction = match position.trim() {
            "board" => Correction::Board(turn),
            _ if turn.is_some() => {
                return Err(BusError::InvalidArgument(format!(
                    "a turn goes with \"board\" only: the FEN {position:?} says who is to move"
                )));
            }
            fen => Correction::Position(fen.to_owned()),
        };
        self.ask(Request::Correct(correction)).await
    }

    /// The game state changed (ready, running, paused, flagged, ended).
    #[zbus(signal)]
    async fn state_changed(
        emitter: &SignalEmitter<'_>,
        old: &str,
        new: &str,
        reason: &str,
    ) -> zbus::Result<()>;

    /// A valid press ended `side`'s move `move` after `move_ms`; the times after it.
    #[zbus(signal)]
    async fn pressed(
        emitter: &SignalEmitter<'_>,
        side: &str,
        r#move: u32,
        move_ms: u64,
        white_ms: u64,
        black_ms: u64,
    ) -> zbus::Result<()>;

    /// Set game information tags (PGN tag name to value; an empty value removes a tag).
    async fn set_game_info(&self, tags: HashMap<String, String>) -> Result<(), BusError> {
        let mut tags: Vec<(String, String)> = tags.into_iter().collect();
        // Seven Tag Roster order first, the rest by name: a stable order whatever the caller's.
        let rank = |k: &str| {
            chessclock_game::pgn::ROSTER
                .iter()
                .position(|r| *r == k)
                .unwrap_or(usize::MAX)
        };
        tags.sort_by(|a, b| rank(&a.0).cmp(&rank(&b.0)).then(a.0.cmp(&b.0)));
        self.ask(Request::SetGameInfo(tags)).await
    }

    /// The game so far as PGN (moves with `[%clk]`, the tags, the result).
    async fn get_pgn(&self) -> Result<String, BusError> {
        self.handle.pgn().await.map_err(device_error)
    }

    /// A move made on the board: ply (1 = White's first), SAN, UCI, the position after it,
    /// and the mover's clock in ms.
    #[zbus(signal)]
    async fn r#move(
        emitter: &SignalEmitter<'_>,
        ply: u32,
        san: &str,
        uci: &str,
        fen: &str,
        mover_ms: u64,
    ) -> zbus::Result<()>;

    /// `side`'s flag fell (`reason`: `time`, `overall_cap`, `control_not_reached` or
    /// `extra_time_expired`).
    #[zbus(signal)]
    async fn flag(emitter: &SignalEmitter<'_>, side: &str, reason: &str) -> zbus::Result<()>;

    /// The game has a result (provisional for time forfeits).
    #[zbus(signal)]
    async fn result(emitter: &SignalEmitter<'_>, result: &str, reason: &str) -> zbus::Result<()>;
}
