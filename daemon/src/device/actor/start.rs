//! Starting a device actor: opening the port (or starting the virtual board), resuming the
//! game from the journal, and building the actor's first state.
//!
//! Owns everything that happens once, before the run loop: parsing the time control, choosing
//! the journal's store (a tty's by-path identity, a virtual clock's name), restoring the game
//! and its record, and the first published [`ClockState`]. It must not handle input or time
//! after the start: that is the run loop's ([`super::Actor::run`]).

use std::collections::VecDeque;
use std::path::PathBuf;

use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_serial::SerialStream;

use super::{Actor, output};
use crate::device::board_game::{BoardGame, START_FEN};
use crate::device::driver::{self, Driver, DriverConfig};
use crate::device::handle::{BoardView, ClockState, DeviceHandle, DeviceState};
use crate::device::observe::{Mode, Observed};
use crate::device::persist::{self, GameStart, Persist};
use crate::device::port::{BoardIo, Opener};
use crate::device::record::GameLog;
use crate::device::{DeviceOptions, PortSpec, SpawnError, identity, port};
use crate::engine::notation;
use crate::engine::{Engine, Time};
use crate::monotonic::monotonic_us;
use crate::virtual_board::{VirtualBoard, VirtualOptions};

pub(crate) async fn spawn(
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
pub(super) struct Game {
    pub(super) engine: Engine,
    /// Engine time at the actor's start.
    pub(super) offset_ms: u64,
    pub(super) persist: Option<Persist>,
    pub(super) log: Option<GameLog>,
    /// Canonical notation of the engine's control.
    pub(super) time_control: String,
    /// What the operator should know about the resumed game (problems of the restore).
    pub(super) notices: Vec<String>,
    /// The serial number of the board the journaled game was played on, if it said.
    pub(super) board_serial: Option<String>,
}

/// Start an actor on an open `stream` (`None`: the port is not there yet, the actor starts
/// disconnected and tries `open`); `open` gets a new one after the port was lost.
#[allow(clippy::too_many_arguments)]
pub(super) fn launch<P: BoardIo>(
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
