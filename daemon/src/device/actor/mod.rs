//! The device actor loop: serial reads, operator requests and timers in one `select!`.
//!
//! A thin IO shell around three pure state machines: the board [`Driver`] (the link: probe,
//! clock command queue, keep-alive, lever decoding, the wire side of the display), the
//! game [`Engine`] and the board's game (`BoardGame`, moves from the pieces). It owns the
//! port, reads bytes and stamps them with the time they arrived, feeds the driver, writes what the driver polls out and sleeps until the earliest deadline.
//! It is the only place where wall time (tokio's monotonic clock) meets the pure layers:
//! `now` is read once per wake-up and passed down. Its work is split by direction:
//! [`requests`] (operators), [`board`] (what the driver reports; a port that vanished and came
//! back), [`pieces`] (the board's game: moves, game information, PGN, the live file),
//! [`output`] (engine events, what the clock must show, the published state, writes).

mod board;
mod output;
mod pieces;
#[cfg(test)]
mod replug_tests;
mod requests;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_serial::SerialStream;

use super::announce::Announcement;
use super::board_game::{BoardGame, START_FEN};
use super::driver::{self, Driver, DriverConfig};
use super::handle::{
    BoardView, ClockEvent, ClockState, DeviceHandle, DeviceState, Envelope, Reply, Request,
};
use super::observe::{Mode, Observed};
use super::persist::{self, GameRecord, GameStart, Persist};
use super::port::{BoardIo, Opener};
use super::record::GameLog;
use super::{DeviceOptions, PortSpec, SpawnError, identity, port};
use crate::engine::notation;
use crate::engine::{Engine, Input, InputError, Time};
use crate::monotonic::monotonic_us;
use crate::virtual_board::{VirtualBoard, VirtualOptions};

/// Game events waiting to be shown as text, at most.
const MAX_ANNOUNCEMENTS: usize = 3;

pub(super) async fn spawn(
    index: u32,
    name: String,
    spec: PortSpec,
    mut options: DeviceOptions,
) -> Result<(DeviceHandle, JoinHandle<()>, PathBuf), SpawnError> {
    let parsed = notation::parse(&options.time_control).map_err(|e| SpawnError::TimeControl {
        notation: options.time_control.clone(),
        message: e.message.clone(),
    })?;
    let mut engine = Engine::new(parsed.control.clone()).map_err(|e| SpawnError::TimeControl {
        notation: options.time_control.clone(),
        message: e.to_string(),
    })?;
    let (virtual_board, path) = match &spec {
        PortSpec::Tty(p) => (None, p.clone()),
        PortSpec::Virtual => {
            let vb = VirtualBoard::start(VirtualOptions::default())?;
            let path = vb.path().to_path_buf();
            (Some(vb), path)
        }
    };
    let stream = match port::open_tty(&path) {
        Ok(stream) => Some(stream),
        Err(e) if options.wait_for_port && e.kind() == std::io::ErrorKind::NotFound => {
            tracing::warn!(
                clock = index,
                "{} is not there yet; the clock waits for it, disconnected, checking every {:?}",
                path.display(),
                options.reopen_interval
            );
            None
        }
        Err(e) => return Err(e.into()),
    };
    let mut offset_ms = 0;
    let mut time_control = parsed.canonical.clone();
    let mut replayed = Vec::new();
    let mut started_wall_ms = persist::wall_ms();
    let mut notices = Vec::new();
    let mut board_serial = None;
    let persist = match &options.state_dir {
        Some(dir) => {
            let store = match &spec {
                PortSpec::Tty(p) => {
                    let dirs = identity::BY_PATH_DIRS.map(std::path::Path::new);
                    identity::store_for(dir, p, &dirs)
                }
                PortSpec::Virtual => persist::virtual_store_name(&name),
            };
            let fallback = GameStart {
                control: engine.control().clone(),
                t_ms: 0,
                wall_ms: persist::wall_ms(),
            };
            let (persist, restored) = Persist::open(dir, &store, fallback)
                .map_err(|e| SpawnError::Port(std::io::Error::other(e.to_string())))?;
            notices.extend(
                persist
                    .damage()
                    .iter()
                    .map(|d| format!("on resuming the game: {d}")),
            );
            match restored {
                Some(r) => {
                    let what = match &spec {
                        PortSpec::Tty(p) => p.display().to_string(),
                        PortSpec::Virtual => format!("virtual clock {name:?}"),
                    };
                    tracing::info!("{what}: resuming the journaled game at {} ms", r.now_ms);
                    engine = r.engine;
                    offset_ms = r.now_ms;
                    replayed = r.replayed;
                    started_wall_ms = r.started_wall_ms;
                    if let Some(side) = r.white_side {
                        options.white_side = side;
                    }
                    board_serial = r.board_serial;
                    notices.extend(
                        r.problems
                            .iter()
                            .map(|p| format!("on resuming the game: {p}")),
                    );
                    time_control = notation::canonical(engine.control());
                }
                None => persist.new_game(GameStart {
                    control: engine.control().clone(),
                    t_ms: 0,
                    wall_ms: persist::wall_ms(),
                }),
            }
            Some(persist)
        }
        None => None,
    };
    let log = persist.as_ref().map(|_| {
        let mut log = GameLog::new(
            &name,
            &path.display().to_string(),
            &time_control,
            started_wall_ms,
        );
        for (t_ms, wall_ms, ev) in replayed {
            if let Some(ev) = output::clock_event(ev) {
                log.event(t_ms, wall_ms, &ev);
            }
        }
        log
    });
    let game = Game {
        engine,
        offset_ms,
        persist,
        log,
        time_control,
        notices,
        board_serial,
    };
    let reopen_path = path.clone();
    let open: Opener<SerialStream> = Box::new(move || port::open_tty(&reopen_path));
    let label = path.display().to_string();
    let (handle, task) = launch(
        index,
        name,
        label,
        options,
        game,
        stream,
        open,
        virtual_board,
    );
    Ok((handle, task, path))
}

