//! Starting a device actor on an opened line (a [`Transport`]: the supervisor chooses a
//! tty or the virtual board), resuming the game from the journal, and building the actor's
//! first state.
//!
//! Owns everything that happens once, before the run loop: the engine on the configured
//! control, restoring the game and its record, and the session with its first published
//! state. It must not choose or open the line (the supervisor does) nor handle input or time
//! after the start: that is the run loop's ([`super::Actor::run`]).

use std::path::PathBuf;

use chessclock_game::GameLog;
use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::Actor;
use crate::device::client::DeviceHandle;
use crate::device::io::persist::{self, GameStart, Persist, Replayed};
use crate::device::io::port::{BoardIo, Opener};
use crate::device::io::sinks::Sinks;
use crate::device::io::transport::Transport;
use crate::device::link::driver::{self, DriverConfig};
use crate::device::options::{DeviceOptions, SpawnError};
use crate::device::session::{Session, SessionConfig, clock_event};
use crate::engine::Engine;
use crate::engine::notation;
use crate::monotonic::monotonic_us;

/// Start the actor of clock `index` on the line `attach` opens (a tty, or a virtual board
/// in memory: the supervisor's choice), once the configured control is known good, and
/// resume its journaled game; its files go to `sinks`. Returns the handle, the task, and the
/// port: the tty's path, or for a virtual clock its label `virtual:NAME`.
pub(crate) async fn spawn<P: BoardIo>(
    index: u32,
    name: String,
    mut options: DeviceOptions,
    sinks: Sinks,
    attach: impl FnOnce(&DeviceOptions) -> Result<Transport<P>, SpawnError>,
) -> Result<(DeviceHandle, JoinHandle<()>, PathBuf), SpawnError> {
    let canonical = notation::canonical(&options.time_control);
    let engine =
        Engine::new(options.time_control.clone()).map_err(|e| SpawnError::TimeControl {
            notation: canonical.clone(),
            message: e.to_string(),
        })?;
    let transport = attach(&options)?;
    let label = transport.port.display().to_string();
    let store = options.state_dir.clone().zip(transport.journal);
    let game = resume(
        &name,
        &label,
        engine,
        canonical,
        store,
        &mut options,
        &sinks,
    )?;
    let (handle, task) = launch(
        index,
        name,
        label,
        options,
        sinks,
        game,
        transport.stream,
        transport.reopen,
        transport.keep,
    );
    Ok((handle, task, transport.port))
}

