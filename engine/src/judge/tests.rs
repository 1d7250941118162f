//! The game's end judged with the board, in virtual time: each rule of docs/rules.md once,
//! and what it must not do.

use crate::notation;
use crate::{
    BoardClaim, BoardEnd, Engine, GameResult, Input, InputError, PendingClaim, Phase, ResultReason,
    Ruling, Side, Snapshot, Status, Time,
};

fn engine(control: &str) -> Engine {
    let parsed = notation::parse(control).expect("valid notation");
    Engine::new(parsed.control).expect("valid control")
}

fn at(e: &mut Engine, t_ms: u64, input: Input) -> Result<(), InputError> {
    e.handle_input(Time::from_ms(t_ms), input)
}

fn ok(e: &mut Engine, t_ms: u64, input: Input) {
    let what = format!("{input:?} at {t_ms}");
    at(e, t_ms, input).unwrap_or_else(|err| panic!("{what}: {err}"));
}

fn snap(e: &Engine, t_ms: u64) -> Snapshot {
    e.snapshot(Time::from_ms(t_ms))
}

/// `G/<control>` started by White at 0, then presses every second: W at 1 s, B at 2 s, ...
fn started(control: &str, presses: u32) -> Engine {
    let mut e = engine(control);
    ok(&mut e, 0, Input::Start { side: Side::White });
    let mut side = Side::White;
    for i in 1..=presses {
        ok(&mut e, u64::from(i) * 1000, Input::Press { side });
        side = side.other();
    }
    e
}

fn mate(winner: Side) -> Input {
    Input::BoardEnd {
        end: BoardEnd::Checkmate { winner },
    }
}

fn ended(s: &Snapshot) -> (Status, Option<GameResult>, Option<ResultReason>) {
    (s.status, s.result, s.reason)
}

#[test]
fn a_mate_read_before_the_flag_stands_even_unpressed() {
    // White to move with 5 min; Black mated at 10 s, White never pressed.
    let mut e = started("G/5", 0);
    ok(&mut e, 10_000, mate(Side::White));
    let s = snap(&e, 400_000);
    assert_eq!(
        ended(&s),
        (
            Status::Ended,
            Some(GameResult::WhiteWins),
            Some(ResultReason::Checkmate)
        )
    );
    assert_eq!(s.running, None, "the clocks stop");
    assert!(s.flags.is_empty(), "no flag after the mate: {:?}", s.flags);
}

#[test]
fn a_flag_before_the_mate_stands() {
    // White's 1 min runs out at 60 s; the mate is read at 61 s (timer not yet served).
    let mut e = started("G/1", 0);
    let err = at(&mut e, 61_000, mate(Side::White)).expect_err("the flag came first");
    assert_eq!(err, InputError::FlagFellFirst);
    let s = snap(&e, 61_000);
    assert_eq!(
        ended(&s),
        (
            Status::Flagged,
            Some(GameResult::BlackWins),
            Some(ResultReason::Flag(crate::FlagReason::Time))
        )
    );
    // The arbiter still overrides.
    ok(
        &mut e,
        62_000,
        Input::BoardResult {
            result: GameResult::WhiteWins,
        },
    );
    assert_eq!(snap(&e, 62_000).result, Some(GameResult::WhiteWins));
}

#[test]
fn stalemate_signal_fivefold_and_seventy_five_moves_end_the_game() {
    let cases = [
        (
            BoardEnd::Stalemate,
            GameResult::Draw,
            ResultReason::Stalemate,
        ),
        (
            BoardEnd::Signal {
                result: GameResult::BlackWins,
            },
            GameResult::BlackWins,
            ResultReason::BoardSignal,
        ),
        (
            BoardEnd::FivefoldRepetition,
            GameResult::Draw,
            ResultReason::FivefoldRepetition,
        ),
        (
            BoardEnd::SeventyFiveMoves,
            GameResult::Draw,
            ResultReason::SeventyFiveMoves,
        ),
    ];
    for (end, result, reason) in cases {
        let mut e = started("G/5 inc/2", 3);
        ok(&mut e, 3500, Input::BoardEnd { end });
        let s = snap(&e, 3500);
        assert_eq!(
            ended(&s),
            (Status::Ended, Some(result), Some(reason)),
            "{end:?}"
        );
        assert_eq!(
            at(&mut e, 4000, Input::BoardEnd { end }),
            Err(InputError::AlreadyEnded),
            "{end:?} twice"
        );
    }
}

