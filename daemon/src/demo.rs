//! `chessclockd --demo`: the daemon, an emulated DGT board with a DGT 3000 on a real pty, and
//! an auto-played game under a double-flag control that no clock has built in.
//!
//! Uses the session bus, or starts a private bus when there is none, and shows the emulated
//! clock's display live. Owns nothing the normal service does not also use.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail};
use tokio::io::AsyncBufReadExt;
use tokio::process::{Child, Command};

use crate::bus::names::BUS_NAME;
use crate::config::Config;
use chessclock_protocol::emulator::format_seconds;

use crate::device::handle::{DeviceState, Request};
use crate::engine::{Side, Snapshot, Status};
use crate::service::{self, BusChoice};
use crate::supervisor::{self, ClockSpec, Defaults};
use crate::virtual_board::{VirtualBoard, VirtualOptions};

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
pub async fn run(config: Option<PathBuf>, _state_dir: Option<PathBuf>) -> anyhow::Result<()> {
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
    let mut device = service::device_defaults(&cfg);
    device.time_control = DEMO_CONTROL.to_owned();
    let sup = supervisor::start(conn.clone(), Defaults { device }).await?;
    if conn.request_name(BUS_NAME).await.is_err() {
        bail!("{BUS_NAME} is already owned on this bus: is another chessclockd running?");
    }
    // The emulated board + DGT 3000 on a real pty; it flips its own lever (autoplay).
    let board = VirtualBoard::start(VirtualOptions {
        autoplay: true,
        ..VirtualOptions::default()
    })
    .context("cannot start the emulated board")?;
    let path = sup
        .attach_spec(ClockSpec {
            port: board.path().to_path_buf(),
            name: Some("demo".into()),
            time_control: Some(DEMO_CONTROL.into()),
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
    println!("time control {DEMO_CONTROL}: one minute each, then double-flag extra time (20 s,");
    println!("hybrid 5 s bonus per move); a player on extra time can no longer win.");
    println!("D-Bus: {BUS_NAME}, clock object {}", path.as_str());
    println!("In another terminal:");
    println!("  chessclockctl --address '{address}' watch");
    println!("A finished game is followed by a new one. Ctrl-C stops the demo.\n");

    let tty = std::io::stdout().is_terminal();
    let mut view = board.view();
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut last = String::new();
    let mut next_game: Option<tokio::time::Instant> = None;
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => break,
            _ = term.recv() => break,
            _ = tick.tick() => {}
            changed = view.changed() => if changed.is_err() { break },
        }
        let Ok(live) = clock.live().await else { break };
        let over = matches!(live.game_state, Status::Flagged | Status::Ended);
        match next_game {
            None if over => next_game = Some(tokio::time::Instant::now() + NEXT_GAME_AFTER),
            Some(at) if tokio::time::Instant::now() >= at => {
                next_game = None;
                for request in [Request::NewGame, Request::Start(Side::White)] {
                    if let Err(e) = clock.request(request).await {
                        tracing::warn!("demo: cannot start the next game: {e}");
                    }
                }
                if !tty {
                    println!("next game");
                }
            }
            _ => {}
        }
        let shown = view.borrow_and_update().clone();
        let line = format!(
            "DGT 3000 shows {:>7} | {:<7} {:<6}   engine: {}",
            format_seconds(shown.left_seconds),
            format_seconds(shown.right_seconds),
            shown.text.clone().unwrap_or_default(),
            demo_line(&live.snapshot, live.device_state.as_str())
        );
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

fn demo_line(snap: &Snapshot, device: &str) -> String {
    let mark = |s: Side| if snap.running == Some(s) { "*" } else { " " };
    let result = snap
        .result
        .map(|r| {
            let why = snap.reason.map(|r| r.as_str()).unwrap_or("");
            format!("  result {r} ({why})")
        })
        .unwrap_or_default();
    format!(
        "{}White {:>7} [{}, move {}]   {}Black {:>7} [{}, move {}]   {} / {}{}",
        mark(Side::White),
        snap.text.white,
        snap.phase.white,
        snap.moves.white,
        mark(Side::Black),
        snap.text.black,
        snap.phase.black,
        snap.moves.black,
        snap.status,
        device,
        result
    )
}
