//! Draw claims judged from the board's history (FIDE 9.2, 9.3, 9.5.3) and the USCF 14H
//! claim with the director's rulings, through the session's requests, in virtual time
//! against the emulated board.

use chessclock_protocol::board::Piece;
use chessclock_protocol::emulator::{EmuConfig, PieceAction};

use super::{Rig, config, engine};
use crate::session::DrawRules;
use crate::session::interface::{DeviceError, Request};
use chessclock_engine::{
    BoardClaim, ClaimKind, GameResult, Input, PendingClaim, ResultReason, Ruling, Side, Status,
};

/// Each move followed by its press, a second apart.
fn play_pressed(rig: &mut Rig, moves: &[&str]) {
    for uci in moves {
        rig.run_until(rig.now + 1_000);
        rig.move_piece(uci);
        rig.run_until(rig.now + 300);
        rig.press();
    }
}

/// The knights out and back twice: the start position stands for the third time, White
/// to move.
const SHUFFLE: [&str; 8] = [
    "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8",
];

fn claim(rig: &mut Rig, side: Side, kind: ClaimKind) -> Result<(), DeviceError> {
    rig.request(Request::Claim { side, kind }).map(|_| ())
}

fn threefold() -> ClaimKind {
    ClaimKind::Board(BoardClaim::Threefold)
}

#[test]
fn a_right_threefold_claim_draws_at_once_and_is_journaled() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    play_pressed(&mut rig, &SHUFFLE[..4]);
    assert!(
        rig.published().draw_claimable.is_empty(),
        "twice is not yet a repetition"
    );
    play_pressed(&mut rig, &SHUFFLE[4..]);
    let live = rig.published();
    assert_eq!(live.draw_claimable, vec![BoardClaim::Threefold]);
    let err = claim(&mut rig, Side::Black, threefold()).expect_err("not Black's move");
    assert!(err.to_string().contains("white's move"), "{err}");
    assert_eq!(rig.published().snapshot.status, Status::Running);
    claim(&mut rig, Side::White, threefold()).expect("claim taken");
    let live = rig.published();
    assert_eq!(live.snapshot.status, Status::Ended);
    assert_eq!(live.snapshot.result, Some(GameResult::Draw));
    assert_eq!(
        live.snapshot.reason,
        Some(ResultReason::ThreefoldRepetition)
    );
    assert!(
        live.draw_claimable.is_empty(),
        "nothing to claim once the game ended"
    );
    assert!(rig.journaled().contains(&Input::BoardClaim {
        side: Side::White,
        claim: BoardClaim::Threefold,
        valid: true
    }));
}

#[test]
fn a_wrong_claim_gives_the_opponent_two_minutes_and_play_goes_on() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    play_pressed(&mut rig, &SHUFFLE[..4]);
    let before = rig.published().snapshot.black_ms;
    claim(&mut rig, Side::White, threefold()).expect("claim taken");
    let live = rig.published();
    assert_eq!(live.snapshot.status, Status::Running);
    assert_eq!(
        live.snapshot.black_ms,
        before + 120_000,
        "Black waits: +2 min"
    );
    let fifty = ClaimKind::Board(BoardClaim::FiftyMoves);
    claim(&mut rig, Side::White, fifty).expect("claim taken");
    assert_eq!(rig.published().snapshot.black_ms, before + 240_000);
    assert_eq!(
        rig.journaled()
            .iter()
            .filter(|i| matches!(i, Input::BoardClaim { valid: false, .. }))
            .count(),
        2
    );
}

#[test]
fn without_the_draw_rules_a_repetition_is_neither_claimable_nor_claimed() {
    for (control, rules) in [("G/15 df/60:10", None), ("G/5", Some(DrawRules::None))] {
        let mut cfg = config();
        cfg.draw_rules = rules;
        let mut rig = Rig::with(cfg, engine(control), 0, None, EmuConfig::default());
        rig.run_until(1_000);
        rig.start();
        play_pressed(&mut rig, &SHUFFLE);
        assert!(rig.published().draw_claimable.is_empty(), "{control}");
        let err = claim(&mut rig, Side::White, threefold()).expect_err("refused");
        assert!(matches!(err, DeviceError::NotAllowed(_)), "{err:?}");
        assert!(err.to_string().contains("draw_rules"), "{err}");
        assert_eq!(rig.published().snapshot.status, Status::Running);
    }
    // The double-flag clock with FIDE's rules asked for.
    let mut cfg = config();
    cfg.draw_rules = Some(DrawRules::Fide);
    let mut rig = Rig::with(cfg, engine("G/15 df/60:10"), 0, None, EmuConfig::default());
    rig.run_until(1_000);
    rig.start();
    play_pressed(&mut rig, &SHUFFLE);
    assert_eq!(rig.published().draw_claimable, vec![BoardClaim::Threefold]);
    claim(&mut rig, Side::White, threefold()).expect("claim taken");
    assert_eq!(rig.published().snapshot.status, Status::Ended);
}