#[test]
fn a_board_end_needs_a_started_game() {
    let mut e = engine("G/5");
    assert_eq!(
        at(&mut e, 0, mate(Side::White)),
        Err(InputError::NotStarted)
    );
    assert_eq!(snap(&e, 0).status, Status::Ready);
}

#[test]
fn a_mate_by_a_player_on_double_flag_extra_time_draws() {
    // G/1 df/30:0: White's main minute runs out at 60 s, White is on extra time.
    let mut e = started("G/1 df/30:0", 0);
    e.handle_timeout(Time::from_ms(61_000));
    assert_eq!(snap(&e, 61_000).phase.white.phase, Phase::Extra);
    ok(&mut e, 62_000, mate(Side::White));
    let s = snap(&e, 62_000);
    assert_eq!(
        ended(&s),
        (
            Status::Ended,
            Some(GameResult::Draw),
            Some(ResultReason::WinnerInExtraTime)
        )
    );
    // The opponent on main time who mates wins.
    let mut e = started("G/1 df/30:0", 0);
    e.handle_timeout(Time::from_ms(61_000));
    ok(&mut e, 62_000, mate(Side::Black));
    assert_eq!(snap(&e, 62_000).result, Some(GameResult::BlackWins));
}

#[test]
fn a_flag_against_a_side_that_cannot_be_mated_is_a_draw() {
    // Black has only the king (White cannot be mated... by Black): White flags at 60 s.
    let mut e = started("G/1", 0);
    ok(
        &mut e,
        500,
        Input::MatingMaterial {
            white: Some(true),
            black: Some(false),
        },
    );
    e.handle_timeout(Time::from_ms(60_000));
    let s = snap(&e, 60_000);
    assert_eq!(
        ended(&s),
        (
            Status::Flagged,
            Some(GameResult::Draw),
            Some(ResultReason::InsufficientMaterial)
        )
    );
    assert_eq!(s.flags.len(), 1, "the flag is still recorded");
    // Black's flag with White able to mate: White wins.
    let mut e = started("G/1", 1);
    ok(
        &mut e,
        1500,
        Input::MatingMaterial {
            white: Some(true),
            black: Some(false),
        },
    );
    e.handle_timeout(Time::from_ms(62_000));
    assert_eq!(
        ended(&snap(&e, 62_000)).1,
        Some(GameResult::WhiteWins),
        "Black flagged, White can mate"
    );
}

#[test]
fn a_flag_while_the_verdict_is_pending_waits_for_it() {
    // White flags at 60 s while the search on the position still runs: no result yet.
    for (black_wins, want) in [
        (
            true,
            (
                GameResult::BlackWins,
                ResultReason::Flag(crate::FlagReason::Time),
            ),
        ),
        (
            false,
            (GameResult::Draw, ResultReason::InsufficientMaterial),
        ),
    ] {
        let mut e = started("G/1", 0);
        ok(
            &mut e,
            500,
            Input::MatingMaterial {
                white: Some(true),
                black: None,
            },
        );
        e.handle_timeout(Time::from_ms(60_000));
        let s = snap(&e, 60_000);
        assert_eq!(ended(&s), (Status::Flagged, None, None), "waits");
        assert_eq!(e.awaiting_verdict(), Some(Side::White));
        assert_eq!(s.flags.len(), 1, "the flag is recorded");
        // A mate read now came after the flag.
        assert_eq!(
            at(&mut e, 60_100, mate(Side::White)),
            Err(InputError::FlagFellFirst)
        );
        // A verdict that still does not tell Black's decides nothing.
        ok(
            &mut e,
            60_200,
            Input::MatingMaterial {
                white: Some(false),
                black: None,
            },
        );
        assert_eq!(snap(&e, 60_200).result, None);
        ok(
            &mut e,
            60_300,
            Input::MatingMaterial {
                white: Some(true),
                black: Some(black_wins),
            },
        );
        let s = snap(&e, 60_300);
        assert_eq!(ended(&s), (Status::Flagged, Some(want.0), Some(want.1)));
        assert_eq!(e.awaiting_verdict(), None);
    }
}

