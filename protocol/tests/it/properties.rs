//! Property tests: every message and command round-trips through its encoding, the decoder
//! is insensitive to how the stream is split, junk is skipped and counted exactly, and no
//! input makes anything panic.

use chessclock_protocol::{
    Board, ClockAck, ClockCommand, ClockReport, ClockSide, ClockTime, Command, Decoded, Decoder,
    Frame, Message, MessageId, Piece, RunFlags, SetAndRun, Square, message::BatteryStatus,
};
use proptest::prelude::*;

fn seven_bit() -> impl Strategy<Value = u8> {
    0u8..0x80
}

fn bytes7(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(seven_bit(), 0..=max)
}

fn piece() -> impl Strategy<Value = Option<Piece>> {
    (0u8..16).prop_map(|c| Piece::from_code(c).expect("codes 0..16 are valid"))
}

fn clock_time() -> impl Strategy<Value = ClockTime> {
    (0u32..=35_999).prop_map(|s| ClockTime::from_total_seconds(s).expect("in range"))
}

fn side() -> impl Strategy<Value = ClockSide> {
    (clock_time(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(time, flag, final_flag, time_per_move)| ClockSide {
            time,
            flag,
            final_flag,
            time_per_move,
        },
    )
}

fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(0x20u8..0x7F, 0..=max)
        .prop_map(|v| v.into_iter().map(char::from).collect())
}

fn message() -> impl Strategy<Value = Message> {
    prop_oneof![
        prop::collection::vec(piece(), 64).prop_map(|v| {
            let mut b = Board::empty();
            b.fields.copy_from_slice(&v);
            Message::BoardDump(b)
        }),
        (side(), side(), seven_bit())
            .prop_map(|(l, r, s)| Message::ClockReport(ClockReport::from_status(l, r, s)))
            .prop_filter("all-zero is the empty report", |m| m.payload() != [0; 7]),
        any::<[u8; 4]>().prop_map(|bytes| Message::ClockAck(ClockAck { bytes })),
        Just(Message::EmptyClockReport),
        (0u8..64, piece()).prop_map(|(f, piece)| Message::FieldUpdate {
            square: Square::from_field(f).expect("in range"),
            piece
        }),
        bytes7(300).prop_map(Message::EeMoves),
        (0u16..0x4000).prop_map(Message::BusAddress),
        text(12).prop_map(Message::SerialNumber),
        text(60).prop_map(Message::Trademark),
        (seven_bit(), seven_bit()).prop_map(|(major, minor)| Message::Version { major, minor }),
        prop::collection::vec(seven_bit(), 50).prop_map(Message::BoardDump50B),
        prop::collection::vec(seven_bit(), 50).prop_map(Message::BoardDump50W),
        bytes7(20).prop_map(Message::HardwareVersion),
        prop::array::uniform9(seven_bit())
            .prop_map(|b| Message::BatteryStatus(BatteryStatus::from(b))),
        text(10).prop_map(Message::LongSerialNumber),
        bytes7(20).prop_map(Message::I2cClock),
        (0x80u8..=0xFF, bytes7(100))
            .prop_filter("unknown ids only", |(id, _)| matches!(
                MessageId::from(*id),
                MessageId::Unknown(_)
            ))
            .prop_map(|(id, payload)| Message::Unknown { id, payload }),
    ]
}

fn clock_command() -> impl Strategy<Value = ClockCommand> {
    prop_oneof![
        (prop::array::uniform6(seven_bit()), seven_bit(), seven_bit()).prop_map(
            |(segments, icons, beep)| ClockCommand::Display {
                segments,
                icons,
                beep
            }
        ),
        prop::array::uniform5(seven_bit()).prop_map(|[left1, right1, left2, right2, special]| {
            ClockCommand::Icons {
                left1,
                right1,
                left2,
                right2,
                special,
            }
        }),
        Just(ClockCommand::End),
        Just(ClockCommand::Button),
        Just(ClockCommand::Version),
        (
            clock_time(),
            clock_time(),
            any::<bool>(),
            any::<bool>(),
            seven_bit()
        )
            .prop_map(|(left, right, lu, ru, f)| {
                ClockCommand::SetAndRun(SetAndRun {
                    left,
                    right,
                    left_count_up: lu,
                    right_count_up: ru,
                    flags: RunFlags(f),
                })
            }),
        seven_bit().prop_map(|units| ClockCommand::Beep { units }),
        (text(8), 0u8..16).prop_map(|(t, beep)| ClockCommand::ascii(&t, beep).expect("fits")),
        (text(11), 0u8..16).prop_map(|(t, beep)| ClockCommand::rev2_ascii(&t, beep).expect("fits")),
    ]
}

fn command() -> impl Strategy<Value = Command> {
    prop_oneof![
        prop::sample::select(Command::SIMPLE),
        clock_command().prop_map(Command::Clock),
        (seven_bit(), 0u8..64, 0u8..64).prop_map(|(mode, from, to)| Command::SetLeds {
            mode,
            from,
            to
        }),
    ]
}

/// Decode `stream` split at the given cut points; returns items (errors as strings).
fn decode_split(stream: &[u8], cuts: &[usize]) -> (Vec<Result<Decoded, String>>, u64) {
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
    points.push(0);
    points.push(stream.len());
    points.sort_unstable();
    let mut d = Decoder::new();
    let mut out = Vec::new();
    for w in points.windows(2) {
        d.push(&stream[w[0]..w[1]]);
        out.extend(d.by_ref().map(|r| r.map_err(|e| e.to_string())));
    }
    d.finish();
    out.extend(d.by_ref().map(|r| r.map_err(|e| e.to_string())));
    (out, d.dropped_total())
}

