//! Unit tests of the decoder: partial frames, resync, long frames, the buffer cap.

use super::*;

fn drain(d: &mut Decoder) -> Vec<Result<Decoded, DecodeError>> {
    std::iter::from_fn(|| d.next()).collect()
}

const FIELD: [u8; 5] = [0x8E, 0x00, 0x05, 0x24, 0x01];

#[test]
fn decode_partly_received_frame_waits() {
    let mut d = Decoder::new();
    d.push(&FIELD[..4]);
    assert!(d.next().is_none());
    assert_eq!(d.buffered_len(), 4);
    d.push(&FIELD[4..]);
    assert!(matches!(
        d.next(),
        Some(Ok(Decoded::Message(Message::FieldUpdate { .. })))
    ));
    assert_eq!(d.buffered_len(), 0);
}

#[test]
fn a_long_unknown_frame_is_skipped_whole_as_a_value() {
    // Spec §2.2: unknown ids are skipped by their declared total, up to 16383.
    let total: usize = 2000;
    let mut frame = vec![0xC7, (total >> 7) as u8, (total & 0x7F) as u8];
    frame.resize(total, 0x11);
    let mut d = Decoder::new();
    d.push(&frame);
    d.push(&FIELD);
    let items = drain(&mut d);
    assert_eq!(items.len(), 2, "{items:?}");
    let Ok(Decoded::Message(Message::Unknown { id, payload })) = &items[0] else {
        panic!("expected an unknown message, got {:?}", items[0]);
    };
    assert_eq!((*id, payload.len()), (0xC7, total - 3));
    assert_eq!(d.dropped_total(), 0);
}

/// An EE_MOVES frame of `total` bytes (payload 0x00..0x7F repeating).
fn ee_moves(total: usize) -> Vec<u8> {
    let mut frame = vec![0x8F, (total >> 7) as u8, (total & 0x7F) as u8];
    frame.extend((0..total - 3).map(|i| (i % 0x80) as u8));
    frame
}

fn byte_by_byte(input: &[u8]) -> Vec<Result<Decoded, DecodeError>> {
    let mut d = Decoder::new();
    let mut items = Vec::new();
    for &b in input {
        d.push(&[b]);
        items.extend(d.by_ref());
    }
    d.finish();
    items.extend(d.by_ref());
    items
}

fn all_at_once(input: &[u8]) -> Vec<Result<Decoded, DecodeError>> {
    let mut d = Decoder::new();
    d.push(input);
    d.finish();
    drain(&mut d)
}

#[test]
fn a_long_frame_fed_byte_by_byte_is_decoded_once_and_whole() {
    // The ~8 KB EE_MOVES dump of spec §2.2 / §7.10 item 6, one byte per push.
    let frame = ee_moves(7939);
    let mut input = frame.clone();
    input.extend_from_slice(&FIELD);
    let mut d = Decoder::new();
    for (i, &b) in frame.iter().enumerate() {
        d.push(&[b]);
        if i + 1 < frame.len() {
            assert!(
                d.next().is_none(),
                "nothing before byte {i} completes the frame"
            );
            assert_eq!(d.buffered_len(), i + 1);
        }
    }
    let Some(Ok(Decoded::Message(Message::EeMoves(payload)))) = d.next() else {
        panic!("expected the EE_MOVES dump");
    };
    assert_eq!(payload, frame[3..]);
    assert!(d.next().is_none());
    assert_eq!((d.buffered_len(), d.dropped_total()), (0, 0));
    // And the same items as in one push, followed frame included.
    assert_eq!(byte_by_byte(&input), all_at_once(&input));
    assert_eq!(all_at_once(&input).len(), 2);
}

