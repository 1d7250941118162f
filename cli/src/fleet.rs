//! `chessclockctl fleet`: every board of every machine, read from the MQTT broker that the
//! machines' `chessclock-bridge`s publish to (docs/bridge.md, docs/operations.md). A live
//! table on a terminal (`watch`'s screen: alternate screen and raw mode, restored on q,
//! Ctrl-C, SIGTERM, SIGHUP or an error), JSON lines otherwise or with `--json`; with
//! `--once`, what the broker holds, printed once.
//!
//! Owns reading the fleet topics and showing them; it talks to no daemon and controls
//! nothing.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use chessclock_api::Side;
use chessclock_api::fleet::view::{Board, Fleet as View};
use chessclock_api::fleet::{FLEET_HEARTBEAT, FLEET_SUBSCRIPTIONS, parse_broker};
use chessclock_api::monotonic::monotonic_us;
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};

use crate::client::render::truncate;
use crate::client::watch::term::{self, Input, Terminal};
use tokio::signal::unix::{SignalKind, signal};

/// Options of `fleet`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The broker the bridges publish to: mqtt://[user:password@]host[:port].
    #[arg(long, value_name = "URL")]
    mqtt: String,
    /// Print the fleet once (a table, or one JSON array with --json) when the broker has sent
    /// what it holds, and exit: 0, or 3 when the broker cannot be reached. For scripts.
    #[arg(long)]
    once: bool,
}

/// How long `--once` waits after the last retained message before it prints.
const ONCE_QUIET: Duration = Duration::from_millis(500);

/// The fleet as every screen of it sees it ([`chessclock_api::fleet::view`]: each board with
/// its machine, whether that machine is online, whether its data is stale, its players and
/// problems), with the table this command prints.
#[derive(Debug)]
struct Fleet(View);

impl Default for Fleet {
    fn default() -> Fleet {
        // On no machine of the fleet: every machine's clocks are another's.
        Fleet(View::new(""))
    }
}

impl Fleet {
    /// Apply one message; whether anything changed.
    fn apply(&mut self, topic: &str, payload: &[u8]) -> bool {
        match self.0.apply(topic, payload, monotonic_us()) {
            Ok(changed) => changed,
            Err(e) => {
                eprintln!("chessclockctl: ignoring {e}");
                false
            }
        }
    }

    fn boards(&self) -> Vec<Board> {
        self.0.boards(monotonic_us(), None)
    }

    /// The table: a line per board in board order (its number, machine, name, players, device,
    /// game, clocks, control), and under a board that needs the operator its most urgent
    /// problem and what fixes it.
    fn table(&self) -> String {
        let mut out = format!(
            "{:>5}  {:<12} {:<10} {:<26} {:<14} {:<8} {:>9} {:>9}  {}\n",
            "BOARD", "HOST", "NAME", "PLAYERS", "DEVICE", "GAME", "WHITE", "BLACK", "CONTROL"
        );
        let boards = self.boards();
        for b in &boards {
            let c = &b.clock;
            let mark = |side| if c.running == Some(side) { "*" } else { " " };
            let device = match (b.online, b.stale) {
                (false, true) => "offline",
                (true, true) => "stale",
                _ => c.device_state.as_str(),
            };
            let players = format!("{} - {}", c.player(Side::White), c.player(Side::Black));
            let game = c.result.clone().unwrap_or_else(|| c.game_state.to_string());
            out.push_str(&format!(
                "{:>5}  {:<12} {:<10} {:<26} {:<14} {:<8} {}{:>8} {}{:>8}  {}\n",
                match c.board {
                    0 => "-".to_owned(),
                    b => b.to_string(),
                },
                truncate(&b.host, 12),
                truncate(&c.name, 10),
                truncate(&players, 26),
                device,
                game,
                mark(Side::White),
                c.text.white,
                mark(Side::Black),
                c.text.black,
                c.time_control
            ));
            if let Some(p) = c.problems.iter().find(|p| p.rank < 4) {
                out.push_str(&format!("       ! {}: {}\n", p.text, p.fix));
            }
        }
        if boards.is_empty() {
            out.push_str("no boards published yet\n");
        }
        out
    }
}

