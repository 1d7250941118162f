//! The `watch` layouts at fixed terminal sizes: what fits 80x24, the grid for 40 boards, the
//! wide columns, paging.

use chessclock_api::{DeviceState, PublishedClock, Sides};

use super::*;

fn clock(index: u32) -> ClockStatus {
    ClockStatus {
        clock: format!("/org/chessclockd/ChessClock1/Clock/{index}"),
        published: PublishedClock {
            index,
            board: index + 1,
            name: format!("tbl{index}"),
            port: format!("/dev/ttyACM{index}"),
            model: "DGT 3000".into(),
            firmware: "1.0".into(),
            connected: true,
            device_state: DeviceState::Ready,
            game_state: chessclock_engine::Status::Running,
            time_control: "G/90 inc/30".into(),
            moves_san: vec!["e4".into(), "e5".into(), "Nf3".into()],
            ..PublishedClock::default()
        },
        white_ms: 5_400_000,
        black_ms: 5_123_000,
        running: Some(Side::White),
        status: "running".into(),
        phase: Sides {
            white: "main".into(),
            black: "main".into(),
        },
        moves: Sides { white: 3, black: 2 },
        ..ClockStatus::default()
    }
}

fn clocks(n: u32) -> Vec<ClockStatus> {
    (0..n).map(clock).collect()
}

fn draw(clocks: &[ClockStatus], width: u16, height: u16, page: usize) -> Frame {
    let daemon = Daemon::Up;
    let view = View {
        clocks,
        elapsed_ms: 0,
        daemon: &daemon,
        wall: "12:03:04",
        page,
    };
    render(&view, width, height)
}

#[track_caller]
fn assert_fits(frame: &Frame, width: usize, height: usize) {
    assert!(frame.lines.len() <= height, "{:#?}", frame.lines);
    for l in &frame.lines {
        assert!(l.chars().count() <= width, "{} > {width}: {l:?}", l.len());
    }
}

/// The board numbers a frame shows, in the order drawn.
fn shown(frame: &Frame) -> Vec<u32> {
    let mut out = Vec::new();
    for line in &frame.lines[2..frame.lines.len() - 1] {
        // A cell or line starts with the board number, then the name (`tblN`, no players).
        let words: Vec<&str> = line.split_whitespace().collect();
        for pair in words.windows(2) {
            if let (Ok(n), true) = (pair[0].parse::<u32>(), pair[1].starts_with("tbl")) {
                out.push(n);
            }
        }
    }
    out
}

#[test]
fn forty_boards_fit_80x24_with_the_header_on_top() {
    let all = clocks(40);
    let f = draw(&all, 80, 24, 0);
    assert_fits(&f, 80, 24);
    assert_eq!(f.pages, 1, "{:#?}", f.lines);
    assert!(
        f.lines[0].starts_with("chessclockd  40 boards, 40 running"),
        "{:?}",
        f.lines[0]
    );
    assert!(f.lines[0].ends_with("12:03:04"), "{:?}", f.lines[0]);
    assert!(f.lines[1].contains("WHITE") && f.lines[1].contains("BLACK"));
    let mut seen = shown(&f);
    seen.sort_unstable();
    assert_eq!(seen, (1..41).collect::<Vec<_>>());
    // Both times and the running side's mark are there.
    let row = &f.lines[2];
    assert!(
        row.contains("*1:30:00") && row.contains("1:25:23"),
        "{row:?}"
    );
}

#[test]
fn more_boards_than_fit_are_paged_and_the_footer_says_so() {
    let all = clocks(100);
    let first = draw(&all, 80, 24, 0);
    assert_fits(&first, 80, 24);
    assert_eq!(first.pages, 3);
    let footer = first.lines.last().expect("footer");
    assert!(footer.contains("page 1/3"), "{footer:?}");
    let last = draw(&all, 80, 24, 2);
    // Column-major: down the first column, then the second.
    let expected: Vec<u32> = (85..93).zip(93..101).flat_map(|(a, b)| [a, b]).collect();
    assert_eq!(shown(&last), expected);
    let mut middle = shown(&draw(&all, 80, 24, 1));
    middle.sort_unstable();
    assert_eq!(middle, (43..85).collect::<Vec<_>>());
    // A page past the end shows the last one.
    assert_eq!(draw(&all, 80, 24, 9).lines, last.lines);
}