/// The game an actor starts with (fresh, or resumed from the journal).
struct Game {
    engine: Engine,
    /// Engine time at the actor's start.
    offset_ms: u64,
    persist: Option<Persist>,
    log: Option<GameLog>,
    /// Canonical notation of the engine's control.
    time_control: String,
    /// What the operator should know about the resumed game (problems of the restore).
    notices: Vec<String>,
    /// The serial number of the board the journaled game was played on, if it said.
    board_serial: Option<String>,
}

/// Start an actor on an open `stream` (`None`: the port is not there yet, the actor starts
/// disconnected and tries `open`); `open` gets a new one after the port was lost.
#[allow(clippy::too_many_arguments)]
fn launch<P: BoardIo>(
    index: u32,
    name: String,
    port: String,
    options: DeviceOptions,
    game: Game,
    stream: Option<P>,
    open: Opener<P>,
    virtual_board: Option<VirtualBoard>,
) -> (DeviceHandle, JoinHandle<()>) {
    let (tx, rx) = mpsc::channel(32);
    let epoch = Instant::now();
    // A resumed game is published as it is from the first state on, not as `ready`.
    let snapshot = game.engine.snapshot(Time::from_ms(game.offset_ms));
    let state = ClockState {
        index,
        name,
        port,
        model: String::new(),
        firmware: String::new(),
        board_serial: String::new(),
        connected: stream.is_some(),
        device_state: if stream.is_some() {
            DeviceState::Probing
        } else {
            DeviceState::Disconnected
        },
        game_state: snapshot.status,
        time_control: game.time_control,
        white_side: options.white_side,
        snapshot,
        as_of_us: monotonic_us(),
        board: BoardView {
            fen: START_FEN.to_owned(),
            ..BoardView::default()
        },
        mode: options.mode,
        notices: game.notices,
    };
    let (state_tx, state_rx) = watch::channel(state.clone());
    let (events, _) = broadcast::channel(256);
    let handle = DeviceHandle::new(tx, state_rx, events.clone());
    let mut driver = Driver::new(DriverConfig {
        clock: index,
        command_timeout: options.command_timeout,
        command_retries: options.command_retries,
        transport_latency: options.transport_latency,
    });
    let waiting = stream.is_none();
    let reopen_interval = options.reopen_interval;
    if waiting {
        driver.disconnect();
    } else {
        driver.connect(driver::Instant::ZERO);
    }
    driver.set_observe(options.mode == Mode::Observe);
    let mut board_game = BoardGame::new();
    if let Err(e) = board_game.set_info(&options.game_info) {
        tracing::warn!(clock = index, "game information not taken: {e}");
    }
    let mut actor = Actor {
        options,
        port: stream,
        open,
        driver,
        engine: game.engine,
        epoch,
        offset_ms: game.offset_ms,
        persist: game.persist,
        log: game.log,
        state,
        state_tx,
        events,
        rx,
        reopen_at: waiting.then(|| epoch + reopen_interval),
        announcements: VecDeque::new(),
        dirty: true,
        refresh: false,
        board_game,
        pgn_dirty: false,
        publish: true,
        observed: Observed::default(),
        journal_serial: game.board_serial,
        _virtual: virtual_board,
    };
    let task = tokio::spawn(async move { actor.run().await });
    (handle, task)
}