#[test]
fn a_dead_position_ends_the_game_and_one_found_after_a_waiting_flag_draws_it() {
    let mut e = started("G/5", 3);
    ok(
        &mut e,
        3_500,
        Input::BoardEnd {
            end: BoardEnd::DeadPosition,
        },
    );
    let s = snap(&e, 100_000);
    assert_eq!(
        ended(&s),
        (
            Status::Ended,
            Some(GameResult::Draw),
            Some(ResultReason::DeadPosition)
        )
    );
    assert_eq!(s.running, None, "the clock stopped");
    // The position at a waiting flag turns out dead: it was dead before the flag fell.
    let mut e = started("G/1", 0);
    ok(
        &mut e,
        500,
        Input::MatingMaterial {
            white: None,
            black: None,
        },
    );
    e.handle_timeout(Time::from_ms(60_000));
    ok(
        &mut e,
        60_500,
        Input::BoardEnd {
            end: BoardEnd::DeadPosition,
        },
    );
    assert_eq!(
        ended(&snap(&e, 60_500)),
        (
            Status::Ended,
            Some(GameResult::Draw),
            Some(ResultReason::DeadPosition)
        )
    );
    // After a flag that decided the game, a dead position is too late.
    let mut e = started("G/1", 0);
    e.handle_timeout(Time::from_ms(60_000));
    assert_eq!(
        at(
            &mut e,
            60_500,
            Input::BoardEnd {
                end: BoardEnd::DeadPosition
            }
        ),
        Err(InputError::FlagFellFirst)
    );
}

#[test]
fn time_given_back_to_a_waiting_flag_resumes_without_a_result() {
    let mut e = started("G/1", 0);
    ok(
        &mut e,
        500,
        Input::MatingMaterial {
            white: None,
            black: None,
        },
    );
    e.handle_timeout(Time::from_ms(60_000));
    assert_eq!(e.awaiting_verdict(), Some(Side::White));
    ok(
        &mut e,
        61_000,
        Input::Adjust {
            side: Side::White,
            field: crate::AdjustField::MainMs,
            op: crate::AdjustOp::Set,
            ms: 30_000,
        },
    );
    ok(&mut e, 61_000, Input::Resume);
    assert_eq!(e.awaiting_verdict(), None);
    ok(
        &mut e,
        62_000,
        Input::MatingMaterial {
            white: Some(true),
            black: Some(true),
        },
    );
    let s = snap(&e, 62_000);
    assert_eq!((s.status, s.result), (Status::Running, None), "{s:?}");
}

#[test]
fn a_right_board_claim_draws_and_a_wrong_one_gives_two_minutes() {
    let mut e = started("G/5", 2);
    ok(
        &mut e,
        2500,
        Input::BoardClaim {
            side: Side::White,
            claim: BoardClaim::Threefold,
            valid: true,
        },
    );
    assert_eq!(
        ended(&snap(&e, 2500)),
        (
            Status::Ended,
            Some(GameResult::Draw),
            Some(ResultReason::ThreefoldRepetition)
        )
    );

    let mut e = started("G/5", 2);
    let before = snap(&e, 2500).black_ms;
    ok(
        &mut e,
        2500,
        Input::BoardClaim {
            side: Side::White,
            claim: BoardClaim::FiftyMoves,
            valid: false,
        },
    );
    let s = snap(&e, 2500);
    assert_eq!(s.status, Status::Running, "play goes on");
    assert_eq!(
        s.black_ms,
        before + 120_000,
        "the opponent gets two minutes"
    );
    assert_eq!(
        s.running,
        Some(Side::White),
        "the claimant's clock still runs"
    );
}

