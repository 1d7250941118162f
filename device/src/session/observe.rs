//! Observe mode: the clock runs one of its own modes (a tournament that trusts the hardware
//! clock) and chessclockd follows it, as DGT LiveChess does. The times are the clock's
//! reports (whole seconds), the lever says who runs, a lever press ends a move, and the
//! result is the arbiter's.
//!
//! Owns what the game is made of the reports: who runs, the move counts and turn lengths,
//! the status, the overlay on the engine snapshot. Reading the reports themselves (the
//! halves' times, the raised lever) is [`ClockObserver`]'s, the one reader shared with
//! replay. The clock against the declared control (its start times, what it adds at a
//! press) and the time it adds outside a press are [`ControlCheck`]'s (`observe/check.rs`).
//! Pure (no IO, time passed in as driver instants). It must not decide anything
//! about the game's time: in this mode the clock is the authority.

use chessclock_game::ClockObserver;
use chessclock_protocol::ClockReport;

use crate::link::display::{BoardSide, half_of, side_on};
use crate::link::driver;
use chessclock_engine::{GameResult, PerSide, Side, Snapshot, Status};

mod check;
pub(crate) use check::ControlCheck;

/// Who runs the game's time on a clock (declared with the published clock).
pub use chessclock_api::Mode;

/// A lever press seen in observe mode is the one press event: its `move_ms` runs from the
/// previous press (or the first report of the run), its move number counts the mover's
/// presses, this one included.
use chessclock_engine::Press as ObservedPress;

/// What the clock's reports said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Observed {
    /// The reports as read (the last one: times and lever).
    clock: ClockObserver,
    presses: PerSide<u32>,
    /// When the running player's turn began (a press, or the clock seen running first).
    turn_since: Option<driver::Instant>,
    /// The result the arbiter recorded.
    pub result: Option<GameResult>,
    /// The clock against the declared control, and time it added outside a press.
    pub check: ControlCheck,
}

impl Observed {
    /// Forget the game (a new game, or back to drive mode).
    pub(crate) fn reset(&mut self) {
        *self = Observed::default();
    }

    /// A clock report read at `at`, with White on `white_side`. `true` if it added time to a
    /// side outside a press (its last `[%clk]` changes: [`ControlCheck`]).
    pub(crate) fn on_report(
        &mut self,
        report: ClockReport,
        at: driver::Instant,
        white_side: BoardSide,
    ) -> bool {
        if report.running && self.turn_since.is_none() {
            self.turn_since = Some(at);
        }
        if !report.running {
            self.turn_since = None;
        }
        // Presses come from the driver's lever events (read against this report), not from
        // the observer's own comparison of reports.
        let _ = self.clock.on_report(&report);
        let (Some(white), Some(black)) = (
            self.value(Side::White, white_side),
            self.value(Side::Black, white_side),
        ) else {
            return false;
        };
        let added = PerSide::from_fn(|s| self.check.added_since_press(s));
        self.check
            .on_report(PerSide { white, black }, self.running(white_side));
        added != PerSide::from_fn(|s| self.check.added_since_press(s))
    }

    fn report(&self) -> Option<&ClockReport> {
        self.clock.last()
    }

    /// `side`'s time as the clock shows it (ms, whole seconds), once reported.
    pub(crate) fn value(&self, side: Side, white_side: BoardSide) -> Option<u64> {
        self.clock.clock_ms(half_of(side, white_side))
    }

    /// The player whose time runs (the lever's raised end), if the clock runs.
    pub(crate) fn running(&self, white_side: BoardSide) -> Option<Side> {
        let r = self.report().filter(|r| r.running)?;
        Some(side_on(r.lever_up(), white_side))
    }

    /// `side` pressed its lever at `at` (read against the report that carried it).
    pub(crate) fn on_lever(
        &mut self,
        side: Side,
        at: driver::Instant,
        white_side: BoardSide,
    ) -> Option<ObservedPress> {
        // A press while the clock stands (before the arbiter starts it) ends no move.
        if !self.report().is_some_and(|r| r.running) {
            return None;
        }
        let since = self.turn_since.replace(at)?;
        let count = match side {
            Side::White => &mut self.presses.white,
            Side::Black => &mut self.presses.black,
        };
        *count += 1;
        self.check.on_press(side, *count);
        Some(ObservedPress {
            side,
            move_number: *count,
            move_ms: at
                .saturating_since(since)
                .as_millis()
                .try_into()
                .unwrap_or(u64::MAX),
            white_ms: self.value(Side::White, white_side).unwrap_or(0),
            black_ms: self.value(Side::Black, white_side).unwrap_or(0),
        })
    }

    /// The game's status as the clock shows it.
    pub(crate) fn status(&self) -> Status {
        match self.report() {
            _ if self.result.is_some() => Status::Ended,
            None => Status::Ready,
            Some(r) if r.left.final_flag || r.right.final_flag => Status::Flagged,
            Some(r) if r.running => Status::Running,
            Some(_) if self.presses.white + self.presses.black == 0 => Status::Ready,
            Some(_) => Status::Paused,
        }
    }

    /// The engine's snapshot with the clock's values in place of its own: times, texts,
    /// who runs, status, presses and result.
    pub(crate) fn overlay(&self, snap: &mut Snapshot, white_side: BoardSide) {
        if let (Some(w), Some(b)) = (
            self.value(Side::White, white_side),
            self.value(Side::Black, white_side),
        ) {
            snap.white_ms = w;
            snap.black_ms = b;
            snap.text = PerSide {
                white: chessclock_engine::clock_text(w),
                black: chessclock_engine::clock_text(b),
            };
        }
        snap.status = self.status();
        snap.running = self
            .running(white_side)
            .filter(|_| snap.status == Status::Running);
        snap.moves = self.presses;
        snap.result = self.result;
        snap.flags.clear();
        // The clock runs its own mode: nothing the engine would move flows here.
        snap.flows_ms = None;
    }
}

#[cfg(test)]
mod tests;
