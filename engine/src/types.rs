//! The engine's public value types: time, sides, results, statuses, phases, reasons, inputs,
//! events, errors, display.
//!
//! Plain data; no behaviour beyond parsing and printing.

use serde::{Deserialize, Serialize};

use crate::params::TimeControl;

/// Milliseconds since an epoch the caller chooses (the vectors' `t_ms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(u64);

impl Time {
    /// The epoch.
    pub const ZERO: Time = Time(0);

    /// `ms` after the epoch.
    pub fn from_ms(ms: u64) -> Time {
        Time(ms)
    }

    /// Milliseconds after the epoch.
    pub fn as_ms(self) -> u64 {
        self.0
    }

    pub(crate) fn plus(self, ms: u64) -> Time {
        Time(self.0.saturating_add(ms))
    }

    pub(crate) fn since(self, earlier: Time) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

/// A player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// White.
    White,
    /// Black.
    Black,
}

impl Side {
    /// The opponent.
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// `white` or `black`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }

    pub(crate) fn idx(self) -> usize {
        match self {
            Side::White => 0,
            Side::Black => 1,
        }
    }

    pub(crate) const BOTH: [Side; 2] = [Side::White, Side::Black];
}

/// Set or add, for arbiter adjustments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AdjustOp {
    /// Replace the value.
    Set,
    /// Add to the value (may be negative).
    Add,
}

/// A game result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    /// 1-0.
    #[serde(rename = "1-0")]
    WhiteWins,
    /// 0-1.
    #[serde(rename = "0-1")]
    BlackWins,
    /// 1/2-1/2.
    #[serde(rename = "1/2-1/2")]
    Draw,
}

impl GameResult {
    /// Parse `1-0`, `0-1` or `1/2-1/2` (also `½-½`).
    pub fn parse(s: &str) -> Option<GameResult> {
        match s.trim() {
            "1-0" => Some(GameResult::WhiteWins),
            "0-1" => Some(GameResult::BlackWins),
            "1/2-1/2" | "½-½" => Some(GameResult::Draw),
            _ => None,
        }
    }

    /// The side that wins, if any.
    pub fn winner(self) -> Option<Side> {
        match self {
            GameResult::WhiteWins => Some(Side::White),
            GameResult::BlackWins => Some(Side::Black),
            GameResult::Draw => None,
        }
    }

    pub(crate) fn win_for(side: Side) -> GameResult {
        match side {
            Side::White => GameResult::WhiteWins,
            Side::Black => GameResult::BlackWins,
        }
    }
}

impl std::fmt::Display for GameResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        })
    }
}

/// The game's status (spec §1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Set up, not started.
    Ready,
    /// A clock runs.
    Running,
    /// Paused mid-turn.
    Paused,
    /// Stopped by a time event.
    Flagged,
    /// Ended by a result (rule, claim or board).
    Ended,
}

impl Status {
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ready => "ready",
            Status::Running => "running",
            Status::Paused => "paused",
            Status::Flagged => "flagged",
            Status::Ended => "ended",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What happens to a game. Serialisable (the daemon journals inputs to replay a game).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Input {
    /// Start `side`'s clock (not a move).
    Start {
        /// Side to move first.
        side: Side,
    },
    /// `side` ends its turn.
    Press {
        /// The presser.
        side: Side,
    },
    /// Stop the running clock, keeping the turn's elapsed time.
    Pause,
    /// Continue the same turn.
    Resume,
    /// Arbiter change of a detail field while paused / ready / flagged.
    Adjust {
        /// Whose value.
        side: Side,
        /// The detail field.
        field: AdjustField,
        /// Set or add.
        op: AdjustOp,
        /// Amount in ms.
        ms: i64,
    },
    /// Arbiter correction of a press counter.
    SetMoves {
        /// Whose counter.
        side: Side,
        /// New value.
        moves: u32,
    },
    /// Double-flag draw claim.
    ClaimDraw {
        /// The claimant.
        side: Side,
    },
    /// The game ended on the board.
    BoardResult {
        /// The result on the board.
        result: GameResult,
    },
    /// Replace the method for the rest of the game, keeping times and counters.
    Reconfigure {
        /// The new control.
        control: Box<TimeControl>,
    },
}

/// Something that happened, for the daemon to report.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The status changed.
    StatusChanged {
        /// Before.
        old: Status,
        /// After.
        new: Status,
        /// Why.
        reason: StatusCause,
    },
    /// A valid press.
    Pressed {
        /// The presser.
        side: Side,
        /// The presser's completed move number.
        move_number: u32,
        /// How long the turn took.
        move_ms: u64,
        /// White's displayed value after the press.
        white_ms: u64,
        /// Black's displayed value after the press.
        black_ms: u64,
    },
    /// A side's phase changed.
    PhaseChanged {
        /// Whose.
        side: Side,
        /// Before.
        old: Phase,
        /// After.
        new: Phase,
    },
    /// A time event.
    Flag {
        /// Whose flag.
        side: Side,
        /// Why.
        reason: FlagReason,
    },
    /// A result.
    Result {
        /// The result.
        result: GameResult,
        /// Why.
        reason: ResultReason,
    },
}