struct Actor<P> {
    options: DeviceOptions,
    /// The byte stream to the board (`None` while it is gone).
    port: Option<P>,
    /// Opens the stream again after a loss.
    open: Opener<P>,
    /// The board link's state machine; its time is the duration since `epoch`.
    driver: Driver,
    engine: Engine,
    epoch: Instant,
    /// Engine time at `epoch` (non-zero for a game resumed from the journal).
    offset_ms: u64,
    /// The game's journal (`None`: not journaled).
    persist: Option<Persist>,
    /// The game's record so far (kept where the game is journaled).
    log: Option<GameLog>,
    state: ClockState,
    state_tx: watch::Sender<ClockState>,
    events: broadcast::Sender<ClockEvent>,
    rx: mpsc::Receiver<Envelope>,
    /// When to try to reopen a vanished port (the one deadline the IO shell keeps itself).
    reopen_at: Option<Instant>,
    /// Game events to show as text, one after another, once the times have been pushed.
    announcements: VecDeque<Announcement>,
    /// The display must be pushed (state changed).
    dirty: bool,
    /// The display must be pushed again although nothing changed (a re-sync instant, the
    /// clock became usable, text ended): not a state change, so nothing is published.
    refresh: bool,
    /// The game on the board's pieces.
    board_game: BoardGame,
    /// The live PGN must be rewritten.
    pgn_dirty: bool,
    /// Something besides the running time changed: publish the state at the end of the
    /// wake-up even where `output::same_except_time` sees no difference (an arbiter's adjustment).
    publish: bool,
    /// Observe mode: what the clock's reports said (unused in drive mode).
    observed: Observed,
    /// The serial number of the board this game is played on, as the journal knows it.
    journal_serial: Option<String>,
    /// Keeps an emulated board alive as long as the actor.
    _virtual: Option<VirtualBoard>,
}

enum Wake {
    Request(Option<Envelope>),
    Read(std::io::Result<usize>),
    Timer,
}

impl<P: BoardIo> Actor<P> {
    fn time(&self, now: Instant) -> Time {
        let ms = now.saturating_duration_since(self.epoch).as_millis();
        Time::from_ms(
            u64::try_from(ms)
                .unwrap_or(u64::MAX)
                .saturating_add(self.offset_ms),
        )
    }

    fn instant(&self, t: Time) -> Instant {
        self.epoch + Duration::from_millis(t.as_ms().saturating_sub(self.offset_ms))
    }

    /// `now` on the driver's time line (since `epoch`).
    fn at(&self, now: Instant) -> driver::Instant {
        driver::Instant::from_epoch(now.saturating_duration_since(self.epoch))
    }

    /// Engine time of a driver instant.
    fn time_at(&self, at: driver::Instant) -> Time {
        Time::from_ms(at.as_ms().saturating_add(self.offset_ms))
    }

    /// Whether the clock runs its own mode and is only followed.
    fn observing(&self) -> bool {
        self.state.mode == Mode::Observe
    }

    /// `side`'s clock at `t`: the engine's value, or in observe mode the clock's report.
    fn clock_value(&self, side: crate::engine::Side, t: Time) -> u64 {
        match self.observed.value(side, self.options.white_side) {
            Some(v) if self.observing() => v,
            _ => self.engine.snapshot(t).value(side),
        }
    }

    /// The game or device state changed: push the display and publish the state.
    fn state_changed(&mut self) {
        self.dirty = true;
        self.publish = true;
    }

    /// Give the engine an input; journal it if accepted.
    fn apply(&mut self, t: Time, input: Input) -> Result<(), InputError> {
        let record = self.persist.as_ref().map(|_| input.clone());
        self.engine.handle_input(t, input)?;
        if let (Some(p), Some(input)) = (&self.persist, record) {
            p.append(GameRecord::Input {
                t_ms: t.as_ms(),
                wall_ms: persist::wall_ms(),
                input,
            });
        }
        self.state_changed();
        Ok(())
    }

    /// Note something external (connect, disconnect, white side) in the journal and in the
    /// game's record.
    fn note(&mut self, now: Instant, what: &str) {
        let (t_ms, wall_ms) = (self.time(now).as_ms(), persist::wall_ms());
        if let Some(log) = &mut self.log {
            log.note(t_ms, wall_ms, what);
        }
        self.journal_note(t_ms, wall_ms, what);
    }

