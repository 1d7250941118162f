//! The board's result signal (docs/board-game.md): both kings on the centre squares set the
//! result, and a king move that only began the signal is taken back (lila #11783).

use crate::support::Hand;
use chessclock_game::{BoardState, GameEvent, GameResult, ResultSignal};
use chessclock_protocol::Orientation;

#[test]
fn kings_in_the_centre_set_the_result() {
    let cases = [
        ("e4", "d5", GameResult::WhiteWins),
        ("d4", "e5", GameResult::BlackWins),
        ("e4", "e5", GameResult::Draw),
    ];
    for (white, black, want) in cases {
        let mut h = Hand::start(Orientation::Normal);
        h.play(&[("e2", "e3"), ("e7", "e6"), ("d2", "d3"), ("d7", "d6")]);
        // Both kings lifted, then set down in the centre.
        h.lift("e1");
        h.lift("e8");
        h.place(white, 'K');
        h.place(black, 'k');
        h.wait(1_500);
        let result = h.events.iter().find_map(|e| match e {
            GameEvent::Result { result, signal, .. } => Some((*result, *signal)),
            _ => None,
        });
        assert_eq!(
            result,
            Some((want, ResultSignal::KingsInCentre)),
            "{white} {black}"
        );
        assert_eq!(h.tracker.state(), &BoardState::Finished(want));
        assert_eq!(h.ucis().len(), 4, "no move from the kings");
        // Pieces swept off afterwards change nothing; the start position starts a new game.
        h.lift("a2");
        assert_eq!(h.tracker.state(), &BoardState::Finished(want));
        h.drain();
        h.dump_start();
        assert_eq!(h.drain(), [GameEvent::NewGame { at_ms: h.now }]);
    }
}

/// The kings walk to d3 and d6: White's king can step to e4 legally, Black's cannot reach d5.
fn kings_walked_up() -> Hand {
    let mut h = Hand::start(Orientation::Normal);
    h.play(&[
        ("e2", "e3"),
        ("e7", "e6"),
        ("e1", "e2"),
        ("e8", "e7"),
        ("e2", "d3"),
        ("e7", "d6"),
    ]);
    h.drain();
    h
}

#[test]
fn the_first_king_of_the_signal_set_down_within_the_settle_time_is_no_move() {
    let mut h = kings_walked_up();
    // White's king set on e4 is a legal move, read at once; Black's on d5 completes 1-0.
    h.slide("d3", "e4");
    assert_eq!(h.ucis().len(), 7, "Ke4 read as a move first");
    h.wait(500);
    h.slide("d6", "d5");
    h.wait(1_500);
    let events = h.drain();
    let takeback = events.iter().position(|e| {
        matches!(
            e,
            GameEvent::Takeback {
                plies: 1,
                to_ply: 6,
                ..
            }
        )
    });
    let result = events.iter().position(|e| {
        matches!(
            e,
            GameEvent::Result {
                result: GameResult::WhiteWins,
                signal: ResultSignal::KingsInCentre,
                ..
            }
        )
    });
    assert!(
        takeback.is_some() && takeback < result,
        "Ke4 taken back before the result: {events:?}"
    );
    assert_eq!(h.ucis().len(), 6, "the game ends before Ke4");
    assert_eq!(
        h.tracker.state(),
        &BoardState::Finished(GameResult::WhiteWins)
    );
}

#[test]
fn a_king_move_that_stood_longer_than_the_settle_time_stays_in_the_game() {
    let mut h = kings_walked_up();
    h.slide("d3", "e4");
    h.wait(2_000);
    h.slide("d6", "d5");
    h.wait(1_500);
    let events = h.drain();
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, GameEvent::Takeback { .. })),
        "{events:?}"
    );
    assert!(
        events.iter().any(|e| matches!(e, GameEvent::Result { .. })),
        "{events:?}"
    );
    assert_eq!(h.ucis().len(), 7, "Ke4 was played");
}

#[test]
fn a_king_set_down_beside_the_other_on_its_way_is_no_result() {
    // Black's king stands on d5 in the game; White's king passes over e4 (beside it) on its
    // way from e3 to f4 and is set down there for a moment: both kings in the centre, but
    // not for the settle time.
    let mut h = Hand::start(Orientation::Normal);
    h.play(&[
        ("e2", "e4"),
        ("d7", "d5"),
        ("e4", "d5"),
        ("e8", "d7"),
        ("e1", "e2"),
        ("d7", "d6"),
        ("e2", "e3"),
        ("d6", "d5"),
    ]);
    h.drain();
    h.lift("e3");
    h.place("e4", 'K');
    h.wait(300);
    h.lift("e4");
    h.place("f4", 'K');
    h.wait(2_000);
    let events = h.drain();
    assert!(
        !events.iter().any(|e| matches!(e, GameEvent::Result { .. })),
        "{events:?}"
    );
    assert_eq!(h.ucis().last().map(String::as_str), Some("e3f4"));
}
