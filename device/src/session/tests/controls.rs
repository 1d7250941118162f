//! The controls arbiters ask for (issue 32), each driven on the emulated DGT 3000 in virtual
//! time: Armageddon with time odds (the display, a draw on the board scored for Black, the
//! PGN saying why); count-up (both halves shown counting up, no flag); a method per side
//! (an increment for White, a delay or byo-yomi for Black).

use chessclock_protocol::emulator::{EmuConfig, Running};

use super::judging::LOYD_STALEMATE;
use super::{Rig, shows_wanted, until};
use chessclock_engine::{GameResult, ResultReason, Status};

#[test]
fn armageddon_with_time_odds_scores_a_stalemate_for_black() {
    let mut rig = Rig::ready("W{G/5 d/0} B{G/4 d/0} armageddon", EmuConfig::default());
    // White on the left: 5:00 against 4:00 before the start.
    let v = rig.view();
    assert_eq!((v.left_seconds, v.right_seconds), (300, 240), "{v:?}");
    rig.start();
    for (i, uci) in LOYD_STALEMATE.iter().enumerate() {
        rig.run_until(rig.now + 500);
        rig.move_piece(uci);
        rig.run_until(rig.now + 300);
        if i + 1 < LOYD_STALEMATE.len() {
            rig.press();
        }
    }
    rig.run_until(rig.now + 300);
    let live = rig.published();
    assert_eq!(live.snapshot.status, Status::Ended, "{:?}", live.snapshot);
    assert_eq!(live.snapshot.result, Some(GameResult::BlackWins));
    assert_eq!(live.snapshot.reason, Some(ResultReason::Armageddon));
    assert_eq!(live.snapshot.drawn_by, Some(ResultReason::Stalemate));
    assert_eq!(
        rig.view().text.as_deref(),
        Some("0-1 ARM"),
        "the DGT 3000 says why"
    );
    until(&mut rig, 5_000, "the times come back", shows_wanted);
    let pgn = rig.session.pgn(rig.at());
    assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
    assert!(pgn.contains("[Termination \"normal\"]"), "{pgn}");
    assert!(
        pgn.replace('\n', " ")
            .contains("{Armageddon: drawn (stalemate); a draw scores as a win for Black} 0-1"),
        "{pgn}"
    );
}

#[test]
fn count_up_is_shown_counting_up_on_the_dgt_3000_and_never_flags() {
    let mut rig = Rig::ready("UP", EmuConfig::default());
    let v = rig.view();
    assert_eq!((v.left_seconds, v.right_seconds), (0, 0), "{v:?}");
    rig.start();
    let t0 = rig.now;
    // White (left) thinks 10 s: its half shows 0:01, 0:02, ... as the seconds are used.
    for k in 1..=10u32 {
        rig.run_until(t0 + u64::from(k) * 1000 + 300);
        let v = rig.view();
        assert_eq!((v.left_seconds, v.right_seconds), (k + 1, 0), "{v:?}");
        assert!(shows_wanted(&rig), "{v:?} against {:?}", rig.wanted());
    }
    rig.press();
    let t1 = rig.now;
    // Now Black's (right) half counts up and White's stands.
    rig.run_until(t1 + 3_500);
    let v = rig.view();
    assert_eq!(v.left_seconds, 11, "{v:?}");
    assert_eq!(v.right_seconds, 4, "{v:?}");
    // An hour later nothing has flagged: count-up has no limit.
    rig.run_until(t1 + 3_600_000);
    let live = rig.published();
    assert_eq!(live.snapshot.status, Status::Running, "{:?}", live.snapshot);
    assert!(live.snapshot.counts_up);
    let v = rig.view();
    assert!((3_600..=3_601).contains(&v.right_seconds), "{v:?}");
}

#[test]
fn a_method_per_side_times_each_side_by_its_own_on_the_dgt_3000() {
    // White: 5 min + 3 s increment; Black: 5 min with a 5 s delay.
    let mut rig = Rig::ready("W{G/5 inc/3} B{G/5 d/5}", EmuConfig::default());
    let v = rig.view();
    assert_eq!((v.left_seconds, v.right_seconds), (303, 300), "{v:?}");
    rig.start();
    rig.run_until(rig.now + 10_000);
    rig.press();
    let pressed = rig.now;
    until(&mut rig, 1_000, "White's increment shows", |r| {
        r.emu.view().left_seconds == 296
    });
    // Black's delay: the right half stands still for 5 s, then counts down.
    rig.run_until(pressed + 3_000);
    let v = rig.view();
    assert_eq!((v.left_seconds, v.right_seconds), (296, 300), "{v:?}");
    assert_eq!(v.running, Running::None, "stands during the delay");
    rig.run_until(pressed + 7_500);
    let v = rig.view();
    assert_eq!(v.right_seconds, 298, "{v:?}");
    assert_eq!(v.running, Running::Right, "counts down after it");
    assert!(shows_wanted(&rig), "{v:?} against {:?}", rig.wanted());
}

#[test]
fn a_different_kind_of_method_per_side_on_the_dgt_3000() {
    // White: 5 min + 3 s increment; Black: 5 s of main time, then 3 x 10 s byo-yomi.
    let mut rig = Rig::ready("W{G/5 inc/3} B{G/5s byo/3x10}", EmuConfig::default());
    let v = rig.view();
    assert_eq!((v.left_seconds, v.right_seconds), (303, 5), "{v:?}");
    rig.start();
    rig.run_until(rig.now + 10_000);
    rig.press();
    let pressed = rig.now;
    // Black's main time runs out after 5 s: the clock shows all periods, 0:30, counting down.
    rig.run_until(pressed + 8_500);
    let live = rig.published();
    assert_eq!(live.snapshot.phase.black.to_string(), "byoyomi");
    let v = rig.view();
    assert_eq!(v.left_seconds, 296, "{v:?}");
    assert_eq!(v.right_seconds, 27, "{v:?}");
    assert_eq!(v.running, Running::Right, "{v:?}");
    rig.press();
    // Black's press gives the period back: 0:30 again; White runs.
    rig.run_until(rig.now + 500);
    let v = rig.view();
    assert_eq!(v.right_seconds, 30, "{v:?}");
    assert_eq!(v.running, Running::Left, "{v:?}");
    assert!(shows_wanted(&rig), "{v:?} against {:?}", rig.wanted());
}