#[test]
fn wide_terminals_get_phase_moves_last_move_and_result() {
    let mut all = clocks(3);
    all[1].status = "ended".into();
    all[1].running = None;
    all[1].result = Some("0-1".into());
    let f = draw(&all, 140, 30, 0);
    assert_fits(&f, 140, 30);
    assert!(f.lines[1].contains("PHASE") && f.lines[1].contains("LAST"));
    assert!(
        f.lines[2].contains("main") && f.lines[2].contains("2.Nf3"),
        "{:?}",
        f.lines[2]
    );
    assert!(
        f.lines[3].contains("0-1") && f.lines[3].contains("ended"),
        "{:?}",
        f.lines[3]
    );
    // The players the pairings gave, and the board number, not the clock's index or name.
    all[2].board = 17;
    for (tag, v) in [("White", "Carlsen, Magnus"), ("Black", "Ding, Liren")] {
        all[2].game_info.insert(tag.into(), v.into());
    }
    let f = draw(&all, 140, 30, 0);
    assert!(
        f.lines[4].trim_start().starts_with("17 Carlsen-Ding"),
        "{:?}",
        f.lines[4]
    );
    // Forty boards on 140×30 do not fit one per line, but fit the grid: the grid wins.
    let f = draw(&clocks(40), 140, 30, 0);
    assert_eq!(f.pages, 1);
    assert!(!f.lines[1].contains("PHASE"));
}

#[test]
fn boards_that_need_attention_are_named_in_the_title_and_footer() {
    let mut all = clocks(4);
    all[1].device_state = DeviceState::Disconnected;
    all[3].device_state = DeviceState::NotInPcMode;
    let f = draw(&all, 80, 24, 0);
    assert!(f.lines[0].contains("2 need attention"), "{:?}", f.lines[0]);
    let footer = f.lines.last().expect("footer");
    assert!(
        footer.contains("board 2 board missing") && footer.contains("board 4 clock not in PC mode"),
        "{footer:?}"
    );
    assert!(f.lines.iter().any(|l| l.contains("GONE")), "{:#?}", f.lines);
}

#[test]
fn the_running_time_is_drawn_as_it_runs() {
    let all = clocks(1);
    let daemon = Daemon::Up;
    let view = View {
        clocks: &all,
        elapsed_ms: 61_000,
        daemon: &daemon,
        wall: "12:03:04",
        page: 0,
    };
    let f = render(&view, 80, 24);
    assert!(f.lines[2].contains("*1:28:59"), "{:?}", f.lines[2]);
    assert!(f.lines[2].contains("1:25:23"), "{:?}", f.lines[2]);
}

#[test]
fn a_missing_daemon_or_bus_is_said_not_drawn_as_an_empty_venue() {
    let down = Daemon::Down {
        since: "12:00:00".into(),
        bus: "the system bus".into(),
    };
    let view = View {
        clocks: &[],
        elapsed_ms: 0,
        daemon: &down,
        wall: "12:03:04",
        page: 0,
    };
    let f = render(&view, 80, 24);
    assert_fits(&f, 80, 24);
    assert!(f.lines[0].contains("not running"), "{:?}", f.lines[0]);
    assert!(f.lines[2].contains("since 12:00:00"), "{:?}", f.lines[2]);
    let none = draw(&[], 80, 24, 0);
    assert!(none.lines[2].contains("no clocks attached"));
}

#[test]
fn tiny_terminals_still_get_a_bounded_frame() {
    for (w, h) in [(20, 4), (40, 10), (79, 24), (81, 5), (300, 80), (0, 0)] {
        let f = draw(&clocks(40), w, h, 0);
        assert_fits(&f, usize::from(w.max(20)), usize::from(h.max(4)));
        assert!(f.pages >= 1);
    }
}

#[test]
fn the_next_redraw_is_when_a_shown_second_changes() {
    let all = clocks(2);
    // White runs at 5_400_000 ms: after 300 ms it shows 1:29:59.7 → next second in 700 ms.
    assert_eq!(next_change_ms(&all, 300, 0), 701);
    // The wall clock's second comes first.
    assert_eq!(next_change_ms(&all, 300, 800), 201);
    // Nothing runs: only the wall clock.
    let mut idle = clocks(1);
    idle[0].status = "paused".into();
    assert_eq!(next_change_ms(&idle, 300, 100), 901);
    assert_eq!(next_change_ms(&[], 0, 999), 2);
}

#[test]
fn a_side_that_can_no_longer_win_is_named_in_the_footer() {
    use chessclock_engine::{Mating, WhoCanMate};
    let mut all = clocks(2);
    all[1].published.can_mate = Some(WhoCanMate {
        white: Mating::CannotMate,
        black: Mating::CanMate,
    });
    let f = draw(&all, 80, 24, 0);
    let footer = f.lines.last().expect("footer");
    assert!(
        footer.contains("board 2 White can no longer win"),
        "{footer:?}"
    );
}
