//! `chessclockctl watch`: every clock of the venue, live. On a terminal a screen redrawn when
//! the daemon signals a change (and as the running times tick, without asking the daemon),
//! paged when the boards do not fit; JSON lines otherwise. It outlives a daemon restart and
//! a lost bus: it says so and reconnects.
//!
//! Owns the loop (bus, keys, signals, timers); the frame is [`layout`]'s, the terminal's modes
//! [`term`]'s.

mod layout;
pub(crate) mod term;

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use chessclock_api::ClockStatus;
use chessclock_api::push;
use chessclock_api::read::{self, ReadError};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc::UnboundedReceiver;

use super::feed::{Feed, Happening};
use super::render::board_order;
use super::{BusArgs, Failure, Result, bus_failure, bus_label, connect, read_failure};
use layout::{Daemon, View};
use term::{Input, Terminal};

/// Signals of one change come in a burst (Pressed, PropertiesChanged, Move): read once after.
const SETTLE: Duration = Duration::from_millis(20);
/// How long to wait before connecting again to a lost bus.
const RETRY: Duration = Duration::from_secs(1);

/// Run `watch` until the operator quits (or, for JSON lines, until stopped).
pub(crate) async fn run(bus: &BusArgs, json: bool) -> Result<()> {
    if json || !std::io::stdout().is_terminal() {
        return json_lines(bus).await;
    }
    let mut terminal = Terminal::enter()
        .map_err(|e| Failure::Action(format!("cannot set up the terminal: {e}")))?;
    let keys = term::keys();
    let result = venue(bus, &mut terminal, keys).await;
    drop(terminal);
    result
}

/// What is shown, and since when it was read.
#[derive(Debug)]
struct Screen {
    clocks: Vec<ClockStatus>,
    read_at: Instant,
    daemon: Daemon,
    page: usize,
    pages: usize,
}

impl Screen {
    fn frame(&mut self) -> Vec<String> {
        let wall = wall_time();
        let (width, height) = Terminal::size();
        let view = View {
            clocks: &self.clocks,
            elapsed_ms: millis(self.read_at.elapsed()),
            daemon: &self.daemon,
            wall: &wall,
            page: self.page,
        };
        let frame = layout::render(&view, width, height);
        self.pages = frame.pages;
        self.page = self.page.min(frame.pages - 1);
        frame.lines
    }

    fn down(&mut self, bus: &BusArgs) {
        if !matches!(self.daemon, Daemon::Down { .. }) {
            self.daemon = Daemon::Down {
                since: wall_time(),
                bus: bus_label(bus),
            };
        }
        self.clocks.clear();
    }

    /// Read every clock again; `Err` for a reply this client cannot read.
    async fn reread(&mut self, conn: &zbus::Connection, bus: &BusArgs) -> Result<()> {
        match read::all_clocks(conn).await {
            Ok(mut clocks) => {
                push::merge(&mut clocks, &push::read(conn).await);
                // In board order, as the venue numbers them.
                clocks.sort_by_key(board_order);
                self.clocks = clocks;
                self.read_at = Instant::now();
                self.daemon = Daemon::Up;
            }
            Err(ReadError::Bus(e)) => match bus_failure(bus, e) {
                Failure::NotRunning(_) => self.down(bus),
                Failure::Action(msg) => self.daemon = Daemon::NoBus(msg),
            },
            Err(e) => return Err(read_failure(bus, e)),
        }
        Ok(())
    }
}

/// The terminal loop: connect (again), subscribe, read, draw; until a quit key or signal.
async fn venue(
    bus: &BusArgs,
    terminal: &mut Terminal,
    mut keys: UnboundedReceiver<Input>,
) -> Result<()> {
    let mut stop = Stops::new()?;
    let mut screen = Screen {
        clocks: Vec::new(),
        read_at: Instant::now(),
        daemon: Daemon::Up,
        page: 0,
        pages: 1,
    };
    loop {
        let feed = match connect(bus).await {
            Ok(conn) => Feed::open(&conn)
                .await
                .map(|f| (conn, f))
                .map_err(|e| e.to_string()),
            Err(Failure::NotRunning(m) | Failure::Action(m)) => Err(m),
        };
        let (conn, mut feed, present) = match feed {
            Ok((conn, (feed, present))) => (conn, feed, present),
            Err(e) => {
                screen.daemon = Daemon::NoBus(e);
                screen.clocks.clear();
                draw(terminal, &mut screen)?;
                tokio::select! {
                    _ = tokio::time::sleep(RETRY) => continue,
                    _ = stop.any() => return Ok(()),
                    k = keys.recv() => if matches!(k, Some(Input::Quit) | None) { return Ok(()) } else { continue },
                }
            }
        };
        if present {
            screen.reread(&conn, bus).await?;
        } else {
            screen.down(bus);
        }
        let mut settle: Option<Instant> = None;
        loop {
            draw(terminal, &mut screen)?;
            let redraw = Duration::from_millis(layout::next_change_ms(
                &screen.clocks,
                millis(screen.read_at.elapsed()),
                wall_subsec_ms(),
            ));
            let settled = settle.map(|t| tokio::time::Instant::from_std(t + SETTLE));
            tokio::select! {
                h = feed.next() => match h {
                    Happening::Signal(_) | Happening::Push | Happening::Back => {
                        settle.get_or_insert_with(Instant::now);
                    }
                    Happening::Gone => screen.down(bus),
                    Happening::Lost(e) => {
                        screen.daemon = Daemon::NoBus(e);
                        screen.clocks.clear();
                        break;
                    }
                },
                () = sleep_until(settled) => {
                    settle = None;
                    screen.reread(&conn, bus).await?;
                }
                () = tokio::time::sleep(redraw) => {}
                k = keys.recv() => match k {
                    Some(Input::Quit) | None => return Ok(()),
                    Some(Input::NextPage) => screen.page = (screen.page + 1) % screen.pages.max(1),
                    Some(Input::PreviousPage) => {
                        screen.page = screen.page.checked_sub(1).unwrap_or(screen.pages.max(1) - 1);
                    }
                    Some(Input::Resized) => terminal.invalidate().map_err(term_failure)?,
                },
                _ = stop.any() => return Ok(()),
            }
        }
    }
}

