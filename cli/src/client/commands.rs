//! The D-Bus subcommands: reading (`list`, `status`, `watch`, `monitor`) and control verbs.

use std::io::Write;
use std::time::Duration;

use chessclock_api::error::ErrorName;
use chessclock_api::names::{BUS_NAME, MANAGER_PATH};
use chessclock_api::proxy::{ClockProxy, ManagerProxy};
use chessclock_api::{ClockStatus, read};
use zbus::{Connection, MatchRule, MessageStream};

use super::events::{describe, human_event};
use super::render::{list_header, list_line, status_text};
use super::resolve::{all_clocks, resolve};
use super::{BusArgs, Failure, Result, bus_failure, connect, read_failure};

/// A clock: index, object path, tty path or board serial.
type ClockName = String;

/// Subcommands that talk to the daemon.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum BusCommand {
    /// List the attached clocks.
    List(ReadArgs),
    /// Show one clock in detail (or every clock).
    Status {
        /// Clock to show (default: all).
        clock: Option<ClockName>,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// A live table of all clocks, refreshed in place (Ctrl-C to stop).
    Watch {
        #[command(flatten)]
        read: ReadArgs,
        /// Refresh interval in milliseconds.
        #[arg(long, default_value_t = 250, value_parser = clap::value_parser!(u64).range(50..=10_000))]
        interval_ms: u64,
    },
    /// Print events (presses, flags, results, state changes, clocks added/removed) as they
    /// happen (Ctrl-C to stop).
    Monitor(ReadArgs),
    /// Set a clock's time control (see `chessclockctl timecontrol parse`).
    Set {
        /// Clock.
        clock: ClockName,
        /// Time-control notation, e.g. "G/15 df/60:10:hybrid".
        timecontrol: String,
    },
    /// Start the game.
    Start {
        /// Clock.
        clock: ClockName,
        /// Side to move first.
        #[arg(long, default_value = "white", value_parser = ["white", "black"])]
        side: String,
    },
    /// Pause the running clock.
    Pause {
        /// Clock.
        clock: ClockName,
    },
    /// Resume after a pause.
    Resume {
        /// Clock.
        clock: ClockName,
    },
    /// Press for a side, as if its lever had been pressed.
    Press {
        /// Clock.
        clock: ClockName,
        /// white or black.
        #[arg(value_parser = ["white", "black"])]
        side: String,
    },
    /// Arbiter adjustment (game paused): e.g. `adjust 0 black main_ms add 120000`.
    Adjust {
        /// Clock.
        clock: ClockName,
        /// white or black.
        #[arg(value_parser = ["white", "black"])]
        side: String,
        /// Detail field, e.g. main_ms, extra_ms, reserve_ms, period_ms.
        field: String,
        /// set or add.
        #[arg(value_parser = ["set", "add"])]
        op: String,
        /// Milliseconds (may be negative with add).
        #[arg(allow_negative_numbers = true)]
        ms: i64,
    },
    /// Correct a side's move counter.
    Moves {
        /// Clock.
        clock: ClockName,
        /// white or black.
        #[arg(value_parser = ["white", "black"])]
        side: String,
        /// New counter.
        n: u32,
    },
    /// Double-flag: the side on main time claims the draw.
    Claim {
        /// Clock.
        clock: ClockName,
        /// white or black.
        #[arg(value_parser = ["white", "black"])]
        side: String,
    },
    /// Record the result reached on the board.
    Result {
        /// Clock.
        clock: ClockName,
        /// 1-0, 0-1 or 1/2-1/2.
        #[arg(value_parser = ["1-0", "0-1", "1/2-1/2"])]
        result: String,
    },
    /// Discard the current game and set up a new one.
    NewGame {
        /// Clock.
        clock: ClockName,
    },
    /// Show text on the clock.
    Text {
        /// Clock.
        clock: ClockName,
        /// Text (8 characters on a DGT 3000, 6 on a DGT XL).
        text: String,
        /// How long, in milliseconds.
        #[arg(long, default_value_t = 3000)]
        ms: u32,
    },
    /// Beep.
    Beep {
        /// Clock.
        clock: ClockName,
        /// How long, in milliseconds.
        #[arg(long, default_value_t = 500)]
        ms: u32,
    },
    /// Attach a DGT board by its tty path.
    Attach {
        /// e.g. /dev/ttyACM0
        port: String,
        /// A port that is attached already is success, not a failure (for hotplug: a
        /// replugged board is still attached, and the daemon reopens it by itself).
        #[arg(long)]
        if_absent: bool,
    },
    /// Detach a clock.
    Detach {
        /// Clock.
        clock: ClockName,
    },
    /// Add a clock backed by the built-in emulator.
    AddVirtual {
        /// Name of the new clock.
        name: String,
    },
    #[command(flatten)]
    Game(super::game::GameCommand),
}

