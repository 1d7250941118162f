//! The virtual board on a real pty, seen from the daemon's side: open the path at 9600 like
//! a tty, talk the protocol, read the answers through the protocol `Decoder`.

use std::path::PathBuf;
use std::time::Duration;

use chessclock_protocol::emulator::Running;
use chessclock_protocol::{
    AckMeaning, ClockCommand, ClockCommandId, ClockTime, Command, Decoded, Decoder, Message,
    RunSide, SetAndRun,
};
use chessclockd::virtual_board::{VirtualBoard, VirtualControl, VirtualOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::{Instant, timeout};
use tokio_serial::{SerialPortBuilderExt, SerialStream};

fn open(path: &std::path::Path) -> SerialStream {
    tokio_serial::new(path.to_string_lossy(), 9600)
        .open_native_async()
        .expect("the virtual board's path opens like a tty (exclusively)")
}

async fn send(port: &mut SerialStream, cmd: Command) {
    port.write_all(&cmd.encode()).await.expect("write to pty");
}

/// Read messages until `done` says so; fails after 5 s.
async fn read_until(
    port: &mut SerialStream,
    dec: &mut Decoder,
    mut done: impl FnMut(&Message) -> bool,
) -> Vec<Message> {
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let n = timeout(left, port.read(&mut buf))
            .await
            .unwrap_or_else(|_| panic!("timed out; messages so far: {seen:?}"))
            .expect("read from pty");
        assert!(n > 0, "unexpected EOF; messages so far: {seen:?}");
        dec.push(&buf[..n]);
        for item in dec.by_ref() {
            match item {
                Ok(Decoded::Message(m)) => {
                    let stop = done(&m);
                    seen.push(m);
                    if stop {
                        return seen;
                    }
                }
                other => panic!("malformed output from the virtual board: {other:?}"),
            }
        }
    }
}

fn set_and_run(left: u32, right: u32, run: RunSide) -> Command {
    let t = |s| ClockTime::from_total_seconds(s).expect("in range");
    Command::Clock(ClockCommand::SetAndRun(SetAndRun::new(
        t(left),
        t(right),
        run,
    )))
}

#[tokio::test]
async fn handshake_and_set_and_run_over_a_pty() {
    let vb = VirtualBoard::start(VirtualOptions::default()).expect("pty");
    let mut host = vb.host_commands();
    let mut port = open(vb.path());
    let mut dec = Decoder::new();
    send(&mut port, Command::SendUpdateNice).await;
    send(&mut port, Command::SendVersion).await;
    read_until(&mut port, &mut dec, |m| {
        matches!(m, Message::Version { .. })
    })
    .await;
    send(&mut port, Command::Clock(ClockCommand::Version)).await;
    let seen = read_until(&mut port, &mut dec, |m| matches!(m, Message::ClockAck(_))).await;
    let Some(Message::ClockAck(ack)) = seen.last() else {
        panic!("no ack: {seen:?}")
    };
    assert!(matches!(
        ack.meaning(),
        AckMeaning::Version { major: 2, .. }
    ));

    send(&mut port, set_and_run(300, 180, RunSide::Left)).await;
    let seen = read_until(
        &mut port,
        &mut dec,
        |m| matches!(m, Message::ClockAck(a) if a.answers() == Some(ClockCommandId::SetAndRun)),
    )
    .await;
    let Some(Message::ClockAck(ack)) = seen.last() else {
        panic!("no ack: {seen:?}")
    };
    assert!(ack.is_positive());
    // The report that follows shows the times that were set (BCD on the wire).
    let seen = read_until(
        &mut port,
        &mut dec,
        |m| matches!(m, Message::ClockReport(r) if r.left.total_seconds() >= 298),
    )
    .await;
    let Some(Message::ClockReport(r)) = seen.last() else {
        panic!("no report: {seen:?}")
    };
    assert_eq!(r.right.total_seconds(), 180);
    assert!(r.running && r.clock_connected);

    let view = vb.view().borrow().clone();
    assert!((298..=300).contains(&view.left_seconds), "{view:?}");
    assert_eq!((view.right_seconds, view.running), (180, Running::Left));

    let mut commands = Vec::new();
    while let Ok((_, cmd)) = host.try_recv() {
        commands.push(cmd);
    }
    assert_eq!(commands.len(), 4, "{commands:?}");
    assert_eq!(commands[3], set_and_run(300, 180, RunSide::Left));

    // A lever press shows up as status bit 1 in the next report.
    vb.control()
        .send(VirtualControl::Lever)
        .expect("task alive");
    let seen = read_until(
        &mut port,
        &mut dec,
        |m| matches!(m, Message::ClockReport(r) if r.right_high),
    )
    .await;
    assert!(!seen.is_empty());
}

