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