#[test]
fn a_board_claim_without_a_followed_game_is_refused_and_changes_nothing() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    // A board showing a position no move explains (a queen too many) cannot judge one.
    let e4 = "e4".parse().expect("a square");
    rig.emu
        .piece_action(rig.now, PieceAction::Place(e4, Piece::WhiteQueen))
        .expect("placed");
    rig.run_until(rig.now + 5_000);
    let before = rig.published().snapshot;
    let err = claim(&mut rig, Side::White, threefold()).expect_err("refused");
    assert!(err.to_string().contains("arbiter"), "{err}");
    let after = rig.published().snapshot;
    assert_eq!(after.black_ms, before.black_ms);
    assert_eq!(after.status, Status::Running);
}

#[test]
fn the_14h_claim_pauses_for_the_director_and_each_ruling_does_its_part() {
    // White at 1:50 of a G/2 sudden death claims; the director denies: a minute off.
    let mut rig = Rig::ready("G/2", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 10_000);
    claim(&mut rig, Side::White, ClaimKind::LosingChances).expect("claim taken");
    let live = rig.published();
    assert_eq!(live.snapshot.status, Status::Paused);
    assert_eq!(
        live.snapshot.claim,
        Some(PendingClaim {
            side: Side::White,
            flag_fell: false
        })
    );
    let white = live.snapshot.white_ms;
    rig.request(Request::Rule(Ruling::Deny)).expect("ruled");
    let live = rig.published();
    assert_eq!(live.snapshot.white_ms, white - 60_000);
    assert_eq!(live.snapshot.status, Status::Running);
    assert_eq!(live.snapshot.claim, None);
    let err = rig
        .request(Request::Rule(Ruling::Draw))
        .expect_err("no claim pending");
    assert!(matches!(err, DeviceError::Refused(_)), "{err:?}");

    // Again, upheld.
    claim(&mut rig, Side::White, ClaimKind::LosingChances).expect("claim taken");
    rig.request(Request::Rule(Ruling::Draw)).expect("ruled");
    let live = rig.published();
    assert_eq!(live.snapshot.status, Status::Ended);
    assert_eq!(
        live.snapshot.reason,
        Some(ResultReason::InsufficientLosingChances)
    );
    assert!(rig.journaled().contains(&Input::Ruling {
        ruling: Ruling::Draw
    }));
}

#[test]
fn a_delay_ruling_publishes_the_control_with_its_delay() {
    let mut rig = Rig::ready("G/2", EmuConfig::default());
    rig.start();
    rig.run_until(rig.now + 10_000);
    claim(&mut rig, Side::White, ClaimKind::LosingChances).expect("claim taken");
    rig.request(Request::Rule(Ruling::Delay { delay_ms: 5_000 }))
        .expect("ruled");
    let live = rig.published();
    assert!(live.time_control.contains("d/5"), "{}", live.time_control);
}

#[test]
fn a_14h_claim_with_more_than_two_minutes_is_refused_with_the_reason() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    let err = claim(&mut rig, Side::White, ClaimKind::LosingChances).expect_err("too early");
    assert!(matches!(err, DeviceError::Refused(_)), "{err:?}");
    assert_eq!(rig.published().snapshot.status, Status::Running);
}

#[test]
fn fivefold_repetition_ends_the_game_but_not_under_the_double_flag_clock() {
    let mut rig = Rig::ready("G/5", EmuConfig::default());
    rig.start();
    for _ in 0..4 {
        play_pressed(&mut rig, &SHUFFLE[..4]);
    }
    let live = rig.published();
    assert_eq!(live.snapshot.status, Status::Ended, "{:?}", live.snapshot);
    assert_eq!(live.snapshot.result, Some(GameResult::Draw));
    assert_eq!(live.snapshot.reason, Some(ResultReason::FivefoldRepetition));

    let mut rig = Rig::ready("G/15 df/60:10", EmuConfig::default());
    rig.start();
    for _ in 0..4 {
        play_pressed(&mut rig, &SHUFFLE[..4]);
    }
    assert_eq!(rig.published().snapshot.status, Status::Running);
}

#[test]
fn a_mate_by_a_player_on_double_flag_extra_time_only_draws() {
    // Ten seconds of main time; Black spends eleven on its first move and mates on extra
    // time while White is still on main time.
    let mut rig = Rig::ready("G/10s df/60:10", EmuConfig::default());
    rig.start();
    play_pressed(&mut rig, &["f2f3"]);
    rig.run_until(rig.now + 11_000);
    play_pressed(&mut rig, &["e7e5", "g2g4"]);
    let live = rig.published();
    assert_eq!(live.snapshot.status, Status::Running, "{:?}", live.snapshot);
    assert_eq!(live.snapshot.phase.black.to_string(), "extra");
    rig.run_until(rig.now + 1_000);
    rig.move_piece("d8h4");
    rig.run_until(rig.now + 2_000);
    let live = rig.published();
    assert_eq!(live.snapshot.status, Status::Ended, "{:?}", live.snapshot);
    assert_eq!(live.snapshot.result, Some(GameResult::Draw));
    assert_eq!(live.snapshot.reason, Some(ResultReason::WinnerInExtraTime));
}
