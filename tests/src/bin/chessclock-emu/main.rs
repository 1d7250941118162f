//! `chessclock-emu`: an emulated DGT board + clock served on a pty, driven from stdin (our
//! gpsfake).
//!
//! Owns the command line and the serving loop around `chessclockd::virtual_board`: stdin
//! commands in ([`input`]), events out ([`output`]). All behaviour of the board and clock is
//! the emulator's; this program must not model any. The interface is documented in
//! `docs/emulator.md`; end-to-end tests depend on it, so change it only together with that page
//! and `tests/tests/e2e/emu_cli.rs`.

mod input;
mod output;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use chessclock_protocol::emulator::board::BoardConfig;
use chessclock_protocol::emulator::{EmuConfig, FaultConfig};
use chessclock_protocol::{ClockModel, Orientation};
use chessclockd::virtual_board::{VirtualBoard, VirtualControl, VirtualOptions};
use clap::Parser;
use serde_json::json;
use tokio::signal::unix::{SignalKind, signal};

use input::{Input, RawTerminal, parse_input, stdin_keys, stdin_lines};
use output::{Out, command_json};

/// Serve an emulated DGT e-board with a DGT 3000 or DGT XL on a pseudo-terminal.
///
/// The first stdout line says which path to open (`PATH /dev/pts/N`, or with --json
/// `{"event":"path","path":...}`). Commands are read from stdin, one per line: lever,
/// button run|plus|minus|back|ok, power on|off, pc-mode on|off, own-game SECONDS [ADD@MOVES|ADD@flag], mute on|off,
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
    /// The board's serial number: five digits. Default: the last five digits of this
    /// process's id, so emulators running side by side are different boards.
    #[arg(long, value_name = "DIGITS", value_parser = parse_serial)]
    board_serial: Option<String>,
    /// Payload bytes of the board's own move log (its `0x49` dump, the final `0x6B`
    /// included): 7936 as an 8 KB board's; 1 keeps nothing.
    #[arg(long, value_name = "BYTES", default_value_t = chessclock_protocol::emulator::EE_LOG_BYTES)]
    ee_log_bytes: usize,
}

/// The default board serial: the process id's last five digits (zero-padded). Two emulators
/// running at once have different ids, so different serials unless their ids end alike
/// (ids 100000 apart); `--board-serial` makes it certain.
fn default_serial(pid: u32) -> String {
    format!("{:05}", pid % 100_000)
}

fn parse_serial(s: &str) -> Result<String, String> {
    if s.len() == 5 && s.bytes().all(|b| b.is_ascii_digit()) {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "{s:?} is not a board serial number; a DGT board's is five digits, e.g. 13579"
        ))
    }
}

fn parse_model(s: &str) -> Result<ClockModel, String> {
    match s.to_ascii_lowercase().as_str() {
        "3000" | "dgt3000" => Ok(ClockModel::Dgt3000),
        "xl" | "dgtxl" => Ok(ClockModel::DgtXl),
        other => Err(format!("{other:?} is not a clock model; use 3000 or xl")),
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
    let serial = args
        .board_serial
        .clone()
        .unwrap_or_else(|| default_serial(std::process::id()));
    let emu = EmuConfig {
        clock_present: !args.no_clock,
        ack_delay_ms: args.ack_delay_ms,
        report_lag_ms: args.report_lag_ms,
        faults: args.fault.unwrap_or_default(),
        ..EmuConfig::default()
    }
    .bluetooth(args.bluetooth);
    let linked = args.link.is_some();
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
                long_serial_number: format!("00000{serial}"),
                serial_number: serial.clone(),
                ee_log_bytes: args.ee_log_bytes.max(1),
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
        out.event(
            json!({"event": "path", "path": path, "board_serial": serial}),
            String::new,
        );
    } else {
        println!("PATH {path}");
        println!("board serial {serial}");
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
                Some(line) => {
                    // The view's borrow ends with this statement: held across the wait for a
                    // cable change below, it kept the board task from publishing its view, so
                    // the change was applied only once that wait gave up.
                    let input = parse_input(&line, &view.borrow().pieces);
                    match input {
                        Ok(None) => {}
                        Ok(Some(Input::Quit)) => break,
                        Ok(Some(Input::Control(c))) => {
                            let _ = ctl.send(c.clone());
                            plug_event(&vb, linked, &out, &c).await;
                        }
                        Err(msg) => {
                            if out.json {
                                out.event(json!({"event": "error", "message": msg}), String::new);
                            } else {
                                eprintln!("chessclock-emu: {msg}");
                            }
                        }
                    }
                }
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

/// After unplug/replug, say where the board is now: what to open (the link, else the new
/// pty) and the new pty.
async fn plug_event(vb: &VirtualBoard, linked: bool, out: &Out, c: &VirtualControl) {
    let want_plugged = match c {
        VirtualControl::Unplug => false,
        VirtualControl::Replug => true,
        _ => return,
    };
    // The board task applies the control on its own, at once unless the machine is very
    // loaded; the state seen after a minute is reported (a deadline, not a count of sleeps,
    // which a loaded machine stretches).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while vb.current_pty().is_some() != want_plugged && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    match vb.current_pty() {
        Some(pty) => {
            let pty = pty.display().to_string();
            let path = if linked {
                vb.path().display().to_string()
            } else {
                pty.clone()
            };
            out.event(
                json!({"event": "replugged", "path": path, "pty": pty}),
                || format!("PATH {path}"),
            );
        }
        None => out.event(json!({"event": "unplugged"}), || "unplugged".into()),
    }
}
