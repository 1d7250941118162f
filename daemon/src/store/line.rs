//! The line codec shared by journal and snapshot files: `SEQ CRC JSON\n`, and the JSON of
//! what a line holds.
//!
//! Owns encoding and checking one line and the JSON text of records (the one place the
//! daemon's stored records meet `serde_json`); it knows nothing about files.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The JSON text of a record or snapshot, as a line holds it (no raw newline).
pub(crate) fn to_json<T: Serialize>(value: &T) -> Result<String, serde_json::Error> {
    serde_json::to_string(value)
}

/// A record or snapshot from the JSON text of a line.
pub(crate) fn from_json<T: DeserializeOwned>(json: &str) -> Result<T, serde_json::Error> {
    serde_json::from_str(json)
}

/// JSON lines of `items` (one per line, no sequence numbers or checksums), for records kept
/// aside; an item that cannot be written is left out.
pub(crate) fn json_lines<T: Serialize>(items: &[T]) -> String {
    let mut text = String::new();
    for line in items.iter().filter_map(|i| to_json(i).ok()) {
        text.push_str(&line);
        text.push('\n');
    }
    text
}

/// CRC-32 (IEEE 802.3, the zlib/PNG one) of the bytes `SEQ JSON`.
fn checksum(seq: &[u8], json: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(seq);
    h.update(b" ");
    h.update(json);
    h.finalize()
}

/// Encode one entry (the JSON must not contain a raw newline; serde_json never emits one).
pub(crate) fn encode(seq: u64, json: &str) -> Vec<u8> {
    let seq_text = seq.to_string();
    let crc = checksum(seq_text.as_bytes(), json.as_bytes());
    format!("{seq_text} {crc:08x} {json}\n").into_bytes()
}

/// Check one line (without its `\n`); returns the sequence number and the JSON text.
pub(crate) fn decode(line: &[u8]) -> Result<(u64, &str), String> {
    let mut parts = line.splitn(3, |&b| b == b' ');
    let seq_bytes = parts.next().unwrap_or_default();
    let (Some(crc_bytes), Some(json)) = (parts.next(), parts.next()) else {
        return Err("not of the form `SEQ CRC JSON`".to_owned());
    };
    if seq_bytes.is_empty() || seq_bytes.len() > 20 || !seq_bytes.iter().all(u8::is_ascii_digit) {
        return Err("sequence number is not a decimal number".to_owned());
    }
    if crc_bytes.len() != 8
        || !crc_bytes
            .iter()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
    {
        return Err("checksum is not 8 lowercase hex digits".to_owned());
    }
    let crc_text = std::str::from_utf8(crc_bytes).map_err(|_| "checksum is not text".to_owned())?;
    let want = u32::from_str_radix(crc_text, 16).map_err(|e| format!("checksum: {e}"))?;
    let got = checksum(seq_bytes, json);
    if want != got {
        return Err(format!(
            "checksum mismatch (stored {want:08x}, computed {got:08x})"
        ));
    }
    let seq_text =
        std::str::from_utf8(seq_bytes).map_err(|_| "sequence number is not text".to_owned())?;
    let seq = seq_text
        .parse::<u64>()
        .map_err(|e| format!("sequence number: {e}"))?;
    let json = std::str::from_utf8(json).map_err(|_| "payload is not UTF-8".to_owned())?;
    Ok((seq, json))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_is_the_standard_crc32_so_old_journals_still_read() {
        // zlib.crc32(b'7 {"a":1}'): journals written before crc32fast used the same CRC-32.
        assert_eq!(encode(7, r#"{"a":1}"#), b"7 9e58a832 {\"a\":1}\n".to_vec());
    }

    #[test]
    fn round_trip() {
        let line = encode(42, r#"{"a":1}"#);
        assert_eq!(line.last(), Some(&b'\n'));
        let body = &line[..line.len() - 1];
        assert_eq!(decode(body), Ok((42, r#"{"a":1}"#)));
    }

    #[test]
    fn changed_sequence_number_is_detected() {
        let line = encode(42, "{}");
        let mut body = line[..line.len() - 1].to_vec();
        body[1] = b'3';
        assert!(decode(&body).is_err_and(|e| e.contains("checksum mismatch")));
    }

    #[test]
    fn malformed_lines_are_rejected() {
        for bad in [
            &b""[..],
            b"12",
            b"12 zz 3",
            b"x 00000000 {}",
            b"1 0000000 {}",
        ] {
            assert!(decode(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }
}
