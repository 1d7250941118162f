//! A board's number, name and game follow the board (issue 40 item 1): across restarts in any
//! attach order, a detach and re-attach, and a replug on another port, known by its serial
//! number. Real actors, emulated boards on real ptys; waits are on the clocks' state.

use std::collections::BTreeMap;

use super::tests::{defaults, serve, state_dir, wait_state};
use super::{DetachHow, SupervisorHandle, start};
use crate::device::{DeviceHandle, DeviceState, Request};
use crate::engine::{Side, Status};
use crate::virtual_board::{VirtualBoard, VirtualOptions};

/// An emulated board on a pty whose board reports `serial`.
pub(super) fn board(serial: &str) -> VirtualBoard {
    let mut opts = VirtualOptions::default();
    opts.emu.board.serial_number = serial.to_owned();
    VirtualBoard::start(opts).expect("emulated board")
}

/// The clocks by name: (index, board number).
async fn by_name(sup: &SupervisorHandle) -> BTreeMap<String, (u32, u32)> {
    sup.handles()
        .await
        .iter()
        .map(|h| {
            let st = h.state();
            (st.name.clone(), (st.index, st.board))
        })
        .collect()
}

pub(super) async fn handle_of(sup: &SupervisorHandle, index: u32) -> DeviceHandle {
    sup.handles()
        .await
        .into_iter()
        .find(|h| h.state().index == index)
        .expect("the clock")
}

/// Attach the emulated board on `port` and wait until it has reported `serial`.
pub(super) async fn ready(
    sup: &SupervisorHandle,
    port: &std::path::Path,
    serial: &str,
) -> DeviceHandle {
    let i = sup
        .attach(&port.display().to_string())
        .await
        .expect("the board");
    let clock = handle_of(sup, i).await;
    wait_state(&clock, "the board ready", |s| {
        s.device_state == DeviceState::Ready && s.board_serial == serial
    })
    .await;
    clock
}

/// Start clock `h`'s game and press once for White: Black's clock runs.
pub(super) async fn begin(h: &DeviceHandle) {
    h.request(Request::Start(Side::White)).await.expect("start");
    h.request(Request::Press(Side::White)).await.expect("press");
}

