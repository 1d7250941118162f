//! Text on the clock display: DGT 3000 / Revelation II ASCII and DGT XL 7-segment.
//!
//! Owns the checks that text fits the display (length, printable ASCII, 7-segment glyphs)
//! and the PicoChess 7-segment table. It must not choose what text to show.

use crate::clock_command::ClockCommand;
use crate::error::CommandError;

impl ClockCommand {
    /// DGT 3000 text: at most 8 printable ASCII characters, padded with spaces.
    pub fn ascii(text: &str, beep: u8) -> Result<ClockCommand, CommandError> {
        let t: [u8; 8] = padded_text(text)?;
        Ok(ClockCommand::Ascii { text: t, beep })
    }

    /// Revelation II text: at most 11 printable ASCII characters, padded with spaces.
    pub fn rev2_ascii(text: &str, beep: u8) -> Result<ClockCommand, CommandError> {
        let t: [u8; 11] = padded_text(text)?;
        Ok(ClockCommand::Rev2Ascii { text: t, beep })
    }

    /// DGT XL text: at most 6 characters from the 7-segment table (letters, digits, space and
    /// `-/|\?@=_`), padded with spaces, placed on digits A-F in order (A, B, C left half).
    pub fn xl_text(text: &str, beep: bool) -> Result<ClockCommand, CommandError> {
        let err = |reason: String| CommandError::Text {
            text: text.to_owned(),
            reason,
        };
        if text.chars().count() > 6 {
            return Err(err("the DGT XL shows at most 6 characters".into()));
        }
        let mut segments = [0u8; 6];
        for (slot, c) in segments.iter_mut().zip(text.chars()) {
            *slot = seven_segment(c).ok_or_else(|| err(format!("{c:?} has no 7-segment form")))?;
        }
        Ok(ClockCommand::Display {
            segments,
            icons: 0,
            beep: if beep { 0x03 } else { 0x01 },
        })
    }
}

fn padded_text<const N: usize>(text: &str) -> Result<[u8; N], CommandError> {
    let err = |reason: String| CommandError::Text {
        text: text.to_owned(),
        reason,
    };
    if let Some(c) = text.chars().find(|c| !(' '..='~').contains(c)) {
        return Err(err(format!("{c:?} is not printable ASCII")));
    }
    if text.len() > N {
        return Err(err(format!(
            "at most {N} characters fit, got {}",
            text.len()
        )));
    }
    let mut out = [b' '; N];
    out.iter_mut().zip(text.bytes()).for_each(|(d, s)| *d = s);
    Ok(out)
}

/// The 7-segment pattern PicoChess uses for a character on the DGT XL (case-insensitive).
pub fn seven_segment(c: char) -> Option<u8> {
    const DIGITS: [u8; 10] = [0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F];
    const LETTERS: [u8; 26] = [
        0x5F, 0x7C, 0x58, 0x5E, 0x7B, 0x71, 0x3D, 0x74, 0x10, 0x1E, 0x75, 0x38, 0x55, 0x54, 0x5C,
        0x73, 0x67, 0x50, 0x6D, 0x78, 0x3E, 0x2A, 0x7E, 0x64, 0x6E, 0x5B,
    ];
    let c = c.to_ascii_lowercase();
    Some(match c {
        '0'..='9' => DIGITS[usize::from(c as u8 - b'0')],
        'a'..='z' => LETTERS[usize::from(c as u8 - b'a')],
        ' ' => 0x00,
        '-' => 0x40,
        '/' => 0x52,
        '|' => 0x36,
        '\\' => 0x64,
        '?' => 0x53,
        '@' => 0x65,
        '=' => 0x48,
        '_' => 0x08,
        _ => return None,
    })
}
