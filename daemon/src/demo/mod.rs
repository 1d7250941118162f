//! `chessclockd --demo`: the daemon, an emulated DGT board with a DGT 3000 on a real pty, and
//! real games played piece by piece on it ([`play`]) under a double-flag control that no
//! clock has built in: one ends in a mate, one in the kings' result signal, one on the clock.
//!
//! Uses the session bus, or starts a private bus when there is none, and shows the emulated
//! clock's display live. Owns nothing the normal service does not also use.

mod play;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail};
use tokio::io::AsyncBufReadExt;
use tokio::process::{Child, Command};

use crate::bus::names::BUS_NAME;
use crate::config::Config;
use chessclock_protocol::emulator::ClockView;

use crate::device::{DeviceState, Request};
use crate::engine::{Side, Snapshot, Status};
use crate::service::{self, BusChoice};
use crate::supervisor::{self, ClockSpec, Defaults};
use crate::virtual_board::{VirtualBoard, VirtualControl, VirtualOptions};
use play::{Act, Player};

/// The demo's time control: 1 minute of main time, then double-flag extra time of 20 s with
/// a hybrid 5 s bonus, so both flags are seen within a few minutes.
pub const DEMO_CONTROL: &str = "G/1 df/20:5:hybrid";

/// A private session bus started for the demo, stopped when dropped.
struct PrivateBus {
    child: Child,
    address: String,
}