/// Run `fleet` until Ctrl-C.
/// With `json` (or when stdout is not a terminal), JSON lines: an array of boards each time
/// it changes.
pub(crate) fn run(args: Args, json: bool) -> Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(follow(args, json))
}

async fn follow(args: Args, json: bool) -> Result<ExitCode> {
    let broker = parse_broker(&args.mqtt).map_err(anyhow::Error::msg)?;
    if broker.tls {
        anyhow::bail!(
            "chessclockctl fleet speaks plain mqtt:// only, not mqtts://: use a plain listener \
             of the broker (the bridge publishes over TLS)"
        );
    }
    let mut opts = MqttOptions::new(
        format!("chessclockctl-fleet-{}", std::process::id()),
        broker.host.clone(),
        broker.port,
    );
    opts.set_keep_alive(Duration::from_secs(15));
    if let Some(user) = &broker.user {
        opts.set_credentials(user, broker.password.as_deref().unwrap_or_default());
    }
    let (client, mut events) = AsyncClient::new(opts, 64);
    if args.once {
        return once(&broker, &client, &mut events, json).await;
    }
    let json = json || !std::io::stdout().is_terminal();
    // On a terminal: `watch`'s screen (alternate screen, raw mode), restored on every way out,
    // the guard dropping on a return, an error, a signal or q.
    let mut screen = if json {
        None
    } else {
        Some(Terminal::enter().context("cannot set up the terminal")?)
    };
    let mut keys = screen.as_ref().map(|_| term::keys());
    let mut fleet = Fleet::default();
    let mut connected = false;
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hangup = signal(SignalKind::hangup())?;
    // A machine that falls silent says nothing: its boards turn stale as time passes.
    let mut judge = tokio::time::interval(Duration::from_secs(1));
    let mut stale: Vec<bool> = Vec::new();
    loop {
        let ev = tokio::select! {
            ev = events.poll() => ev,
            _ = judge.tick() => {
                let now: Vec<bool> = fleet.boards().iter().map(|b| b.stale).collect();
                if now != stale {
                    stale = now;
                    show(&fleet, screen.as_mut())?;
                }
                continue;
            }
            _ = tokio::signal::ctrl_c() => return Ok(ExitCode::SUCCESS),
            _ = terminate.recv() => return Ok(ExitCode::SUCCESS),
            _ = hangup.recv() => return Ok(ExitCode::SUCCESS),
            key = async {
                match keys.as_mut() {
                    Some(k) => k.recv().await,
                    None => std::future::pending().await,
                }
            } => {
                match key {
                    Some(Input::Quit) | None => return Ok(ExitCode::SUCCESS),
                    Some(Input::Resized) => {
                        if let Some(t) = screen.as_mut() {
                            t.invalidate()?;
                            show(&fleet, screen.as_mut())?;
                        }
                    }
                    Some(_) => {}
                }
                continue;
            }
        };
        match ev {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                connected = true;
                for topic in FLEET_SUBSCRIPTIONS.into_iter().chain([FLEET_HEARTBEAT]) {
                    client.subscribe(topic, QoS::AtLeastOnce).await?;
                }
                show(&fleet, screen.as_mut())?;
            }
            Ok(Event::Incoming(Packet::Publish(p))) => {
                if fleet.apply(&p.topic, &p.payload) {
                    show(&fleet, screen.as_mut())?;
                }
            }
            Ok(_) => {}
            Err(e) if !connected => bail!(
                "cannot reach the MQTT broker {}:{} ({e}); is it running, and do the bridges \
                 publish to it (`mqtt =` in /etc/chessclockd/bridge.toml)?",
                broker.host,
                broker.port
            ),
            Err(e) => {
                eprintln!("chessclockctl: lost the broker ({e}); reconnecting");
                tokio::time::sleep(Duration::from_secs(2)).await;
            }
        }
    }
}

