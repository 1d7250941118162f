//! The engine's outcome values: per-side pairs, phases, flag and result reasons, status
//! causes and flag records, as the snapshot and the events carry them.
//!
//! Plain data; each serialises to its spec §1.1 / §1.4 text form.

use serde::Serialize;

use super::types::Side;

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
    /// `up`: count-up, the time used so far.
    Up,
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
            Phase::Up => "up",
        };
        f.write_str(name)
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

display_as_str!(FlagReason);

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
    /// Checkmate on the board (FIDE 5.1.1).
    Checkmate,
    /// Stalemate on the board (FIDE 5.2.1).
    Stalemate,
    /// The DGT result signal on the board (both kings on the centre squares, the result
    /// pieces).
    BoardSignal,
    /// A flag fell, but the opponent cannot checkmate by any legal sequence (FIDE 6.9).
    InsufficientMaterial,
    /// The same position a fifth time (FIDE 9.6.1).
    FivefoldRepetition,
    /// 75 moves each without a pawn move or a capture (FIDE 9.6.2).
    SeventyFiveMoves,
    /// Neither player can checkmate by any series of legal moves (FIDE 5.2.2, USCF 14D).
    DeadPosition,
    /// A correct threefold-repetition claim (FIDE 9.2).
    ThreefoldRepetition,
    /// A correct fifty-move claim (FIDE 9.3).
    FiftyMoves,
    /// USCF 14H: the director upheld a claim of insufficient losing chances.
    InsufficientLosingChances,
    /// Armageddon: the game was drawn (the snapshot's `drawn_by` says how) and a draw
    /// scores as a win for Black.
    Armageddon,
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
            ResultReason::Checkmate => "checkmate",
            ResultReason::Stalemate => "stalemate",
            ResultReason::BoardSignal => "board_signal",
            ResultReason::InsufficientMaterial => "insufficient_material",
            ResultReason::FivefoldRepetition => "fivefold_repetition",
            ResultReason::SeventyFiveMoves => "seventy_five_moves",
            ResultReason::DeadPosition => "dead_position",
            ResultReason::ThreefoldRepetition => "threefold_repetition",
            ResultReason::FiftyMoves => "fifty_moves",
            ResultReason::InsufficientLosingChances => "insufficient_losing_chances",
            ResultReason::Armageddon => "armageddon",
        }
    }
}

display_as_str!(ResultReason);

/// Why the status changed (an [`Event::StatusChanged`] reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StatusCause {
    /// The game started.
    Start,
    /// Paused.
    Pause,
    /// Resumed (after a pause, or after a flag with time given back).
    Resume,
    /// A flag fell and the game has no result yet: both flags under flag/continue, or a
    /// flag whose result waits for the verdict on the position ([`crate::Input::MatingMaterial`]).
    Flag,
    /// Paused for the director: a USCF 14H claim, or a watched claimant's flag.
    Claim,
    /// The game has a result, for this reason.
    Result(ResultReason),
    /// A new game replaced the last one. The engine never says it (a new game is a new
    /// engine); the device that replaced it does.
    NewGame,
}

impl StatusCause {
    /// The reason code (`start`, `pause`, `resume`, `flag`, `new_game`, or the result's reason).
    pub fn as_str(self) -> &'static str {
        match self {
            StatusCause::Start => "start",
            StatusCause::Pause => "pause",
            StatusCause::Resume => "resume",
            StatusCause::Flag => "flag",
            StatusCause::Claim => "claim",
            StatusCause::Result(r) => r.as_str(),
            StatusCause::NewGame => "new_game",
        }
    }
}

display_as_str!(StatusCause);
serialize_as_text!(Phase, SidePhase, ResultReason, StatusCause);

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
