//! The supervisor: owns the set of attached clocks and their D-Bus objects.
//!
//! One task; everything else talks to it through a [`SupervisorHandle`]. It spawns a device
//! actor per board, serves a Clock object for it, and removes both on detach. It does no
//! serial IO itself and holds no game state.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use zbus::{Connection, ObjectPath, OwnedObjectPath};

use crate::bus::clock::{ClockIface, device_error, forward};
use crate::bus::error::BusError;
use crate::bus::manager::ManagerIface;
use crate::bus::names::{MANAGER_PATH, clock_index, clock_path};
use crate::device::handle::{BoardSide, DeviceHandle, Request};
use crate::device::{self, DeviceOptions, PortSpec};

/// What the supervisor needs to know to start a clock.
#[derive(Debug, Clone, Default)]
pub struct ClockSpec {
    /// Port to open.
    pub port: PathBuf,
    /// Name; defaults to the port's file name.
    pub name: Option<String>,
    /// Which half is White.
    pub white_side: BoardSide,
    /// Time-control notation; defaults to the daemon's default.
    pub time_control: Option<String>,
    /// Game information (PGN tags) for the clock's games.
    pub game_info: Vec<(String, String)>,
    /// What counts the moves of a multi-period control.
    pub move_source: crate::device::MoveSource,
    /// Drive the clock or observe it.
    pub mode: crate::device::observe::Mode,
    /// Attached at run time (not configured): remembered across restarts.
    pub remember: bool,
}

/// Settings that apply to every clock.
#[derive(Debug, Clone)]
pub struct Defaults {
    /// Actor options shared by every clock (latency, timeouts, default control...).
    pub device: DeviceOptions,
}

enum Msg {
    Attach {
        spec: ClockSpec,
        reply: oneshot::Sender<Result<OwnedObjectPath, BusError>>,
    },
    AddVirtual {
        name: String,
        reply: oneshot::Sender<Result<OwnedObjectPath, BusError>>,
    },
    Detach {
        path: String,
        reply: oneshot::Sender<Result<(), BusError>>,
    },
    Handles {
        reply: oneshot::Sender<Vec<DeviceHandle>>,
    },
    SetDefaults {
        defaults: Box<Defaults>,
        reply: oneshot::Sender<()>,
    },
    Shutdown {
        reply: oneshot::Sender<()>,
    },
}

/// Cloneable handle to the supervisor task.
#[derive(Debug, Clone)]
pub struct SupervisorHandle {
    tx: mpsc::Sender<Msg>,
    paths: watch::Receiver<Vec<OwnedObjectPath>>,
}

impl std::fmt::Debug for Msg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Msg::Attach { .. } => "Attach",
            Msg::AddVirtual { .. } => "AddVirtual",
            Msg::Detach { .. } => "Detach",
            Msg::Handles { .. } => "Handles",
            Msg::SetDefaults { .. } => "SetDefaults",
            Msg::Shutdown { .. } => "Shutdown",
        })
    }
}

fn gone() -> BusError {
    BusError::Gone("the daemon is shutting down".into())
}

impl SupervisorHandle {
    /// Paths of the attached clocks.
    pub fn clock_paths(&self) -> Vec<OwnedObjectPath> {
        self.paths.borrow().clone()
    }

    /// Follow the paths of the attached clocks as they change.
    pub fn watch_paths(&self) -> watch::Receiver<Vec<OwnedObjectPath>> {
        self.paths.clone()
    }

    /// Attach a tty with default settings, at run time: it is remembered, and attached
    /// again after a restart.
    pub async fn attach(&self, port: &str) -> Result<OwnedObjectPath, BusError> {
        self.attach_spec(ClockSpec {
            port: PathBuf::from(port),
            remember: true,
            ..ClockSpec::default()
        })
        .await
    }

    /// Attach a tty with the given settings.
    pub async fn attach_spec(&self, spec: ClockSpec) -> Result<OwnedObjectPath, BusError> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(Msg::Attach { spec, reply })
            .await
            .map_err(|_| gone())?;
        rx.await.map_err(|_| gone())?
    }

    /// Add an emulated clock.
    pub async fn add_virtual(&self, name: &str) -> Result<OwnedObjectPath, BusError> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(Msg::AddVirtual {
                name: name.to_owned(),
                reply,
            })
            .await
            .map_err(|_| gone())?;
        rx.await.map_err(|_| gone())?
    }

    /// Detach the clock at `path`.
    pub async fn detach(&self, path: &str) -> Result<(), BusError> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(Msg::Detach {
                path: path.to_owned(),
                reply,
            })
            .await
            .map_err(|_| gone())?;
        rx.await.map_err(|_| gone())?
    }

    /// Handles of every attached clock.
    pub async fn handles(&self) -> Vec<DeviceHandle> {
        let (reply, rx) = oneshot::channel();
        if self.tx.send(Msg::Handles { reply }).await.is_err() {
            return Vec::new();
        }
        rx.await.unwrap_or_default()
    }

    /// Options for clocks attached from now on; running clocks take the operational part
    /// (latency, command timeout and retries, pause button) at once.
    pub async fn set_defaults(&self, defaults: Defaults) {
        let (reply, rx) = oneshot::channel();
        let msg = Msg::SetDefaults {
            defaults: Box::new(defaults),
            reply,
        };
        if self.tx.send(msg).await.is_ok() {
            let _ = rx.await;
        }
    }

    /// Stop every actor (they flush their journals) and wait for them.
    pub async fn shutdown(&self) {
        let (reply, rx) = oneshot::channel();
        if self.tx.send(Msg::Shutdown { reply }).await.is_ok() {
            let _ = rx.await;
        }
    }
}

