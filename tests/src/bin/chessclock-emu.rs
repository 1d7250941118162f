//! `chessclock-emu`: an emulated DGT board + clock served on a pty, driven from stdin (our
//! gpsfake).
//!
//! Owns the command line, the stdin command language and the stdout event stream around
//! `chessclockd::virtual_board`; all behaviour of the board and clock is the emulator's. The
//! interface is documented in `docs/emulator.md`; end-to-end tests depend on it, so change it
//! only together with that page and `tests/tests/emu_cli.rs`.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use chessclock_protocol::emulator::board::BoardConfig;
use chessclock_protocol::emulator::pieces::parse_command;
use chessclock_protocol::emulator::{ClockView, EmuConfig, FaultConfig, format_seconds};
use chessclock_protocol::{Board, Button, ClockCommand, ClockModel, Command, Orientation};
use chessclockd::virtual_board::{VirtualBoard, VirtualControl, VirtualOptions};
use clap::Parser;
use serde_json::{Value, json};
use tokio::signal::unix::{SignalKind, signal};

/// Serve an emulated DGT e-board with a DGT 3000 or DGT XL on a pseudo-terminal.
///
/// The first stdout line says which path to open (`PATH /dev/pts/N`, or with --json
/// `{"event":"path","path":...}`). Commands are read from stdin, one per line: lever,
/// button run|plus|minus|back|ok, power on|off, pc-mode on|off, own-game SECONDS, mute on|off,
/// flood on|off, stall on|off, unplug, replug, move UCI [other-first], lift SQUARE, place SQUARE PIECE, setup, clear, quit.
#[derive(Debug, Parser)]
#[command(name = "chessclock-emu", version)]
struct Args {
    /// Clock model: 3000 (DGT 3000) or xl (DGT XL).
    #[arg(long, default_value = "3000", value_parser = parse_model)]
    model: ClockModel,
    /// The clock is not in its PC mode (option 25 / 23): set-and-run gets error acks.
    #[arg(long)]
    no_pc_mode: bool,
    /// The clock starts switched off (`power on` switches it on).
    #[arg(long)]
    clock_off: bool,
    /// No clock cabled to the board at all.
    #[arg(long)]
    no_clock: bool,
    /// Create this symlink to the pty (re-pointed on replug, removed on exit).
    #[arg(long, value_name = "PATH")]
    link: Option<PathBuf>,
    /// Bluetooth quirks: an all-zero report after each clock command and duplicate acks.
    #[arg(long)]
    bluetooth: bool,
    /// Delay of clock acks.
    #[arg(long, value_name = "MS", default_value_t = EmuConfig::default().ack_delay_ms)]
    ack_delay_ms: u64,
    /// Delay of clock reports behind the clock.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    report_lag_ms: u64,
    /// Faults on the output stream, e.g. drop=0.01,corrupt=0.005,split=0.1,seed=7.
    #[arg(long, value_name = "SPEC")]
    fault: Option<FaultConfig>,
    /// Press the lever by itself 1-4 s after a half starts running.
    #[arg(long)]
    autoplay: bool,
    /// Print JSON lines (host commands and display changes) instead of text.
    #[arg(long)]
    json: bool,
    /// The board is turned round: White's pieces on fields 0-15.
    #[arg(long)]
    rotated: bool,
}

fn parse_model(s: &str) -> Result<ClockModel, String> {
    match s.to_ascii_lowercase().as_str() {
        "3000" | "dgt3000" => Ok(ClockModel::Dgt3000),
        "xl" | "dgtxl" => Ok(ClockModel::DgtXl),
        other => Err(format!("{other:?} is not a clock model; use 3000 or xl")),
    }
}

/// One stdin command.
#[derive(Debug, PartialEq, Eq)]
enum Input {
    Control(VirtualControl),
    Quit,
}

fn parse_input(line: &str, pieces: &Board) -> Result<Option<Input>, String> {
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
        ["own-game", seconds] => {
            let seconds = seconds
                .parse()
                .map_err(|_| format!("own-game needs whole seconds a side, not {seconds:?}"))?;
            control(VirtualControl::OwnGame(seconds))
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
             power on|off, pc-mode on|off, own-game SECONDS, mute on|off, flood on|off, stall on|off, unplug, replug, move UCI [other-first], \
             lift SQUARE, place SQUARE PIECE, setup, clear, quit"
            )),
        },
    }
}