#[test]
fn losing_chances_claims_need_sudden_death_and_two_minutes() {
    // Period 1 of 40/90 is not sudden death.
    let mut e = started("40/90 SD/30", 0);
    assert_eq!(
        at(&mut e, 500, Input::ClaimLosingChances { side: Side::White }),
        Err(InputError::ClaimNeedsSuddenDeath(Phase::Period(1)))
    );
    // More than two minutes left.
    let mut e = started("G/5", 0);
    assert_eq!(
        at(&mut e, 500, Input::ClaimLosingChances { side: Side::White }),
        Err(InputError::ClaimTooEarly(299_500))
    );
    assert_eq!(snap(&e, 500).status, Status::Running, "nothing changed");
    // At 2:00 exactly: paused for the director.
    let mut e = started("G/5", 0);
    ok(
        &mut e,
        180_000,
        Input::ClaimLosingChances { side: Side::White },
    );
    let s = snap(&e, 190_000);
    assert_eq!(s.status, Status::Paused);
    assert_eq!(s.white_ms, 120_000, "the clock waits for the ruling");
    assert_eq!(
        s.claim,
        Some(PendingClaim {
            side: Side::White,
            flag_fell: false
        })
    );
    assert_eq!(
        at(&mut e, 190_000, Input::Resume),
        Err(InputError::ClaimPending)
    );
}

/// `G/5` with White's claim made at 2:00 left (t = 180 s).
fn claimed() -> Engine {
    let mut e = started("G/5", 0);
    ok(
        &mut e,
        180_000,
        Input::ClaimLosingChances { side: Side::White },
    );
    e
}

fn rule(e: &mut Engine, t_ms: u64, ruling: Ruling) -> Result<(), InputError> {
    at(e, t_ms, Input::Ruling { ruling })
}

#[test]
fn each_ruling_on_a_losing_chances_claim() {
    // draw
    let mut e = claimed();
    rule(&mut e, 200_000, Ruling::Draw).expect("draw");
    assert_eq!(
        ended(&snap(&e, 200_000)),
        (
            Status::Ended,
            Some(GameResult::Draw),
            Some(ResultReason::InsufficientLosingChances)
        )
    );
    // deny: one minute off, play resumes with the claimant to move
    let mut e = claimed();
    rule(&mut e, 200_000, Ruling::Deny).expect("deny");
    let s = snap(&e, 201_000);
    assert_eq!((s.status, s.running), (Status::Running, Some(Side::White)));
    assert_eq!(s.white_ms, 59_000, "2:00 - 1:00, then 1 s of play");
    assert_eq!(s.claim, None);
    // delay: half the time, a 5 s delay from the next turn on
    let mut e = claimed();
    rule(&mut e, 200_000, Ruling::Delay { delay_ms: 5000 }).expect("delay");
    let s = snap(&e, 200_000);
    assert_eq!(s.white_ms, 60_000, "halved");
    assert_eq!(s.status, Status::Running);
    ok(&mut e, 201_000, Input::Press { side: Side::White });
    ok(&mut e, 204_000, Input::Press { side: Side::Black });
    assert_eq!(
        snap(&e, 204_000).black_ms,
        300_000,
        "Black's 3 s were inside the delay"
    );
    assert_eq!(
        snap(&e, 208_000).white_ms,
        59_000,
        "White's turn: 5 s delay, then 1 s counted"
    );
    // watch: play resumes; the claimant's flag pauses for a ruling
    let mut e = claimed();
    rule(&mut e, 200_000, Ruling::Watch).expect("watch");
    assert_eq!(snap(&e, 200_000).watched, Some(Side::White));
    e.handle_timeout(Time::from_ms(330_000));
    let s = snap(&e, 330_000);
    assert_eq!((s.status, s.result), (Status::Paused, None));
    assert_eq!(
        s.claim,
        Some(PendingClaim {
            side: Side::White,
            flag_fell: true
        })
    );
    assert_eq!(s.flags.len(), 1);
    assert_eq!(
        rule(&mut e, 331_000, Ruling::Watch),
        Err(InputError::RulingAfterFlag("watch"))
    );
    let mut denied = e.clone();
    rule(&mut denied, 331_000, Ruling::Deny).expect("deny after the flag");
    assert_eq!(
        ended(&snap(&denied, 331_000)),
        (
            Status::Flagged,
            Some(GameResult::BlackWins),
            Some(ResultReason::Flag(crate::FlagReason::Time))
        )
    );
    rule(&mut e, 331_000, Ruling::Draw).expect("draw after the flag");
    assert_eq!(snap(&e, 331_000).result, Some(GameResult::Draw));
}