/// A value for each side. Serialises as `{"black": .., "white": ..}` (the spec's key order
/// is alphabetical, as the JSON forms of spec §1.1 print it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct PerSide<T> {
    /// Black's.
    pub black: T,
    /// White's.
    pub white: T,
}

impl<T> PerSide<T> {
    /// `side`'s value.
    pub fn get(&self, side: Side) -> &T {
        match side {
            Side::White => &self.white,
            Side::Black => &self.black,
        }
    }

    /// Build from a function of the side.
    pub fn from_fn(mut f: impl FnMut(Side) -> T) -> PerSide<T> {
        let white = f(Side::White);
        let black = f(Side::Black);
        PerSide { black, white }
    }
}

/// A side's phase (spec §1.4). Its [`Display`](std::fmt::Display) and serialised form is the
/// phase name (`period2`, `period3_sd`, `byoyomi`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// `flagged` (flag/continue: the side stays at 0).
    Flagged,
    /// `periodN`: move-counted period N, from 1.
    Period(u32),
    /// `periodN_sd`: period N, the sudden-death one.
    PeriodSd(u32),
    /// `sd`: a single sudden-death segment.
    Sd,
    /// `hourglass`.
    Hourglass,
    /// `main`: main time (byo-yomi, Canadian, double flag, phased countdown).
    Main,
    /// `byoyomi`: in the byo-yomi periods.
    Byoyomi,
    /// `overtime`: Canadian overtime.
    Overtime,
    /// `extra`: double-flag extra time (the side can no longer win on time).
    Extra,
    /// `reserve`: phased countdown's reserve clock, or phased swing's reserve.
    Reserve,
    /// `secondary`: phased countdown's secondary clock.
    Secondary,
    /// `swing`: phased swing's balance runs.
    Swing,
    /// `post_cutoff`: phased swing after the cut-off.
    PostCutoff,
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            Phase::Period(n) => return write!(f, "period{n}"),
            Phase::PeriodSd(n) => return write!(f, "period{n}_sd"),
            Phase::Flagged => "flagged",
            Phase::Sd => "sd",
            Phase::Hourglass => "hourglass",
            Phase::Main => "main",
            Phase::Byoyomi => "byoyomi",
            Phase::Overtime => "overtime",
            Phase::Extra => "extra",
            Phase::Reserve => "reserve",
            Phase::Secondary => "secondary",
            Phase::Swing => "swing",
            Phase::PostCutoff => "post_cutoff",
        };
        f.write_str(name)
    }
}

impl Serialize for Phase {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A side's phase as the snapshot shows it: the method's phase, and whether the independent
/// cap (`cap/`) is what limits the side now (serialised with a `+cap` suffix).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SidePhase {
    /// The method's phase.
    pub phase: Phase,
    /// The cap left is below the method's value.
    pub capped: bool,
}

impl std::fmt::Display for SidePhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.capped {
            write!(f, "{}+cap", self.phase)
        } else {
            write!(f, "{}", self.phase)
        }
    }
}

impl Serialize for SidePhase {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Why a side's flag fell (spec §1.1 reason codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FlagReason {
    /// The time ran out.
    Time,
    /// The independent cap (`cap/`) ran out.
    OverallCap,
    /// The time of a move-counted period ran out before its quota of moves.
    ControlNotReached,
    /// Double flag: the extra time ran out.
    ExtraTimeExpired,
    /// Double flag: the main time ran out while the opponent was on extra time.
    MainTimeExpired,
}

impl FlagReason {
    /// The reason code.
    pub fn as_str(self) -> &'static str {
        match self {
            FlagReason::Time => "time",
            FlagReason::OverallCap => "overall_cap",
            FlagReason::ControlNotReached => "control_not_reached",
            FlagReason::ExtraTimeExpired => "extra_time_expired",
            FlagReason::MainTimeExpired => "main_time_expired",
        }
    }
}