/// A host command as JSON: `name` plus, for clock messages, the sub-command and its data.
fn command_json(cmd: &Command) -> Value {
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

fn display_json(view: &ClockView) -> Value {
    json!({
        "event": "display",
        "left": format_seconds(view.left_seconds),
        "right": format_seconds(view.right_seconds),
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

fn display_text(view: &ClockView) -> String {
    let flag = |f: bool| if f { " F" } else { "" };
    let icon = |f: bool| if f { " (flag)" } else { "" };
    let clock = if !view.present {
        "no clock".to_owned()
    } else if !view.powered {
        "clock off".to_owned()
    } else {
        format!(
            "{:>7}{}{} | {:<7}{}{}  running: {:<5}  lever: {}  {}{}",
            format_seconds(view.left_seconds),
            flag(view.left_flag),
            icon(view.left_flag_icon),
            format_seconds(view.right_seconds),
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

struct Out {
    json: bool,
    live: bool,
}

impl Out {
    fn event(&self, v: Value, text: impl FnOnce() -> String) {
        let mut stdout = std::io::stdout().lock();
        let _ = if self.json {
            writeln!(stdout, "{v}")
        } else if self.live {
            writeln!(stdout, "\r\x1b[2K{}", text())
        } else {
            writeln!(stdout, "{}", text())
        };
    }

    fn display(&self, view: &ClockView) {
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

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chessclock-emu: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> anyhow::Result<()> {
    let emu = EmuConfig {
        clock_present: !args.no_clock,
        ack_delay_ms: args.ack_delay_ms,
        report_lag_ms: args.report_lag_ms,
        faults: args.fault.unwrap_or_default(),
        ..EmuConfig::default()
    }
    .bluetooth(args.bluetooth);
    let vb = VirtualBoard::start(VirtualOptions {
        model: args.model,
        pc_mode: !args.no_pc_mode,
        clock_on: !args.clock_off,
        autoplay: args.autoplay,
        link: args.link.clone(),
        emu: EmuConfig {
            board: BoardConfig {
                orientation: if args.rotated {
                    Orientation::Rotated
                } else {
                    Orientation::Normal
                },
                ..BoardConfig::default()
            },
            ..emu
        },
    })?;
    let out = Out {
        json: args.json,
        live: !args.json && std::io::stdout().is_terminal(),
    };
    // Subscribe before telling anyone where to connect, so no host command is missed.
    let ctl = vb.control();
    let mut view = vb.view();
    let mut host = vb.host_commands();
    let path = vb.path().display().to_string();
    if out.json {
        out.event(json!({"event": "path", "path": path}), String::new);
    } else {
        println!("PATH {path}");
    }
    // On a terminal, single keys act at once; the terminal is restored on exit.
    let keys = out.live && std::io::stdin().is_terminal();
    let _raw = if keys { RawTerminal::enter() } else { None };
    let mut lines = if _raw.is_some() {
        println!(
            "keys: space lever, p run, + plus, - minus, < back, > ok, o/O power off/on, q quit"
        );
        stdin_keys()
    } else {
        stdin_lines()
    };
    let mut stdin_open = true;
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    out.display(&view.borrow_and_update().clone());
    loop {
        tokio::select! {
            line = lines.recv(), if stdin_open => match line {
                Some(line) => match parse_input(&line, &view.borrow().pieces) {
                    Ok(None) => {}
                    Ok(Some(Input::Quit)) => break,
                    Ok(Some(Input::Control(c))) => {
                        let _ = ctl.send(c);
                        plug_event(&vb, &out, c).await;
                    }
                    Err(msg) => {
                        if out.json {
                            out.event(json!({"event": "error", "message": msg}), String::new);
                        } else {
                            eprintln!("chessclock-emu: {msg}");
                        }
                    }
                },
                // End of input: keep serving until `quit`, SIGINT or SIGTERM.
                None => stdin_open = false,
            },
            changed = view.changed() => {
                if changed.is_err() {
                    anyhow::bail!("the emulator task stopped");
                }
                let v = view.borrow_and_update().clone();
                out.display(&v);
            }
            cmd = host.recv() => match cmd {
                Ok((t_ms, cmd)) => out.event(
                    json!({"event": "host_command", "t_ms": t_ms, "command": command_json(&cmd)}),
                    || format!("host {t_ms:>8} ms: {}", command_json(&cmd)),
                ),
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => out.event(
                    json!({"event": "lagged", "missed": n}),
                    || format!("({n} host commands not shown)"),
                ),
                Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                    anyhow::bail!("the emulator task stopped");
                }
            },
            _ = term.recv() => break,
            _ = int.recv() => break,
        }
    }
    if out.live {
        println!();
    }
    Ok(())
}

/// Lines of stdin, read on a plain thread (blocking reads) and handed over a channel; the
/// channel closes at end of input.
fn stdin_lines() -> tokio::sync::mpsc::UnboundedReceiver<String> {
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
fn key_command(key: u8) -> Option<&'static str> {
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
fn stdin_keys() -> tokio::sync::mpsc::UnboundedReceiver<String> {
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
struct RawTerminal {
    saved: String,
}

impl RawTerminal {
    fn enter() -> Option<RawTerminal> {
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

/// After unplug/replug, say where the board is now.
async fn plug_event(vb: &VirtualBoard, out: &Out, c: VirtualControl) {
    let want_plugged = match c {
        VirtualControl::Unplug => false,
        VirtualControl::Replug => true,
        _ => return,
    };
    // The board task applies the control on its own; give it up to 10 s on a loaded machine
    // (reporting the old state early was a false "unplugged" after a replug).
    for _ in 0..1000 {
        if vb.current_pty().is_some() == want_plugged {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    match vb.current_pty() {
        Some(pty) => {
            let path = vb.path().display().to_string();
            let pty = pty.display().to_string();
            out.event(
                json!({"event": "replugged", "path": path, "pty": pty}),
                || format!("PATH {path}"),
            );
        }
        None => out.event(json!({"event": "unplugged"}), || "unplugged".into()),
    }
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