#[test]
fn a_ruling_needs_a_claim() {
    let mut e = started("G/5", 0);
    assert_eq!(
        rule(&mut e, 1000, Ruling::Draw),
        Err(InputError::NoClaimPending)
    );
}

#[test]
fn the_new_inputs_survive_the_journal() {
    let inputs = [
        mate(Side::Black),
        Input::BoardEnd {
            end: BoardEnd::Signal {
                result: GameResult::Draw,
            },
        },
        Input::MatingMaterial {
            white: Some(false),
            black: None,
        },
        Input::BoardClaim {
            side: Side::White,
            claim: BoardClaim::FiftyMoves,
            valid: false,
        },
        Input::ClaimLosingChances { side: Side::Black },
        Input::Ruling {
            ruling: Ruling::Delay { delay_ms: 5000 },
        },
        Input::Ruling {
            ruling: Ruling::Watch,
        },
    ];
    for input in inputs {
        let json = serde_json::to_string(&input).expect("serialise");
        let back: Input = serde_json::from_str(&json).expect("deserialise");
        assert_eq!(back, input, "{json}");
    }
}

#[test]
fn claim_kinds_and_rulings_are_spelled_one_way_each() {
    use crate::{BoardClaim, ClaimKind, DEFAULT_RULING_DELAY_MS, Ruling};
    for name in ClaimKind::NAMES {
        let kind: ClaimKind = name.parse().expect("a kind");
        assert_eq!(kind.as_str(), name);
    }
    assert_eq!(
        "fifty-moves".parse::<ClaimKind>(),
        Ok(ClaimKind::Board(BoardClaim::FiftyMoves))
    );
    let err = "fifty_moves"
        .parse::<ClaimKind>()
        .expect_err("one spelling");
    assert!(err.to_string().contains("\"fifty-moves\""), "{err}");
    assert_eq!(
        Ruling::parse("delay", None),
        Ok(Ruling::Delay {
            delay_ms: DEFAULT_RULING_DELAY_MS
        })
    );
    assert_eq!(
        Ruling::parse("delay", Some(8_000)),
        Ok(Ruling::Delay { delay_ms: 8_000 })
    );
    assert_eq!(Ruling::parse("watch", Some(8_000)), Ok(Ruling::Watch));
    assert!(Ruling::parse("uphold", None).is_err());
}

#[test]
fn a_journal_from_before_pending_verdicts_still_reads() {
    let old = r#"{"action":"mating_material","white":true,"black":false}"#;
    let input: Input = serde_json::from_str(old).expect("reads");
    assert_eq!(
        input,
        Input::MatingMaterial {
            white: Some(true),
            black: Some(false)
        }
    );
    let pending: Input =
        serde_json::from_str(r#"{"action":"mating_material","white":null}"#).expect("reads");
    assert_eq!(
        pending,
        Input::MatingMaterial {
            white: None,
            black: None
        }
    );
}