/// The game the clock starts with: resumed from the journal `store` (state directory and
/// store name, on the journal writer of `sinks`) if it holds one, else a new game on
/// `engine` (journaled if there is a store).
/// A resumed game may set `options.white_side`.
fn resume(
    name: &str,
    port: &str,
    mut engine: Engine,
    canonical: String,
    store: Option<(PathBuf, String)>,
    options: &mut DeviceOptions,
    sinks: &Sinks,
) -> Result<Game, SpawnError> {
    let mut offset_ms = 0;
    let mut time_control = canonical;
    let mut replayed = Vec::new();
    let mut started_wall_ms = persist::wall_ms();
    let mut notices = Vec::new();
    let mut board_serial = None;
    let mut lever_in_step = None;
    let mut declared = None;
    let persist = match store {
        Some((dir, store)) => {
            let fallback = GameStart {
                control: engine.control().clone(),
                t_ms: 0,
                wall_ms: persist::wall_ms(),
            };
            let (persist, restored) = Persist::open(&sinks.journals, &dir, &store, fallback)
                .map_err(|e| SpawnError::Port(std::io::Error::other(e.to_string())))?;
            notices.extend(
                persist
                    .damage()
                    .iter()
                    .map(|d| format!("on resuming the game: {d}")),
            );
            match restored {
                Some(r) => {
                    tracing::info!("{port}: resuming the journaled game at {} ms", r.now_ms);
                    engine = r.engine;
                    offset_ms = r.now_ms;
                    replayed = r.replayed;
                    started_wall_ms = r.started_wall_ms;
                    if let Some(side) = r.white_side {
                        options.white_side = side;
                    }
                    board_serial = r.board_serial;
                    if let Some(mode) = r.mode {
                        options.mode = mode;
                    }
                    match r.declared.as_deref().map(notation::parse) {
                        Some(Ok(parsed)) => declared = Some(parsed.control),
                        Some(Err(e)) => notices.push(format!(
                            "on resuming the game: the declared control {:?} cannot be read \
                             ({e}); declare it again with `chessclockctl set`",
                            r.declared.unwrap_or_default()
                        )),
                        None => {}
                    }
                    // A journal cut at a damaged tail may have lost a press and the lever
                    // notes after it: what it says of the lever is then not known.
                    lever_in_step = r.lever_in_step.filter(|_| persist.damage().is_empty());
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
    let log = persist
        .as_ref()
        .map(|_| GameLog::new(name, port, &time_control, started_wall_ms));
    Ok(Game {
        engine,
        offset_ms,
        persist,
        log,
        replayed,
        declared,
        notices,
        board_serial,
        lever_in_step,
    })
}

/// The game an actor starts with (fresh, or resumed from the journal).
pub(super) struct Game {
    pub(super) engine: Engine,
    /// Engine time at the actor's start.
    pub(super) offset_ms: u64,
    pub(super) persist: Option<Persist>,
    pub(super) log: Option<GameLog>,
    /// The journal's replay, in order: the engine's events (for the record) and the board's
    /// steps (for the board's game).
    pub(super) replayed: Vec<(u64, u64, Replayed)>,
    /// The control the operator declared for the observed clock, as the journal said.
    pub(super) declared: Option<crate::engine::params::TimeControl>,
    /// What the operator should know about the resumed game (problems of the restore).
    pub(super) notices: Vec<String>,
    /// The serial number of the board the journaled game was played on, if it said.
    pub(super) board_serial: Option<String>,
    /// Whether the journal last said the lever was in step.
    pub(super) lever_in_step: Option<bool>,
}

/// Fold the journal's replay over the session's board game and the game's record, in
/// journal order; then the board's game is journaled from here on. A step that does not fit
/// stops the board's replay there, and the operator is told: the game stays as far as it was
/// rebuilt, and the pieces are reconciled with that.
fn replay(session: &mut Session, log: &mut Option<GameLog>, replayed: Vec<(u64, u64, Replayed)>) {
    let mut broken = None;
    for (t_ms, wall_ms, item) in replayed {
        let events = match item {
            Replayed::Engine(ev) => clock_event(ev).into_iter().collect(),
            Replayed::Board(_) if broken.is_some() => Vec::new(),
            Replayed::Board(step) => match session.replay_step(t_ms, &step) {
                Ok(events) => events,
                Err(e) => {
                    broken = Some(format!(
                        "on resuming the game: the board's game could not be rebuilt past ply \
                         {} ({e}); the pieces are read against that position: fix the game \
                         with `chessclockctl move {} ...` or `chessclockctl position`",
                        session.board_plies(),
                        session.clock()
                    ));
                    Vec::new()
                }
            },
        };
        if let Some(log) = log.as_mut() {
            for ev in events {
                log.event(t_ms, wall_ms, ev);
            }
        }
    }
    if let Some(notice) = broken {
        session.add_notice(notice);
    }
    session.board_resumed();
}

/// Start an actor on an open `stream` (`None`: the port is not there yet, the actor starts
/// disconnected and tries `open`); `open` gets a new one after the port was lost. Its live
/// PGN goes to `sinks` (its journal is in `game` already). `keep` lives as long as the
/// actor (a virtual clock's board).
#[allow(clippy::too_many_arguments)]
pub(super) fn launch<P: BoardIo>(
    index: u32,
    name: String,
    port: String,
    options: DeviceOptions,
    sinks: Sinks,
    game: Game,
    stream: Option<P>,
    open: Opener<P>,
    keep: Option<Box<dyn Send>>,
) -> (DeviceHandle, JoinHandle<()>) {
    let (tx, rx) = mpsc::channel(32);
    let epoch = Instant::now();
    let link = DriverConfig {
        clock: index,
        command_timeout: options.command_timeout,
        command_retries: options.command_retries,
        transport_latency: options.transport_latency,
    };
    let cfg = SessionConfig {
        clock: index,
        name,
        port,
        epoch_us: monotonic_us(),
        white_side: options.white_side,
        move_source: options.move_source,
        pause_button: options.pause_button,
        mode: options.mode,
        draw_rules: options.draw_rules,
    };
    let waiting = stream.is_none();
    let mut session = Session::new(cfg, link, game.engine, game.offset_ms, game.board_serial);
    // A board that outlived the daemon kept its lever; a virtual clock's board (`keep`) is
    // made anew with the daemon, so its lever says nothing of a press while it was down.
    if game.lever_in_step == Some(true) && keep.is_none() {
        session.resume_lever_in_step();
    }
    if !waiting {
        session.connect_first(driver::Instant::ZERO);
    }
    for notice in game.notices {
        session.add_notice(notice);
    }
    if let Err(e) = session.set_game_info(&options.game_info) {
        tracing::warn!(clock = index, "game information not taken: {e}");
    }
    if let Some(control) = game.declared {
        session.declare(control);
    }
    let mut log = game.log;
    // A game resumed from the journal is written to the live feed again at once (after a
    // reboot the feed's tmpfs is empty; the board's dump may change nothing).
    let resumed = !game.replayed.is_empty();
    replay(&mut session, &mut log, game.replayed);
    if let Err(e) = session.set_tag_defaults(&options.tag_defaults) {
        tracing::warn!(clock = index, "default tags not taken: {e}");
    }
    let (round, board) = options.place.unwrap_or((1, index.saturating_add(1)));
    session.set_place(round, board);
    session.set_date(log.as_ref().and_then(GameLog::start_date));
    // The configured information is shown from the start; the live file waits for a move.
    let _ = session.take_pgn_changed();
    let (state_tx, state_rx) = watch::channel(session.published(driver::Instant::ZERO));
    let (events, _) = broadcast::channel(256);
    let handle = DeviceHandle::new(tx, state_rx, events.clone());
    let reopen_interval = options.reopen_interval;
    let mut actor = Actor {
        options,
        port: stream,
        open,
        session,
        epoch,
        persist: game.persist,
        log,
        played_round: None,
        live: sinks.live,
        state_tx,
        events,
        rx,
        reopen_at: waiting.then(|| epoch + reopen_interval),
        pgn_dirty: resumed,
        live_at: None,
        _keep: keep,
    };
    let task = tokio::spawn(async move { actor.run().await });
    (handle, task)
}