impl std::fmt::Display for FlagReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the game has its result, or why both flags fell (spec §1.1 `reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResultReason {
    /// A flag (the opponent wins, or under flag/continue both flags fell).
    Flag(FlagReason),
    /// Double flag: both main times ran out: draw.
    BothMainTimesExpired,
    /// Double flag: the player on main time claimed the draw.
    DrawClaimOpponentInExtra,
    /// The result reached on the board.
    Board,
    /// Double flag: the board winner was on extra time: draw.
    WinnerInExtraTime,
}

impl ResultReason {
    /// The reason code.
    pub fn as_str(self) -> &'static str {
        match self {
            ResultReason::Flag(r) => r.as_str(),
            ResultReason::BothMainTimesExpired => "both_main_times_expired",
            ResultReason::DrawClaimOpponentInExtra => "draw_claim_opponent_in_extra",
            ResultReason::Board => "board",
            ResultReason::WinnerInExtraTime => "winner_in_extra_time",
        }
    }
}

impl std::fmt::Display for ResultReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ResultReason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Why the status changed (an [`Event::StatusChanged`] reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StatusCause {
    /// The game started.
    Start,
    /// Paused.
    Pause,
    /// Resumed (after a pause, or after a flag with time given back).
    Resume,
    /// Both flags fell under flag/continue.
    Flag,
    /// The game has a result, for this reason.
    Result(ResultReason),
}

impl StatusCause {
    /// The reason code (`start`, `pause`, `resume`, `flag`, or the result's reason).
    pub fn as_str(self) -> &'static str {
        match self {
            StatusCause::Start => "start",
            StatusCause::Pause => "pause",
            StatusCause::Resume => "resume",
            StatusCause::Flag => "flag",
            StatusCause::Result(r) => r.as_str(),
        }
    }
}

impl std::fmt::Display for StatusCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A recorded time event (the snapshot's `flags`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FlagRecord {
    /// Why.
    pub reason: FlagReason,
    /// Whose flag.
    pub side: Side,
    /// When, in engine time.
    pub t_ms: u64,
}

/// What a count-down-only clock should show now (spec §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Display {
    /// White's value in whole seconds, rounded up.
    pub white_s: u64,
    /// Black's value in whole seconds, rounded up.
    pub black_s: u64,
    /// The side the hardware should count down now, if any.
    pub counting: Option<Side>,
    /// When the value does something the device's own countdown cannot show (a jump, the end
    /// of a delay window, a waiting side that moves): push again then.
    pub next_refresh: Option<Time>,
    /// For the counting side: ms until its value crosses the next whole second.
    pub ms_to_next_second: Option<u64>,
}

/// The configuration cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

/// An arbiter-adjustable detail field (spec §2.6; the snapshot's `detail` keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdjustField {
    /// Main / remaining time (every method but phased swing).
    MainMs,
    /// Double flag: extra time.
    ExtraMs,
    /// Phased countdown / phased swing: the reserve clock.
    ReserveMs,
    /// Phased countdown: the secondary reserve clock.
    SecondaryMs,
    /// Phased swing: the swing balance.
    SwingMs,
    /// Byo-yomi / Canadian: the current period's remainder.
    PeriodMs,
    /// Byo-yomi: periods left, a count.
    PeriodsLeft,
    /// Canadian: stones still owed in the period, a count.
    StonesLeft,
    /// Independent cap (`cap/`): what the player may still use of it.
    CapLeftMs,
}

impl AdjustField {
    /// Every field, in the order the docs list them.
    pub const ALL: [AdjustField; 9] = [
        AdjustField::MainMs,
        AdjustField::ExtraMs,
        AdjustField::ReserveMs,
        AdjustField::SecondaryMs,
        AdjustField::SwingMs,
        AdjustField::PeriodMs,
        AdjustField::PeriodsLeft,
        AdjustField::StonesLeft,
        AdjustField::CapLeftMs,
    ];

    /// The snake_case name (the snapshot's detail key).
    pub fn as_str(self) -> &'static str {
        match self {
            AdjustField::MainMs => "main_ms",
            AdjustField::ExtraMs => "extra_ms",
            AdjustField::ReserveMs => "reserve_ms",
            AdjustField::SecondaryMs => "secondary_ms",
            AdjustField::SwingMs => "swing_ms",
            AdjustField::PeriodMs => "period_ms",
            AdjustField::PeriodsLeft => "periods_left",
            AdjustField::StonesLeft => "stones_left",
            AdjustField::CapLeftMs => "cap_left_ms",
        }
    }

    /// Whether the value is a count (periods, stones) rather than milliseconds.
    pub fn is_count(self) -> bool {
        matches!(self, AdjustField::PeriodsLeft | AdjustField::StonesLeft)
    }

    fn unit(self) -> &'static str {
        if self.is_count() { "" } else { " ms" }
    }
}

impl std::fmt::Display for AdjustField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for AdjustField {
    type Err = String;

    /// Parse a field name; the error lists the names.
    fn from_str(s: &str) -> Result<AdjustField, String> {
        AdjustField::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = AdjustField::ALL.iter().map(|f| f.as_str()).collect();
                format!(
                    "{s:?} is not an adjustable field; use one of {}",
                    names.join(", ")
                )
            })
    }
}

/// An input the engine refused; nothing changed. Each variant says what is wrong and what to
/// do; [`InputError::is_bad_value`] tells a value out of range or foreign to the control
/// (the caller's argument) from an action the game's state does not allow now.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// Pause while no clock runs.
    #[error("nothing to pause: the game is {0}")]
    NothingToPause(Status),
    /// Start once the game has started.
    #[error("the game has started already ({0}); use new-game for a new one")]
    AlreadyStarted(Status),
    /// Press while no clock runs.
    #[error("press ignored: the game is {0}")]
    PressNotRunning(Status),
    /// Press by the side that is not to move.
    #[error("press ignored: it is {}'s turn, not {}'s", .0.other().as_str(), .0.as_str())]
    NotYourTurn(Side),
    /// Resume while the game is neither paused nor flagged.
    #[error("nothing to resume: the game is {0}")]
    NothingToResume(Status),
    /// Resume after a flag while the flagged side still has no time.
    #[error(
        "the flagged side has no time left; an arbiter adjustment must give it time before resuming"
    )]
    NoTimeToResume,
    /// An arbiter action (`adjust`, `set_moves`) while a clock runs or the game has ended.
    #[error("{action} needs a paused game (it is {status}); pause first")]
    NeedsPause {
        /// `adjust` or `set_moves`.
        action: &'static str,
        /// The status now.
        status: Status,
    },
    /// Reconfigure while a clock runs.
    #[error("reconfigure needs a stopped game (it is running); pause first")]
    ReconfigureRunning,
    /// A board result before the start.
    #[error("the game has not started")]
    NotStarted,
    /// A board result after the end.
    #[error("the game has ended already")]
    AlreadyEnded,
    /// A draw claim under a control without double flag.
    #[error("draw claims exist only under a double-flag control")]
    ClaimNeedsDoubleFlag,
    /// A draw claim while no game runs.
    #[error("no claim possible: the game is {0}")]
    ClaimNotNow(Status),
    /// A draw claim by the wrong player or at the wrong moment.
    #[error(
        "only the player still on main time may claim, and only while the opponent is on extra time"
    )]
    ClaimNotYours,
    /// A press counter above the limit.
    #[error("set_moves {0}: a press counter goes up to {max}", max = crate::params::MAX_COUNT)]
    TooManyMoves(u32),
    /// An adjustment that would make a value negative.
    #[error("{field} would become negative ({value}{unit}); give a smaller reduction", unit = .field.unit())]
    Negative {
        /// The field.
        field: AdjustField,
        /// The value it would get.
        value: i64,
    },
    /// An adjustment above the field's limit.
    #[error("{field} would become {value}{unit}, more than the limit of {max}{unit}", unit = .field.unit())]
    OverLimit {
        /// The field.
        field: AdjustField,
        /// The value it would get.
        value: u64,
        /// The limit.
        max: u64,
    },
    /// A count (periods, stones) adjusted to 0.
    #[error("{0} must be at least 1{why}", why = if *.0 == AdjustField::PeriodsLeft { " (0 periods is a flag)" } else { "" })]
    CountBelowOne(AdjustField),
    /// `cap_left_ms` under a control without `cap/`.
    #[error("this control has no overall cap (cap/); there is no cap_left_ms to adjust")]
    NoCap,
    /// `main_ms` under phased swing.
    #[error("phased swing has no main_ms; use swing_ms or reserve_ms")]
    NoMainInSwing,
    /// A field the control's method does not have.
    #[error("\"{field}\" cannot be adjusted for {method}; adjust one of the detail fields the snapshot shows")]
    NotInMethod {
        /// The field.
        field: AdjustField,
        /// The method in force.
        method: crate::params::Method,
    },
    /// A reconfiguration to a control that cannot be run.
    #[error("{0}")]
    InvalidControl(ConfigError),
}

impl InputError {
    /// Whether the input's value is wrong (out of range, or a field or control the game cannot
    /// take) rather than the action not allowed in the game's state now.
    pub fn is_bad_value(&self) -> bool {
        matches!(
            self,
            InputError::TooManyMoves(_)
                | InputError::Negative { .. }
                | InputError::OverLimit { .. }
                | InputError::CountBelowOne(_)
                | InputError::NoCap
                | InputError::NoMainInSwing
                | InputError::NotInMethod { .. }
                | InputError::InvalidControl(_)
        )
    }
}
