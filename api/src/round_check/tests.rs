use super::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Clock `index`, board `board`, ready for the round: answering, a DGT 3000, the start
/// position, `G/90 inc/30`, its players loaded.
fn clock(index: u32, board: u32) -> ClockStatus {
    serde_json::from_value(serde_json::json!({
        "clock": crate::names::clock_path(index), "index": index, "board": board,
        "name": format!("t{index}"), "port": format!("/dev/ttyACM{index}"),
        "model": "DGT 3000", "firmware": "", "board_serial": "", "connected": true,
        "device_state": "ready", "white_side": "left", "time_control": "G/90 inc/30",
        "game_state": "ready", "status": "ready", "as_of_us": 1, "t_ms": 0, "fen": START,
        "game_info": {"White": "A", "Black": "B"},
        "white_ms": 1, "black_ms": 1, "running": null, "text": {"white": "", "black": ""},
        "phase": {"white": "", "black": ""}, "moves": {"white": 0, "black": 0},
        "detail": {"white": {}, "black": {}}, "result": null}))
    .expect("status")
}

fn board(board: u32, clock: Option<u32>) -> RoundBoard {
    RoundBoard {
        board,
        white: "W".into(),
        black: "K".into(),
        clock,
    }
}

/// The checks that failed, by board: (board, check names).
fn failures(r: &[BoardReadiness]) -> Vec<(u32, Vec<String>)> {
    r.iter()
        .filter(|b| !b.ready)
        .map(|b| {
            (
                b.board,
                b.checks
                    .iter()
                    .filter(|c| !c.ok)
                    .map(|c| c.check.clone())
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn every_board_ready_passes_and_a_paper_board_is_ready_with_its_players() {
    let clocks = [clock(0, 1), clock(1, 2)];
    let boards = [board(1, Some(0)), board(2, Some(1)), board(3, None)];
    let r = check(&boards, &clocks, None, None);
    assert!(r.iter().all(|b| b.ready), "{r:?}");
    assert_eq!(r[2].checks[0].check, "paper");
    assert_eq!(r.iter().map(|b| b.board).collect::<Vec<_>>(), [1, 2, 3]);
}

#[test]
fn each_thing_wrong_fails_its_own_check_with_its_fix() {
    let mut misplaced = clock(0, 1);
    misplaced.fen = String::new();
    misplaced.board_problem = "a white pawn on e4 where the start position has none".into();
    let mut wrong_control = clock(1, 2);
    wrong_control.time_control = "G/5".into();
    let mut silent = clock(2, 3);
    silent.device_state = crate::DeviceState::NotResponding;
    silent.battery_low = true;
    let mut no_players = clock(3, 4);
    no_players.game_info.clear();
    let mut begun = clock(4, 5);
    begun.status = "running".into();
    begun.moves_san = vec!["e4".into()];
    let clocks = [
        misplaced,
        wrong_control,
        silent,
        no_players,
        begun,
        clock(5, 6),
    ];
    let boards: Vec<RoundBoard> = (0..6).map(|i| board(i + 1, Some(i))).collect();
    let r = check(&boards, &clocks, None, None);
    assert_eq!(
        failures(&r),
        [
            (1, vec!["pieces".to_owned()]),
            (2, vec!["control".to_owned()]),
            (3, vec!["answering".to_owned(), "battery".to_owned()]),
            (4, vec!["players".to_owned()]),
            (5, vec!["pieces".to_owned()]),
        ]
    );
    let control = r[1]
        .checks
        .iter()
        .find(|c| c.check == "control")
        .expect("control");
    assert_eq!(control.fix, "chessclockctl set board:2 \"G/90 inc/30\"");
    let pieces = &r[0]
        .checks
        .iter()
        .find(|c| c.check == "pieces")
        .expect("pieces");
    assert!(pieces.text.contains("e4"), "{pieces:?}");
    assert!(
        r[4].checks
            .iter()
            .any(|c| c.fix.contains("new-game board:5"))
    );
}

#[test]
fn the_round_s_control_given_names_every_clock_set_otherwise() {
    let clocks = [clock(0, 1), clock(1, 2)];
    let boards = [board(1, Some(0)), board(2, Some(1))];
    let r = check(&boards, &clocks, Some("G/90 inc/30 40/90"), None);
    assert_eq!(
        failures(&r),
        [
            (1, vec!["control".to_owned()]),
            (2, vec!["control".to_owned()])
        ]
    );
}

#[test]
fn where_a_bridge_pushes_each_board_names_its_lichess_round_or_what_keeps_it_off() {
    let clocks = [clock(0, 1), clock(1, 2), clock(2, 3)];
    let boards = [
        board(1, Some(0)),
        board(2, Some(1)),
        board(3, Some(2)),
        board(4, None),
    ];
    let push = Pushing {
        tables: 1,
        pushed: [(1, "AbCd1234".to_owned()), (2, "AbCd1234".to_owned())].into(),
        problems: vec![
            (
                2,
                crate::push::refused(2, "AbCd1234", "PGN Error: No move found"),
            ),
            (4, crate::push::in_no_table(4)),
        ],
    };
    let r = check(&boards, &clocks, None, Some(&push));
    assert_eq!(
        failures(&r),
        [
            (2, vec!["lichess".to_owned()]),
            (3, vec!["lichess".to_owned()]),
            (4, vec!["lichess".to_owned()]),
        ]
    );
    let lichess = |i: usize| {
        r[i].checks
            .iter()
            .find(|c| c.check == "lichess")
            .expect("lichess")
    };
    assert_eq!(lichess(0).text, "pushed to Lichess round AbCd1234");
    assert!(
        lichess(1).text.contains("No move found"),
        "{:?}",
        lichess(1)
    );
    assert_eq!(lichess(2).text, "not pushed to Lichess yet");
    assert!(lichess(3).fix.contains("boards"), "{:?}", lichess(3));

    // A bridge that pushes nothing itself has no lichess check, but says the fleet's words.
    let quiet = Pushing {
        tables: 0,
        pushed: Default::default(),
        problems: vec![(4, crate::push::in_no_table(4))],
    };
    let r = check(&boards, &clocks, None, Some(&quiet));
    assert_eq!(failures(&r), [(4, vec!["lichess".to_owned()])]);
    assert!(r[0].checks.iter().all(|c| c.check != "lichess"));
}

#[test]
fn a_board_turned_round_unlike_the_round_s_others_is_named_and_a_tie_names_none() {
    let with = |index: u32, o: Option<Orientation>| {
        let mut c = clock(index, index + 1);
        c.published.board_orientation = o;
        c
    };
    let (n, r) = (Some(Orientation::Normal), Some(Orientation::Rotated));
    let clocks = [with(0, n), with(1, r), with(2, n), with(3, None)];
    let boards: Vec<RoundBoard> = (0..4).map(|i| board(i + 1, Some(i))).collect();
    let checked = check(&boards, &clocks, None, None);
    assert_eq!(failures(&checked), [(2, vec!["orientation".to_owned()])]);
    let turned = checked[1]
        .checks
        .iter()
        .find(|c| c.check == "orientation")
        .expect("orientation");
    assert!(
        turned.text.starts_with("turned round") && turned.text.contains("unlike 2 other boards"),
        "{turned:?}"
    );
    assert!(turned.fix.contains("status board:2"), "{turned:?}");
    assert!(
        checked[3].checks.iter().all(|c| c.check != "orientation"),
        "not learnt yet: no check"
    );
    // One of each: neither is the odd one out.
    let checked = check(&boards[..2], &clocks[..2], None, None);
    assert!(failures(&checked).is_empty(), "{checked:?}");
}

#[test]
fn a_readiness_crosses_the_bus_unchanged_a_paper_board_as_clock_minus_one() {
    let clocks = [clock(0, 1)];
    let boards = [board(1, Some(0)), board(2, None)];
    let r = check(&boards, &clocks, Some("G/5"), None);
    let bus: Vec<BusReadiness> = r.iter().cloned().map(BoardReadiness::to_bus).collect();
    assert_eq!((bus[0].1, bus[1].1), (0, -1));
    assert!(!bus[0].2, "the control differs");
    let back: Vec<BoardReadiness> = bus.into_iter().map(BoardReadiness::from_bus).collect();
    assert_eq!(back, r);
}

#[test]
fn an_observed_clock_showing_other_times_than_the_control_fails_its_control_check() {
    let mut observed = clock(0, 1);
    observed.published.mode = crate::clock::Mode::Observe;
    observed.published.clock_problem =
        "the clock started at 1:00:00 - 1:00:00, G/90 inc/30 starts at 1:30:30; fix: set the \
         clock to G/90 inc/30"
            .into();
    let r = check(&[board(1, Some(0))], &[observed], None, None);
    assert_eq!(failures(&r), [(1, vec!["control".to_owned()])]);
    let c = r[0]
        .checks
        .iter()
        .find(|c| c.check == "control")
        .expect("control");
    assert!(
        c.text.starts_with("clock: the clock started at 1:00:00"),
        "{c:?}"
    );
    assert_eq!(c.fix, "set the clock to G/90 inc/30");
}