#[tokio::test]
async fn unplug_gives_eof_or_eio_to_the_daemon() {
    let vb = VirtualBoard::start(VirtualOptions::default()).expect("pty");
    let mut port = open(vb.path());
    send(&mut port, Command::SendVersion).await;
    read_until(&mut port, &mut Decoder::new(), |m| {
        matches!(m, Message::Version { .. })
    })
    .await;
    vb.control()
        .send(VirtualControl::Unplug)
        .expect("task alive");
    let mut buf = [0u8; 64];
    let read = timeout(Duration::from_secs(5), port.read(&mut buf))
        .await
        .expect("the read ends instead of hanging");
    match read {
        Ok(0) => {}
        Err(e) => assert_eq!(e.raw_os_error(), Some(5), "EIO expected, got {e}"),
        Ok(n) => panic!("read {n} bytes from an unplugged board"),
    }
    assert_eq!(vb.current_pty(), None);
}

async fn wait_for(mut cond: impl FnMut() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !cond() {
        assert!(
            Instant::now() < deadline,
            "{what} did not happen within 5 s"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn temp_link(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("chessclock-vb-{}-{name}", std::process::id()))
}

#[tokio::test]
async fn replug_repoints_the_link() {
    let link = temp_link("replug");
    let vb = VirtualBoard::start(VirtualOptions {
        link: Some(link.clone()),
        ..VirtualOptions::default()
    })
    .expect("pty");
    assert_eq!(vb.path(), link.as_path());
    let first = vb.current_pty().expect("plugged");
    assert_eq!(std::fs::read_link(&link).expect("a symlink"), first);
    {
        let mut port = open(&link);
        send(&mut port, Command::SendVersion).await;
        read_until(&mut port, &mut Decoder::new(), |m| {
            matches!(m, Message::Version { .. })
        })
        .await;
    }
    let ctl = vb.control();
    ctl.send(VirtualControl::Unplug).expect("task alive");
    wait_for(|| vb.current_pty().is_none(), "unplug").await;
    ctl.send(VirtualControl::Replug).expect("task alive");
    wait_for(|| vb.current_pty().is_some(), "replug").await;
    let second = vb.current_pty().expect("plugged again");
    assert_eq!(std::fs::read_link(&link).expect("a symlink"), second);
    // The link opens again and the (power-cycled) board answers.
    let mut port = open(&link);
    send(&mut port, Command::SendVersion).await;
    read_until(&mut port, &mut Decoder::new(), |m| {
        matches!(m, Message::Version { .. })
    })
    .await;
    drop(port);
    drop(vb);
    assert!(!link.exists(), "the link is removed with the board");
}

#[tokio::test]
async fn daemon_can_close_and_reopen_the_port() {
    let vb = VirtualBoard::start(VirtualOptions::default()).expect("pty");
    for _ in 0..2 {
        let mut port = open(vb.path());
        send(&mut port, Command::SendVersion).await;
        read_until(&mut port, &mut Decoder::new(), |m| {
            matches!(m, Message::Version { .. })
        })
        .await;
    }
}

#[tokio::test]
async fn autoplay_presses_the_lever_of_the_running_half() {
    let vb = VirtualBoard::start(VirtualOptions {
        autoplay: true,
        ..VirtualOptions::default()
    })
    .expect("pty");
    let mut port = open(vb.path());
    let mut dec = Decoder::new();
    send(&mut port, Command::SendUpdateNice).await;
    // Left runs with its lever end up; the "player" presses within 1-4 s: right goes up,
    // even though the host keeps refreshing the display with new set-and-runs meanwhile.
    let deadline = Instant::now() + Duration::from_secs(6);
    let mut buf = [0u8; 256];
    let mut pressed = false;
    let mut left = 60;
    while !pressed {
        assert!(
            Instant::now() < deadline,
            "autoplay did not press within 6 s"
        );
        left -= 1;
        send(&mut port, set_and_run(left, 60, RunSide::Left)).await;
        let pace = Instant::now() + Duration::from_millis(300);
        while let Ok(n) = tokio::time::timeout_at(pace, port.read(&mut buf)).await {
            dec.push(&buf[..n.expect("read pty")]);
        }
        pressed = dec.by_ref().any(
            |item| matches!(item, Ok(Decoded::Message(Message::ClockReport(r))) if r.right_high),
        );
    }
    assert!(vb.view().borrow().right_high);
    // Paused: nobody presses.
    send(&mut port, set_and_run(60, 60, RunSide::Paused)).await;
    tokio::time::sleep(Duration::from_millis(4500)).await;
    assert!(vb.view().borrow().right_high, "no press while paused");
}
