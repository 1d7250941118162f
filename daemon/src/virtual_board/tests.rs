//! The in-memory virtual board in tokio's paused time: it answers on the host's end, and an
//! unplug/replug closes that end and hands out a new one.

use std::time::Duration;

use chessclock_protocol::{Command, Decoded, Decoder, Message};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

use super::{HostEnd, MemoryBoard, VirtualControl, VirtualOptions};

/// `fut`, or a failure if it never completes (paused time: nothing else could happen).
async fn surely<T>(what: &str, fut: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), fut)
        .await
        .unwrap_or_else(|_| panic!("{what} never happened"))
}

/// Ask for one clock report (`0x41`, answered in any board mode) and read it back.
async fn ask_report(host: &mut DuplexStream) -> Message {
    host.write_all(&Command::SendClock.encode())
        .await
        .expect("the board reads");
    let mut dec = Decoder::new();
    let mut buf = [0u8; 64];
    loop {
        let n = surely("an answer", host.read(&mut buf))
            .await
            .expect("the board answers");
        assert!(n > 0, "end of file instead of an answer");
        dec.push(&buf[..n]);
        if let Some(item) = dec.next() {
            match item {
                Ok(Decoded::Message(m)) => return m,
                other => panic!("malformed output: {other:?}"),
            }
        }
    }
}

