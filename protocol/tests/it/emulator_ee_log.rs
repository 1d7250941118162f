//! The emulated board's move log (spec §8a): what it writes for power-ups, moves, set-ups and
//! lever presses, how its ring wraps, and the `0x49` dump that carries it.
#![cfg(feature = "emulator")]

use chessclock_protocol::ee_log::{self, EeRecord};
use chessclock_protocol::emulator::{
    BoardConfig, EE_LOG_BYTES, EmuConfig, Emulator, MoveOrder, PieceAction, PieceMove,
};
use chessclock_protocol::{Command, Decoded, Decoder, Message, Orientation, Piece, Square};

fn sq(s: &str) -> Square {
    s.parse().expect("square")
}

fn emu(orientation: Orientation, ee_log_bytes: usize) -> Emulator {
    Emulator::new(EmuConfig {
        board: BoardConfig {
            orientation,
            ee_log_bytes,
            ..BoardConfig::default()
        },
        ..EmuConfig::default()
    })
}

fn play(e: &mut Emulator, now: u64, uci: &str) {
    let m = PieceMove::parse(uci, e.pieces()).expect("move");
    e.piece_action(now, PieceAction::Move(m, MoveOrder::MoverFirst))
        .expect("the board carries it out");
}

fn records(e: &Emulator) -> Vec<EeRecord> {
    ee_log::decode(&e.ee_log())
        .expect("the log decodes")
        .records
}

fn field(piece: Option<Piece>, square: &str, quick: bool) -> EeRecord {
    EeRecord::Field {
        piece,
        square: sq(square),
        quick,
    }
}

#[test]
fn power_up_writes_the_inventory_and_the_start_tag() {
    let e = emu(Orientation::Normal, EE_LOG_BYTES);
    let r = records(&e);
    assert_eq!(
        r[..4],
        [
            EeRecord::Nop,
            EeRecord::Nop,
            EeRecord::Nop,
            EeRecord::PowerUp
        ]
    );
    // One record per occupied square, field order (a8 first), all at the same instant.
    assert_eq!(r.len(), 4 + 32 + 1);
    assert_eq!(r[4], field(Some(Piece::BlackRook), "a8", false));
    assert_eq!(r[35], field(Some(Piece::WhiteRook), "h1", true));
    assert_eq!(r[36], EeRecord::BeginPos);
    // Turned round, the board's own fields hold White's pieces from 0: the rotated tag.
    let e = emu(Orientation::Rotated, EE_LOG_BYTES);
    let r = records(&e);
    assert_eq!(r[4], field(Some(Piece::WhiteRook), "a8", false));
    assert_eq!(r.last(), Some(&EeRecord::BeginPosRot));
}

#[test]
fn moves_are_logged_in_idle_mode_with_the_quick_bit_and_the_tags_rearm() {
    let mut e = emu(Orientation::Normal, EE_LOG_BYTES);
    let before = records(&e).len();
    // No host ever switched the board to update mode: the log is written all the same.
    play(&mut e, 1000, "e2e4");
    play(&mut e, 2000, "e7e5");
    let r = records(&e);
    assert_eq!(
        r[before..],
        [
            field(None, "e2", false),
            field(Some(Piece::WhitePawn), "e4", true),
            field(None, "e7", false),
            field(Some(Piece::BlackPawn), "e5", true),
        ]
    );
    assert!(e.poll_output(3000).is_empty(), "idle: nothing sent");
    // Four squares have left the start position: setting it up again is tagged again.
    e.piece_action(5000, PieceAction::Setup).expect("setup");
    assert_eq!(records(&e).last(), Some(&EeRecord::BeginPos));
    // One move away and back (two squares) does not re-arm: no second tag.
    play(&mut e, 6000, "g1f3");
    play(&mut e, 7000, "f3g1");
    let tags = records(&e)
        .iter()
        .filter(|r| **r == EeRecord::BeginPos)
        .count();
    assert_eq!(tags, 2);
    e.piece_action(8000, PieceAction::Clear).expect("clear");
    assert_eq!(records(&e).last(), Some(&EeRecord::EmptyBoard));
}

#[test]
fn a_lever_press_logs_the_time_of_the_half_that_stopped() {
    let mut e = emu(Orientation::Normal, EE_LOG_BYTES);
    e.press_lever(0);
    assert!(
        !records(&e)
            .iter()
            .any(|r| matches!(r, EeRecord::Clock { .. })),
        "a clock that does not run logs no time"
    );
    e.start_own_game(0, 3723);
    let running_left = e.view().running == chessclock_protocol::emulator::Running::Left;
    e.press_lever(5000);
    let last = records(&e).last().copied();
    assert_eq!(
        last,
        Some(EeRecord::Clock {
            left: running_left,
            hours: 1,
            minutes: 1,
            seconds: 58
        })
    );
}

