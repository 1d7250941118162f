//! Fuzz the move-log decoder (an EE_MOVES payload, spec §8a) with arbitrary bytes.
//!
//! Checked: nothing panics; a payload that decodes re-encodes to its bytes after the skipped
//! start; every error has a message.
#![no_main]

use chessclock_protocol::ee_log::{decode, encode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match decode(data) {
        Ok(log) => assert_eq!(
            encode(&log.records),
            data[log.skipped..],
            "a decoded log re-encodes to its bytes"
        ),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