/// Options of the reading commands.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ReadArgs {
    /// Print JSON for scripts (stable schema; see docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

/// Run a bus subcommand.
pub(crate) async fn run(bus: &BusArgs, cmd: BusCommand) -> Result<()> {
    let conn = connect(bus).await?;
    let f = |e| bus_failure(bus, e);
    match cmd {
        BusCommand::List(read) => list(&conn, bus, read.json).await,
        BusCommand::Status { clock, read } => status(&conn, bus, clock, read.json).await,
        BusCommand::Watch { read, interval_ms } => watch(&conn, bus, read.json, interval_ms).await,
        BusCommand::Monitor(read) => monitor(&conn, bus, read.json).await,
        BusCommand::Attach { port, if_absent } => {
            let mgr = ManagerProxy::new(&conn).await.map_err(f)?;
            match mgr.attach(&port).await {
                Ok(path) => {
                    println!("{}", path.as_str());
                    Ok(())
                }
                Err(zbus::Error::MethodError(name, msg, _))
                    if if_absent
                        && ErrorName::parse(name.as_str()) == Some(ErrorName::AlreadyAttached) =>
                {
                    eprintln!("{}", msg.unwrap_or_default());
                    Ok(())
                }
                Err(e) => Err(f(e)),
            }
        }
        BusCommand::Game(cmd) => super::game::run(&conn, bus, cmd).await,
        BusCommand::AddVirtual { name } => {
            let mgr = ManagerProxy::new(&conn).await.map_err(f)?;
            let path = mgr.add_virtual(&name).await.map_err(f)?;
            println!("{}", path.as_str());
            Ok(())
        }
        BusCommand::Detach { clock } => {
            let (path, _) = resolve(&conn, bus, &clock).await?;
            let mgr = ManagerProxy::new(&conn).await.map_err(f)?;
            mgr.detach(&path.as_ref()).await.map_err(f)
        }
        control => {
            let (name, action) = split_control(control);
            let (path, _) = resolve(&conn, bus, &name).await?;
            let clock = ClockProxy::builder(&conn)
                .path(path)
                .cache_properties(zbus::proxy::CacheProperties::No)
                .build()
                .await
                .map_err(f)?;
            let r = match action {
                Action::Set(tc) => clock.set_time_control(&tc).await,
                Action::Start(side) => clock.start(&side).await,
                Action::Pause => clock.pause().await,
                Action::Resume => clock.resume().await,
                Action::Press(side) => clock.press(&side).await,
                Action::Adjust(side, field, op, ms) => clock.adjust(&side, &field, &op, ms).await,
                Action::Moves(side, n) => clock.set_moves(&side, n).await,
                Action::Claim(side) => clock.claim_draw(&side).await,
                Action::Result(r) => clock.set_result(&r).await,
                Action::NewGame => clock.new_game().await,
                Action::Text(t, ms) => clock.show_text(&t, ms).await,
                Action::Beep(ms) => clock.beep(ms).await,
            };
            r.map_err(f)
        }
    }
}

enum Action {
    Set(String),
    Start(String),
    Pause,
    Resume,
    Press(String),
    Adjust(String, String, String, i64),
    Moves(String, u32),
    Claim(String),
    Result(String),
    NewGame,
    Text(String, u32),
    Beep(u32),
}

fn split_control(cmd: BusCommand) -> (ClockName, Action) {
    match cmd {
        BusCommand::Set { clock, timecontrol } => (clock, Action::Set(timecontrol)),
        BusCommand::Start { clock, side } => (clock, Action::Start(side)),
        BusCommand::Pause { clock } => (clock, Action::Pause),
        BusCommand::Resume { clock } => (clock, Action::Resume),
        BusCommand::Press { clock, side } => (clock, Action::Press(side)),
        BusCommand::Adjust {
            clock,
            side,
            field,
            op,
            ms,
        } => (clock, Action::Adjust(side, field, op, ms)),
        BusCommand::Moves { clock, side, n } => (clock, Action::Moves(side, n)),
        BusCommand::Claim { clock, side } => (clock, Action::Claim(side)),
        BusCommand::Result { clock, result } => (clock, Action::Result(result)),
        BusCommand::NewGame { clock } => (clock, Action::NewGame),
        BusCommand::Text { clock, text, ms } => (clock, Action::Text(text, ms)),
        BusCommand::Beep { clock, ms } => (clock, Action::Beep(ms)),
        // Reading and manager commands are dispatched before this point.
        BusCommand::List(_)
        | BusCommand::Status { .. }
        | BusCommand::Watch { .. }
        | BusCommand::Monitor(_)
        | BusCommand::Attach { .. }
        | BusCommand::Detach { .. }
        | BusCommand::AddVirtual { .. }
        | BusCommand::Game(_) => (String::new(), Action::Pause),
    }
}

