//! `chessclock-emu` as end-to-end tests use it: spawn the real binary, open the path it
//! prints, talk DGT to it, and follow its JSON events on stdout while driving it on stdin.

use std::process::Stdio;
use std::time::Duration;

use chessclock_protocol::{
    ClockCommand, ClockTime, Command, Decoded, Decoder, Message, RunSide, SetAndRun,
};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout};
use tokio::time::{Instant, timeout};
use tokio_serial::{SerialPortBuilderExt, SerialStream};

const EMU: &str = env!("CARGO_BIN_EXE_chessclock-emu");

fn spawn(args: &[&str]) -> (Child, Lines<BufReader<ChildStdout>>) {
    let mut child = tokio::process::Command::new(EMU)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn chessclock-emu");
    let stdout = child.stdout.take().expect("piped stdout");
    (child, BufReader::new(stdout).lines())
}

async fn next_json(lines: &mut Lines<BufReader<ChildStdout>>) -> Value {
    let line = timeout(Duration::from_secs(5), lines.next_line())
        .await
        .expect("an event within 5 s")
        .expect("read stdout")
        .expect("chessclock-emu is still running");
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON: {line:?}: {e}"))
}

/// `chessclock-emu --json ARGS`: its first event (the path) and the port it names, opened.
async fn spawn_open(args: &[&str]) -> (Child, Lines<BufReader<ChildStdout>>, Value, SerialStream) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let (child, mut lines) = spawn(&all);
    let first = next_json(&mut lines).await;
    let path = first["path"].as_str().expect("path string").to_owned();
    let port = tokio_serial::new(&path, 9600)
        .open_native_async()
        .expect("open the printed path");
    (child, lines, first, port)
}

/// Read events until one satisfies `want`; fails after 15 s, showing what it saw.
async fn wait_event(
    lines: &mut Lines<BufReader<ChildStdout>>,
    want: impl Fn(&Value) -> bool,
) -> Value {
    wait_event_keeping(lines, want, &mut Vec::new()).await
}

/// [`wait_event`], keeping the events read before the one wanted in `seen`: events whose
/// order the emulator does not fix (a display change and the answer to the next stdin line)
/// may come first.
async fn wait_event_keeping(
    lines: &mut Lines<BufReader<ChildStdout>>,
    want: impl Fn(&Value) -> bool,
    seen: &mut Vec<Value>,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = timeout(left, lines.next_line())
            .await
            .unwrap_or_else(|_| panic!("no matching event within 15 s; saw {seen:#?}"))
            .expect("read stdout")
            .expect("chessclock-emu is still running");
        let v: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON: {line:?}: {e}"));
        if want(&v) {
            return v;
        }
        seen.push(v);
    }
}

/// The first message from the port that `want` accepts (5 s at most).
async fn read_message(
    port: &mut SerialStream,
    dec: &mut Decoder,
    want: impl Fn(&Message) -> bool,
) -> Message {
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut buf = [0u8; 128];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let n = timeout(left, port.read(&mut buf))
            .await
            .expect("a matching message within 5 s")
            .expect("read pty");
        dec.push(&buf[..n]);
        for item in dec.by_ref() {
            if let Ok(Decoded::Message(m)) = item
                && want(&m)
            {
                return m;
            }
        }
    }
}

#[tokio::test]
async fn json_events_follow_the_host_and_stdin_drives_the_lever() {
    let (mut child, mut lines, first, mut port) = spawn_open(&[]).await;
    assert_eq!(first["event"], "path", "{first}");
    let t = |s| ClockTime::from_total_seconds(s).expect("in range");
    let mut bytes = Command::SendUpdateNice.encode();
    bytes.extend(Command::SendVersion.encode());
    bytes.extend(
        Command::Clock(ClockCommand::SetAndRun(SetAndRun::new(
            t(300),
            t(185),
            RunSide::Left,
        )))
        .encode(),
    );
    port.write_all(&bytes).await.expect("write");

    let first_cmd = wait_event(&mut lines, |v| v["event"] == "host_command").await;
    assert_eq!(first_cmd["command"]["name"], "send_update_nice");
    let snr = wait_event(&mut lines, |v| {
        v["event"] == "host_command" && v["command"]["name"] == "clock"
    })
    .await;
    let c = &snr["command"];
    assert_eq!(
        (&c["sub"], &c["left_s"], &c["right_s"], &c["run"]),
        (
            &Value::from("set_and_run"),
            &Value::from(300),
            &Value::from(185),
            &Value::from("left")
        ),
        "{snr}"
    );
    assert!(snr["t_ms"].is_u64());
    let shown = wait_event(&mut lines, |v| {
        v["event"] == "display" && v["running"] == "left"
    })
    .await;
    assert_eq!(shown["right"], "3:05", "{shown}");
    assert_eq!(shown["model"], "DGT 3000", "{shown}");
    assert!(
        ["5:00", "4:59"].contains(&shown["left"].as_str().unwrap_or("")),
        "{shown}"
    );

    // `lever` on stdin: the report on the wire and the display event show the right end up.
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin.write_all(b"lever\n").await.expect("write stdin");
    let mut dec = Decoder::new();
    read_message(
        &mut port,
        &mut dec,
        |m| matches!(m, Message::ClockReport(r) if r.right_high),
    )
    .await;
    wait_event(&mut lines, |v| {
        v["event"] == "display" && v["right_high"] == true
    })
    .await;

    // Bad input is reported, not fatal; `quit` ends the process cleanly.
    stdin.write_all(b"jump\n").await.expect("write stdin");
    let err = wait_event(&mut lines, |v| v["event"] == "error").await;
    assert!(
        err["message"].as_str().unwrap_or("").contains("lever"),
        "{err}"
    );
    quits_cleanly(&mut child, &mut stdin).await;
}

