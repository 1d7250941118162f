//! The emulated board (protocol crate, feature "emulator") played piece by piece, its bytes
//! decoded by the protocol decoder and fed to the tracker: the moves come out, in both
//! orientations and in both capture/castling orders.

use chessclock_game::{GameEvent, Tracker, TrackerConfig};
use chessclock_protocol::emulator::{
    BoardConfig, EmuConfig, Emulator, MoveOrder, PieceAction, PieceMove,
};
use chessclock_protocol::{Command, Decoded, Decoder, Orientation};

fn pump(emu: &mut Emulator, now: u64, decoder: &mut Decoder, tracker: &mut Tracker) {
    decoder.push(&emu.poll_output(now));
    for item in decoder.by_ref() {
        if let Ok(Decoded::Message(m)) = item {
            tracker.on_message(now, &m);
        }
    }
}

fn game(orientation: Orientation, order: MoveOrder) -> (Vec<String>, Vec<GameEvent>) {
    let mut emu = Emulator::new(EmuConfig {
        board: BoardConfig {
            orientation,
            ..BoardConfig::default()
        },
        ..EmuConfig::default()
    });
    let (mut decoder, mut tracker) = (Decoder::new(), Tracker::new(TrackerConfig::default()));
    let mut now = 0;
    emu.on_host_bytes(now, &Command::SendUpdateNice.encode());
    emu.on_host_bytes(now, &Command::SendBoard.encode());
    for uci in [
        "e2e4", "d7d5", "e4d5", "g8f6", "g1f3", "f6d5", "f1c4", "e7e6", "e1g1", "f8e7",
    ] {
        now += 1000;
        pump(&mut emu, now, &mut decoder, &mut tracker);
        let m = PieceMove::parse(uci, emu.pieces()).expect("move");
        emu.piece_action(now, PieceAction::Move(m, order))
            .expect("playable");
    }
    pump(&mut emu, now + 1000, &mut decoder, &mut tracker);
    let moves = tracker
        .moves()
        .iter()
        .map(|m| m.event.uci.clone())
        .collect();
    let mut events = Vec::new();
    while let Some(e) = tracker.poll_event() {
        events.push(e);
    }
    (moves, events)
}

#[test]
fn an_emulated_game_is_reconstructed_in_every_orientation_and_order() {
    for o in [Orientation::Normal, Orientation::Rotated] {
        for order in [MoveOrder::MoverFirst, MoveOrder::OtherFirst] {
            let (moves, events) = game(o, order);
            assert_eq!(
                moves,
                [
                    "e2e4", "d7d5", "e4d5", "g8f6", "g1f3", "f6d5", "f1c4", "e7e6", "e1g1", "f8e7"
                ],
                "{o:?} {order:?}"
            );
            assert_eq!(events.first(), Some(&GameEvent::Orientation(o)));
            assert!(
                !events
                    .iter()
                    .any(|e| matches!(e, GameEvent::Unexplained { .. })),
                "{events:?}"
            );
        }
    }
}
