//! Starting a device actor on an opened line (a [`Transport`]: the supervisor chooses a
//! tty or the virtual board), resuming the game from the journal, and building the actor's
//! first state.
//!
//! Owns everything that happens once, before the run loop: the engine on the configured
//! control, restoring the game and its record, and the session with its first published
//! state. It must not choose or open the line (the supervisor does) nor handle input or time
//! after the start: that is the run loop's ([`super::Actor::run`]).

use std::path::PathBuf;

use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::Actor;
use crate::device::client::DeviceHandle;
use crate::device::io::persist::{self, GameStart, Persist};
use crate::device::io::port::{BoardIo, Opener};
use crate::device::io::sinks::Sinks;
use crate::device::io::transport::{Follow, Transport};
use crate::device::options::{DeviceOptions, SpawnError};
use crate::engine::Engine;
use crate::engine::notation;
use crate::monotonic::monotonic_us;
use chessclock_device::link::driver::{self, DriverConfig};
use chessclock_device::session::{Session, SessionConfig};

/// A started actor: its handle and task, the port it uses (the tty's path, or for a virtual
/// clock its label `virtual:NAME`) and the store its game is journaled in.
#[derive(Debug)]
pub(crate) struct Started {
    pub(crate) handle: DeviceHandle,
    pub(crate) task: JoinHandle<()>,
    pub(crate) port: PathBuf,
    /// The journal's store name in the state directory (`None`: no state directory).
    pub(crate) journal: Option<String>,
}

/// Start the actor of clock `index` on the line `attach` opens (a tty, or a virtual board
/// in memory: the supervisor's choice), once the configured control is known good, and
/// resume its journaled game; its files go to `sinks`.
pub(crate) async fn spawn<P: BoardIo>(
    index: u32,
    name: String,
    mut options: DeviceOptions,
    sinks: Sinks,
    attach: impl FnOnce(&DeviceOptions) -> Result<Transport<P>, SpawnError>,
) -> Result<Started, SpawnError> {
    let canonical = notation::canonical(&options.time_control);
    let engine =
        Engine::new(options.time_control.clone()).map_err(|e| SpawnError::TimeControl {
            notation: canonical,
            message: e.to_string(),
        })?;
    let transport = attach(&options)?;
    let label = transport.port.display().to_string();
    let journal = transport.journal.clone();
    let store = options.state_dir.clone().zip(transport.journal);
    let game = resume(&label, engine, store, &mut options, &sinks)?;
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
        transport.follow,
    );
    Ok(Started {
        handle,
        task,
        port: transport.port,
        journal,
    })
}

/// The game the clock starts with: resumed from the journal `store` (state directory and
/// store name, on the journal writer of `sinks`) if it holds one, else a new game on
/// `engine` (journaled if there is a store).
/// A resumed game may set `options.white_side`.
fn resume(
    port: &str,
    mut engine: Engine,
    store: Option<(PathBuf, String)>,
    options: &mut DeviceOptions,
    sinks: &Sinks,
) -> Result<Game, SpawnError> {
    let mut offset_ms = 0;
    let mut resumed = false;
    let mut steps = Vec::new();
    let mut started_wall_ms = None;
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
                    resumed = !r.fold.replayed.is_empty();
                    steps = r.fold.board_steps();
                    started_wall_ms = r.fold.started_wall_ms();
                    engine = r.fold.engine;
                    offset_ms = r.now_ms;
                    if let Some(side) = r.fold.white_side {
                        options.white_side = side;
                    }
                    board_serial = r.fold.board_serial;
                    if let Some(mode) = r.fold.mode {
                        options.mode = mode;
                    }
                    match r.fold.declared.as_deref().map(notation::parse) {
                        Some(Ok(parsed)) => declared = Some(parsed.control),
                        Some(Err(e)) => notices.push(format!(
                            "on resuming the game: the declared control {:?} cannot be read \
                             ({e}); declare it again with `chessclockctl set`",
                            r.fold.declared.unwrap_or_default()
                        )),
                        None => {}
                    }
                    // A journal cut at a damaged tail may have lost a press and the lever
                    // notes after it: what it says of the lever is then not known.
                    lever_in_step = r.fold.lever_in_step.filter(|_| persist.damage().is_empty());
                    notices.extend(
                        r.problems
                            .iter()
                            .map(|p| format!("on resuming the game: {p}")),
                    );
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
    Ok(Game {
        engine,
        offset_ms,
        persist,
        resumed,
        steps,
        started_wall_ms,
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
    /// A game came back from the journal with something to replay (its live file is
    /// written again at once).
    pub(super) resumed: bool,
    /// The board's steps of the journal, with their engine time, in order.
    pub(super) steps: Vec<(u64, chessclock_game::Step)>,
    /// When the journaled game's clock started (wall time), if it did.
    pub(super) started_wall_ms: Option<u64>,
    /// The control the operator declared for the observed clock, as the journal said.
    pub(super) declared: Option<crate::engine::params::TimeControl>,
    /// What the operator should know about the resumed game (problems of the restore).
    pub(super) notices: Vec<String>,
    /// The serial number of the board the journaled game was played on, if it said.
    pub(super) board_serial: Option<String>,
    /// Whether the journal last said the lever was in step.
    pub(super) lever_in_step: Option<bool>,
}

/// Start an actor on an open `stream` (`None`: the port is not there yet, the actor starts
/// disconnected and tries `open`); `open` gets a new one after the port was lost. Its live
/// PGN goes to `sinks` (its journal is in `game` already). `keep` lives as long as the
/// actor (a virtual clock's board); `follow` is given the published state before the actor
/// runs.
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
    follow: Option<Follow>,
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
    match (keep.is_some(), game.lever_in_step) {
        (true, _) => session.lever_of_a_new_board(),
        (false, Some(true)) => session.resume_lever_in_step(),
        (false, _) => {}
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
    // A game resumed from the journal is written to the live feed again at once (after a
    // reboot the feed's tmpfs is empty; the board's dump may change nothing).
    let resumed = game.resumed;
    session.resume_board(game.steps);
    if let Err(e) = session.set_tag_defaults(&options.tag_defaults) {
        tracing::warn!(clock = index, "default tags not taken: {e}");
    }
    let (round, board) = options.place.unwrap_or((1, index.saturating_add(1)));
    session.set_place(round, board);
    // Only a journaled game has a start to resume.
    if let Some(started_wall_ms) = game.started_wall_ms {
        session.resume_record(started_wall_ms);
    }
    // The configured information is shown from the start; the live file waits for a move.
    let _ = session.take_pgn_changed();
    let (state_tx, state_rx) = watch::channel(session.published(driver::Instant::ZERO));
    if let Some(follow) = follow {
        follow(state_rx.clone());
    }
    let (events, _) = broadcast::channel(256);
    let handle = DeviceHandle::new(tx, state_rx, events.clone());
    let reopen_interval = options.reopen_interval;
    let (answers_tx, answers) = tokio::sync::mpsc::unbounded_channel();
    let mut actor = Actor {
        options,
        port: stream,
        open,
        session,
        epoch,
        persist: game.persist,
        live: sinks.live,
        searcher: sinks.search,
        answers_tx,
        answers,
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