fn draw(terminal: &mut Terminal, screen: &mut Screen) -> Result<()> {
    let lines = screen.frame();
    terminal.draw(&lines).map_err(term_failure)
}

fn term_failure(e: std::io::Error) -> Failure {
    Failure::Action(format!("cannot write to the terminal: {e}"))
}

async fn sleep_until(t: Option<tokio::time::Instant>) {
    match t {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}

/// SIGTERM, SIGHUP and SIGINT (raw mode turns Ctrl-C into a key, but `kill -INT` still
/// comes as a signal): each ends `watch` normally, so the terminal is restored.
#[derive(Debug)]
struct Stops(Vec<tokio::signal::unix::Signal>);

impl Stops {
    fn new() -> Result<Stops> {
        [
            SignalKind::terminate(),
            SignalKind::hangup(),
            SignalKind::interrupt(),
        ]
        .into_iter()
        .map(signal)
        .collect::<std::io::Result<Vec<_>>>()
        .map(Stops)
        .map_err(|e| Failure::Action(format!("cannot handle signals: {e}")))
    }

    async fn any(&mut self) {
        std::future::poll_fn(|cx| {
            for s in &mut self.0 {
                if s.poll_recv(cx).is_ready() {
                    return std::task::Poll::Ready(());
                }
            }
            std::task::Poll::Pending
        })
        .await;
    }
}

/// JSON lines: every clock as an array, printed when the daemon signals a change. A daemon
/// that is not running at the start is an error (exit 3); one that goes away later is
/// waited for, with a line on stderr.
async fn json_lines(bus: &BusArgs) -> Result<()> {
    let conn = connect(bus).await?;
    let (mut feed, present) = Feed::open(&conn).await.map_err(|e| bus_failure(bus, e))?;
    if !present {
        read::all_clocks(&conn)
            .await
            .map_err(|e| read_failure(bus, e))?;
    }
    let mut stop = Stops::new()?;
    let mut last = String::new();
    let mut settle = Some(Instant::now());
    loop {
        let settled = settle.map(|t| tokio::time::Instant::from_std(t + SETTLE));
        tokio::select! {
            h = feed.next() => match h {
                Happening::Signal(_) | Happening::Push | Happening::Back => {
                    settle.get_or_insert_with(Instant::now);
                }
                Happening::Gone => {
                    eprintln!("chessclockctl: chessclockd left {}; waiting for it", bus_label(bus));
                }
                Happening::Lost(e) => return Err(Failure::NotRunning(format!(
                    "lost the connection to {} ({e})", bus_label(bus)
                ))),
            },
            () = sleep_until(settled) => {
                settle = None;
                let clocks = match read::all_clocks(&conn).await {
                    Ok(mut c) => {
                        push::merge(&mut c, &push::read(&conn).await);
                        c
                    }
                    Err(ReadError::Bus(e)) => match bus_failure(bus, e) {
                        Failure::NotRunning(_) => continue,
                        other => return Err(other),
                    },
                    Err(e) => return Err(read_failure(bus, e)),
                };
                let frame = serde_json::to_string(&clocks)
                    .map_err(|e| Failure::Action(format!("cannot print JSON: {e}")))?;
                if frame != last {
                    super::commands::out_line(&frame)?;
                    last = frame;
                }
            }
            _ = stop.any() => return Ok(()),
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Local wall time, `HH:MM:SS`.
pub(crate) fn wall_time() -> String {
    jiff::ZonedDateTime::now().strftime("%H:%M:%S").to_string()
}

/// Milliseconds into the current wall-clock second.
fn wall_subsec_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::from(d.subsec_millis()))
}