#[tokio::test]
async fn text_mode_prints_the_path_first() {
    let (mut child, mut lines) = spawn(&["--model", "xl", "--no-pc-mode"]);
    let first = timeout(Duration::from_secs(5), lines.next_line())
        .await
        .expect("a line within 5 s")
        .expect("read")
        .expect("a first line");
    let path = first
        .strip_prefix("PATH ")
        .unwrap_or_else(|| panic!("{first:?}"));
    assert!(std::path::Path::new(path).exists(), "{path}");
    child.start_kill().expect("kill");
}

#[tokio::test]
async fn bad_arguments_are_usage_errors() {
    for args in [
        &["--model", "4000"][..],
        &["--fault", "drop=3"][..],
        &["--board-serial", "12a45"][..],
    ] {
        let out = tokio::process::Command::new(EMU)
            .args(args)
            .output()
            .await
            .expect("run chessclock-emu");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(args[1]), "{args:?}: {err}");
    }
}

#[tokio::test]
async fn the_board_answers_the_serial_number_it_is_given() {
    let (mut child, _lines, _, mut port) = spawn_open(&["--board-serial", "13579"]).await;
    port.write_all(&Command::ReturnSerialNumber.encode())
        .await
        .expect("write");
    read_message(&mut port, &mut Decoder::new(), |m| {
        *m == Message::SerialNumber("13579".into())
    })
    .await;
    stdin_quit(&mut child).await;
}

#[tokio::test]
async fn emulators_side_by_side_are_different_boards_by_default() {
    let mut serials = Vec::new();
    let mut children = Vec::new();
    for _ in 0..2 {
        let (child, _lines, first, mut port) = spawn_open(&[]).await;
        let pid = child.id().expect("running");
        // The default serial is the process id's last five digits.
        let want = format!("{:05}", pid % 100_000);
        assert_eq!(first["board_serial"], want.as_str(), "{first}");
        port.write_all(&Command::ReturnSerialNumber.encode())
            .await
            .expect("write");
        let answer = Message::SerialNumber(want.clone());
        read_message(&mut port, &mut Decoder::new(), |m| *m == answer).await;
        serials.push(want);
        children.push(child);
    }
    assert_ne!(serials[0], serials[1], "two emulators, two boards");
    for mut child in children {
        stdin_quit(&mut child).await;
    }
}

/// `unplug` and `replug` on stdin: the link is re-pointed at the new pty, which serves a
/// working board. (It once failed about one run in four: the emulator held its view's borrow
/// while it waited for the cable change, so the board task could not publish its view and
/// applied the change only once that wait gave up.)
#[tokio::test]
async fn unplug_and_replug_from_stdin_keep_the_link() {
    let link = std::env::temp_dir().join(format!("chessclock-emu-cli-{}", std::process::id()));
    let link_arg = link.display().to_string();
    let (mut child, mut lines) = spawn(&["--json", "--link", &link_arg]);
    let first = next_json(&mut lines).await;
    assert_eq!(first["path"], link_arg.as_str(), "{first}");
    let mut stdin = child.stdin.take().expect("piped stdin");

    stdin.write_all(b"unplug\n").await.expect("write stdin");
    wait_event(&mut lines, |v| v["event"] == "unplugged").await;
    stdin.write_all(b"replug\n").await.expect("write stdin");
    let back = wait_event(&mut lines, |v| v["event"] == "replugged").await;
    assert_eq!(back["path"], link_arg.as_str(), "{back}");
    let pty = back["pty"].as_str().expect("pty path");
    assert_eq!(
        std::fs::read_link(&link).expect("still a symlink"),
        std::path::PathBuf::from(pty)
    );
    // The re-pointed link leads to a working board again.
    let mut port = tokio_serial::new(&link_arg, 9600)
        .open_native_async()
        .expect("open the link after replug");
    port.write_all(&Command::SendVersion.encode())
        .await
        .expect("write");
    read_message(&mut port, &mut Decoder::new(), |m| {
        matches!(m, Message::Version { .. })
    })
    .await;

    quits_cleanly(&mut child, &mut stdin).await;
    assert!(!link.exists(), "the link is removed on exit");
}

