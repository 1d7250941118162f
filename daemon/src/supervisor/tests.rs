//! The supervisor without a bus: what it announces, what it refuses, what it remembers, and
//! the clocks it keeps waiting for a port. Real actors on real ptys (the emulated board);
//! waits are on the clocks' published state, with a time limit.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::sync::mpsc;

use super::{Change, ClockSpec, Defaults, DetachHow, SupervisorError, SupervisorHandle, start};
use crate::device::{ClockState, DeviceHandle, DeviceState, Request};
use crate::device::{DeviceOptions, MoveSource};
use crate::engine::{Side, Status};
use crate::virtual_board::{VirtualBoard, VirtualOptions};

pub(super) fn state_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cc-sup-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("state dir");
    d
}

pub(super) fn defaults(dir: &Path) -> Defaults {
    Defaults {
        device: DeviceOptions {
            state_dir: Some(dir.to_path_buf()),
            reopen_interval: Duration::from_millis(50),
            move_source: MoveSource::Lever,
            ..DeviceOptions::default()
        },
        devices: None,
        tables: Vec::new(),
        configured_boards: Default::default(),
    }
}

/// Answer every change at once and pass it on as (attached?, index).
pub(super) fn serve(mut changes: mpsc::Receiver<Change>) -> mpsc::UnboundedReceiver<(bool, u32)> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(change) = changes.recv().await {
            let seen = match change {
                Change::Attached { index, done, .. } => {
                    let _ = done.send(());
                    (true, index)
                }
                Change::Detached { index, done } => {
                    let _ = done.send(());
                    (false, index)
                }
            };
            let _ = tx.send(seen);
        }
    });
    rx
}

/// Wait (at most 10 s) until `handle`'s state satisfies `ok`.
pub(super) async fn wait_state(
    handle: &DeviceHandle,
    what: &str,
    ok: impl Fn(&ClockState) -> bool,
) {
    let mut rx = handle.watch_state();
    let waited = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if ok(&rx.borrow_and_update()) {
                return;
            }
            if rx.changed().await.is_err() {
                panic!("the actor stopped while waiting for {what}");
            }
        }
    })
    .await;
    assert!(waited.is_ok(), "{what}: {:?}", handle.state());
}

pub(super) async fn only_handle(sup: &SupervisorHandle) -> DeviceHandle {
    let handles = sup.handles().await;
    assert_eq!(handles.len(), 1);
    handles[0].clone()
}