struct Entry {
    handle: DeviceHandle,
    port: PathBuf,
    /// An emulated board (AddVirtual).
    is_virtual: bool,
    actor: JoinHandle<()>,
    forwarder: JoinHandle<()>,
}

struct Supervisor {
    conn: Connection,
    defaults: Defaults,
    clocks: BTreeMap<u32, Entry>,
    next: u32,
    paths: watch::Sender<Vec<OwnedObjectPath>>,
    /// Ports attached at run time (the remembered file's contents).
    remembered: BTreeSet<PathBuf>,
}

/// Start the supervisor and serve the Manager object on `conn`.
pub async fn start(conn: Connection, defaults: Defaults) -> zbus::Result<SupervisorHandle> {
    let (tx, mut rx) = mpsc::channel(32);
    let (paths_tx, paths_rx) = watch::channel(Vec::new());
    let handle = SupervisorHandle {
        tx,
        paths: paths_rx,
    };
    conn.object_server()
        .at(MANAGER_PATH, ManagerIface::new(handle.clone()))
        .await?;
    conn.object_server()
        .at(MANAGER_PATH, zbus::fdo::ObjectManager)
        .await?;
    let remembered = defaults
        .device
        .state_dir
        .as_deref()
        .map(crate::remembered::load)
        .unwrap_or_default();
    let mut sup = Supervisor {
        conn,
        defaults,
        clocks: BTreeMap::new(),
        next: 0,
        paths: paths_tx,
        remembered,
    };
    tokio::spawn(async move {
        while let Some(msg) = rx.recv().await {
            match msg {
                Msg::Attach { spec, reply } => {
                    let _ = reply.send(sup.attach(PortSpec::Tty(spec.port.clone()), spec).await);
                }
                Msg::AddVirtual { name, reply } => {
                    if let Err(e) = sup.check_virtual(&name) {
                        let _ = reply.send(Err(e));
                        continue;
                    }
                    let spec = ClockSpec {
                        name: Some(name.clone()),
                        ..ClockSpec::default()
                    };
                    let _ = reply.send(sup.attach(PortSpec::Virtual, spec).await);
                }
                Msg::Detach { path, reply } => {
                    let _ = reply.send(sup.detach(&path).await);
                }
                Msg::SetDefaults { defaults, reply } => {
                    let live = defaults.device.live();
                    sup.defaults = *defaults;
                    // Running clocks take the new operational settings; their games and time
                    // controls stay as they are.
                    for entry in sup.clocks.values() {
                        let handle = entry.handle.clone();
                        tokio::spawn(async move {
                            let _ = handle.request(Request::Settings(live)).await;
                        });
                    }
                    let _ = reply.send(());
                }
                Msg::Handles { reply } => {
                    let _ = reply.send(sup.clocks.values().map(|e| e.handle.clone()).collect());
                }
                Msg::Shutdown { reply } => {
                    let indices: Vec<u32> = sup.clocks.keys().copied().collect();
                    for i in indices {
                        let _ = sup.remove(i).await;
                    }
                    let _ = reply.send(());
                    break;
                }
            }
        }
    });
    Ok(handle)
}

/// Whether two paths name the same port (symlinks such as `/dev/dgt/board-0` followed).
pub(crate) fn same_port(a: &Path, b: &Path) -> bool {
    let ca = std::fs::canonicalize(a).unwrap_or_else(|_| a.to_path_buf());
    let cb = std::fs::canonicalize(b).unwrap_or_else(|_| b.to_path_buf());
    ca == cb
}

/// At most this many emulated clocks (each is a task, a pty and a board emulation).
pub const MAX_VIRTUAL_CLOCKS: usize = 256;
/// Clock names are at most this many characters.
pub const MAX_NAME_CHARS: usize = 64;

impl Supervisor {
    fn save_remembered(&self) {
        if let Some(dir) = &self.defaults.device.state_dir
            && let Err(e) = crate::remembered::save(dir, &self.remembered)
        {
            tracing::warn!(
                "cannot write {}: {e}; boards attached at run time may not come back after a restart",
                dir.join(crate::remembered::FILE).display()
            );
        }
    }