#[tokio::test]
async fn piece_commands_on_stdin_reach_the_host_as_field_updates() {
    let (mut child, mut lines, _, mut port) = spawn_open(&["--rotated"]).await;
    port.write_all(&Command::SendUpdateBoard.encode())
        .await
        .expect("write");
    wait_event(&mut lines, |v| v["event"] == "host_command").await;
    let stdin = child.stdin.as_mut().expect("stdin");
    stdin
        .write_all(b"move e2e4\nmove e9e5\n")
        .await
        .expect("write stdin");
    // The display showing the move may come before or after the error about the next line.
    let mut before_error = Vec::new();
    let err = wait_event_keeping(&mut lines, |v| v["event"] == "error", &mut before_error).await;
    assert!(
        err["message"]
            .as_str()
            .is_some_and(|m| m.contains("not a move")),
        "{err}"
    );
    let mut dec = Decoder::new();
    // Rotated board: e2 is field 63 - 52 = 11, e4 is 63 - 36 = 27.
    let updates = read_messages(&mut port, &mut dec, 2).await;
    let fields: Vec<(u8, Option<chessclock_protocol::Piece>)> = updates
        .iter()
        .filter_map(|m| match m {
            Message::FieldUpdate { square, piece } => Some((square.field(), *piece)),
            _ => None,
        })
        .collect();
    assert_eq!(
        fields,
        [
            (11, None),
            (27, Some(chessclock_protocol::Piece::WhitePawn))
        ]
    );
    let shows_pawn = |v: &Value| {
        v["event"] == "display"
            && v["pieces"]
                .as_str()
                .is_some_and(|p| p.as_bytes()[36] == b'P')
    };
    let shown = match before_error.into_iter().find(|v| shows_pawn(v)) {
        Some(v) => v,
        None => wait_event(&mut lines, shows_pawn).await,
    };
    assert_eq!(
        shown["pieces"].as_str().map(|p| &p[48..56]),
        Some("PPPP.PPP"),
        "{shown}"
    );
    port.write_all(&Command::SendBoard.encode())
        .await
        .expect("write");
    let Message::BoardDump(dump) =
        read_message(&mut port, &mut dec, |m| matches!(m, Message::BoardDump(_))).await
    else {
        unreachable!("read_message gives what it was asked for")
    };
    // Rotated: field 0 is h1 (a white rook), field 27 is e4 (the pawn just moved).
    assert_eq!(dump.to_piece_string().get(..8), Some("RNBKQBNR"));
    assert_eq!(dump.fields[27], Some(chessclock_protocol::Piece::WhitePawn));
    stdin_quit(&mut child).await;
}

/// The next `n` messages from the port (5 s at most).
async fn read_messages(port: &mut SerialStream, dec: &mut Decoder, n: usize) -> Vec<Message> {
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut buf = [0u8; 128];
    let mut got = Vec::new();
    while got.len() < n {
        let left = deadline.saturating_duration_since(Instant::now());
        let k = timeout(left, port.read(&mut buf))
            .await
            .unwrap_or_else(|_| panic!("{n} messages within 5 s; got {got:?}"))
            .expect("read pty");
        dec.push(&buf[..k]);
        got.extend(dec.by_ref().filter_map(|i| match i {
            Ok(Decoded::Message(m)) => Some(m),
            _ => None,
        }));
    }
    got
}

/// `quit` on stdin ends the process cleanly (within 5 s).
async fn quits_cleanly(child: &mut Child, stdin: &mut tokio::process::ChildStdin) {
    stdin.write_all(b"quit\n").await.expect("write stdin");
    let status = timeout(Duration::from_secs(5), child.wait())
        .await
        .expect("exits after quit")
        .expect("wait");
    assert!(status.success(), "{status}");
}

async fn stdin_quit(child: &mut Child) {
    if let Some(stdin) = child.stdin.as_mut() {
        let _ = stdin.write_all(b"quit\n").await;
    }
    let _ = timeout(Duration::from_secs(5), child.wait()).await;
}
