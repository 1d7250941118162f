//! The fleet model in virtual time: messages in, boards out.

use super::*;

const S: u64 = 1_000_000;

fn clock(index: u32, board: u32) -> ClockStatus {
    let mut c = ClockStatus::default();
    c.published.index = index;
    c.published.board = board;
    c
}

fn state(fleet: &mut Fleet, host: &str, c: &ClockStatus, now: u64) -> bool {
    let json = serde_json::to_vec(c).expect("json");
    fleet
        .apply(&Topics::new(host).state(c.index), &json, now)
        .expect("a state")
}

fn seen(boards: &[Board]) -> Vec<(u32, &str, bool)> {
    boards
        .iter()
        .map(|b| (b.clock.board, b.host.as_str(), b.stale))
        .collect()
}

#[test]
fn every_machine_s_boards_come_in_board_order_with_their_host_and_local_clocks_once() {
    let mut f = Fleet::new("pi1");
    let now = 100 * S;
    assert!(state(&mut f, "pi2", &clock(0, 3), now));
    assert!(state(&mut f, "pi2", &clock(1, 1), now));
    assert!(
        !state(&mut f, "pi2", &clock(1, 1), now),
        "the same state again"
    );
    // pi1's own published state: the daemon's clocks stand for it while it runs.
    assert!(state(&mut f, "pi1", &clock(0, 2), now));
    let local = [clock(0, 2), clock(1, 4)];
    let boards = f.boards(now, Some(&local));
    assert_eq!(
        seen(&boards),
        [
            (1, "pi2", false),
            (2, "pi1", false),
            (3, "pi2", false),
            (4, "pi1", false)
        ]
    );
    assert!(
        boards.iter().all(|b| b.clock.problems.is_empty()),
        "{boards:?}"
    );
    let json = serde_json::to_value(&boards[0]).expect("json");
    assert_eq!(json["host"], "pi2");
    assert_eq!(json["online"], false, "pi2 has said nothing of its status");
    assert!(boards[1].online, "this machine's own");
    assert_eq!(json["stale"], false);
    assert_eq!(json["board"], 1, "the status JSON, flattened: {json}");
    // An empty payload removes a clock.
    let gone = f
        .apply(&Topics::new("pi2").state(0), b"", now)
        .expect("empty");
    assert!(gone);
    assert_eq!(seen(&f.boards(now, Some(&local))).len(), 3);
}

#[test]
fn a_machine_offline_or_silent_marks_its_boards_stale_not_gone() {
    let mut f = Fleet::new("pi1");
    let pi2 = Topics::new("pi2");
    f.apply(&pi2.status(), b"online", 0).expect("status");
    state(&mut f, "pi2", &clock(0, 5), 0);
    state(&mut f, "pi3", &clock(0, 6), 0);
    assert_eq!(
        seen(&f.boards(STALE_AFTER_US, None)),
        [(5, "pi2", false), (6, "pi3", false)]
    );
    // pi2's heartbeat keeps it fresh; pi3 says nothing for longer than the bound.
    let later = STALE_AFTER_US + S;
    f.apply(&pi2.heartbeat(), b"{\"now_us\": 7}", later)
        .expect("beat");
    let boards = f.boards(later, None);
    assert_eq!(seen(&boards), [(5, "pi2", false), (6, "pi3", true)]);
    let p = &boards[1].clock.problems[0];
    assert_eq!((p.kind.as_str(), p.rank), ("stale", 0));
    assert!(
        p.text.contains("no news from pi3 for over 15 s"),
        "{}",
        p.text
    );
    assert!(p.fix.contains("check pi3"), "{}", p.fix);
    // pi2's last will: offline at once, its board still listed.
    assert!(f.apply(&pi2.status(), b"offline", later).expect("will"));
    let boards = f.boards(later, None);
    assert_eq!(seen(&boards), [(5, "pi2", true), (6, "pi3", true)]);
    assert!(!boards[0].online, "offline: {:?}", boards[0]);
    assert!(
        boards[0].clock.problems[0]
            .text
            .contains("pi2's bridge is offline"),
        "{:?}",
        boards[0].clock.problems
    );
    // Back: fresh again.
    f.apply(&pi2.status(), b"online", later).expect("back");
    assert!(!f.boards(later, None)[0].stale);
}

#[test]
fn this_machine_s_published_clocks_stand_in_stale_while_its_daemon_is_away() {
    let mut f = Fleet::new("pi1");
    state(&mut f, "pi1", &clock(0, 2), 0);
    let boards = f.boards(S, None);
    assert_eq!(seen(&boards), [(2, "pi1", true)]);
    assert!(
        boards[0].clock.problems[0]
            .text
            .contains("chessclockd on pi1")
    );
    assert_eq!(
        seen(&f.boards(S, Some(&[]))),
        [],
        "its daemon has no clocks now"
    );
}

#[test]
fn two_machines_with_one_board_number_are_a_problem_on_both() {
    let mut f = Fleet::new("pi1");
    state(&mut f, "pi2", &clock(0, 7), 0);
    state(&mut f, "pi3", &clock(3, 7), 0);
    state(&mut f, "pi3", &clock(4, 8), 0);
    let local = [clock(0, 8)];
    let boards = f.boards(0, Some(&local));
    assert_eq!(
        seen(&boards),
        [
            (7, "pi2", false),
            (7, "pi3", false),
            (8, "pi1", false),
            (8, "pi3", false)
        ]
    );
    let dup: Vec<(&str, &str)> = boards
        .iter()
        .map(|b| {
            let p = &b.clock.problems[0];
            assert_eq!((p.kind.as_str(), p.rank), ("duplicate_board", 1));
            (b.host.as_str(), p.text.as_str())
        })
        .collect();
    assert_eq!(
        dup,
        [
            ("pi2", "board 7 is also on pi3"),
            ("pi3", "board 7 is also on pi2"),
            ("pi1", "board 8 is also on pi3"),
            ("pi3", "board 8 is also on pi1"),
        ]
    );
    assert!(
        boards[0].clock.problems[0]
            .fix
            .contains("[[clock]] tables of pi2 or pi3"),
        "{:?}",
        boards[0].clock.problems[0]
    );
}

#[test]
fn a_running_clock_s_instant_is_moved_onto_this_machine_s_clock_by_the_heartbeat() {
    let mut f = Fleet::new("pi1");
    let mut c = clock(0, 1);
    c.as_of_us = 5_000 * S; // pi2's clock
    state(&mut f, "pi2", &c, 40 * S);
    assert_eq!(
        f.boards(40 * S, None)[0].clock.as_of_us,
        40 * S,
        "no heartbeat yet: the instant it came"
    );
    // pi2's clock stands at 5 010 s when this one stands at 50 s.
    let beat = format!("{{\"now_us\": {}}}", 5_010 * S);
    f.apply(&Topics::new("pi2").heartbeat(), beat.as_bytes(), 50 * S)
        .expect("beat");
    assert_eq!(f.boards(50 * S, None)[0].clock.as_of_us, 40 * S);
    let e = f
        .apply(&Topics::new("pi2").heartbeat(), b"soon", 50 * S)
        .expect_err("not JSON");
    assert!(e.contains("not a heartbeat"), "{e}");
    let e = f
        .apply(&Topics::new("pi2").state(1), b"{}", 50 * S)
        .expect_err("not a status");
    assert!(e.contains("not a clock status"), "{e}");
}
