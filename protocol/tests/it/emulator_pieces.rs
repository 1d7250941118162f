//! The emulator's real pieces: moves framed as field updates, the board dump in the board's
//! orientation, silence in idle mode, and bad moves refused without a change.
#![cfg(feature = "emulator")]

use chessclock_protocol::emulator::{
    BoardConfig, EmuConfig, Emulator, MoveOrder, PieceAction, PieceError, PieceMove,
};
use chessclock_protocol::{Command, Orientation, Square};

fn sq(s: &str) -> Square {
    s.parse().expect("square")
}

fn emu(orientation: Orientation) -> Emulator {
    let mut e = Emulator::new(EmuConfig {
        board: BoardConfig {
            orientation,
            ..BoardConfig::default()
        },
        ..EmuConfig::default()
    });
    e.on_host_bytes(0, &Command::SendUpdateBoard.encode());
    e
}

fn mv(e: &Emulator, text: &str) -> PieceAction {
    PieceAction::Move(
        PieceMove::parse(text, e.pieces()).expect("move"),
        MoveOrder::MoverFirst,
    )
}

#[test]
fn moves_emit_field_updates_as_the_spec_frames_them() {
    let mut e = emu(Orientation::Normal);
    let a = mv(&e, "e2e4");
    e.piece_action(100, a).expect("legal");
    // Spec §9.1: "8e 00 05 34 00" (e2 empty), "8e 00 05 24 01" (e4 white pawn).
    assert_eq!(
        e.poll_output(100),
        [0x8E, 0x00, 0x05, 0x34, 0x00, 0x8E, 0x00, 0x05, 0x24, 0x01]
    );
    let a = mv(&e, "d7d5");
    e.piece_action(200, a).expect("legal");
    e.poll_output(200);
    let capture = PieceAction::Move(
        PieceMove::parse("e4d5", e.pieces()).expect("move"),
        MoveOrder::OtherFirst,
    );
    e.piece_action(300, capture).expect("legal");
    // d5 (field 27) lifted first, then e4 (36) lifted, then a white pawn set on d5.
    assert_eq!(
        e.poll_output(300),
        [0x8E, 0, 5, 27, 0, 0x8E, 0, 5, 36, 0, 0x8E, 0, 5, 27, 0x01]
    );
}

#[test]
fn the_board_dump_shows_the_real_position_in_the_boards_orientation() {
    for (o, e2_field) in [(Orientation::Normal, 52usize), (Orientation::Rotated, 11)] {
        let mut e = emu(o);
        let a = mv(&e, "e2e4");
        e.piece_action(100, a).expect("legal");
        e.poll_output(100);
        e.on_host_bytes(200, &Command::SendBoard.encode());
        let out = e.poll_output(300);
        assert_eq!(out[..3], [0x86, 0x00, 0x43]);
        let dump = &out[3..];
        assert_eq!(dump[e2_field], 0, "{o:?}: e2 empty");
        assert_eq!(dump[usize::from(sq("e4").field_oriented(o))], 0x01, "{o:?}");
        assert_eq!(dump[usize::from(sq("e1").field_oriented(o))], 0x05, "{o:?}");
    }
}

#[test]
fn idle_boards_stay_silent_and_bad_moves_change_nothing() {
    let mut e = Emulator::new(EmuConfig::default());
    let a = mv(&e, "e2e4");
    e.piece_action(100, a).expect("legal");
    assert!(e.poll_output(100).is_empty(), "IDLE sends no field updates");
    let before = e.pieces().clone();
    assert_eq!(
        e.piece_action(200, PieceAction::Lift(sq("e5"))),
        Err(PieceError::NothingToLift(sq("e5")))
    );
    assert_eq!(e.pieces(), &before);
    e.piece_action(300, PieceAction::Clear).expect("clear");
    assert!(e.pieces().fields.iter().all(Option::is_none));
    e.piece_action(400, PieceAction::Setup).expect("setup");
    assert_eq!(
        e.view().pieces,
        chessclock_protocol::emulator::board::start_position()
    );
}
