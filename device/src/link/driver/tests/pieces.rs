//! The pieces: the whole board asked for after the handshake and again once the pieces stand
//! still after field updates; dumps and field updates handed to the caller with their time.

use chessclock_protocol::emulator::{EmuConfig, MoveOrder, PieceAction, PieceMove};
use chessclock_protocol::{Command, Message};

use super::ready;
use crate::link::driver::{BOARD_SETTLE, DriverEvent};

fn board_events(p: &super::Pair, from: u64) -> Vec<(u64, Message)> {
    p.events_since(from, |e| matches!(e, DriverEvent::Board { .. }))
        .into_iter()
        .filter_map(|(t, e)| match e {
            DriverEvent::Board { message, .. } => Some((t, message)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_board_is_dumped_after_the_handshake_and_after_moves_settle() {
    let mut p = ready(EmuConfig::default());
    // One dump request after the handshake, answered with the start position.
    assert_eq!(p.sent(&Command::SendBoard).len(), 1);
    let dumps = board_events(&p, 0);
    assert!(
        matches!(dumps.as_slice(), [(_, Message::BoardDump(_))]),
        "{dumps:?}"
    );
    // e2-e4: two field updates, then after BOARD_SETTLE of quiet one more dump.
    let mv = PieceMove::parse("e2e4", p.emu.pieces()).expect("move");
    let at = p.now + 10;
    p.run_until(at);
    p.emu
        .piece_action(at, PieceAction::Move(mv, MoveOrder::MoverFirst))
        .expect("legal");
    p.run_until(at + 100);
    let updates: Vec<_> = board_events(&p, at)
        .into_iter()
        .filter(|(_, m)| matches!(m, Message::FieldUpdate { .. }))
        .collect();
    assert_eq!(updates.len(), 2, "{updates:?}");
    assert_eq!(
        p.sent(&Command::SendBoard).len(),
        1,
        "not before the pieces settle"
    );
    p.run_until(at + BOARD_SETTLE.as_millis() as u64 + 100);
    let asked = p.sent(&Command::SendBoard);
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(
        asked[1] >= at + BOARD_SETTLE.as_millis() as u64,
        "{asked:?}"
    );
    let last = board_events(&p, at).pop();
    assert!(
        matches!(last, Some((_, Message::BoardDump(_)))),
        "the settled board: {last:?}"
    );
}
