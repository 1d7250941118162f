//! Requests whose meaning depends on the game's state, through the session in virtual time:
//! a control before the start, the text limit, a start against the lever, notices of a
//! resumed game and a new game, a byo-yomi period published when it begins.

use chessclock_protocol::emulator::{EmuConfig, Running};

use super::{Rig, config, control, engine, until};
use crate::session::interface::{ClockEvent, DeviceError, Request};
use chessclock_engine::{Input, MethodDetail, Side, Status, Time};

/// A control "before the start" (a `[[clock]]` table applied to a board) is set on a game
/// that has not started, and refused once it has, in the same step as the check: the game
/// keeps its control.
#[test]
fn a_control_before_the_start_is_refused_once_the_game_runs() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    rig.request(Request::SetControlBeforeStart(control("G/3 inc/2")))
        .expect("a game that has not started takes it");
    assert_eq!(rig.published().time_control, "G/3 inc/2");
    rig.start();
    let refused = rig.request(Request::SetControlBeforeStart(control("G/10 d/5")));
    assert!(
        matches!(&refused, Err(DeviceError::NotAllowed(m)) if m.contains("running")),
        "{refused:?}"
    );
    assert_eq!(rig.published().time_control, "G/3 inc/2");
}

/// Every game carries `Event`, `Site` (the defaults), `Round "R.B"`, `Board "B"` (its place)
/// and its `Date` (passed in); the game's own information wins; a bad default is refused
/// and changes nothing.
#[test]
fn the_pgn_carries_the_default_tags_unless_the_game_names_its_own() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    let tag = |n: &str, v: &str| (n.to_owned(), v.to_owned());
    rig.session
        .set_tag_defaults(&[tag("Event", "Club Open"), tag("Site", "Hall")])
        .expect("defaults");
    rig.request(Request::Place { round: 3, board: 2 })
        .expect("place");
    rig.session.set_date(Some("2026.11.26".into()));
    rig.request(Request::SetGameInfo(vec![tag("Site", "Annex")]))
        .expect("info");
    let pgn = rig.session.pgn(rig.at());
    for want in [
        "[Event \"Club Open\"]\n[Site \"Annex\"]\n[Date \"2026.11.26\"]\n[Round \"3.2\"]\n",
        "[Board \"2\"]\n[TimeControl \"300\"]\n",
    ] {
        assert!(pgn.contains(want), "{want} in {pgn}");
    }
    // The next round replaces Round and keeps the rest; the game's own Round wins.
    rig.request(Request::Place { round: 4, board: 2 })
        .expect("round");
    let bad = rig.session.set_tag_defaults(&[tag("Event", "a\nb")]);
    assert!(
        matches!(&bad, Err(m) if m.contains("line break")),
        "{bad:?}"
    );
    let pgn = rig.session.pgn(rig.at());
    assert!(
        pgn.contains("[Event \"Club Open\"]") && pgn.contains("[Round \"4.2\"]"),
        "{pgn}"
    );
    assert_eq!(rig.session.place(), Some((4, 2)));
    rig.request(Request::SetGameInfo(vec![tag("Round", "4")]))
        .expect("info");
    assert!(rig.session.pgn(rig.at()).contains("[Round \"4\"]"));
    rig.session.set_date(None);
    assert!(rig.session.pgn(rig.at()).contains("[Date \"????.??.??\"]"));
}

/// Text for longer than the limit is refused with a message saying the limit, and nothing is
/// shown; the limit itself is taken.
#[test]
fn text_longer_than_ten_seconds_is_refused() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    for ms in [10_001, u32::MAX] {
        let err = rig
            .request(Request::ShowText {
                text: "LONG".into(),
                ms,
            })
            .expect_err("over the limit");
        let DeviceError::Invalid(msg) = &err else {
            panic!("an invalid argument: {err:?}")
        };
        assert!(msg.contains("at most 10000 ms"), "{msg}");
    }
    rig.run_until(rig.now + 500);
    assert_eq!(rig.view().text, None, "nothing shown");
    rig.request(Request::ShowText {
        text: "TEN".into(),
        ms: 10_000,
    })
    .expect("the limit itself");
    let asked = rig.now;
    let shown = until(&mut rig, 1_000, "the text", |r| {
        r.emu.view().text.as_deref() == Some("TEN")
    });
    let gone = until(&mut rig, 11_000, "the times again", |r| {
        r.emu.view().text.is_none()
    });
    let (took, stayed) = (shown - asked, gone - shown);
    assert!(
        (took + stayed).abs_diff(10_000) <= 100,
        "{took} ms + {stayed} ms"
    );
}