    /// Note something in the journal only (the record has it as an event already).
    fn journal_note(&self, t_ms: u64, wall_ms: u64, what: &str) {
        if let Some(p) = &self.persist {
            p.append(GameRecord::Note {
                t_ms,
                wall_ms,
                what: what.to_owned(),
            });
        }
    }

    /// A fresh game with `self.engine`'s control: journal compacted to its start.
    fn started_new_game(&mut self, now: Instant) {
        if self
            .log
            .as_ref()
            .is_some_and(|l| l.started() && !l.finished())
        {
            self.write_record(now);
        }
        self.log = self.persist.as_ref().map(|_| {
            GameLog::new(
                &self.state.name,
                &self.state.port,
                &notation::canonical(self.engine.control()),
                persist::wall_ms(),
            )
        });
        if let Some(p) = &self.persist {
            p.new_game(GameStart {
                control: self.engine.control().clone(),
                t_ms: self.time(now).as_ms(),
                wall_ms: persist::wall_ms(),
            });
        }
        // The compacted journal must still say which half is White's, and on which board.
        self.note(now, &persist::white_side_note(self.options.white_side));
        if let Some(serial) = self.journal_serial.clone() {
            self.journal_note(
                self.time(now).as_ms(),
                persist::wall_ms(),
                &persist::board_serial_note(&serial),
            );
        }
        // What was said about the last game is no longer news.
        if !self.state.notices.is_empty() {
            self.state.notices.clear();
            self.publish = true;
        }
    }

    /// Hand the game's record to the journal writer (it writes PGN + JSON in the background).
    /// With moves read from the board, the PGN is the board's game (SAN with the clocks).
    fn write_record(&self, now: Instant) {
        if let (Some(p), Some(log)) = (&self.persist, &self.log) {
            let mut record = log.render(Some(&self.snapshot(now)));
            if !self.board_game.moves().is_empty() {
                record.pgn = self.pgn(now);
            }
            p.write_record(record);
        }
    }

    async fn run(&mut self) {
        let mut buf = [0u8; 512];
        let mut now = Instant::now();
        loop {
            let deadline = self.next_wakeup(now);
            let wake = {
                let sleep = async {
                    match deadline {
                        Some(d) => tokio::time::sleep_until(d).await,
                        None => std::future::pending().await,
                    }
                };
                match self.port.as_mut() {
                    Some(port) => tokio::select! {
                        r = self.rx.recv() => Wake::Request(r),
                        n = port.read(&mut buf) => Wake::Read(n),
                        () = sleep => Wake::Timer,
                    },
                    None => tokio::select! {
                        r = self.rx.recv() => Wake::Request(r),
                        () = sleep => Wake::Timer,
                    },
                }
            };
            now = Instant::now();
            match wake {
                Wake::Request(None) => break,
                Wake::Request(Some(env)) => {
                    if env.request == Request::Shutdown {
                        let _ = env.reply.send(Ok(Reply::Done));
                        break;
                    }
                    let answer = self.handle_request(now, env.request);
                    match &self.persist {
                        Some(p) => p.reply_when_durable(env.reply, answer),
                        None => {
                            let _ = env.reply.send(answer);
                        }
                    }
                }
                Wake::Read(Ok(0)) => self.lost(now, "end of file"),
                Wake::Read(Ok(n)) => {
                    let at = self.at(now);
                    self.driver.handle_input(at, &buf[..n]);
                }
                Wake::Read(Err(e)) => self.lost(now, &e.to_string()),
                Wake::Timer => {}
            }
            self.service(now).await;
        }
        tracing::info!(clock = self.state.index, "actor stopped");
    }

    /// The earliest deadline of engine, display, driver and reopen, as seen at `now` (the
    /// last wake-up).
    fn next_wakeup(&self, now: Instant) -> Option<Instant> {
        let engine = self.engine.poll_timeout().map(|t| self.instant(t));
        let link = self
            .driver
            .poll_timeout()
            .map(|at| self.epoch + at.since_epoch());
        [
            engine,
            self.display_deadline(now),
            link,
            self.reopen_at,
            self.board_deadline(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// When the engine's display value next changes (the device's own ticks are the
    /// driver's deadlines).
    fn display_deadline(&self, now: Instant) -> Option<Instant> {
        if !self.driver.clock_usable() {
            return None;
        }
        self.engine
            .display(self.time(now))
            .next_refresh
            .map(|t| self.instant(t))
    }
}