#[tokio::test]
async fn boards_keep_their_numbers_and_names_whatever_the_order_they_come_back_in() {
    let dir = state_dir("id-order");
    let tty = board("11111");
    let path = tty.path().display().to_string();
    let (sup, changes) = start(defaults(&dir));
    let _seen = serve(changes);
    sup.add_virtual("Table 1").await.expect("virtual 1");
    sup.add_virtual("Table 2").await.expect("virtual 2");
    let i = sup.attach(&path).await.expect("the board");
    let clock = handle_of(&sup, i).await;
    wait_state(&clock, "the board's serial", |s| s.board_serial == "11111").await;
    clock
        .request(Request::Rename("Table 3".into()))
        .await
        .expect("renamed");
    let before = by_name(&sup).await;
    assert_eq!(
        before.values().map(|(_, b)| *b).collect::<Vec<_>>(),
        vec![1, 2, 3],
        "{before:?}"
    );
    sup.shutdown().await;

    // Back in the opposite order (another udev order, a reboot): new clock numbers, the
    // same boards, names and numbers.
    let (sup, changes) = start(defaults(&dir));
    let _seen = serve(changes);
    let i = sup.attach(&path).await.expect("the board first");
    sup.add_virtual("Table 2").await.expect("virtual 2");
    sup.add_virtual("Table 1").await.expect("virtual 1");
    let clock = handle_of(&sup, i).await;
    wait_state(&clock, "the board's name", |s| s.name == "Table 3").await;
    let after = by_name(&sup).await;
    assert_eq!(after["Table 3"], (0, 3), "{after:?}");
    assert_eq!(after["Table 2"], (1, 2), "{after:?}");
    assert_eq!(after["Table 1"], (2, 1), "{after:?}");
    assert_eq!(
        sup.boards(),
        [(0, 3), (1, 2), (2, 1)].into_iter().collect(),
        "the supervisor's numbers are the clocks'"
    );
    // The remembered boards come back in board order.
    assert_eq!(
        sup.remembered().await,
        vec![
            super::Remembered::Virtual("Table 1".into()),
            super::Remembered::Virtual("Table 2".into()),
            super::Remembered::Port(tty.path().to_path_buf()),
        ]
    );
    sup.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_detached_board_attached_again_gets_its_game_and_number_back() {
    let dir = state_dir("id-detach");
    let (sup, changes) = start(defaults(&dir));
    let _seen = serve(changes);
    sup.add_virtual("a").await.expect("a");
    let b = sup.add_virtual("b").await.expect("b");
    let hb = handle_of(&sup, b).await;
    begin(&hb).await;
    hb.request(Request::Rename("Bee".into()))
        .await
        .expect("renamed");
    wait_state(&hb, "the new name", |s| s.name == "Bee").await;
    sup.detach(b, DetachHow::Keep).await.expect("detached");
    // Another board meanwhile takes the next free number, not b's.
    let c = sup.add_virtual("c").await.expect("c");
    assert_eq!(handle_of(&sup, c).await.state().board, 3);
    let again = sup.add_virtual("b").await.expect("b again");
    let st = handle_of(&sup, again).await.state();
    assert_eq!((st.board, st.name.as_str()), (2, "Bee"), "{st:?}");
    assert_eq!(st.game_state, Status::Running, "{st:?}");
    assert_eq!(st.snapshot.moves.white, 1, "{st:?}");
    assert_eq!(st.snapshot.running, Some(Side::Black), "{st:?}");

    // Archived: the game is over, the number stays; forgotten: the number is free.
    sup.detach(again, DetachHow::Archive)
        .await
        .expect("archived");
    let again = sup.add_virtual("b").await.expect("b again");
    let st = handle_of(&sup, again).await.state();
    assert_eq!((st.board, st.game_state), (2, Status::Ready), "{st:?}");
    sup.detach(again, DetachHow::Forget)
        .await
        .expect("forgotten");
    let d = sup.add_virtual("d").await.expect("d");
    assert_eq!(handle_of(&sup, d).await.state().board, 2);
    sup.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_board_replugged_on_another_port_takes_its_game_number_and_name_there() {
    let dir = state_dir("id-replug");
    let (sup, changes) = start(defaults(&dir));
    let _seen = serve(changes);
    sup.add_virtual("first").await.expect("a virtual clock");
    let old = board("22222");
    let old_path = old.path().to_path_buf();
    let clock = ready(&sup, &old_path, "22222").await;
    let i = clock.state().index;
    clock
        .request(Request::Rename("Table 2".into()))
        .await
        .expect("renamed");
    begin(&clock).await;
    assert_eq!(clock.state().board, 2);

    // Unplugged; it comes back on another port, which the hotplug attaches. (The new pty is
    // made first, so that it is not the old one's number again.)
    let new = board("22222");
    let new_path = new.path().to_path_buf();
    drop(old);
    wait_state(&clock, "the board gone", |s| {
        s.device_state == DeviceState::Disconnected
    })
    .await;
    assert_ne!(new_path, old_path);
    let j = sup
        .attach(&new_path.display().to_string())
        .await
        .expect("the new port");
    assert_ne!(i, j);

    // The game moves there: one clock, the old number, the same game on the new port.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let moved = loop {
        let handles = sup.handles().await;
        let here = handles.iter().find(|h| {
            let st = h.state();
            st.port == new_path.display().to_string() && st.index == i
        });
        if let Some(h) = here
            && handles.len() == 2
        {
            break h.clone();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the game did not move: {:?}",
            handles.iter().map(|h| h.state().clock).collect::<Vec<_>>()
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    wait_state(&moved, "the game on the new port", |s| {
        s.device_state == DeviceState::Ready && s.board_serial == "22222"
    })
    .await;
    let st = moved.state();
    assert_eq!((st.board, st.name.as_str()), (2, "Table 2"), "{st:?}");
    assert_eq!(st.game_state, Status::Running, "{st:?}");
    assert_eq!(st.snapshot.moves.white, 1, "{st:?}");
    assert!(
        st.notices.iter().any(|n| n.contains("came back on")),
        "{:?}",
        st.notices
    );
    let remembered = crate::remembered::load(&dir);
    assert!(
        remembered.ports.contains(&new_path) && !remembered.ports.contains(&old_path),
        "{remembered:?}"
    );

    // After a restart: the same game on the new port, nothing on the old one.
    sup.shutdown().await;
    let (sup, changes) = start(defaults(&dir));
    let _seen = serve(changes);
    let k = sup
        .attach(&new_path.display().to_string())
        .await
        .expect("again");
    let st = handle_of(&sup, k).await.state();
    assert_eq!((st.board, st.game_state), (2, Status::Running), "{st:?}");
    assert_eq!(st.name, "Table 2", "{st:?}");
    assert_eq!(st.snapshot.moves.white, 1, "{st:?}");
    sup.shutdown().await;
    drop(new);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_number_set_by_hand_is_kept_and_another_clock_s_is_refused() {
    let dir = state_dir("id-set");
    let (sup, changes) = start(defaults(&dir));
    let _seen = serve(changes);
    let a = sup.add_virtual("a").await.expect("a");
    let b = sup.add_virtual("b").await.expect("b");
    let refused = sup.set_board(b, 1).await;
    assert!(
        matches!(&refused, Err(super::SupervisorError::NotAllowed(m)) if m.contains("board 1 is clock 0")),
        "{refused:?}"
    );
    assert_eq!(
        sup.set_board(b, 137).await,
        Ok("clock 1: board 2 -> board 137".into())
    );
    let hb = handle_of(&sup, b).await;
    wait_state(&hb, "board 137", |s| s.board == 137).await;
    assert_eq!(handle_of(&sup, a).await.state().board, 1);
    sup.shutdown().await;
    let (sup, changes) = start(defaults(&dir));
    let _seen = serve(changes);
    let b = sup.add_virtual("b").await.expect("b");
    assert_eq!(handle_of(&sup, b).await.state().board, 137);
    sup.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
