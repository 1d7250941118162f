//! What the clock hardware shows, and when it must be told again.
//!
//! Owns [`BoardSide`] (which half of the display is White). Maps the engine's per-colour display values onto the clock's left/right halves and
//! predicts what the device shows on its own (it counts the running half down once a second
//! from the last set-and-run). The session pushes whenever the engine's value differs from
//! that prediction. Pure: `now` is passed in.

use std::time::Duration;

use super::instant::Instant;
use chessclock_engine::Side;

/// The largest time a DGT clock can show: 9:59:59 (one hours nibble), as the protocol says.
const MAX_SECONDS: u64 = chessclock_protocol::report::MAX_CLOCK_SECONDS as u64;

/// What to show: whole seconds per half and the half that counts down (`None`: both stand).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Face {
    pub left_s: u64,
    pub right_s: u64,
    pub run: Option<BoardSide>,
}

/// A face as pushed at an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pushed {
    pub face: Face,
    pub at: Instant,
}

/// Put White's and Black's values on the halves.
pub(crate) fn face(
    white_s: u64,
    black_s: u64,
    counting: Option<Side>,
    white_side: BoardSide,
) -> Face {
    let (left_s, right_s) = match white_side {
        BoardSide::Left => (white_s, black_s),
        BoardSide::Right => (black_s, white_s),
    };
    Face {
        left_s: left_s.min(MAX_SECONDS),
        right_s: right_s.min(MAX_SECONDS),
        run: counting.map(|side| half_of(side, white_side)),
    }
}

/// The half of the display that shows `side`'s time. The one place colours meet halves
/// (with its inverse [`side_on`]).
pub(crate) fn half_of(side: Side, white_side: BoardSide) -> BoardSide {
    match (side, white_side) {
        (Side::White, half) => half,
        (Side::Black, BoardSide::Left) => BoardSide::Right,
        (Side::Black, BoardSide::Right) => BoardSide::Left,
    }
}

/// The side whose time `half` shows.
pub(crate) fn side_on(half: BoardSide, white_side: BoardSide) -> Side {
    if half == white_side {
        Side::White
    } else {
        Side::Black
    }
}

/// What the device shows at `now` after `p` was pushed: the running half loses one second
/// per elapsed second, down to 0.
pub(crate) fn predicted(p: &Pushed, now: Instant) -> Face {
    let ticks = now.saturating_since(p.at).as_secs();
    let mut f = p.face;
    match f.run {
        Some(BoardSide::Left) => f.left_s = f.left_s.saturating_sub(ticks),
        Some(BoardSide::Right) => f.right_s = f.right_s.saturating_sub(ticks),
        None => {}
    }
    f
}

/// When the device's own countdown next changes what it shows.
pub(crate) fn next_device_tick(p: &Pushed, now: Instant) -> Option<Instant> {
    p.face.run?;
    let elapsed = now.saturating_since(p.at).as_secs();
    Some(p.at + Duration::from_secs(elapsed + 1))
}

/// Which half of the clock display shows White: the protocol's [`Half`].
pub use chessclock_protocol::Half as BoardSide;

/// `left` or `right`, exactly (the engine's word parser: the same on D-Bus, in the CLI, the
/// configuration and the journal).
pub fn parse_board_side(s: &str) -> Result<BoardSide, chessclock_engine::words::WordError> {
    chessclock_engine::words::parse_word(
        s,
        "a half of the clock",
        &BoardSide::NAMES,
        &[BoardSide::Left, BoardSide::Right],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn white_on_the_right_swaps_halves_and_run() {
        let f = face(100, 200, Some(Side::White), BoardSide::Right);
        assert_eq!(
            (f.left_s, f.right_s, f.run),
            (200, 100, Some(BoardSide::Right))
        );
        let f = face(100, 200, Some(Side::White), BoardSide::Left);
        assert_eq!(
            (f.left_s, f.right_s, f.run),
            (100, 200, Some(BoardSide::Left))
        );
        let f = face(100, 200, None, BoardSide::Left);
        assert_eq!(f.run, None);
    }

    #[test]
    fn halves_and_sides_are_inverse() {
        for white in [BoardSide::Left, BoardSide::Right] {
            for side in [Side::White, Side::Black] {
                assert_eq!(side_on(half_of(side, white), white), side);
            }
        }
        assert_eq!(half_of(Side::Black, BoardSide::Left), BoardSide::Right);
        assert_eq!(side_on(BoardSide::Left, BoardSide::Right), Side::Black);
    }

    #[test]
    fn values_beyond_nine_hours_are_clamped() {
        let f = face(12 * 3600, 5, None, BoardSide::Left);
        assert_eq!(f.left_s, MAX_SECONDS);
    }

    #[test]
    fn prediction_counts_the_running_half_down() {
        let at = Instant::from_ms(7_000);
        let p = Pushed {
            face: face(10, 20, Some(Side::Black), BoardSide::Left),
            at,
        };
        let f = predicted(&p, at + Duration::from_millis(2500));
        assert_eq!((f.left_s, f.right_s), (10, 18));
        let f = predicted(&p, at + Duration::from_secs(60));
        assert_eq!(f.right_s, 0);
        assert_eq!(
            next_device_tick(&p, at + Duration::from_millis(2500)),
            Some(at + Duration::from_secs(3))
        );
    }
}