/// The host end handed out after a replug (the board's task applies controls on its own).
async fn next_end(host: &HostEnd) -> DuplexStream {
    for _ in 0..100 {
        if let Some(end) = host.take() {
            return end;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no host end after a replug");
}

#[tokio::test(start_paused = true)]
async fn an_in_memory_board_answers_and_comes_back_after_a_replug() {
    let (board, host) = MemoryBoard::start(&VirtualOptions::default());
    let mut first = host.take().expect("plugged in at the start");
    assert!(host.take().is_none(), "the end is handed out once");
    assert!(matches!(
        ask_report(&mut first).await,
        Message::ClockReport(_)
    ));
    let mut commands = board.host_commands();

    board
        .control()
        .send(VirtualControl::Unplug)
        .expect("task alive");
    let mut buf = [0u8; 16];
    assert_eq!(
        surely("end of file", first.read(&mut buf))
            .await
            .expect("a closed line"),
        0,
        "the host reads end of file once the cable is out"
    );
    assert!(host.take().is_none(), "nothing to take while unplugged");

    board
        .control()
        .send(VirtualControl::Replug)
        .expect("task alive");
    let mut second = next_end(&host).await;
    assert!(matches!(
        ask_report(&mut second).await,
        Message::ClockReport(_)
    ));
    let (_, cmd) = commands.recv().await.expect("the host's command seen");
    assert_eq!(cmd, Command::SendClock);
}

#[tokio::test(start_paused = true)]
async fn dropping_an_in_memory_board_closes_the_host_end() {
    let (board, host) = MemoryBoard::start(&VirtualOptions::default());
    let mut end = host.take().expect("plugged in");
    drop(board);
    let mut buf = [0u8; 16];
    let n = surely("end of file", end.read(&mut buf)).await.unwrap_or(0);
    assert_eq!(n, 0, "the host reads end of file");
}

/// A virtual clock as the supervisor starts one: its actor on a [`super::transport`].
async fn virtual_clock(
    name: &str,
    options: crate::device::DeviceOptions,
) -> crate::device::DeviceHandle {
    let owned = name.to_owned();
    crate::device::spawn(
        0,
        name.into(),
        options,
        crate::device::Sinks::default(),
        move |o| Ok(super::transport(&owned, o)),
    )
    .await
    .expect("a virtual clock starts")
    .handle
}

/// Wait (a limit against a hang) until the clock's state satisfies `ok`.
async fn clock_state(
    handle: &crate::device::DeviceHandle,
    what: &str,
    ok: impl Fn(&crate::device::ClockState) -> bool,
) -> crate::device::ClockState {
    let mut rx = handle.watch_state();
    surely(what, async {
        loop {
            if ok(&rx.borrow_and_update()) {
                return rx.borrow().clone();
            }
            rx.changed().await.expect("the actor runs");
        }
    })
    .await
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// install.md's round without a board: moves entered with `move N force` on a virtual clock
/// (and one taken back, and a position set) are on its emulated pieces at once, so the
/// board never disagrees with the game: no board problem after the settle time, no notice
/// left that the pieces do not show it.
#[tokio::test(start_paused = true)]
async fn a_virtual_clock_s_pieces_follow_the_moves_entered_and_raise_no_board_problem() {
    use crate::device::{DeviceState, Request};
    use crate::engine::Side;
    use chessclock_game::Correction;

    let handle = virtual_clock("Table 1", crate::device::DeviceOptions::default()).await;
    clock_state(&handle, "the start position read", |s| {
        s.device_state == DeviceState::Ready && s.fen == START
    })
    .await;
    // Everything the operator's screen would show of the board, from here on.
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let mut rx = handle.watch_state();
    let log = seen.clone();
    tokio::spawn(async move {
        while rx.changed().await.is_ok() {
            let st = rx.borrow_and_update().clone();
            let mut log = log.lock().expect("log");
            if !st.board_problem.is_empty() {
                log.push(format!("board problem: {}", st.board_problem));
            }
            log.extend(st.notices.iter().map(|n| format!("notice: {n}")));
        }
    });
    let force = |uci: &str| Request::Correct(Correction::Force(uci.into()));
    for request in [
        Request::Start(Side::White),
        force("e2e4"),
        Request::Press(Side::White),
        force("e7e5"),
        Request::Press(Side::Black),
        force("g1f3"),
        Request::Correct(Correction::Undo(1)),
        force("f1c4"),
    ] {
        handle.request(request).await.expect("taken");
        // Longer than the board's settle time (1.5 s): a board that disagreed would say so.
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    }
    let st = handle.state();
    assert_eq!(st.moves_san, ["e4", "e5", "Bc4"], "{st:?}");
    assert_eq!(
        st.fen,
        "rnbqkbnr/pppp1ppp/8/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 2"
    );
    let position = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 40";
    handle
        .request(Request::Correct(Correction::Position(position.into())))
        .await
        .expect("a position set");
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let st = handle.state();
    assert_eq!(st.fen, position);
    assert!(st.board_problem.is_empty(), "{st:?}");
    assert!(st.notices.is_empty(), "{:?}", st.notices);
    let seen = seen.lock().expect("log");
    assert!(
        !seen.iter().any(|s| s.starts_with("board problem")),
        "{seen:?}"
    );
}

/// A virtual clock's game with moves resumes after a restart of the daemon: its new board
/// shows the game's position before its pieces are first read, so the game goes on (the
/// start position would have been read as a new game).
#[tokio::test]
async fn a_virtual_clock_s_moves_come_back_after_a_restart() {
    use crate::device::{DeviceState, Request};
    use crate::engine::Side;
    use chessclock_game::Correction;

    let dir = std::env::temp_dir().join(format!("cc-vb-restart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("state dir");
    let options = crate::device::DeviceOptions {
        state_dir: Some(dir.clone()),
        ..crate::device::DeviceOptions::default()
    };
    let handle = virtual_clock("Table 2", options.clone()).await;
    clock_state(&handle, "the start position read", |s| s.fen == START).await;
    for request in [
        Request::Start(Side::White),
        Request::Correct(Correction::Force("e2e4".into())),
        Request::Press(Side::White),
        Request::Correct(Correction::Force("c7c5".into())),
    ] {
        handle.request(request).await.expect("taken");
    }
    let before = handle.state();
    assert_eq!(before.moves_san, ["e4", "c5"]);
    handle.request(Request::Shutdown).await.expect("stopped");

    let handle = virtual_clock("Table 2", options).await;
    // The board's dump is read before the clock is ready (the board answers first).
    let st = clock_state(&handle, "ready again", |s| {
        s.device_state == DeviceState::Ready
    })
    .await;
    assert_eq!(st.moves_san, ["e4", "c5"], "{st:?}");
    assert_eq!(st.fen, before.fen);
    assert!(st.board_problem.is_empty(), "{st:?}");
    // Its board is new: its lever says nothing of a press made while the daemon was down.
    tokio::task::yield_now().await;
    let st = handle.state();
    assert!(st.notices.is_empty(), "{:?}", st.notices);
    handle.request(Request::Shutdown).await.expect("stopped");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_virtual_board_s_serial_follows_its_name_and_is_no_real_board_s() {
    let (short, long) = super::serials("Table 1");
    assert_eq!((short.len(), long.len()), (5, 10), "{short} {long}");
    assert!(
        short.starts_with('V') && long.starts_with('V'),
        "{short} {long}"
    );
    assert_eq!(&short[1..], &long[6..]);
    assert!(
        short[1..]
            .chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase()),
        "{short}"
    );
    // The same name, the same board: across restarts and versions (FNV-1a, as computed
    // independently: python3, the same fold over the name's bytes).
    assert_eq!(super::board_serial("Table 1"), short);
    assert_eq!(super::board_serial("Table 1"), "VADTG");
    // Other names, other boards: 64 clocks of a round all differ.
    let all: std::collections::BTreeSet<String> = (1..=64)
        .map(|i| super::board_serial(&format!("table-{i}")))
        .collect();
    assert_eq!(all.len(), 64);
    assert!(all.iter().all(|s| !s.chars().all(|c| c.is_ascii_digit())));
}

#[tokio::test(start_paused = true)]
async fn a_virtual_clock_reports_its_own_board_serial() {
    let a = virtual_clock("Table 1", crate::device::DeviceOptions::default()).await;
    let st = clock_state(&a, "the board's serial", |s| !s.board_serial.is_empty()).await;
    assert_eq!(st.board_serial, super::board_serial("Table 1"));
    assert_ne!(st.board_serial, "24680", "not the emulator's default");
}