/// `fleet --once`: subscribe, take what the broker holds (retained states and statuses) until
/// it has been quiet for [`ONCE_QUIET`], print it and exit.
async fn once(
    broker: &chessclock_api::fleet::Broker,
    client: &AsyncClient,
    events: &mut rumqttc::EventLoop,
    json: bool,
) -> Result<ExitCode> {
    let mut fleet = Fleet::default();
    let mut acks = 0;
    let quiet = tokio::time::sleep(Duration::from_secs(3600));
    tokio::pin!(quiet);
    loop {
        let ev = tokio::select! {
            ev = events.poll() => ev,
            () = &mut quiet => break,
        };
        match ev {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                for topic in FLEET_SUBSCRIPTIONS {
                    client.subscribe(topic, QoS::AtLeastOnce).await?;
                }
            }
            Ok(Event::Incoming(Packet::SubAck(_))) => {
                acks += 1;
                if acks >= FLEET_SUBSCRIPTIONS.len() {
                    quiet
                        .as_mut()
                        .reset(tokio::time::Instant::now() + ONCE_QUIET);
                }
            }
            Ok(Event::Incoming(Packet::Publish(p))) => {
                fleet.apply(&p.topic, &p.payload);
                if acks >= FLEET_SUBSCRIPTIONS.len() {
                    quiet
                        .as_mut()
                        .reset(tokio::time::Instant::now() + ONCE_QUIET);
                }
            }
            Ok(_) => {}
            Err(e) => {
                eprintln!(
                    "chessclockctl: cannot reach the MQTT broker {}:{} ({e}); is it running, and \
                     do the bridges publish to it (`mqtt =` in /etc/chessclockd/bridge.toml)?",
                    broker.host, broker.port
                );
                return Ok(ExitCode::from(3));
            }
        }
    }
    let out = if json {
        format!("{}\n", serde_json::to_string(&fleet.boards())?)
    } else {
        fleet.table()
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// The fleet on `screen`, or (without one) as a JSON line.
fn show(fleet: &Fleet, screen: Option<&mut Terminal>) -> Result<()> {
    if let Some(t) = screen {
        let lines: Vec<String> = fleet.table().lines().map(str::to_owned).collect();
        return Ok(t.draw(&lines)?);
    }
    let mut stdout = std::io::stdout().lock();
    let line = serde_json::to_string(&fleet.boards())?;
    match writeln!(stdout, "{line}").and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_and_status_make_boards_and_an_empty_state_removes_one() {
        let st = serde_json::json!({
            "clock": "/org/chessclockd/ChessClock1/Clock/0", "index": 0, "name": "b",
            "port": "/dev/x", "model": "", "firmware": "", "board_serial": "",
            "connected": true, "device_state": "ready", "white_side": "left",
            "time_control": "G/5", "game_state": "ready", "status": "ready", "as_of_us": 1,
            "t_ms": 1, "white_ms": 1, "black_ms": 1, "running": null,
            "text": {"white": "0:01", "black": "0:01"}, "phase": {"white": "main", "black": "main"},
            "moves": {"white": 0, "black": 0}, "detail": {"white": {}, "black": {}},
            "result": null});
        let payload = st.to_string();
        let mut f = Fleet::default();
        assert!(f.apply("chessclockd/pi/clock/0/state", payload.as_bytes()));
        assert!(
            !f.apply("chessclockd/pi/clock/0/state", payload.as_bytes()),
            "no change"
        );
        assert!(f.apply("chessclockd/pi/status", b"online"));
        let boards = serde_json::to_value(f.boards()).expect("json");
        assert_eq!(boards[0]["host"], "pi");
        assert_eq!(boards[0]["online"], true);
        assert_eq!(boards[0]["name"], "b");
        assert!(f.table().contains("pi"), "{}", f.table());
        assert!(
            f.table()
                .lines()
                .nth(1)
                .is_some_and(|l| l.starts_with("    -  pi ")),
            "no board number, then its host: {}",
            f.table()
        );
        assert!(!f.apply("chessclockd/pi/clock/0/event", b"{}"));
        assert!(f.apply("chessclockd/pi/status", b"offline"));
        assert!(f.table().contains("offline"), "{}", f.table());
        assert!(
            f.table().contains("stale: pi's bridge is offline"),
            "its problem, under its line: {}",
            f.table()
        );
        assert!(f.apply("chessclockd/pi/clock/0/state", b""));
        assert!(f.boards().is_empty());
    }
}
