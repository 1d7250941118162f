//! The stdin side of `chessclock-emu`: command lines (or single keys on a terminal) parsed
//! into [`VirtualControl`]s.
//!
//! Owns the command language of `docs/emulator.md` and the terminal's raw mode. It must not act
//! on the board itself: it only says what was asked, or why a line is not understood.

use std::io::BufRead;

use chessclock_protocol::emulator::pieces::parse_command;
use chessclock_protocol::emulator::{OwnPeriod, OwnPreset};
use chessclock_protocol::{Board, Button};
use chessclockd::virtual_board::VirtualControl;

/// One stdin command.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Input {
    Control(VirtualControl),
    Quit,
}

pub(crate) fn parse_input(line: &str, pieces: &Board) -> Result<Option<Input>, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let on_off = |w: Option<&&str>, what: &str| match w.copied() {
        Some("on") => Ok(true),
        Some("off") => Ok(false),
        _ => Err(format!("{what} needs on or off, e.g. \"{what} on\"")),
    };
    let control = |c| Ok(Some(Input::Control(c)));
    match words.as_slice() {
        [] => Ok(None),
        ["lever"] => control(VirtualControl::Lever),
        ["button", b] => {
            let button = match *b {
                "run" => Button::Run,
                "plus" => Button::Plus,
                "minus" => Button::Minus,
                "back" => Button::Back,
                "ok" | "forward" => Button::Forward,
                other => {
                    return Err(format!(
                        "unknown button {other:?}; use run, plus, minus, back or ok"
                    ));
                }
            };
            control(VirtualControl::Button(button))
        }
        ["power", rest @ ..] => control(VirtualControl::ClockPower(on_off(rest.first(), "power")?)),
        ["pc-mode", rest @ ..] => control(VirtualControl::PcMode(on_off(rest.first(), "pc-mode")?)),
        ["own-game", seconds, rest @ ..] if rest.len() <= 1 => {
            let seconds = seconds
                .parse()
                .map_err(|_| format!("own-game needs whole seconds a side, not {seconds:?}"))?;
            let period = rest.first().map(|p| own_period(p)).transpose()?;
            control(VirtualControl::OwnGame(OwnPreset { seconds, period }))
        }
        ["unplug"] => control(VirtualControl::Unplug),
        ["mute", rest @ ..] => control(VirtualControl::Mute(on_off(rest.first(), "mute")?)),
        ["replug"] => control(VirtualControl::Replug),
        ["flood", rest @ ..] => control(VirtualControl::Flood(on_off(rest.first(), "flood")?)),
        ["stall", rest @ ..] => control(VirtualControl::Stall(on_off(rest.first(), "stall")?)),
        ["quit"] => Ok(Some(Input::Quit)),
        _ => match parse_command(&words, pieces)? {
            Some(action) => control(VirtualControl::Pieces(action)),
            None => Err(format!(
                "unknown command {line:?}; commands: lever, button run|plus|minus|back|ok, \
             power on|off, pc-mode on|off, own-game SECONDS [ADD@MOVES|ADD@flag], mute on|off, flood on|off, stall on|off, unplug, replug, move UCI [other-first], \
             lift SQUARE, place SQUARE PIECE, setup, clear, quit"
            )),
        },
    }
}

/// Lines of stdin, read on a plain thread (blocking reads) and handed over a channel; the
/// channel closes at end of input.
pub(crate) fn stdin_lines() -> tokio::sync::mpsc::UnboundedReceiver<String> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The command line a single key stands for (terminal mode).
pub(crate) fn key_command(key: u8) -> Option<&'static str> {
    Some(match key {
        b' ' => "lever",
        b'p' => "button run",
        b'+' => "button plus",
        b'-' => "button minus",
        b'<' => "button back",
        b'>' => "button ok",
        b'o' => "power off",
        b'O' => "power on",
        b'q' => "quit",
        _ => return None,
    })
}

/// Keys of stdin, one at a time, as command lines.
pub(crate) fn stdin_keys() -> tokio::sync::mpsc::UnboundedReceiver<String> {
    use std::io::Read;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for byte in std::io::stdin().lock().bytes() {
            let Ok(byte) = byte else { break };
            if let Some(cmd) = key_command(byte)
                && tx.send(cmd.to_owned()).is_err()
            {
                break;
            }
        }
    });
    rx
}

/// The terminal in non-canonical, no-echo mode (through `stty`), restored on drop.
pub(crate) struct RawTerminal {
    saved: String,
}

