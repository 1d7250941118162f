//! The opt-in port scan: which ttys match the configured patterns, and which of them answer
//! the DGT handshake.
//!
//! Owns finding candidates and one short probe per port (a version request, `0x4D`, then up to
//! [`PROBE_WAIT`] for a VERSION message). It must not keep a port open: a board that answers
//! is closed again, and attaching it is the supervisor's business. Nothing is written to a
//! port that does not match a pattern.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chessclock_protocol::{Decoded, Decoder, Message};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::port;

/// How long a port may take to answer the version request.
pub const PROBE_WAIT: Duration = Duration::from_millis(1500);

/// The board command that asks for the firmware version (`0x4D`, DGT_SEND_VERSION).
const SEND_VERSION: u8 = 0x4D;

/// The paths that match `patterns`, sorted and without duplicates. A pattern is a path whose
/// file name may hold one `*` (any run of characters), e.g. `/dev/ttyACM*`; anything else is
/// taken literally. Unreadable directories match nothing.
pub async fn candidates(patterns: &[String]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for pattern in patterns {
        let path = Path::new(pattern);
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            continue;
        };
        let name = name.to_string_lossy();
        let Some((prefix, suffix)) = name.split_once('*') else {
            if tokio::fs::symlink_metadata(path).await.is_ok() {
                out.push(path.to_path_buf());
            }
            continue;
        };
        let Ok(mut entries) = tokio::fs::read_dir(dir).await else {
            continue;
        };
        while let Ok(Some(entry)) = entries.next_entry().await {
            let file = entry.file_name();
            let file = file.to_string_lossy();
            if file.len() >= prefix.len() + suffix.len()
                && file.starts_with(prefix)
                && file.ends_with(suffix)
            {
                out.push(entry.path());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Whether `path` is a DGT board: it opens as a serial port and answers a version request
/// with a VERSION message within `wait`. Errors say why not (open failed, silent, ...).
pub async fn probe(path: &Path, wait: Duration) -> io::Result<(u8, u8)> {
    let mut stream = port::open_tty(path)?;
    let answer = tokio::time::timeout(wait, async {
        stream.write_all(&[SEND_VERSION]).await?;
        stream.flush().await?;
        let mut decoder = Decoder::new();
        let mut buf = [0u8; 256];
        loop {
            let n = stream.read(&mut buf).await?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the port closed",
                ));
            }
            decoder.push(&buf[..n]);
            for item in decoder.by_ref() {
                if let Ok(Decoded::Message(Message::Version { major, minor })) = item {
                    return Ok((major, minor));
                }
            }
        }
    })
    .await;
    // Closed as it was found (`Tty`'s drop clears our exclusivity), so the device actor can
    // open it at once.
    drop(stream);
    match answer {
        Ok(result) => result,
        Err(_) => Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("no DGT answer within {wait:?}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn patterns_match_one_star_in_the_file_name() {
        let dir = std::env::temp_dir().join(format!("chessclockd-scan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        for f in ["ttyACM0", "ttyACM1", "ttyS0", "rfcomm0", "xttyACM2"] {
            std::fs::write(dir.join(f), b"").expect("file");
        }
        let d = dir.display();
        let found = candidates(&[
            format!("{d}/ttyACM*"),
            format!("{d}/rfcomm0"),
            format!("{d}/ttyACM1"),
            format!("{d}/missing*"),
            format!("{d}/nothere"),
            "/nonexistent-dir/tty*".to_owned(),
        ])
        .await;
        let names: Vec<String> = found
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        assert_eq!(names, ["rfcomm0", "ttyACM0", "ttyACM1"]);
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[tokio::test]
    async fn a_file_that_is_not_a_tty_is_not_a_board() {
        let dir = std::env::temp_dir().join(format!("chessclockd-probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = dir.join("plain");
        std::fs::write(&file, b"").expect("file");
        assert!(probe(&file, Duration::from_millis(200)).await.is_err());
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }
}