impl Drop for PrivateBus {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

async fn private_bus() -> anyhow::Result<PrivateBus> {
    let mut child = Command::new("dbus-daemon")
        .args(["--session", "--nofork", "--print-address=1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .context(
            "no session bus, and dbus-daemon could not be started (install package dbus-daemon)",
        )?;
    let stdout = child.stdout.take().context("dbus-daemon has no stdout")?;
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let address = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
        .await
        .context("dbus-daemon did not print its address")??
        .context("dbus-daemon exited without an address")?;
    Ok(PrivateBus {
        child,
        address: address.trim().to_owned(),
    })
}

/// How long a finished demo game stays on the display before the next one starts.
const NEXT_GAME_AFTER: Duration = Duration::from_secs(8);

/// Run the demo until Ctrl-C or SIGTERM.
pub async fn run(
    config: Option<PathBuf>,
    _state_dir: Option<PathBuf>,
    control: Option<String>,
) -> anyhow::Result<()> {
    let notation = control.unwrap_or_else(|| DEMO_CONTROL.to_owned());
    let control = match crate::engine::notation::parse(&notation) {
        Ok(parsed) => parsed.control,
        Err(e) => bail!(
            "--control {notation:?} is not a time control: {}; try e.g. \"G/3 inc/2\"",
            e.message
        ),
    };
    let cfg = match config {
        Some(p) => Config::load(Some(&p)).context("configuration")?,
        None => Config::from_sources(None, std::iter::empty::<(String, String)>())
            .context("default configuration")?,
    };
    let mut _private = None;
    let (conn, address) = match service::connect(&BusChoice::Session).await {
        Ok(conn) => (
            conn,
            std::env::var("DBUS_SESSION_BUS_ADDRESS").unwrap_or_default(),
        ),
        Err(_) => {
            let bus = private_bus().await?;
            let conn = service::connect(&BusChoice::Address(bus.address.clone()))
                .await
                .context("cannot connect to the private bus")?;
            let address = bus.address.clone();
            _private = Some(bus);
            (conn, address)
        }
    };
    let mut device = service::plan(&cfg).context("configuration")?.device;
    device.time_control = control.clone();
    let (sup, changes) = supervisor::start(Defaults {
        device,
        devices: None,
        tables: Vec::new(),
        configured_boards: Default::default(),
    });
    crate::bus::objects::serve(conn.clone(), sup.clone(), changes).await?;
    if conn.request_name(BUS_NAME).await.is_err() {
        bail!("{BUS_NAME} is already owned on this bus: is another chessclockd running?");
    }
    // The emulated board + DGT 3000 on a real pty; the players below move its pieces and
    // press its lever.
    let board = VirtualBoard::start(VirtualOptions::default())
        .context("cannot start the emulated board")?;
    let index = sup
        .attach_spec(ClockSpec {
            port: board.path().to_path_buf(),
            name: Some("demo".into()),
            time_control: Some(control.clone()),
            ..ClockSpec::default()
        })
        .await
        .map_err(|e| anyhow::anyhow!("cannot attach the emulated board: {e}"))?;
    let handles = sup.handles().await;
    let Some(clock) = handles.last().cloned() else {
        bail!("the emulated clock vanished");
    };
    // Give the probe a moment, then start the game.
    for _ in 0..50 {
        if clock.state().device_state == DeviceState::Ready {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    clock
        .request(Request::Start(Side::White))
        .await
        .map_err(|e| anyhow::anyhow!("cannot start the demo game: {e}"))?;

    println!(
        "chessclockd demo: an emulated DGT board + DGT 3000 on {}",
        board.path().display()
    );
    if notation == DEMO_CONTROL {
        println!("time control {DEMO_CONTROL}: one minute each, then double-flag extra time");
        println!("(20 s, hybrid 5 s bonus per move); on extra time a player can no longer win.");
    } else {
        println!("time control {notation}");
    }
    println!(
        "D-Bus: {BUS_NAME}, clock object {}",
        crate::bus::names::clock_path(index)
    );
    println!("Watch it from another terminal:");
    println!("  {} --address '{address}' watch", ctl_command());
    println!("A finished game is followed by a new one. Ctrl-C stops the demo.\n");
    let mut player = Player::new();
    let pieces = board.control();
    let started = tokio::time::Instant::now();
    println!("game 1: {}", player.game().name);
    let tty = std::io::stdout().is_terminal();
    let mut view = board.view();
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    // A closed terminal (SIGHUP) stops the demo as cleanly as Ctrl-C: its private bus too.
    let mut hangup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())?;
    let mut game = 1u32;
    let mut last = String::new();
    let mut next_game: Option<tokio::time::Instant> = None;
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => break,
            _ = term.recv() => break,
            _ = hangup.recv() => break,
            _ = tick.tick() => {}
            changed = view.changed() => if changed.is_err() { break },
        }
        let Ok(live) = clock.live().await else { break };
        let over = matches!(live.game_state, Status::Flagged | Status::Ended);
        let to_move = (live.game_state == Status::Running)
            .then_some(live.snapshot.running)
            .flatten();
        let now_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        for act in player.poll(now_ms, to_move, live.moves_san.len()) {
            let _ = pieces.send(match act {
                Act::Pieces(action) => VirtualControl::Pieces(action),
                Act::Lever => VirtualControl::Lever,
            });
        }
        match next_game {
            None if over => next_game = Some(tokio::time::Instant::now() + NEXT_GAME_AFTER),
            Some(at) if tokio::time::Instant::now() >= at => {
                next_game = None;
                if let Act::Pieces(setup) = player.next_game() {
                    let _ = pieces.send(VirtualControl::Pieces(setup));
                }
                for request in [Request::NewGame, Request::Start(Side::White)] {
                    if let Err(e) = clock.request(request).await {
                        tracing::warn!("demo: cannot start the next game: {e}");
                    }
                }
                game += 1;
                if !tty {
                    println!("game {game}: {}", player.game().name);
                }
            }
            _ => {}
        }
        let shown = view.borrow_and_update().clone();
        let line = status_line(game, &shown, &live.snapshot, live.moves_san.last());
        if line != last {
            if tty {
                print!("\r\x1b[K{line}");
                let _ = std::io::stdout().flush();
            } else {
                println!("{line}");
            }
            last = line;
        }
    }
    println!();
    sup.shutdown().await;
    Ok(())
}

/// The demo's one-line status, at most [`LINE_MAX`] characters (an 80-column terminal):
/// the game, what the DGT 3000 shows (times or text), the engine's times with the side to
/// move marked, any phase beyond main time, the state and the result.
fn status_line(game: u32, shown: &ClockView, snap: &Snapshot, last: Option<&String>) -> String {
    let display = match &shown.text {
        Some(t) => format!("[{t:^8}]"),
        None => format!(
            "{:>7} {:<7}",
            seconds_text(shown.left_seconds),
            seconds_text(shown.right_seconds)
        ),
    };
    let side = |s: Side, text: &str, phase: &str| {
        let mark = if snap.running == Some(s) { "*" } else { " " };
        let phase = if phase == "main" || phase == "sd" {
            String::new()
        } else {
            format!(" {phase}")
        };
        format!("{text:>7}{mark}{phase}")
    };
    let result = match (snap.result, snap.reason) {
        (Some(r), Some(why)) => format!(" {r} {}", why.as_str().replace('_', " ")),
        (Some(r), None) => format!(" {r}"),
        (None, _) => last.map(|san| format!(" {san}")).unwrap_or_default(),
    };
    let line = format!(
        "#{game} DGT 3000 {display} | W {} B {} | {}{result}",
        side(Side::White, &snap.text.white, &snap.phase.white.to_string()),
        side(Side::Black, &snap.text.black, &snap.phase.black.to_string()),
        snap.status,
    );
    line.chars().take(LINE_MAX).collect()
}

/// The longest status line (one less than 80 columns: no wrap in any terminal).
const LINE_MAX: usize = 79;

/// How to run `chessclockctl` from here: the binary next to this one, else `cargo run`.
fn ctl_command() -> String {
    let sibling = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join("chessclockctl")))
        .filter(|p| p.is_file());
    match sibling {
        Some(p) => p.display().to_string(),
        None => "cargo run --release --bin chessclockctl --".to_owned(),
    }
}

/// What a clock half showing `secs` whole seconds reads (`M:SS` / `H:MM:SS`).
fn seconds_text(secs: u32) -> String {
    crate::engine::clock_text(u64::from(secs) * 1000)
}