#[test]
fn the_ring_wraps_keeping_the_newest_bytes() {
    // The same game on an 8 KB board and on a board with a 101-byte dump.
    let line = [
        "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7", "f1e1",
        "b7b5", "a4b3", "d7d6", "c2c3", "e8g8",
    ];
    let (mut big, mut small) = (
        emu(Orientation::Normal, EE_LOG_BYTES),
        emu(Orientation::Normal, 101),
    );
    for (i, m) in line.iter().enumerate() {
        let now = 1000 * (i as u64 + 1);
        play(&mut big, now, m);
        play(&mut small, now, m);
    }
    let full = big.ee_log();
    let ring = small.ee_log();
    assert_eq!(ring.len(), 101, "a full ring dumps its whole size");
    assert!(full.ends_with(&ring), "the ring keeps the newest bytes");
    let kept = ee_log::decode(&ring).expect("a wrapped ring decodes");
    let all = records(&big);
    assert!(all.ends_with(&kept.records));
    // The cut record and the field records before the first byte only a record starts are
    // skipped (a lift, 0x40, or a quick white piece, 0x5X below 0x5A, may be BCD); the rest
    // is whole.
    assert!(!kept.records.is_empty());
    assert_eq!(
        kept.skipped + ee_log::encode(&kept.records).len(),
        ring.len()
    );
}

#[test]
fn a_power_up_in_the_middle_writes_a_new_inventory_of_the_pieces_standing() {
    let mut e = emu(Orientation::Normal, EE_LOG_BYTES);
    play(&mut e, 1000, "e2e4");
    e.reset_board(2000);
    play(&mut e, 3000, "e7e5");
    let r = records(&e);
    let ups: Vec<usize> = (0..r.len())
        .filter(|&i| r[i] == EeRecord::PowerUp)
        .collect();
    assert_eq!(ups.len(), 2);
    let at = ups[1];
    assert_eq!(r[at - 3..at], [EeRecord::Nop; 3]);
    let inventory: Vec<&EeRecord> = r[at + 1..at + 33].iter().collect();
    assert!(inventory.contains(&&field(Some(Piece::WhitePawn), "e4", true)));
    assert!(
        !inventory
            .iter()
            .any(|f| matches!(f, EeRecord::Field { square, .. } if *square == sq("e2")))
    );
    // Not the start position: no tag; then the move after the power-up.
    assert_eq!(
        r[at + 33..],
        [
            field(None, "e7", false),
            field(Some(Piece::BlackPawn), "e5", true)
        ]
    );
}

#[test]
fn a_full_dump_takes_as_long_as_a_9600_baud_line() {
    let mut e = emu(Orientation::Normal, EE_LOG_BYTES);
    let mut now = 0;
    // Enough moves to fill the ring: knights out and back.
    while e.ee_log().len() < EE_LOG_BYTES {
        now += 100;
        play(&mut e, now, "g1f3");
        play(&mut e, now + 50, "f3g1");
    }
    e.on_host_bytes(now, &Command::SendEeMoves.encode());
    let mut d = Decoder::new();
    let mut got = 0;
    let mut done_at = None;
    for t in (now..now + 10_000).step_by(100) {
        let out = e.poll_output(t);
        got += out.len();
        d.push(&out);
        if let Some(Ok(Decoded::Message(Message::EeMoves(p)))) = d.next() {
            assert_eq!(p.len(), EE_LOG_BYTES);
            done_at = Some(t - now);
            break;
        }
        if t - now == 4000 {
            assert!(got > 3000 && got < 4500, "{got} bytes after 4 s");
        }
    }
    let took = done_at.expect("the dump arrives within 10 s");
    assert!((8000..=8500).contains(&took), "took {took} ms");
}

#[test]
fn the_dump_is_never_interleaved_with_other_messages() {
    // A clock command's ack due during the dump (asked just before it), a field update and
    // a clock request during it: every message comes out whole (the ack and the report are
    // both BWTIME frames), the dump after the ack.
    let mut e = emu(Orientation::Normal, EE_LOG_BYTES);
    // A log of some 500 bytes: its dump takes half a second.
    for _ in 0..50 {
        play(&mut e, 0, "g1f3");
        play(&mut e, 0, "f3g1");
    }
    e.on_host_bytes(0, &Command::SendUpdateNice.encode());
    e.on_host_bytes(
        10,
        &Command::Clock(chessclock_protocol::ClockCommand::Version).encode(),
    );
    e.on_host_bytes(12, &Command::SendEeMoves.encode());
    play(&mut e, 20, "e2e4");
    e.on_host_bytes(30, &Command::SendClock.encode());
    let mut d = Decoder::new();
    for t in (0..2000).step_by(10) {
        d.push(&e.poll_output(t));
    }
    d.finish();
    let names: Vec<&str> = d
        .map(|item| match item {
            Ok(Decoded::Message(m)) => m.id().name(),
            other => panic!("not a whole message: {other:?}"),
        })
        .collect();
    assert_eq!(
        names,
        [
            "bwtime",
            "ee_moves",
            "field_update",
            "field_update",
            "bwtime"
        ]
    );
}

#[test]
fn send_ee_moves_answers_with_the_log() {
    let mut e = emu(Orientation::Normal, EE_LOG_BYTES);
    play(&mut e, 1000, "d2d4");
    e.on_host_bytes(2000, &Command::SendEeMoves.encode());
    let mut d = Decoder::new();
    d.push(&e.poll_output(3000));
    let Some(Ok(Decoded::Message(Message::EeMoves(payload)))) = d.next() else {
        panic!("expected an EE_MOVES answer");
    };
    assert_eq!(payload, e.ee_log());
    assert_eq!(payload.last(), Some(&0x6B));
}