#[tokio::test]
async fn clocks_are_announced_when_attached_and_detached_and_refusals_change_nothing() {
    let dir = state_dir("announce");
    let (sup, changes) = start(defaults(&dir));
    let mut seen = serve(changes);

    assert_eq!(sup.add_virtual("alpha").await, Ok(0));
    assert_eq!(seen.recv().await, Some((true, 0)));
    assert_eq!(sup.clocks(), vec![0]);

    // The same name twice would share a journal: refused, nothing announced.
    let again = sup.add_virtual("alpha").await;
    assert!(
        matches!(&again, Err(SupervisorError::AlreadyAttached(m)) if m.contains("alpha")),
        "{again:?}"
    );
    let blank = sup.add_virtual("  ").await;
    assert!(matches!(blank, Err(SupervisorError::InvalidArgument(_))));
    let missing = sup
        .attach_spec(ClockSpec {
            port: dir.join("no-such-tty"),
            ..ClockSpec::default()
        })
        .await;
    assert!(
        matches!(&missing, Err(SupervisorError::PortFailed(m)) if m.contains("does not exist")),
        "{missing:?}"
    );
    assert_eq!(sup.clocks(), vec![0]);

    assert_eq!(sup.detach(0, DetachHow::Archive).await, Ok(()));
    assert_eq!(seen.recv().await, Some((false, 0)));
    assert!(sup.clocks().is_empty());
    assert!(matches!(
        sup.detach(0, DetachHow::Archive).await,
        Err(SupervisorError::NoSuchClock(_))
    ));
    sup.shutdown().await;
    assert!(seen.try_recv().is_err(), "nothing more was announced");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_virtual_clock_is_remembered_and_its_game_resumes_after_a_restart() {
    let dir = state_dir("virtual");
    let (sup, changes) = start(defaults(&dir));
    let _seen = serve(changes);
    sup.add_virtual("Board 7").await.expect("added");
    let clock = only_handle(&sup).await;
    clock
        .request(Request::Start(Side::White))
        .await
        .expect("started");
    clock
        .request(Request::Press(Side::White))
        .await
        .expect("pressed");
    sup.shutdown().await;

    let remembered = crate::remembered::load(&dir);
    assert!(
        remembered.virtual_clocks.contains("Board 7"),
        "{remembered:?}"
    );

    // A daemon that stops keeps the journal: that is how the game survives.
    let journal = dir.join("virtual-Board_207.journal");
    let snapshot = dir.join("virtual-Board_207.snapshot");
    assert!(journal.exists() && snapshot.exists(), "kept at a stop");

    // A new daemon adds it again (as service::attach_remembered does): the game goes on.
    let (sup, changes) = start(defaults(&dir));
    let _seen = serve(changes);
    sup.add_virtual("Board 7").await.expect("added again");
    let st = only_handle(&sup).await.state();
    assert_eq!(st.game_state, Status::Running, "{st:?}");
    assert_eq!(st.snapshot.running, Some(Side::Black), "{st:?}");

    // Detached on purpose: forgotten, its game under way written to games/ as it stood, and
    // its journal and snapshot gone once the detach is answered.
    sup.detach(0, DetachHow::Archive).await.expect("detached");
    assert!(crate::remembered::load(&dir).virtual_clocks.is_empty());
    assert!(
        !journal.exists() && !snapshot.exists(),
        "removed at a detach"
    );
    let mut records = Vec::new();
    let mut folders = vec![dir.join("games")];
    while let Some(folder) = folders.pop() {
        for path in std::fs::read_dir(folder).into_iter().flatten().flatten() {
            let path = path.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|x| x == "json") {
                records.extend(std::fs::read_to_string(path).ok());
            }
        }
    }
    assert_eq!(records.len(), 1, "the game's record");
    assert!(
        records[0].contains("detached: the game was archived as it stood"),
        "{}",
        records[0]
    );
    sup.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_port_that_is_not_there_yet_is_waited_for_and_opened_when_it_appears() {
    let dir = state_dir("wait");
    let (sup, changes) = start(defaults(&dir));
    let mut seen = serve(changes);
    let link = dir.join("board");
    let index = sup
        .attach_spec(ClockSpec {
            port: link.clone(),
            name: Some("Board 1".into()),
            wait_for_port: true,
            ..ClockSpec::default()
        })
        .await
        .expect("a clock that waits");
    assert_eq!(seen.recv().await, Some((true, index)));
    let clock = only_handle(&sup).await;
    let st = clock.state();
    assert!(!st.connected, "{st:?}");
    assert_eq!(st.device_state, DeviceState::Disconnected);
    assert_eq!(st.name, "Board 1");

    // The board appears (a udev symlink to its tty): the clock opens it and probes it.
    let board = VirtualBoard::start(VirtualOptions::default()).expect("emulated board");
    std::os::unix::fs::symlink(board.path(), &link).expect("link");
    wait_state(&clock, "the board to be ready", |s| {
        s.connected && s.device_state == DeviceState::Ready
    })
    .await;

    // The same board by its kernel name is the same clock.
    let twice = sup.attach(&board.path().display().to_string()).await;
    assert!(
        matches!(twice, Err(SupervisorError::AlreadyAttached(_))),
        "{twice:?}"
    );
    sup.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Device actors on their own runtime (issue 11 item 2) go on while the supervisor's and the
/// bus's runtime is hogged: a board is probed to `ready` while this test's only executor
/// thread is held by blocking work (as 128 clocks' properties read back to back would).
#[tokio::test(flavor = "current_thread")]
async fn clocks_on_the_device_runtime_go_on_while_the_bus_side_is_hogged() {
    let dir = state_dir("runtime");
    let devices = crate::device::runtime::DeviceRuntime::start().expect("device runtime");
    let mut with_runtime = defaults(&dir);
    with_runtime.devices = Some(devices.handle());
    let (sup, changes) = start(with_runtime);
    let _seen = serve(changes);
    sup.add_virtual("hogged").await.expect("added");
    let clock = only_handle(&sup).await;
    // Hold the executor: nothing on this runtime runs until the loop ends.
    let state = clock.watch_state();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while state.borrow().device_state != DeviceState::Ready {
        assert!(
            std::time::Instant::now() < deadline,
            "the board was not probed while the bus side was busy: {:?}",
            clock.state()
        );
        std::thread::yield_now();
    }
    sup.shutdown().await;
    devices.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A configured board whose tty another program holds at start (ModemManager probing it) is
/// waited for as a missing one is, and opened once it is free.
#[tokio::test]
async fn a_port_held_by_another_program_at_start_is_waited_for() {
    let dir = state_dir("busy");
    let (sup, changes) = start(defaults(&dir));
    let _seen = serve(changes);
    let board = VirtualBoard::start(VirtualOptions::default()).expect("emulated board");
    let other = std::fs::File::open(board.path()).expect("the other program's open");
    other.try_lock().expect("the other program's lock");
    sup.attach_spec(ClockSpec {
        port: board.path().to_path_buf(),
        wait_for_port: true,
        ..ClockSpec::default()
    })
    .await
    .expect("a clock that waits");
    let clock = only_handle(&sup).await;
    assert_eq!(clock.state().device_state, DeviceState::Disconnected);
    drop(other);
    wait_state(&clock, "the board to be ready once free", |s| {
        s.connected && s.device_state == DeviceState::Ready
    })
    .await;
    sup.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
