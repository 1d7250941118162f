//! Presses that carry the board's move number (`Input::PressMove`): the counter and a
//! multi-period control's transition follow the moves on the board, not the presses.

use crate::support::{at, engine};
use chessclock_engine::{Input, Side, Time};

#[test]
fn the_period_is_reached_at_the_boards_move_not_the_presses() {
    // 2 moves in 1 minute, then 1 minute for the rest.
    let mut e = engine("2/1 SD/1");
    at(&mut e, 0, Input::Start { side: Side::White });
    let pm = |side, move_number| Input::PressMove { side, move_number };
    at(&mut e, 1_000, pm(Side::White, 1));
    at(&mut e, 2_000, pm(Side::Black, 1));
    // White presses again without a move on the board (still its first move there).
    at(&mut e, 3_000, pm(Side::White, 1));
    let s = e.snapshot(Time::from_ms(3_000));
    assert_eq!(s.moves.white, 1, "the extra press does not count");
    assert_eq!(s.white_ms, 60_000 - 2_000, "no period time yet: {s:?}");
    at(&mut e, 4_000, pm(Side::Black, 2));
    // White's second move on the board: the period's time is added.
    at(&mut e, 5_000, pm(Side::White, 2));
    let s = e.snapshot(Time::from_ms(5_000));
    assert_eq!(s.moves.white, 2);
    assert_eq!(s.white_ms, 60_000 - 3_000 + 60_000, "{s:?}");

    // The same presses counted by the lever reach the period one press early.
    let mut e = engine("2/1 SD/1");
    at(&mut e, 0, Input::Start { side: Side::White });
    for (t, side) in [
        (1_000, Side::White),
        (2_000, Side::Black),
        (3_000, Side::White),
    ] {
        at(&mut e, t, Input::Press { side });
    }
    let s = e.snapshot(Time::from_ms(3_000));
    assert_eq!(s.moves.white, 2);
    assert_eq!(s.white_ms, 60_000 - 2_000 + 60_000);
}

#[test]
fn a_move_without_a_press_is_caught_up_and_a_takeback_credits_nothing_twice() {
    let mut e = engine("2/1 SD/1");
    at(&mut e, 0, Input::Start { side: Side::White });
    // White's first press comes after its second move on the board: the period is reached.
    at(
        &mut e,
        1_000,
        Input::PressMove {
            side: Side::White,
            move_number: 2,
        },
    );
    let s = e.snapshot(Time::from_ms(1_000));
    assert_eq!((s.moves.white, s.white_ms), (2, 60_000 - 1_000 + 60_000));
    at(
        &mut e,
        2_000,
        Input::PressMove {
            side: Side::Black,
            move_number: 1,
        },
    );
    // A takeback on the board: White's next press is its move 2 again; nothing is added.
    at(
        &mut e,
        3_000,
        Input::PressMove {
            side: Side::White,
            move_number: 2,
        },
    );
    let s = e.snapshot(Time::from_ms(3_000));
    assert_eq!(s.white_ms, 60_000 - 2_000 + 60_000, "{s:?}");
}