/// A start for White while the lever shows Black to move starts Black, and Black's press is
/// a press (the first flip is never swallowed).
#[test]
fn a_start_against_the_lever_starts_the_side_the_lever_shows_to_move() {
    let mut rig = Rig::ready("G/5 d/0", EmuConfig::default());
    // Flipped before the start: the right end (Black's, White being left) is up.
    rig.press();
    until(&mut rig, 1_000, "lever flipped", |r| {
        r.emu.view().right_high
    });
    rig.run_until(rig.now + 500);
    rig.start();
    until(&mut rig, 1_000, "black running", |r| {
        r.emu.view().running == Running::Right
    });
    assert_eq!(rig.published().snapshot.running, Some(Side::Black));
    rig.run_until(rig.now + 2_000);
    rig.events.clear();
    rig.press();
    until(&mut rig, 1_000, "the press", |r| {
        !r.clock_events().is_empty()
    });
    let side = rig.clock_events().into_iter().find_map(|(_, ev)| match ev {
        ClockEvent::Pressed(chessclock_engine::Press { side, .. }) => Some(side),
        _ => None,
    });
    assert_eq!(side, Some(Side::Black));
    until(&mut rig, 1_000, "white running", |r| {
        r.emu.view().running == Running::Left
    });
}

/// A resumed game played on another board than the one now on the port goes on, and the
/// operator is told (issue 10 item 2); a new game clears what was said about the last one.
#[test]
fn another_board_on_the_port_of_a_game_under_way_is_a_notice() {
    let mut game = engine("G/5 d/0");
    game.handle_input(Time::from_ms(0), Input::Start { side: Side::White })
        .expect("started");
    let mut rig = Rig::with(
        config(),
        game,
        1_000,
        Some("13579".into()),
        EmuConfig::default(),
    );
    rig.session
        .add_notice("on resuming the game: a restart gap".into());
    assert_eq!(rig.published().notices.len(), 1, "the restore's notice");
    until(&mut rig, 30_000, "a notice about the board", |r| {
        r.session.published.state().notices.len() == 2
    });
    let st = rig.published();
    assert_eq!(st.board_serial, "24680");
    assert!(
        st.notices[1].contains("board 24680") && st.notices[1].contains("board 13579"),
        "{:?}",
        st.notices
    );
    assert_eq!(st.game_state, Status::Running, "the game goes on");
    // A new game: the notices were about the old one.
    rig.request(Request::NewGame).expect("new game");
    let st = rig.published();
    assert!(st.notices.is_empty(), "{:?}", st.notices);
    assert_eq!(st.game_state, Status::Ready);
}

/// A new byo-yomi period is published when it begins (its `periods_left`), not at the next
/// press: the engine's period event is a change of the state.
#[test]
fn a_new_byoyomi_period_is_published_when_it_begins() {
    let mut rig = Rig::ready("G/1s byo/3x5", EmuConfig::default());
    rig.start();
    let started = rig.now;
    let mut published = rig.published();
    let periods_left = |st: &crate::session::interface::ClockState| match st
        .snapshot
        .detail
        .get(Side::White)
        .method
    {
        MethodDetail::Byoyomi { periods_left, .. } => periods_left,
        other => panic!("byo-yomi detail: {other:?}"),
    };
    // Main time (1 s) and the first period (5 s) run out; the second period begins.
    let mut rolled = None;
    while rig.now < started + 7_000 {
        rig.run_until(rig.now + 100);
        let at = crate::link::driver::Instant::from_ms(rig.now);
        if rig.session.publish(at, &mut published) && periods_left(&published) == 2 {
            rolled = Some(rig.now - started);
            break;
        }
    }
    let rolled = rolled.expect("the second period published");
    assert!((6_000..6_200).contains(&rolled), "published at {rolled} ms");
}