impl RawTerminal {
    pub(crate) fn enter() -> Option<RawTerminal> {
        let stty = |args: &[&str]| {
            std::process::Command::new("stty")
                .args(args)
                .stdin(std::process::Stdio::inherit())
                .output()
                .ok()
                .filter(|o| o.status.success())
        };
        let saved = String::from_utf8(stty(&["-g"])?.stdout).ok()?;
        stty(&["-icanon", "-echo", "min", "1"])?;
        Some(RawTerminal {
            saved: saved.trim().to_owned(),
        })
    }
}

impl Drop for RawTerminal {
    fn drop(&mut self) {
        let _ = std::process::Command::new("stty")
            .arg(&self.saved)
            .stdin(std::process::Stdio::inherit())
            .status();
    }
}

/// `ADD@MOVES` (ADD seconds at the press of a player's MOVES-th move) or `ADD@flag` (ADD
/// seconds when a half's time runs out), once to each half.
fn own_period(word: &str) -> Result<OwnPeriod, String> {
    let bad = || {
        format!(
            "own-game's period is ADD@MOVES or ADD@flag in whole seconds and moves \
             (`1800@40`, `1800@flag`), not {word:?}"
        )
    };
    let (add, at) = word.split_once('@').ok_or_else(bad)?;
    let add = add.parse().map_err(|_| bad())?;
    let at_move = match at {
        "flag" => None,
        n => Some(n.parse().ok().filter(|n| *n > 0).ok_or_else(bad)?),
    };
    Ok(OwnPeriod { add, at_move })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> Board {
        chessclock_protocol::emulator::board::start_position()
    }

    #[test]
    fn piece_commands_reach_the_board_and_bad_ones_say_why() {
        let b = start();
        assert!(matches!(
            parse_input("move e2e4 other-first", &b),
            Ok(Some(Input::Control(VirtualControl::Pieces(_))))
        ));
        assert!(matches!(parse_input("setup", &b), Ok(Some(_))));
        let err = parse_input("move e3e4", &b).expect_err("e3 is empty");
        assert!(err.contains("no piece stands on e3"), "{err}");
        let err = parse_input("fly e2", &b).expect_err("unknown");
        assert!(err.contains("move UCI [other-first]"), "{err}");
    }

    #[test]
    fn stdin_commands_parse() {
        assert_eq!(
            parse_input("lever", &start()),
            Ok(Some(Input::Control(VirtualControl::Lever)))
        );
        assert_eq!(
            parse_input(" button  ok ", &start()),
            Ok(Some(Input::Control(VirtualControl::Button(
                Button::Forward
            ))))
        );
        assert_eq!(
            parse_input("power off", &start()),
            Ok(Some(Input::Control(VirtualControl::ClockPower(false))))
        );
        assert_eq!(parse_input("", &start()), Ok(None));
        assert_eq!(parse_input("quit", &start()), Ok(Some(Input::Quit)));
        for bad in ["power", "pc-mode maybe", "button stop", "jump"] {
            assert!(parse_input(bad, &start()).is_err(), "{bad}");
        }
    }

    #[test]
    fn own_game_takes_a_period_at_a_move_or_the_flag() {
        use chessclock_protocol::emulator::{OwnPeriod, OwnPreset};
        let own = |line: &str| match parse_input(line, &start()) {
            Ok(Some(Input::Control(VirtualControl::OwnGame(p)))) => Ok(p),
            other => Err(format!("{other:?}")),
        };
        assert_eq!(own("own-game 300"), Ok(OwnPreset::plain(300)));
        let period = |add, at_move| OwnPreset {
            seconds: 5400,
            period: Some(OwnPeriod { add, at_move }),
        };
        assert_eq!(own("own-game 5400 1800@40"), Ok(period(1800, Some(40))));
        assert_eq!(own("own-game 5400 1800@flag"), Ok(period(1800, None)));
        for bad in [
            "own-game 300 30",
            "own-game 300 30@0",
            "own-game 300 x@2",
            "own-game 1 2 3",
        ] {
            let err = parse_input(bad, &start()).expect_err(bad);
            assert!(!err.is_empty(), "{bad}");
        }
    }

    #[test]
    fn every_key_stands_for_a_valid_command() {
        let mapped: Vec<u8> = (0..=255u8).filter(|k| key_command(*k).is_some()).collect();
        assert_eq!(mapped.len(), 9);
        for k in mapped {
            let cmd = key_command(k).unwrap_or_default();
            assert!(matches!(parse_input(cmd, &start()), Ok(Some(_))), "{cmd}");
        }
        assert_eq!(
            key_command(b' ').map(|c| parse_input(c, &start())),
            Some(Ok(Some(Input::Control(VirtualControl::Lever))))
        );
        assert_eq!(key_command(b'x'), None);
    }
}
