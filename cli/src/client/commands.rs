//! The D-Bus subcommands: reading (`list`, `status`, `watch`, `monitor`) and control verbs.

use std::io::Write;

use chessclock_api::error::ErrorName;
use chessclock_api::proxy::{ClockProxy, ManagerProxy};
use chessclock_api::{ClockStatus, read};
use chessclock_engine::{AdjustOp, ClaimKind, GameResult, Ruling, Side};
use zbus::Connection;

use super::render::{list_header, list_line, status_text};
use super::resolve::{all_clocks, resolve};
use super::said::{self, Voice};
use super::{BusArgs, Failure, Result, bus_failure, connect};

/// A clock: `board:N` (board N of the round), index, name, object path, tty path or board
/// serial (`chessclock_api::select`).
pub(crate) type ClockName = String;

/// Subcommands that talk to the daemon.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum BusCommand {
    /// List the attached clocks.
    List,
    /// Show one clock in detail (or every clock).
    Status {
        /// Clock to show (default: all).
        clock: Option<ClockName>,
    },
    /// Every clock live on one screen, redrawn as the daemon signals changes; paged when the
    /// boards do not fit (space: next page, q: quit). JSON lines without a terminal.
    Watch,
    /// Print events (presses, moves, flags, results, device changes, clocks attached and
    /// detached, the daemon stopping and starting) as they happen (Ctrl-C to stop).
    Monitor,
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
        #[arg(long, default_value = "white", value_parser = Side::NAMES)]
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
        #[arg(value_parser = Side::NAMES)]
        side: String,
    },
    /// Arbiter adjustment (game paused): e.g. `adjust 0 black main_ms add 120000`.
    Adjust {
        /// Clock.
        clock: ClockName,
        /// white or black.
        #[arg(value_parser = Side::NAMES)]
        side: String,
        /// Detail field, e.g. main_ms, extra_ms, reserve_ms, period_ms.
        field: String,
        /// set or add.
        #[arg(value_parser = AdjustOp::NAMES)]
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
        #[arg(value_parser = Side::NAMES)]
        side: String,
        /// New counter.
        n: u32,
    },
    /// A player claims a draw: the double-flag draw (default), a threefold repetition or
    /// fifty moves judged from the board, or USCF 14H insufficient losing chances.
    Claim {
        /// Clock.
        clock: ClockName,
        /// The claimant: white or black.
        #[arg(value_parser = Side::NAMES)]
        side: String,
        /// What is claimed.
        #[arg(long, default_value = "double-flag", value_parser = ClaimKind::NAMES)]
        kind: String,
    },
    /// The director's ruling on a pending insufficient-losing-chances claim (USCF 14H).
    Ruling {
        /// Clock.
        clock: ClockName,
        /// draw, deny (a minute off the claimant), delay (the claimant's time halved and a
        /// delay for the rest of the game) or watch (play on; the claimant's flag pauses).
        #[arg(value_parser = Ruling::NAMES)]
        ruling: String,
        /// The delay of a `delay` ruling, seconds.
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=60))]
        seconds: u32,
    },
    /// Record the result reached on the board.
    Result {
        /// Clock.
        clock: ClockName,
        /// 1-0, 0-1 or 1/2-1/2.
        #[arg(value_parser = GameResult::NAMES)]
        result: String,
    },
    /// Discard the current game and set up a new one.
    NewGame {
        /// Clock.
        clock: ClockName,
    },
    /// Drive the clock (chessclockd runs the time control), or observe it running one of its
    /// own modes (its times are read from its reports; nothing is sent to it).
    Mode {
        /// Clock.
        clock: ClockName,
        /// drive or observe.
        #[arg(value_parser = ["drive", "observe"])]
        mode: String,
    },
    /// Show text on the clock.
    Text {
        /// Clock.
        clock: ClockName,
        /// Text (8 characters on a DGT 3000, 6 on a DGT XL).
        text: String,
        /// How long, in milliseconds (at most 10000; a press ends it sooner).
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
    /// Find a board in the hall: its clock shows the board number (`bd 137`) and beeps for a
    /// few seconds, then its times again. Refused while the clock's game runs.
    Identify {
        /// Clock.
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        clock: Option<ClockName>,
        /// Every clock of the round, one after another (those whose game runs are named and
        /// left alone).
        #[arg(long)]
        all: bool,
        /// How long the number stays on the display, in seconds (at most 10; a start or a
        /// press ends it sooner).
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=10))]
        seconds: u32,
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
    /// Detach a clock. Its game stays in the state directory and its board keeps its
    /// number: attached again, the board gets both back.
    Detach {
        /// Clock.
        clock: ClockName,
        /// Write its game to games/ as it stands and remove its journal (the board keeps
        /// its number).
        #[arg(long, conflicts_with = "forget")]
        archive: bool,
        /// As --archive, and free the board's number for another board.
        #[arg(long)]
        forget: bool,
    },
    /// Move a clock's game mid-game to other hardware (a spare board or clock): its moves,
    /// times, control, players, board number and mode go on there; the old board is let go.
    Replace {
        /// Clock.
        clock: ClockName,
        /// The other board: its port (/dev/ttyACM1; attached first if it is not) or the
        /// serial number of an attached board.
        #[arg(long = "with", value_name = "PORT|SERIAL")]
        with: String,
    },
    /// Give a clock's board its board number (kept for that board: its serial number, else
    /// its port, or a virtual clock's name), e.g. `chessclockctl renumber ttyACM0 37`.
    Renumber {
        /// Clock.
        clock: ClockName,
        /// The board number (1 and up).
        #[arg(value_parser = clap::value_parser!(u32).range(1..))]
        number: u32,
    },
    /// Add a clock backed by the built-in emulator.
    AddVirtual {
        /// Name of the new clock.
        name: String,
    },
    #[command(flatten)]
    Game(super::game::GameCommand),
    /// The current round, and a round's pairings loaded onto the boards (docs/relay.md).
    #[command(subcommand)]
    Round(super::round::RoundCommand),
}

