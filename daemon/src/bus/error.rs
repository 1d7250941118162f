//! Typed D-Bus errors (`org.chessclockd.ChessClock1.Error.*`).
//!
//! Every message says what went wrong and what to do about it. Owns only the mapping from
//! daemon and engine errors to D-Bus errors (the table in docs/dbus-api.md "Errors").

use chessclock_engine::InputError;
use zbus::DBusError;

/// Errors returned by the daemon's D-Bus methods.
#[derive(Debug, DBusError)]
#[zbus(prefix = "org.chessclockd.ChessClock1.Error")]
pub enum BusError {
    /// A transport-level zbus error.
    #[zbus(error)]
    ZBus(zbus::Error),
    /// An argument is malformed (bad side, bad notation, bad field name...).
    InvalidArgument(String),
    /// The action is not allowed in the current game state (e.g. adjust while running).
    NotAllowed(String),
    /// No clock with that path, index or port.
    NoSuchClock(String),
    /// The port is already attached.
    AlreadyAttached(String),
    /// The port could not be opened or is not a DGT board.
    PortFailed(String),
    /// The clock did not answer or refused the command (e.g. not in PC mode).
    DeviceFailed(String),
    /// The device actor is gone (the clock was detached meanwhile).
    Gone(String),
}

impl From<InputError> for BusError {
    /// An engine refusal: a value out of range or foreign to the control is the caller's
    /// argument (`InvalidArgument`); an action the game's state does not allow now is
    /// `NotAllowed`. Each variant is listed, so a new one must be placed here.
    fn from(e: InputError) -> BusError {
        let msg = e.to_string();
        match e {
            InputError::TooManyMoves(_)
            | InputError::Negative { .. }
            | InputError::OverLimit { .. }
            | InputError::CountBelowOne(_)
            | InputError::NoCap
            | InputError::NoMainInSwing
            | InputError::NotInMethod { .. }
            | InputError::InvalidControl(_)
            | InputError::DelayNeedsSegments(_) => BusError::InvalidArgument(msg),
            InputError::NothingToPause(_)
            | InputError::AlreadyStarted(_)
            | InputError::PressNotRunning(_)
            | InputError::NotYourTurn(_)
            | InputError::NothingToResume(_)
            | InputError::NoTimeToResume
            | InputError::NeedsPause { .. }
            | InputError::ReconfigureRunning
            | InputError::NotStarted
            | InputError::AlreadyEnded
            | InputError::ClaimNeedsDoubleFlag
            | InputError::ClaimNotNow(_)
            | InputError::ClaimNotYours
            | InputError::FlagFellFirst
            | InputError::ClaimPending
            | InputError::ClaimNeedsSuddenDeath(_)
            | InputError::ClaimTooEarly(_)
            | InputError::NoClaimPending
            | InputError::RulingAfterFlag(_) => BusError::NotAllowed(msg),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessclock_engine::{AdjustField, Side, Status};

    fn name(e: InputError) -> &'static str {
        match BusError::from(e) {
            BusError::InvalidArgument(_) => "InvalidArgument",
            BusError::NotAllowed(_) => "NotAllowed",
            _ => "other",
        }
    }

    #[test]
    fn engine_refusals_map_to_argument_or_state_errors() {
        assert_eq!(name(InputError::NotYourTurn(Side::Black)), "NotAllowed");
        assert_eq!(
            name(InputError::NothingToPause(Status::Ready)),
            "NotAllowed"
        );
        assert_eq!(name(InputError::ClaimNotYours), "NotAllowed");
        assert_eq!(name(InputError::NoCap), "InvalidArgument");
        assert_eq!(
            name(InputError::Negative {
                field: AdjustField::MainMs,
                value: -5
            }),
            "InvalidArgument"
        );
        assert_eq!(
            name(InputError::CountBelowOne(AdjustField::PeriodsLeft)),
            "InvalidArgument"
        );
    }

    #[test]
    fn the_message_is_the_engine_s() {
        let BusError::NotAllowed(m) = BusError::from(InputError::NotYourTurn(Side::Black)) else {
            panic!("NotAllowed expected")
        };
        assert_eq!(m, "press ignored: it is white's turn, not black's");
    }
}
