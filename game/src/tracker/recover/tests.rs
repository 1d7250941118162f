//! Recovery from logs the emulated board writes (`chessclock_protocol::emulator`): moves made
//! while no host listened, and each refusal.

use chessclock_protocol::emulator::board::raw_dump;
use chessclock_protocol::emulator::{
    BoardConfig, EE_LOG_BYTES, EmuConfig, Emulator, MoveOrder, PieceAction, PieceMove,
};
use chessclock_protocol::{Orientation, ee_log};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};

use super::*;

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

fn play(e: &mut Emulator, now: &mut u64, moves: &[&str], order: MoveOrder) {
    for uci in moves {
        *now += 1000;
        let m = PieceMove::parse(uci, e.pieces()).expect("move");
        e.piece_action(*now, PieceAction::Move(m, order))
            .expect("the board carries it out");
    }
}

fn position(moves: &[&str]) -> Chess {
    let mut pos = Chess::default();
    for uci in moves {
        let m = uci
            .parse::<UciMove>()
            .expect("uci")
            .to_move(&pos)
            .expect("legal");
        pos.play_unchecked(m);
    }
    pos
}

/// What the board shows now and its decoded log.
fn read(e: &Emulator) -> (RawFields, Vec<EeRecord>) {
    let shown = raw_dump(e.pieces(), e.config().board.orientation).fields;
    let log = ee_log::decode(&e.ee_log()).expect("the log decodes");
    (shown, log.records)
}

fn sans(r: &Recovered) -> Vec<&str> {
    r.moves.iter().map(|m| m.san.as_str()).collect()
}

#[test]
fn moves_made_while_no_host_listened_are_recovered_as_the_live_tracker_reads_them() {
    for (orientation, order) in [
        (Orientation::Normal, MoveOrder::MoverFirst),
        (Orientation::Normal, MoveOrder::OtherFirst),
        (Orientation::Rotated, MoveOrder::OtherFirst),
    ] {
        let mut e = emu(orientation, EE_LOG_BYTES);
        let mut now = 0;
        let known = ["e2e4", "d7d5"];
        play(&mut e, &mut now, &known, order);
        // The host goes away: a capture, knight moves, an en passant and castling.
        play(
            &mut e,
            &mut now,
            &[
                "e4e5", "f7f5", "e5f6", "g8f6", "g1f3", "b8c6", "f1b5", "c8d7", "e1g1",
            ],
            order,
        );
        let (shown, records) = read(&e);
        let r = recover(&position(&known), orientation, &records, &shown)
            .unwrap_or_else(|err| panic!("{orientation:?} {order:?}: {err}"));
        assert_eq!(
            sans(&r),
            [
                "e5", "f5", "exf6", "Nxf6", "Nf3", "Nc6", "Bb5", "Bd7", "O-O"
            ],
            "{orientation:?} {order:?}"
        );
        assert_eq!(r.moves[0].ply, 1);
        assert_eq!(r.moves[8].uci, "e1g1");
        assert_eq!(r.position.board(), &placement(&shown, orientation));
    }
}

#[test]
fn nothing_moved_recovers_nothing() {
    let mut e = emu(Orientation::Normal, EE_LOG_BYTES);
    let mut now = 0;
    play(&mut e, &mut now, &["d2d4"], MoveOrder::MoverFirst);
    let (shown, records) = read(&e);
    let r = recover(&position(&["d2d4"]), Orientation::Normal, &records, &shown).expect("ok");
    assert!(r.moves.is_empty());
    assert_eq!(r.from_record, records.len());
}

#[test]
fn the_anchor_is_the_last_time_the_pieces_stood_as_the_game_knew() {
    // The knights go out and back: the known position stands again, and only what follows
    // that last time is recovered (the same position, so the same game from there).
    let mut e = emu(Orientation::Normal, EE_LOG_BYTES);
    let mut now = 0;
    play(
        &mut e,
        &mut now,
        &["g1f3", "g8f6", "f3g1", "f6g8", "c2c4"],
        MoveOrder::MoverFirst,
    );
    let (shown, records) = read(&e);
    let r = recover(&Chess::default(), Orientation::Normal, &records, &shown).expect("ok");
    assert_eq!(sans(&r), ["c4"]);
}