/// Run a bus subcommand; `voice.json` prints JSON for scripts (stable schemas, docs/cli.md),
/// `voice.quiet` leaves out the line a command that changes something prints.
pub(crate) async fn run(bus: &BusArgs, cmd: BusCommand, voice: Voice) -> Result<()> {
    let json = voice.json;
    // The live verbs connect (and reconnect) themselves.
    match cmd {
        BusCommand::Watch => return super::watch::run(bus, json).await,
        BusCommand::Monitor => return super::monitor::run(bus, json).await,
        _ => {}
    }
    let conn = connect(bus).await?;
    let f = |e| bus_failure(bus, e);
    match cmd {
        BusCommand::List => list(&conn, bus, json).await,
        BusCommand::Status { clock } => status(&conn, bus, clock, json).await,
        BusCommand::Attach { port, if_absent } => {
            let mgr = ManagerProxy::new(&conn).await.map_err(f)?;
            match mgr.attach(&port).await {
                Ok(path) => {
                    if json {
                        return out_line(path.as_str());
                    }
                    if voice.says() {
                        let line = match read::clock(&conn, &path).await {
                            Ok(c) => format!(
                                "attached {port} as {}, board {} ({})",
                                said::who(&c),
                                c.board,
                                path.as_str()
                            ),
                            Err(_) => format!("attached {port} as {}", path.as_str()),
                        };
                        out_line(&line)?;
                    }
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
        BusCommand::Identify {
            clock,
            all: _,
            seconds,
        } => super::identify::run(&conn, bus, clock, seconds, voice).await,
        BusCommand::Game(cmd) => super::game::run(&conn, bus, cmd, voice).await,
        BusCommand::Round(cmd) => super::round::run(&conn, bus, cmd, voice).await,
        BusCommand::AddVirtual { name } => {
            let mgr = ManagerProxy::new(&conn).await.map_err(f)?;
            let path = mgr.add_virtual(&name).await.map_err(f)?;
            if json {
                return out_line(path.as_str());
            }
            if voice.says() {
                let line = match read::clock(&conn, &path).await {
                    Ok(c) => format!(
                        "added {}, board {}: an emulated DGT board and DGT 3000 in the \
                         daemon, port {} ({})",
                        said::who(&c),
                        c.board,
                        c.port,
                        path.as_str()
                    ),
                    Err(_) => format!("added virtual clock {name:?} as {}", path.as_str()),
                };
                out_line(&line)?;
            }
            Ok(())
        }
        BusCommand::Detach {
            clock,
            archive,
            forget,
        } => {
            let (path, before) = resolve(&conn, bus, &clock).await?;
            let mgr = ManagerProxy::new(&conn).await.map_err(f)?;
            let (what, game) = match (archive, forget) {
                (_, true) => ("forget", "its game archived, its board number free"),
                (true, false) => ("archive", "its game archived"),
                (false, false) => ("keep", "its game kept for when it comes back"),
            };
            mgr.detach_with(&path.as_ref(), what).await.map_err(f)?;
            if voice.says() {
                out_line(&format!(
                    "detached {}, board {} ({}): {game}",
                    said::who(&before),
                    before.board,
                    before.port
                ))?;
            }
            Ok(())
        }
        BusCommand::Replace { clock, with } => {
            let (path, _) = resolve(&conn, bus, &clock).await?;
            let mgr = ManagerProxy::new(&conn).await.map_err(f)?;
            let done = mgr.replace(&path.as_ref(), &with).await.map_err(f)?;
            if json {
                out_line(&serde_json::json!({ "clock": path.as_str(), "done": done }).to_string())
            } else if voice.says() {
                out_line(&done)
            } else {
                Ok(())
            }
        }
        BusCommand::Renumber { clock, number } => {
            let (path, _) = resolve(&conn, bus, &clock).await?;
            let mgr = ManagerProxy::new(&conn).await.map_err(f)?;
            let done = mgr.set_board(&path.as_ref(), number).await.map_err(f)?;
            if json {
                out_line(&serde_json::json!({ "board": number, "done": done }).to_string())
            } else if voice.says() {
                out_line(&done)
            } else {
                Ok(())
            }
        }
        control => {
            let (name, action) = split_control(control);
            let (path, before) = resolve(&conn, bus, &name).await?;
            let clock = ClockProxy::builder(&conn)
                .path(path.clone())
                .cache_properties(zbus::proxy::CacheProperties::No)
                .build()
                .await
                .map_err(f)?;
            let r = match &action {
                Action::Set(tc) => clock.set_time_control(tc).await,
                Action::Start(side) => clock.start(side).await,
                Action::Pause => clock.pause().await,
                Action::Resume => clock.resume().await,
                Action::Press(side) => clock.press(side).await,
                Action::Adjust(side, field, op, ms) => clock.adjust(side, field, op, *ms).await,
                Action::Moves(side, n) => clock.set_moves(side, *n).await,
                Action::Claim(side, kind) => clock.claim(side, kind).await,
                Action::Ruling(ruling, seconds) => clock.rule(ruling, *seconds).await,
                Action::Result(r) => clock.set_result(r).await,
                Action::NewGame => clock.new_game().await,
                Action::Text(t, ms) => clock.show_text(t, *ms).await,
                Action::Beep(ms) => clock.beep(*ms).await,
                Action::Mode(mode) => clock.set_mode(mode).await,
            };
            r.map_err(f)?;
            if voice.says() {
                let after = read::clock(&conn, &path).await.ok();
                out_line(&said::control(&before, after.as_ref(), &action))?;
                if let Action::Set(typed) = &action
                    && let Some(hint) = said::set_hint(typed)
                {
                    eprintln!("hint: {hint}");
                }
            }
            Ok(())
        }
    }
}

/// A control verb on one clock, with its arguments.
pub(crate) enum Action {
    Set(String),
    Start(String),
    Pause,
    Resume,
    Press(String),
    Adjust(String, String, String, i64),
    Moves(String, u32),
    Claim(String, String),
    Ruling(String, u32),
    Result(String),
    NewGame,
    Text(String, u32),
    Beep(u32),
    Mode(String),
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
        BusCommand::Claim { clock, side, kind } => (clock, Action::Claim(side, kind)),
        BusCommand::Ruling {
            clock,
            ruling,
            seconds,
        } => (clock, Action::Ruling(ruling, seconds)),
        BusCommand::Result { clock, result } => (clock, Action::Result(result)),
        BusCommand::NewGame { clock } => (clock, Action::NewGame),
        BusCommand::Text { clock, text, ms } => (clock, Action::Text(text, ms)),
        BusCommand::Beep { clock, ms } => (clock, Action::Beep(ms)),
        BusCommand::Mode { clock, mode } => (clock, Action::Mode(mode)),
        // Reading and manager commands are dispatched before this point.
        BusCommand::List
        | BusCommand::Status { .. }
        | BusCommand::Watch
        | BusCommand::Monitor
        | BusCommand::Attach { .. }
        | BusCommand::Detach { .. }
        | BusCommand::Renumber { .. }
        | BusCommand::Replace { .. }
        | BusCommand::Identify { .. }
        | BusCommand::AddVirtual { .. }
        | BusCommand::Game(_)
        | BusCommand::Round(_) => (String::new(), Action::Pause),
    }
}

pub(crate) fn out_line(line: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{line}") {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => Err(Failure::Action(format!("cannot write to stdout: {e}"))),
    }
}

/// Clocks as JSON text (the stable schema of `ClockStatus`).
pub(crate) fn to_json<T: serde::Serialize + ?Sized>(v: &T) -> Result<String> {
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
