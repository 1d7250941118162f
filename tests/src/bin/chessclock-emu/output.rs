//! The stdout side of `chessclock-emu`: host commands and display changes as JSON lines or
//! text.
//!
//! Owns the event formats of `docs/emulator.md` (`host_command`, `display`, ...). It must not
//! read input or touch the board.

use std::io::Write;

use chessclock_protocol::emulator::ClockView;
use chessclock_protocol::{ClockCommand, Command};
use serde_json::{Value, json};

/// A host command as JSON: `name` plus, for clock messages, the sub-command and its data.
pub(crate) fn command_json(cmd: &Command) -> Value {
    let Command::Clock(clock) = cmd else {
        return json!({ "name": cmd.name(), "code": cmd.code() });
    };
    let mut v = json!({ "name": "clock", "sub": clock.id().to_string() });
    match clock {
        ClockCommand::SetAndRun(s) => {
            let run = match s.flags.0 {
                f if f & 0x04 != 0 => "none",
                f if f & 0x03 == 0x01 => "left",
                f if f & 0x03 == 0x02 => "right",
                f if f & 0x03 == 0x03 => "lever",
                _ => "none",
            };
            v["left_s"] = json!(s.left.total_seconds());
            v["right_s"] = json!(s.right.total_seconds());
            v["run"] = json!(run);
            v["flags"] = json!(s.flags.0);
        }
        ClockCommand::Ascii { text, beep } => {
            v["text"] = json!(String::from_utf8_lossy(text).trim_end());
            v["beep"] = json!(beep);
        }
        ClockCommand::Beep { units } => v["units"] = json!(units),
        _ => {}
    }
    v
}

pub(crate) fn display_json(view: &ClockView) -> Value {
    json!({
        "event": "display",
        "left": seconds_text(view.left_seconds),
        "right": seconds_text(view.right_seconds),
        "running": view.running.name(),
        "text": view.text,
        "right_high": view.right_high,
        "left_flag": view.left_flag,
        "right_flag": view.right_flag,
        "left_flag_icon": view.left_flag_icon,
        "right_flag_icon": view.right_flag_icon,
        "pc_mode": view.pc_mode,
        "powered": view.powered,
        "present": view.present,
        "board_mode": view.board_mode.name(),
        "model": view.model.to_string(),
        "pieces": view.pieces.to_piece_string(),
    })
}

pub(crate) fn display_text(view: &ClockView) -> String {
    let flag = |f: bool| if f { " F" } else { "" };
    let icon = |f: bool| if f { " (flag)" } else { "" };
    let clock = if !view.present {
        "no clock".to_owned()
    } else if !view.powered {
        "clock off".to_owned()
    } else {
        format!(
            "{:>7}{}{} | {:<7}{}{}  running: {:<5}  lever: {}  {}{}",
            seconds_text(view.left_seconds),
            flag(view.left_flag),
            icon(view.left_flag_icon),
            seconds_text(view.right_seconds),
            flag(view.right_flag),
            icon(view.right_flag_icon),
            view.running.name(),
            if view.right_high { "/" } else { "\\" },
            if view.pc_mode { "PC" } else { "not PC mode" },
            view.text
                .as_deref()
                .map(|t| format!("  text: {t:?}"))
                .unwrap_or_default(),
        )
    };
    format!("{clock}  [{}]", view.board_mode.name())
}

pub(crate) struct Out {
    pub(crate) json: bool,
    pub(crate) live: bool,
}

impl Out {
    pub(crate) fn event(&self, v: Value, text: impl FnOnce() -> String) {
        let mut stdout = std::io::stdout().lock();
        let _ = if self.json {
            writeln!(stdout, "{v}")
        } else if self.live {
            writeln!(stdout, "\r\x1b[2K{}", text())
        } else {
            writeln!(stdout, "{}", text())
        };
    }

    pub(crate) fn display(&self, view: &ClockView) {
        if self.json {
            self.event(display_json(view), String::new);
        } else if self.live {
            let mut stdout = std::io::stdout().lock();
            let _ = write!(stdout, "\r\x1b[2K{}", display_text(view));
            let _ = stdout.flush();
        } else {
            self.event(Value::Null, || display_text(view));
        }
    }
}

/// What a clock half showing `secs` whole seconds reads (`M:SS` / `H:MM:SS`).
fn seconds_text(secs: u32) -> String {
    chessclock_engine::clock_text(u64::from(secs) * 1000)
}