#[test]
fn a_high_bit_late_in_a_long_frame_fed_byte_by_byte_still_resyncs() {
    // The remembered "checked so far" must not hide a high-bit byte that arrives later,
    // nor survive into the next frame.
    let mut input = ee_moves(7939);
    input.truncate(5000);
    input.extend_from_slice(&FIELD); // a new message starts inside the dump
    input.extend_from_slice(&ee_moves(300)[..200]);
    input.extend_from_slice(&ee_moves(4000));
    input.extend_from_slice(&FIELD);
    let items = byte_by_byte(&input);
    assert_eq!(items, all_at_once(&input));
    let kinds: Vec<String> = items
        .iter()
        .map(|i| match i {
            Ok(Decoded::Dropped(x)) => format!("dropped {}", x.count),
            Ok(Decoded::Message(m)) => m.type_name().to_owned(),
            Err(e) => format!("error {e}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "dropped 5000",
            "field_update",
            "dropped 200",
            "ee_moves",
            "field_update"
        ]
    );
}

#[test]
fn high_bit_in_payload_abandons_frame() {
    let mut d = Decoder::new();
    d.push(&[0x86, 0x00, 0x43, 0x01, 0x02]);
    d.push(&FIELD);
    let items = drain(&mut d);
    assert_eq!(items.len(), 2, "{items:?}");
    assert_eq!(
        items[0],
        Ok(Decoded::Dropped(Dropped {
            count: 5,
            bytes: vec![0x86, 0x00, 0x43, 0x01, 0x02]
        }))
    );
    assert_eq!(d.dropped_total(), 5);
}

#[test]
fn impossible_length_is_rejected_before_waiting() {
    let mut d = Decoder::new();
    d.push(&[0x8D, 0x7F, 0x7F]);
    assert!(d.next().is_none());
    assert_eq!(
        d.buffered_len(),
        0,
        "a 16383-byte BWTIME must not be buffered"
    );
    assert_eq!(d.dropped_total(), 3);
    d.push(&FIELD);
    let items = drain(&mut d);
    assert_eq!(items.len(), 2);
}

#[test]
fn finish_reports_trailing_partial_frame() {
    let mut d = Decoder::new();
    d.push(&FIELD);
    d.push(&FIELD[..2]);
    d.finish();
    let items = drain(&mut d);
    assert_eq!(items.len(), 2);
    assert_eq!(
        items[1],
        Ok(Decoded::Dropped(Dropped {
            count: 2,
            bytes: vec![0x8E, 0x00]
        }))
    );
}

#[test]
fn bad_payload_is_an_error_item_and_decoding_continues() {
    let mut d = Decoder::new();
    d.push(&[0x8E, 0x00, 0x05, 0x40, 0x01]);
    d.push(&FIELD);
    let items = drain(&mut d);
    assert!(items[0].is_err());
    assert!(items[1].is_ok());
}

#[test]
fn undrained_input_is_capped() {
    let mut d = Decoder::new();
    let chunk = FIELD.repeat(1000);
    for _ in 0..100 {
        d.push(&chunk);
    }
    assert!(d.buffered_len() <= MAX_BUFFERED + chunk.len());
    assert_eq!(
        d.dropped_total() as usize + d.buffered_len(),
        100 * chunk.len()
    );
    assert!(d.dropped_total() > 0);
    let whole = FIELD.repeat(50_000);
    let mut d = Decoder::new();
    d.push(&whole);
    assert_eq!(
        d.by_ref().count(),
        50_000,
        "one large push is accepted whole"
    );
}

/// What `items` say, in order: message type names and `dropped N`.
fn kinds(items: &[Result<Decoded, DecodeError>]) -> Vec<String> {
    items
        .iter()
        .map(|i| match i {
            Ok(Decoded::Dropped(x)) => format!("dropped {}", x.count),
            Ok(Decoded::Message(m)) => m.type_name().to_owned(),
            Err(e) => format!("error {e}"),
        })
        .collect()
}

#[test]
fn input_refused_at_the_cap_is_reported_after_the_older_buffered_frames() {
    // Fill the buffer past MAX_BUFFERED without draining, ending in half a frame.
    let frames = MAX_BUFFERED / FIELD.len();
    let mut d = Decoder::new();
    d.push(&[0x11, 0x22]); // junk before everything: reported first
    d.push(&FIELD.repeat(frames));
    d.push(&FIELD[..3]);
    assert_eq!(d.dropped_total(), 0, "all accepted so far");
    assert!(d.buffered_len() > MAX_BUFFERED);
    // Refused: the rest of that frame and two whole ones.
    let mut refused = FIELD[3..].to_vec();
    refused.extend(FIELD.repeat(2));
    d.push(&refused);
    assert_eq!(d.dropped_total(), refused.len() as u64);
    let items = drain(&mut d);
    let want_head = ["dropped 2".to_owned(), "field_update".to_owned()];
    assert_eq!(kinds(&items[..2]), want_head);
    assert_eq!(
        items.len(),
        1 + frames,
        "nothing after the buffered frames yet"
    );
    // Draining frees room: the next push is accepted, behind the refused bytes. The refused
    // bytes and the half frame they cut off come out as one report, after every older frame
    // and before the newer one.
    d.push(&FIELD);
    let items = drain(&mut d);
    assert_eq!(
        kinds(&items),
        [
            format!("dropped {}", 3 + refused.len()),
            "field_update".into()
        ]
    );
    let Ok(Decoded::Dropped(x)) = &items[0] else {
        unreachable!()
    };
    assert_eq!(
        x.bytes[..3],
        FIELD[..3],
        "the cut-off frame's start comes first"
    );
    assert_eq!(x.bytes[3..5], FIELD[3..], "then the refused bytes");
    assert_eq!(d.dropped_total(), 2 + 3 + refused.len() as u64);
    assert_eq!(d.buffered_len(), 0);
}

#[test]
fn each_refused_push_is_reported_in_its_own_place() {
    const VERSION: [u8; 5] = [0x93, 0x00, 0x05, 0x03, 0x0A];
    let frames = MAX_BUFFERED / FIELD.len() + 1;
    let mut d = Decoder::new();
    d.push(&FIELD.repeat(frames)); // one push is accepted whole, past the cap
    d.push(&[0x8E]); // refused (first gap)
    let mut items: Vec<_> = d.by_ref().take(3).collect();
    d.push(&VERSION); // room again: accepted, behind the first gap
    d.push(&[0x11]);
    d.push(&FIELD);
    d.push(&[0x22, 0x33]); // over the cap again: refused (second gap)
    d.finish();
    items.extend(d.by_ref());
    let mut want = vec!["field_update".to_owned(); frames];
    want.extend(
        [
            "dropped 1",
            "version",
            "dropped 1",
            "field_update",
            "dropped 2",
        ]
        .map(String::from),
    );
    assert_eq!(kinds(&items), want);
    assert_eq!(d.dropped_total(), 4);
    let samples: Vec<&[u8]> = items
        .iter()
        .filter_map(|i| match i {
            Ok(Decoded::Dropped(x)) => Some(&x.bytes[..]),
            _ => None,
        })
        .collect();
    assert_eq!(samples, [&[0x8E][..], &[0x11], &[0x22, 0x33]]);
}

#[test]
fn dropped_sample_is_capped_but_counted() {
    let mut d = Decoder::new();
    d.push(&[0x11; 1000]);
    d.push(&FIELD);
    let Some(Ok(Decoded::Dropped(x))) = d.next() else {
        panic!("expected a dropped item")
    };
    assert_eq!((x.count, x.bytes.len()), (1000, MAX_DROPPED_KEPT));
}
