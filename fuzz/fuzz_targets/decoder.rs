//! Fuzz the board-message decoder and the host-command parser with arbitrary bytes.
//!
//! The first input byte picks a chunk size, so the fuzzer also explores how the stream is
//! split. Checked: nothing panics; every input byte is accounted for exactly once (as part of
//! a message, of a bad-payload frame, or as dropped); every decoded message re-encodes to a
//! frame that decodes to the same message; the buffer stays within its cap.
#![no_main]

use chessclock_protocol::decoder::MAX_BUFFERED;
use chessclock_protocol::{ClockCommand, Command, Decoded, Decoder, Frame, Message};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&split, stream)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(split % 64) + 1;
    let mut d = Decoder::new();
    let mut accounted = 0usize;
    let mut check = |item: Result<Decoded, chessclock_protocol::DecodeError>| match item {
        Ok(Decoded::Message(m)) => {
            let bytes = m.encode();
            let frame = Frame::new_checked(&bytes).expect("encoded message is a valid frame");
            assert_eq!(
                Message::parse(&frame).as_ref(),
                Ok(&m),
                "re-encoded message decodes the same"
            );
            accounted += bytes.len();
        }
        Ok(Decoded::Dropped(x)) => {
            assert!(x.count >= x.bytes.len());
            accounted += x.count;
        }
        Err(e) => {
            let _ = e.to_string();
            accounted += e.payload.len() + 3;
        }
    };
    for piece in stream.chunks(chunk) {
        d.push(piece);
        d.by_ref().for_each(&mut check);
        assert!(d.buffered_len() <= MAX_BUFFERED);
    }
    d.finish();
    d.by_ref().for_each(&mut check);
    assert_eq!(
        accounted,
        stream.len(),
        "every byte is a message, a bad frame or dropped"
    );

    // Host-command parsing must not panic either.
    let mut rest = stream;
    while !rest.is_empty() {
        match Command::decode(rest) {
            Ok(Some((_, n))) => rest = &rest[n..],
            Ok(None) => break,
            Err(e) => rest = &rest[e.skip_len().min(rest.len())..],
        }
    }
    if let [cmd, payload @ ..] = stream {
        let _ = ClockCommand::decode(*cmd, payload);
    }
});
