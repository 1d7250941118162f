//! What an arbiter may adjust and why the engine refuses an input ([`InputError`]).
//!
//! Plain data; the messages say what is wrong and what to do. The D-Bus mapping of each
//! refusal is the daemon's (`daemon/src/bus/error.rs`).

use serde::{Deserialize, Serialize};

use super::types::{ConfigError, Phase, Side, Status};

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

display_as_str!(AdjustField);

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
                    "{} is not an adjustable field; use one of {}",
                    crate::words::quote(s),
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
    #[error(
        "\"{field}\" cannot be adjusted for {method}; adjust one of the detail fields the snapshot shows"
    )]
    NotInMethod {
        /// The field.
        field: AdjustField,
        /// The method in force.
        method: crate::params::Method,
    },
    /// A reconfiguration to a control that cannot be run.
    #[error("{0}")]
    InvalidControl(ConfigError),
    /// A result on the board after a flag that decided the game (FIDE 6.9: the flag came
    /// first).
    #[error(
        "the flag fell first, so the result on time stands (FIDE 6.9); an arbiter can still set another result"
    )]
    FlagFellFirst,
    /// A 14H claim while another waits for its ruling, or a resume before the ruling.
    #[error(
        "a claim of insufficient losing chances waits for the director's ruling (draw, deny, delay or watch)"
    )]
    ClaimPending,
    /// A 14H claim outside a sudden-death period.
    #[error(
        "insufficient losing chances can be claimed only in a sudden-death period (the claimant is in {0})"
    )]
    ClaimNeedsSuddenDeath(Phase),
    /// A 14H claim with more than two minutes left.
    #[error(
        "insufficient losing chances can be claimed only with two minutes or less left (the claimant has {} ms)",
        .0
    )]
    ClaimTooEarly(u64),
    /// A ruling with no claim waiting.
    #[error("no claim of insufficient losing chances waits for a ruling")]
    NoClaimPending,
    /// `delay` or `watch` after the watched claimant's flag fell.
    #[error(
        "the claimant's flag fell: rule draw (the claim stands) or deny (the flag stands), not {0}"
    )]
    RulingAfterFlag(&'static str),
    /// A delay ruling under a method without segments to carry a delay.
    #[error(
        "a delay can be placed only on a sudden-death, Fischer, delay or multi-period control, not {0}"
    )]
    DelayNeedsSegments(crate::params::Method),
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
                | InputError::DelayNeedsSegments(_)
        )
    }
}
