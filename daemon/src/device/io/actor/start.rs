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
use chessclock_device::link::driver::DriverConfig;
use chessclock_device::session::{Restored, Session, SessionConfig};

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
/// A resumed game may set `options.white_side` and `options.mode`.
fn resume(
    port: &str,
    engine: Engine,
    store: Option<(PathBuf, String)>,
    options: &mut DeviceOptions,
    sinks: &Sinks,
) -> Result<Game, SpawnError> {
    let store_name = store.as_ref().map(|(_, s)| s.clone()).unwrap_or_default();
    let seed = persist::game_id::seed(&store_name, persist::wall_ms());
    // A new journal's game gets a fresh id; a journaled game keeps its start's.
    let fresh_id = persist::game_id::text(seed);
    let fresh = |engine| Restored {
        game_id: fresh_id.clone(),
        id_seed: seed,
        ..Restored::fresh(engine)
    };
    let Some((dir, store)) = store else {
        return Ok(Game {
            restored: fresh(engine),
            persist: None,
        });
    };
    let fallback = GameStart {
        control: engine.control().clone(),
        t_ms: 0,
        wall_ms: persist::wall_ms(),
        game_id: None,
    };
    let (persist, restored) = Persist::open(&sinks.journals, &dir, &store, fallback)
        .map_err(|e| SpawnError::Port(std::io::Error::other(e.to_string())))?;
    let mut notices: Vec<String> = persist
        .damage()
        .iter()
        .map(|d| format!("on resuming the game: {d}"))
        .collect();
    let Some(r) = restored else {
        persist.new_game(GameStart {
            control: engine.control().clone(),
            t_ms: 0,
            wall_ms: persist::wall_ms(),
            game_id: Some(fresh_id.clone()),
        });
        let restored = Restored {
            notices,
            ..fresh(engine)
        };
        return Ok(Game {
            restored,
            persist: Some(persist),
        });
    };
    tracing::info!("{port}: resuming the journaled game at {} ms", r.now_ms);
    let game_id = match &r.start.rec {
        persist::Journaled::Start(start) => persist::game_id::of_start(&store, start),
        _ => fresh_id.clone(),
    };
    if let Some(side) = r.fold.white_side {
        options.white_side = side;
    }
    if let Some(mode) = r.fold.mode {
        options.mode = mode;
    }
    let declared = match r.fold.declared.as_deref().map(notation::parse) {
        Some(Ok(parsed)) => Some(parsed.control),
        Some(Err(e)) => {
            notices.push(format!(
                "on resuming the game: the declared control {:?} cannot be read ({e}); \
                 declare it again with `chessclockctl set`",
                r.fold.declared.clone().unwrap_or_default()
            ));
            None
        }
        None => None,
    };
    notices.extend(
        r.problems
            .iter()
            .map(|p| format!("on resuming the game: {p}")),
    );
    let restored = Restored {
        replayed: !r.fold.replayed.is_empty(),
        steps: r.fold.board_steps(),
        started_wall_ms: r.fold.started_wall_ms(),
        offset_ms: r.now_ms,
        board_serial: r.fold.board_serial,
        pieces_awaited: r.fold.pieces_awaited,
        declared,
        notices,
        // A journal cut at a damaged tail may have lost a press and the lever notes after
        // it: what it says of the lever is then not known.
        lever_in_step: r.fold.lever_in_step.filter(|_| persist.damage().is_empty()),
        game_id,
        id_seed: seed,
        ..Restored::fresh(r.fold.engine)
    };
    Ok(Game {
        restored,
        persist: Some(persist),
    })
}

/// The game an actor starts with (fresh, or resumed from the journal) and its journal.
pub(super) struct Game {
    pub(super) restored: Restored,
    pub(super) persist: Option<Persist>,
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
        port: port.clone(),
        epoch_us: monotonic_us(),
        white_side: options.white_side,
        move_source: options.move_source,
        pause_button: options.pause_button,
        mode: options.mode,
        draw_rules: options.draw_rules,
        live: options.live_folder().is_some(),
    };
    let waiting = stream.is_none();
    let restored = Restored {
        port_open: !waiting,
        // A virtual clock's board (`keep`) is made anew with the daemon.
        new_board: keep.is_some(),
        game_info: options.game_info.clone(),
        tag_defaults: options.tag_defaults.clone(),
        place: Some(options.place.unwrap_or((1, index.saturating_add(1)))),
        ..game.restored
    };
    let (session, first) = Session::resume(cfg, link, restored);
    let (state_tx, state_rx) = watch::channel(first);
    if let Some(follow) = follow {
        follow(state_rx.clone());
    }
    let (events, _) = broadcast::channel(256);
    let handle = DeviceHandle::new(tx, state_rx, events.clone());
    let reopen_interval = options.reopen_interval;
    let (answers_tx, answers) = tokio::sync::mpsc::unbounded_channel();
    let mut actor = Actor {
        clock: index,
        label: port,
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
        _keep: keep,
    };
    let task = tokio::spawn(async move { actor.run().await });
    (handle, task)
}
