//! `[[clock]]` tables matched by board serial number, without a bus: a board attached at run
//! time gets its table's settings, a game under way keeps its control (and its journal over a
//! rename and a restart), a table whose clock is attached already is not applied twice, and a
//! virtual clock is never matched. Real actors on emulated boards on ptys.

use std::path::Path;

use chessclock_protocol::emulator::EmuConfig;
use chessclock_protocol::emulator::board::BoardConfig;

use super::tests::{defaults, only_handle, serve, state_dir, wait_state};
use super::{BoardTable, ClockSpec, Defaults, start};
use crate::device::{BoardSide, Request};
use crate::engine::{Side, Status, notation};
use crate::virtual_board::{VirtualBoard, VirtualOptions};

fn board(serial: &str) -> VirtualBoard {
    VirtualBoard::start(VirtualOptions {
        emu: EmuConfig {
            board: BoardConfig {
                serial_number: serial.into(),
                ..BoardConfig::default()
            },
            ..EmuConfig::default()
        },
        ..VirtualOptions::default()
    })
    .expect("emulated board")
}

fn table(serial: &str, name: &str) -> BoardTable {
    BoardTable {
        board_serial: serial.into(),
        spec: ClockSpec {
            name: Some(name.into()),
            white_side: BoardSide::Right,
            time_control: Some(
                crate::engine::notation::parse("G/5 inc/3")
                    .expect("notation")
                    .control,
            ),
            game_info: vec![("Board".into(), "3".into())],
            ..ClockSpec::default()
        },
        key: "clock[1]".into(),
    }
}

fn with_tables(dir: &Path, tables: Vec<BoardTable>) -> Defaults {
    Defaults {
        tables,
        ..defaults(dir)
    }
}

fn canonical(text: &str) -> String {
    notation::parse(text).expect("notation").canonical
}

fn journals(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("state dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".journal"))
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_board_attached_at_run_time_gets_the_table_of_its_serial_number() {
    let dir = state_dir("table-apply");
    let (sup, changes) = start(with_tables(
        &dir,
        vec![table("11111", "Other"), table("13579", "Table 3")],
    ));
    let _seen = serve(changes);
    let b = board("13579");
    sup.attach(&b.path().display().to_string())
        .await
        .expect("attached");
    let clock = only_handle(&sup).await;
    let want = canonical("G/5 inc/3");
    wait_state(&clock, "the table's settings", |s| {
        s.name == "Table 3"
            && s.white_side == BoardSide::Right
            && s.time_control == want
            && s.game_info.get("Board").is_some_and(|v| v == "3")
    })
    .await;
    let st = clock.state();
    assert_eq!(st.board_serial, "13579");
    assert_eq!(st.game_state, Status::Ready);
    assert!(st.notices.is_empty(), "{:?}", st.notices);
    sup.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_game_under_way_keeps_its_control_and_its_journal_over_the_rename() {
    let dir = state_dir("table-running");
    let b = board("13579");
    let port = b.path().display().to_string();
    // Attached, its game started, before any table names it.
    let (sup, changes) = start(defaults(&dir));
    let _seen = serve(changes);
    sup.attach(&port).await.expect("attached");
    let clock = only_handle(&sup).await;
    wait_state(&clock, "the board's serial number", |s| {
        s.board_serial == "13579"
    })
    .await;
    let before = clock.state().time_control.clone();
    clock
        .request(Request::Start(Side::White))
        .await
        .expect("started");
    clock
        .request(Request::Press(Side::White))
        .await
        .expect("pressed");
    let journal = journals(&dir);
    assert_eq!(journal.len(), 1, "{journal:?}");

    // A reload adds the table: name and side apply at once, the control does not.
    sup.set_defaults(with_tables(&dir, vec![table("13579", "Table 3")]))
        .await;
    wait_state(&clock, "the name, and the notice about the control", |s| {
        s.name == "Table 3" && s.notices.iter().any(|n| n.contains("keeps"))
    })
    .await;
    let st = clock.state();
    assert_eq!(
        st.time_control, before,
        "a game under way keeps its control"
    );
    assert_eq!(st.white_side, BoardSide::Right);
    assert_eq!(st.game_state, Status::Running);
    assert!(
        st.notices.iter().any(|n| n.contains("G/5 inc/3")),
        "{:?}",
        st.notices
    );
    sup.shutdown().await;
    assert_eq!(journals(&dir), journal, "the rename forked no journal");

    // After a restart the remembered board resumes its game from the same journal and
    // gets its table again.
    let (sup, changes) = start(with_tables(&dir, vec![table("13579", "Table 3")]));
    let _seen = serve(changes);
    sup.attach(&port).await.expect("attached again");
    let clock = only_handle(&sup).await;
    wait_state(&clock, "the table's name after the restart", |s| {
        s.name == "Table 3"
    })
    .await;
    let st = clock.state();
    assert_eq!(st.game_state, Status::Running, "{st:?}");
    assert_eq!(st.snapshot.running, Some(Side::Black), "{st:?}");
    assert_eq!(st.time_control, before);
    assert_eq!(journals(&dir), journal);
    sup.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_table_whose_clock_is_attached_already_and_virtual_clocks_are_not_matched() {
    let dir = state_dir("table-taken");
    // A table for the serial a virtual clock "v"'s board reports too.
    let virtual_serial = crate::virtual_board::board_serial("v");
    let (sup, changes) = start(with_tables(
        &dir,
        vec![table("24680", "Table 3"), table(&virtual_serial, "Table V")],
    ));
    let _seen = serve(changes);
    // The table's own clock, by its port (not plugged in).
    let own = sup
        .attach_spec(ClockSpec {
            port: dir.join("board-3"),
            name: Some("Table 3".into()),
            wait_for_port: true,
            configured: true,
            board_serial: Some("24680".into()),
            ..ClockSpec::default()
        })
        .await
        .expect("configured clock");
    // A virtual clock's board reports the serial of a table: it is not matched.
    let v = sup.add_virtual("v").await.expect("virtual clock");
    let handles = sup.handles().await;
    let virtual_clock = handles[1].clone();
    wait_state(&virtual_clock, "the virtual board's serial", |s| {
        s.board_serial == virtual_serial
    })
    .await;

    // The same board plugged in elsewhere keeps the defaults, and the operator is told.
    let b = board("24680");
    let other = sup
        .attach(&b.path().display().to_string())
        .await
        .expect("attached");
    let clock = sup.handles().await[2].clone();
    wait_state(&clock, "the notice that the table is taken", |s| {
        s.notices
            .iter()
            .any(|n| n.contains(&format!("clock {own}")) && n.contains("clock[1]"))
    })
    .await;
    assert_ne!(clock.state().name, "Table 3");
    assert_eq!(clock.state().white_side, BoardSide::Left);
    let st = virtual_clock.state();
    assert_eq!(st.name, "v", "virtual clock {v} is not matched");
    assert!(st.notices.is_empty(), "{:?}", st.notices);
    assert!(other > v);
    sup.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
