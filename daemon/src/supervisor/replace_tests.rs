//! A board swapped mid-game (`Replace`, issue 44 item 4): the game goes on on the spare with
//! its moves, times, board number and name, across a restart; what the swap refuses. Real
//! actors, emulated boards on real ptys; waits are on the clocks' state.

use super::identity_tests::{begin, board, handle_of, ready};
use super::tests::{defaults, serve, state_dir, wait_state};
use super::{SupervisorError, start};
use crate::device::{DeviceState, Request};
use crate::engine::Status;

#[tokio::test]
async fn a_game_swapped_to_a_spare_goes_on_there_with_its_number_and_survives_a_restart() {
    let dir = state_dir("replace");
    let (sup, changes) = start(defaults(&dir));
    let _seen = serve(changes);
    sup.add_virtual("first").await.expect("a virtual clock");
    let failing = board("33333");
    let clock = ready(&sup, failing.path(), "33333").await;
    let i = clock.state().index;
    clock
        .request(Request::Rename("Table 2".into()))
        .await
        .expect("renamed");
    begin(&clock).await;
    assert_eq!(clock.state().board, 2);

    // The spare is plugged in; the operator names its port (not attached yet).
    let spare = board("44444");
    let said = sup
        .replace(i, &spare.path().display().to_string())
        .await
        .expect("the swap");
    assert!(
        said.contains("board 2") && said.contains(&spare.path().display().to_string()),
        "{said}"
    );

    // One clock for the game, the same index, on the spare's port; the failing board let go.
    let handles = sup.handles().await;
    assert_eq!(handles.len(), 2, "the virtual clock and the game's clock");
    let moved = handle_of(&sup, i).await;
    wait_state(&moved, "the game on the spare", |s| {
        s.device_state == DeviceState::Ready && s.board_serial == "44444"
    })
    .await;
    let st = moved.state();
    assert_eq!(st.port, spare.path().display().to_string());
    assert_eq!((st.board, st.name.as_str()), (2, "Table 2"), "{st:?}");
    assert_eq!(st.game_state, Status::Running, "{st:?}");
    assert_eq!(st.snapshot.moves.white, 1, "{st:?}");
    assert!(
        st.notices.iter().any(|n| n.contains("the game moved from")),
        "{:?}",
        st.notices
    );
    assert!(
        !handles
            .iter()
            .any(|h| h.state().port == failing.path().display().to_string()),
        "the failing board is detached"
    );
    let remembered = crate::remembered::load(&dir);
    assert!(
        remembered.ports.contains(spare.path()) && !remembered.ports.contains(failing.path()),
        "{remembered:?}"
    );

    // A restart finds the game on the spare, and the failing board, plugged in again, is a
    // new board with a new number and no game.
    sup.shutdown().await;
    let (sup, changes) = start(defaults(&dir));
    let _seen = serve(changes);
    sup.add_virtual("first").await.expect("the virtual clock");
    let again = ready(&sup, spare.path(), "44444").await;
    let st = again.state();
    assert_eq!((st.board, st.game_state), (2, Status::Running), "{st:?}");
    assert_eq!((st.snapshot.moves.white, st.name.as_str()), (1, "Table 2"));
    let back = ready(&sup, failing.path(), "33333").await;
    let st = back.state();
    assert_eq!((st.board, st.game_state), (3, Status::Ready), "{st:?}");
    sup.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_swap_by_serial_number_and_what_a_swap_refuses() {
    let dir = state_dir("replace-refused");
    let (sup, changes) = start(defaults(&dir));
    let _seen = serve(changes);
    let a = board("55555");
    let b = board("66666");
    let first = ready(&sup, a.path(), "55555").await;
    let second = ready(&sup, b.path(), "66666").await;
    let (i, j) = (first.state().index, second.state().index);
    begin(&first).await;
    begin(&second).await;

    let refused = |r: Result<String, SupervisorError>| r.expect_err("refused").to_string();
    // Its own port, a serial no other board reports, a board with a game of its own.
    let own = refused(sup.replace(i, &a.path().display().to_string()).await);
    assert!(own.contains("own port"), "{own}");
    let unknown = refused(sup.replace(i, "12345").await);
    assert!(
        unknown.contains("\"12345\"") && unknown.contains("list"),
        "{unknown}"
    );
    let busy = refused(sup.replace(i, "66666").await);
    assert!(busy.contains("a game of its own"), "{busy}");
    // Nothing changed.
    assert_eq!(first.state().snapshot.moves.white, 1);
    assert_eq!(second.state().snapshot.moves.white, 1);
    assert_eq!(sup.handles().await.len(), 2);

    // The second game ends and its board is archived away; a fresh board on its port takes
    // the first game, named by its serial number.
    sup.detach(j, super::DetachHow::Archive)
        .await
        .expect("detached");
    let spare = ready(&sup, b.path(), "66666").await;
    assert_eq!(spare.state().game_state, Status::Ready);
    sup.replace(i, "66666").await.expect("the swap by serial");
    let moved = handle_of(&sup, i).await;
    wait_state(&moved, "the game on the spare", |s| {
        s.device_state == DeviceState::Ready && s.board_serial == "66666"
    })
    .await;
    assert_eq!(moved.state().snapshot.moves.white, 1);
    assert_eq!(sup.handles().await.len(), 1);
    sup.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