fn messages_only(items: &[Result<Decoded, String>]) -> Vec<Message> {
    items
        .iter()
        .filter_map(|i| match i {
            Ok(Decoded::Message(m)) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

proptest! {
    #[test]
    fn every_message_round_trips(msg in message()) {
        let bytes = msg.encode();
        let frame = Frame::new_checked(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(frame.len(), bytes.len());
        prop_assert_eq!(Message::parse(&frame), Ok(msg.clone()));
        let mut d = Decoder::new();
        d.push(&bytes);
        prop_assert_eq!(d.next(), Some(Ok(Decoded::Message(msg))));
        prop_assert_eq!(d.next(), None);
    }

    #[test]
    fn every_command_round_trips(cmd in command()) {
        let bytes = cmd.encode();
        prop_assert!(bytes.iter().all(|b| b & 0x80 == 0), "host bytes are 7-bit: {:02X?}", bytes);
        prop_assert_eq!(Command::decode(&bytes), Ok(Some((cmd, bytes.len()))));
        for n in 0..bytes.len() {
            prop_assert_eq!(Command::decode(&bytes[..n]), Ok(None));
        }
    }

    #[test]
    fn any_split_gives_the_same_messages(
        msgs in prop::collection::vec(message(), 0..12),
        cuts in prop::collection::vec(any::<usize>(), 0..20),
    ) {
        let stream: Vec<u8> = msgs.iter().flat_map(Message::encode).collect();
        let (whole, dropped_whole) = decode_split(&stream, &[]);
        let (split, dropped_split) = decode_split(&stream, &cuts);
        prop_assert_eq!(&whole, &split);
        prop_assert_eq!((dropped_whole, dropped_split), (0, 0));
        prop_assert_eq!(messages_only(&whole), msgs);
    }

    #[test]
    fn junk_before_and_between_frames_is_skipped_and_counted(
        parts in prop::collection::vec(
            (message(), bytes7(20), prop::option::of(any::<prop::sample::Index>())),
            1..8,
        ),
        trailing in bytes7(10),
        cuts in prop::collection::vec(any::<usize>(), 0..10),
    ) {
        let mut stream = Vec::new();
        let mut junk = 0usize;
        for (msg, low_junk, truncated) in &parts {
            // Free-standing 7-bit junk, then maybe the start of a frame cut short.
            stream.extend_from_slice(low_junk);
            junk += low_junk.len();
            if let Some(ix) = truncated {
                let other = msg.encode();
                let k = 1 + ix.index(other.len() - 1);
                stream.extend_from_slice(&other[..k]);
                junk += k;
            }
            stream.extend(msg.encode());
        }
        stream.extend_from_slice(&trailing);
        junk += trailing.len();
        let (items, dropped) = decode_split(&stream, &cuts);
        prop_assert_eq!(dropped, junk as u64);
        let reported: usize = items.iter().map(|i| match i {
            Ok(Decoded::Dropped(d)) => d.count,
            _ => 0,
        }).sum();
        prop_assert_eq!(reported, junk);
        let want: Vec<Message> = parts.into_iter().map(|p| p.0).collect();
        prop_assert_eq!(messages_only(&items), want);
    }

    /// The decoder's fast path for clock messages and field updates gives exactly what the
    /// general frame parser gives, for any 7-bit payload: reports, acks, the empty report,
    /// no-clock reports and every kind of bad payload (bad BCD, field 64+, piece code 16+).
    #[test]
    fn common_messages_decode_as_the_general_parser_says(
        bwtime in prop_oneof![
            prop::array::uniform7(seven_bit()),
            Just([0; 7]),
            any::<[u8; 4]>().prop_map(|bytes| ClockAck { bytes }.encode_payload()),
        ],
        field in seven_bit(),
        code in seven_bit(),
        junk in bytes7(3),
    ) {
        let mut report = vec![0x8D, 0x00, 0x0A];
        report.extend_from_slice(&bwtime);
        let update = [0x8E, 0x00, 0x05, field, code];
        for frame in [&report[..], &update[..]] {
            let want = Message::parse(&Frame::new_checked(frame).expect("well framed"))
                .map(Decoded::Message);
            let mut d = Decoder::new();
            d.push(frame);
            prop_assert_eq!(d.next(), Some(want.clone()));
            prop_assert_eq!(d.next(), None);
            // Behind junk: the dropped report first, then the same item.
            let mut d = Decoder::new();
            d.push(&junk);
            d.push(frame);
            if !junk.is_empty() {
                prop_assert!(matches!(d.next(), Some(Ok(Decoded::Dropped(_)))));
            }
            prop_assert_eq!(d.next(), Some(want));
        }
    }

    #[test]
    fn no_input_panics_and_every_byte_is_accounted_for(
        stream in prop::collection::vec(any::<u8>(), 0..600),
        cuts in prop::collection::vec(any::<usize>(), 0..10),
    ) {
        let (items, dropped) = decode_split(&stream, &cuts);
        let (again, _) = decode_split(&stream, &[]);
        prop_assert_eq!(&items, &again);
        let mut d = Decoder::new();
        d.push(&stream);
        d.finish();
        let consumed: usize = d.by_ref().map(|i| match i {
            Ok(Decoded::Message(m)) => m.encode().len(),
            Ok(Decoded::Dropped(x)) => x.count,
            Err(e) => e.payload.len() + 3,
        }).sum();
        prop_assert_eq!(consumed, stream.len());
        prop_assert!(dropped <= stream.len() as u64);
        let _ = Command::decode(&stream);
        if let [cmd, rest @ ..] = stream.as_slice() {
            let _ = ClockCommand::decode(*cmd, rest);
        }
    }
}