#[test]
fn a_power_up_in_the_middle_is_read_through_its_inventory() {
    let mut e = emu(Orientation::Normal, EE_LOG_BYTES);
    let mut now = 0;
    play(&mut e, &mut now, &["e2e4", "c7c5"], MoveOrder::MoverFirst);
    e.reset_board(now + 10);
    play(&mut e, &mut now, &["g1f3", "d7d6"], MoveOrder::MoverFirst);
    let (shown, records) = read(&e);
    let r = recover(&position(&["e2e4"]), Orientation::Normal, &records, &shown).expect("ok");
    assert_eq!(sans(&r), ["c5", "Nf3", "d6"]);
    // A move made while the board was off is not in the log: the inventory shows it done,
    // and the tracker reads the jump as it reads a board dump (one legal move away).
    let mut off = records.clone();
    let powerup = off
        .iter()
        .rposition(|r| *r == EeRecord::PowerUp)
        .expect("a second power-up");
    // Remove c7c5's two field records (just before the second power-up's three NOPs).
    off.drain(powerup - 5..powerup - 3);
    let r = recover(&position(&["e2e4"]), Orientation::Normal, &off, &shown).expect("ok");
    assert_eq!(sans(&r), ["c5", "Nf3", "d6"]);
}

#[test]
fn a_log_without_the_whole_placement_is_refused() {
    // A 61-byte ring: the power-up inventory and every set-up tag are overwritten.
    let mut e = emu(Orientation::Normal, 61);
    let mut now = 0;
    let line = [
        "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5", "c2c3", "d7d6", "b1d2",
        "a7a6", "b2b4", "c5a7", "a2a4", "h7h6",
    ];
    play(&mut e, &mut now, &line, MoveOrder::MoverFirst);
    let (shown, records) = read(&e);
    let err = recover(
        &position(&line[..14]),
        Orientation::Normal,
        &records,
        &shown,
    )
    .expect_err("no reference");
    assert_eq!(err, RecoveryError::NoReference);
    assert!(err.to_string().contains("no power-up inventory"), "{err}");
}

#[test]
fn a_log_that_never_shows_the_known_position_is_refused() {
    let mut e = emu(Orientation::Normal, EE_LOG_BYTES);
    let mut now = 0;
    play(&mut e, &mut now, &["e2e4", "e7e5"], MoveOrder::MoverFirst);
    let (shown, records) = read(&e);
    let known = position(&["d2d4"]);
    let err = recover(&known, Orientation::Normal, &records, &shown).expect_err("no anchor");
    assert_eq!(err, RecoveryError::NoAnchor { fen: fen(&known) });
    assert!(err.to_string().contains("never shows the pieces"), "{err}");
}

#[test]
fn an_illegal_move_in_the_log_is_refused() {
    let mut e = emu(Orientation::Normal, EE_LOG_BYTES);
    let mut now = 0;
    // The emulated board moves any piece anywhere: a knight to g3 is no chess move.
    play(
        &mut e,
        &mut now,
        &["e2e4", "g1g3", "e7e5"],
        MoveOrder::MoverFirst,
    );
    let (shown, records) = read(&e);
    let err =
        recover(&Chess::default(), Orientation::Normal, &records, &shown).expect_err("illegal");
    let RecoveryError::NotExplained {
        recovered,
        differences,
        ..
    } = &err
    else {
        panic!("expected NotExplained, got {err}");
    };
    assert_eq!(*recovered, 1, "e4 was read before the knight jumped");
    assert!(err.to_string().contains("no single legal"), "{err}");
    assert!(
        differences.iter().any(|d| d.square == shakmaty::Square::G3),
        "{differences:?}"
    );
}

#[test]
fn a_log_that_does_not_end_in_the_position_shown_is_refused() {
    let mut e = emu(Orientation::Normal, EE_LOG_BYTES);
    let mut now = 0;
    play(&mut e, &mut now, &["e2e4", "e7e5"], MoveOrder::MoverFirst);
    let (_, stale) = read(&e);
    play(&mut e, &mut now, &["g1f3"], MoveOrder::MoverFirst);
    let (shown, _) = read(&e);
    let err =
        recover(&Chess::default(), Orientation::Normal, &stale, &shown).expect_err("stale log");
    let RecoveryError::EndsElsewhere { fen: end, .. } = &err else {
        panic!("expected EndsElsewhere, got {err}");
    };
    assert_eq!(*end, fen(&position(&["e2e4", "e7e5"])));
    assert!(
        err.to_string()
            .contains("not in the position the board shows now")
    );
}

#[test]
fn a_new_game_in_the_log_is_refused() {
    let mut e = emu(Orientation::Normal, EE_LOG_BYTES);
    let mut now = 0;
    play(
        &mut e,
        &mut now,
        &["e2e4", "e7e5", "g1f3"],
        MoveOrder::MoverFirst,
    );
    e.piece_action(now + 1000, PieceAction::Setup)
        .expect("setup");
    now += 2000;
    play(&mut e, &mut now, &["d2d4"], MoveOrder::MoverFirst);
    let (shown, records) = read(&e);
    let err = recover(&position(&["e2e4"]), Orientation::Normal, &records, &shown)
        .expect_err("a new game");
    assert_eq!(err, RecoveryError::LeftTheGame { what: "a new game" });
}
