//! Unit tests and properties of the move-log decoder.

use proptest::prelude::*;

use super::*;

fn sq(name: &str) -> Square {
    name.parse().expect("square")
}

#[test]
fn every_record_kind_decodes_byte_for_byte() {
    // e2 emptied (0x40 | 0, 52), a white pawn set on e4 quickly (0x40 | 0x10 | 1, 36), the
    // left clock at 1:23:45, the tags, a black king (0x0B) on e8 (4).
    let payload = [
        0x7F, 0x40, 52, 0x51, 36, 0x71, 0x23, 0x45, 0x62, 0x00, 0x09, 0x6A, 0x6B, 0x6C, 0x6D, 0x6E,
        0x6F, 0x7A, 0x7B, 0x7C, 0x7D, 0x7E, 0x00, 0x4B, 4, 0x6B,
    ];
    let log = decode(&payload).expect("decodes");
    assert_eq!(log.skipped, 0);
    assert_eq!(
        log.records,
        [
            EeRecord::Nop,
            EeRecord::Field {
                piece: None,
                square: sq("e2"),
                quick: false
            },
            EeRecord::Field {
                piece: Some(Piece::WhitePawn),
                square: sq("e4"),
                quick: true
            },
            EeRecord::Clock {
                left: true,
                hours: 1,
                minutes: 23,
                seconds: 45
            },
            EeRecord::Clock {
                left: false,
                hours: 2,
                minutes: 0,
                seconds: 9
            },
            EeRecord::PowerUp,
            EeRecord::Eof,
            EeRecord::FourRows,
            EeRecord::EmptyBoard,
            EeRecord::Downloaded,
            EeRecord::BeginPos,
            EeRecord::BeginPosRot,
            EeRecord::StartTag,
            EeRecord::Watchdog,
            EeRecord::Reserved(0x7D),
            EeRecord::Reserved(0x7E),
            EeRecord::Nop2,
            EeRecord::Field {
                piece: Some(Piece::BlackKing),
                square: sq("e8"),
                quick: false
            },
        ]
    );
    assert_eq!(encode(&log.records), payload);
}

#[test]
fn the_tail_of_an_overwritten_record_is_skipped_to_an_unambiguous_start() {
    // The ring's oldest bytes: the minutes and seconds of a clock record (0x45 could also be a
    // field record's first byte), a square (12), then a field record whose first byte 0x41 may
    // be BCD, so it is skipped too; decoding starts at the NOP.
    let payload = [0x45, 0x30, 12, 0x41, 36, 0x7F, 0x6A, 0x6B];
    let log = decode(&payload).expect("decodes");
    assert_eq!(log.skipped, 5);
    assert_eq!(log.records, [EeRecord::Nop, EeRecord::PowerUp]);
    // A clock record's first byte is unambiguous: it starts the log.
    let log = decode(&[0x30, 0x61, 0x05, 0x00, 0x6B]).expect("decodes");
    assert_eq!(log.skipped, 1);
    assert!(matches!(
        log.records[..],
        [EeRecord::Clock { hours: 1, .. }]
    ));
    // Only the end marker is left.
    let log = decode(&[0x12, 0x41, 0x6B]).expect("decodes");
    assert_eq!((log.skipped, log.records.len()), (2, 0));
}

#[test]
fn broken_dumps_are_refused_with_what_is_wrong() {
    let cases: [(&[u8], EeLogError, &str); 8] = [
        (&[], EeLogError::Empty, "empty"),
        (&[0x7F, 0x40], EeLogError::NoEof { last: 0x40 }, "cut short"),
        (
            &[0x7F, 0x8E, 0x6B],
            EeLogError::HighBit {
                offset: 1,
                byte: 0x8E,
            },
            "high bit",
        ),
        (
            &[0x7F, 0x12, 0x6B],
            EeLogError::NotARecord {
                offset: 1,
                byte: 0x12,
            },
            "starts no record",
        ),
        (
            &[0x7F, 0x61, 0x05, 0x6B],
            EeLogError::Truncated {
                offset: 1,
                needed: 3,
                have: 2,
            },
            "needs 3 bytes",
        ),
        (
            &[0x7F, 0x41, 64, 0x6B],
            EeLogError::Square {
                offset: 1,
                byte: 64,
            },
            "square 64",
        ),
        (
            &[0x7F, 0x61, 0x5A, 0x00, 0x6B],
            EeLogError::Clock {
                offset: 1,
                what: "minutes",
                byte: 0x5A,
            },
            "minutes 0x5A",
        ),
        (
            &[0x7F, 0x61, 0x00, 0x0A, 0x6B],
            EeLogError::Clock {
                offset: 1,
                what: "seconds",
                byte: 0x0A,
            },
            "seconds 0x0A",
        ),
    ];
    for (payload, want, says) in cases {
        let err = decode(payload).expect_err(says);
        assert_eq!(err, want, "{payload:02x?}");
        assert!(err.to_string().contains(says), "{err}");
    }
}

fn record() -> impl Strategy<Value = EeRecord> {
    let field =
        (0u8..16, 0u8..64, any::<bool>()).prop_map(|(code, square, quick)| EeRecord::Field {
            piece: Piece::from_code(code).unwrap_or(None),
            square: Square::from_field(square).unwrap_or(Square::from_field(0).expect("a8")),
            quick,
        });
    let clock =
        (any::<bool>(), 0u8..10, 0u8..60, 0u8..60).prop_map(|(left, hours, minutes, seconds)| {
            EeRecord::Clock {
                left,
                hours,
                minutes,
                seconds,
            }
        });
    let tags = prop::sample::select(vec![
        EeRecord::PowerUp,
        EeRecord::Eof,
        EeRecord::FourRows,
        EeRecord::EmptyBoard,
        EeRecord::Downloaded,
        EeRecord::BeginPos,
        EeRecord::BeginPosRot,
        EeRecord::StartTag,
        EeRecord::Watchdog,
        EeRecord::Reserved(0x7D),
        EeRecord::Reserved(0x7E),
        EeRecord::Nop,
        EeRecord::Nop2,
    ]);
    prop_oneof![3 => field, 1 => clock, 1 => tags]
}

proptest! {
    #[test]
    fn records_round_trip_after_an_unambiguous_start(records in prop::collection::vec(record(), 0..200)) {
        let mut all = vec![EeRecord::Nop];
        all.extend(records);
        let log = decode(&encode(&all)).expect("an encoded log decodes");
        prop_assert_eq!(log.skipped, 0);
        prop_assert_eq!(log.records, all);
    }

    #[test]
    fn any_bytes_decode_or_fail_without_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        match decode(&bytes) {
            Ok(log) => {
                // What decoded re-encodes to the bytes after the skipped start.
                prop_assert_eq!(encode(&log.records), &bytes[log.skipped..]);
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn a_ring_cut_anywhere_decodes_a_suffix(records in prop::collection::vec(record(), 1..100), cut in 0usize..400) {
        // The oldest bytes of a ring may be the tail of a record: whatever the cut, the log
        // decodes, and its records are the newest of the full log.
        let mut all = vec![EeRecord::Nop];
        all.extend(records);
        let full = encode(&all);
        let cut = cut.min(full.len() - 1);
        let log = decode(&full[cut..]).expect("a cut ring decodes");
        prop_assert!(all.ends_with(&log.records), "{:?} not a suffix of {:?}", log.records, all);
    }
}