fn out_line(line: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{line}") {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => Err(Failure::Action(format!("cannot write to stdout: {e}"))),
    }
}

/// Clocks as JSON text (the stable schema of `ClockStatus`).
fn to_json<T: serde::Serialize + ?Sized>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Failure::Action(format!("cannot print JSON: {e}")))
}

async fn list(conn: &Connection, bus: &BusArgs, json: bool) -> Result<()> {
    let clocks = all_clocks(conn, bus).await?;
    if json {
        return out_line(&to_json(&clocks)?);
    }
    if clocks.is_empty() {
        return out_line(
            "no clocks attached (attach one with `chessclockctl attach /dev/ttyACM0`)",
        );
    }
    out_line(&list_header())?;
    for c in &clocks {
        out_line(&list_line(c))?;
    }
    Ok(())
}

async fn status(
    conn: &Connection,
    bus: &BusArgs,
    clock: Option<ClockName>,
    json: bool,
) -> Result<()> {
    let named = clock.is_some();
    let values: Vec<ClockStatus> = match clock {
        Some(name) => vec![resolve(conn, bus, &name).await?.1],
        None => all_clocks(conn, bus).await?,
    };
    if json {
        // The shape follows the command line, not the number of clocks: a named clock is
        // an object, all clocks an array (also of one, or empty).
        let text = match values.as_slice() {
            [one] if named => to_json(one)?,
            _ => to_json(&values)?,
        };
        return out_line(&text);
    }
    if values.is_empty() {
        return out_line("no clocks attached");
    }
    for v in &values {
        out_line(status_text(v).trim_end())?;
    }
    Ok(())
}

async fn watch(conn: &Connection, bus: &BusArgs, json: bool, interval_ms: u64) -> Result<()> {
    use std::io::IsTerminal;
    // A table redrawn in place needs a terminal; anything else gets JSON lines (docs/cli.md).
    let json = json || !std::io::stdout().is_terminal();
    let tty = !json;
    let mut last = String::new();
    if tty {
        // Hide the cursor and clear once; later frames overwrite in place (no flicker).
        print!("\x1b[?25l\x1b[2J");
    }
    let mut interval = tokio::time::interval(Duration::from_millis(interval_ms));
    loop {
        tokio::select! {
            _ = interval.tick() => {}
            _ = tokio::signal::ctrl_c() => {
                if tty {
                    print!("\x1b[?25h");
                    let _ = std::io::stdout().flush();
                }
                return Ok(());
            }
        }
        let clocks = read::all_clocks(conn)
            .await
            .map_err(|e| read_failure(bus, e))?;
        let frame = if json {
            to_json(&clocks)?
        } else {
            let mut lines = vec![list_header()];
            lines.extend(clocks.iter().map(list_line));
            if clocks.is_empty() {
                lines.push("no clocks attached".into());
            }
            lines.join("\n")
        };
        if frame == last {
            continue;
        }
        if tty {
            let mut buf = String::from("\x1b[H");
            for line in frame.lines() {
                buf.push_str(line);
                buf.push_str("\x1b[K\n");
            }
            buf.push_str("\x1b[J");
            print!("{buf}");
            let _ = std::io::stdout().flush();
        } else {
            out_line(&frame)?;
        }
        last = frame;
    }
}

async fn monitor(conn: &Connection, bus: &BusArgs, json: bool) -> Result<()> {
    let f = |e| bus_failure(bus, e);
    // Fail early and clearly if the daemon is not there.
    let mgr = ManagerProxy::new(conn).await.map_err(f)?;
    mgr.version().await.map_err(f)?;
    let rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender(BUS_NAME)
        .path_namespace(MANAGER_PATH)
        .build()
        .map_err(f)?;
    let mut stream = MessageStream::for_match_rule(rule, conn, None)
        .await
        .map_err(f)?;
    loop {
        let msg = tokio::select! {
            m = stream.next() => m,
            _ = tokio::signal::ctrl_c() => return Ok(()),
        };
        let Some(msg) = msg else {
            return Err(Failure::NotRunning("the bus connection closed".into()));
        };
        let msg = msg.map_err(f)?;
        if let Some(ev) = describe(&msg) {
            if json {
                out_line(&ev.to_string())?;
            } else {
                out_line(&human_event(&ev))?;
            }
        }
    }
}

/// Let callers use `StreamExt::next` without a futures dependency.
trait NextExt {
    async fn next(&mut self) -> Option<zbus::Result<zbus::Message>>;
}

impl NextExt for MessageStream {
    async fn next(&mut self) -> Option<zbus::Result<zbus::Message>> {
        std::future::poll_fn(|cx| {
            zbus::export::futures_core::Stream::poll_next(std::pin::Pin::new(&mut *self), cx)
        })
        .await
    }
}