    /// Whether another emulated clock named `name` may be added.
    fn check_virtual(&self, name: &str) -> Result<(), BusError> {
        let shown: String = name.chars().take(40).collect();
        if name.trim().is_empty() {
            return Err(BusError::InvalidArgument(
                "a virtual clock needs a name, e.g. `chessclockctl add-virtual board1`".into(),
            ));
        }
        if name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
            return Err(BusError::InvalidArgument(format!(
                "{shown:?}...: a clock name is at most {MAX_NAME_CHARS} characters, without \
                 control characters"
            )));
        }
        let virtuals = self.clocks.values().filter(|e| e.is_virtual).count();
        if virtuals >= MAX_VIRTUAL_CLOCKS {
            return Err(BusError::NotAllowed(format!(
                "{MAX_VIRTUAL_CLOCKS} virtual clocks are attached already, the most there may \
                 be; detach some first"
            )));
        }
        Ok(())
    }

    async fn attach(
        &mut self,
        port: PortSpec,
        spec: ClockSpec,
    ) -> Result<OwnedObjectPath, BusError> {
        if let PortSpec::Tty(path) = &port
            && let Some((i, _)) = self.clocks.iter().find(|(_, e)| same_port(&e.port, path))
        {
            return Err(BusError::AlreadyAttached(format!(
                "{} is already attached as {}; detach it first",
                path.display(),
                clock_path(*i)
            )));
        }
        let index = self.next;
        let is_virtual = matches!(port, PortSpec::Virtual);
        let remember = match (&port, spec.remember) {
            (PortSpec::Tty(p), true) => Some(p.clone()),
            _ => None,
        };
        let mut options = self.defaults.device.clone();
        options.white_side = spec.white_side;
        if let Some(tc) = spec.time_control {
            options.time_control = tc;
        }
        options.game_info = spec.game_info;
        options.move_source = spec.move_source;
        options.mode = spec.mode;
        let name = spec.name.unwrap_or_else(|| match &port {
            PortSpec::Tty(p) => p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            PortSpec::Virtual => format!("virtual{index}"),
        });
        let (handle, actor, port_path) = device::spawn(index, name, port, options)
            .await
            .map_err(|e| BusError::PortFailed(e.to_string()))?;
        self.next += 1;
        let path = clock_path(index);
        let server = self.conn.object_server();
        let initial = handle.state();
        if let Err(e) = server
            .at(path.as_str(), ClockIface::new(handle.clone()))
            .await
        {
            actor.abort();
            return Err(BusError::ZBus(e));
        }
        let iface = server.interface::<_, ClockIface>(path.as_str()).await?;
        let forwarder = tokio::spawn(forward(iface, handle.clone(), initial));
        self.clocks.insert(
            index,
            Entry {
                handle,
                port: port_path,
                is_virtual,
                actor,
                forwarder,
            },
        );
        self.publish().await;
        if let Some(p) = remember
            && self.remembered.insert(p)
        {
            self.save_remembered();
        }
        let opath = ObjectPath::try_from(path.as_str())?;
        if let Ok(mgr) = server.interface::<_, ManagerIface>(MANAGER_PATH).await {
            let _ = ManagerIface::clock_added(mgr.signal_emitter(), opath.clone()).await;
        }
        tracing::info!(clock = index, "attached {}", opath.as_str());
        Ok(opath.into())
    }

    async fn detach(&mut self, path: &str) -> Result<(), BusError> {
        let index = clock_index(path)
            .filter(|i| self.clocks.contains_key(i))
            .ok_or_else(|| {
                BusError::NoSuchClock(format!(
                    "no clock at {path}; `chessclockctl list` shows the attached clocks"
                ))
            })?;
        let port = self.clocks.get(&index).map(|e| e.port.clone());
        self.remove(index).await?;
        // Detached on purpose: not attached again after a restart.
        if let Some(p) = port
            && self.remembered.remove(&p)
        {
            self.save_remembered();
        }
        Ok(())
    }

    async fn remove(&mut self, index: u32) -> Result<(), BusError> {
        let Some(entry) = self.clocks.remove(&index) else {
            return Ok(());
        };
        if let Err(e) = entry.handle.request(Request::Shutdown).await {
            tracing::debug!(clock = index, "actor stop: {}", device_error(e));
        }
        let _ = entry.actor.await;
        entry.forwarder.abort();
        let path = clock_path(index);
        let server = self.conn.object_server();
        let _ = server.remove::<ClockIface, _>(path.as_str()).await;
        self.publish().await;
        if let (Ok(mgr), Ok(opath)) = (
            server.interface::<_, ManagerIface>(MANAGER_PATH).await,
            ObjectPath::try_from(path.as_str()),
        ) {
            let _ = ManagerIface::clock_removed(mgr.signal_emitter(), opath).await;
        }
        tracing::info!(clock = index, "detached {path}");
        Ok(())
    }

    async fn publish(&self) {
        let paths: Vec<OwnedObjectPath> = self
            .clocks
            .keys()
            .filter_map(|i| ObjectPath::try_from(clock_path(*i)).ok().map(Into::into))
            .collect();
        self.paths.send_replace(paths);
        let server = self.conn.object_server();
        if let Ok(mgr) = server.interface::<_, ManagerIface>(MANAGER_PATH).await {
            let _ = mgr.get().await.clocks_changed(mgr.signal_emitter()).await;
        }
    }
}
