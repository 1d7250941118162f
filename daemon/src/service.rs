//! The daemon's top level: bus connection, supervisor, configured clocks, systemd
//! notification and watchdog, signals (SIGTERM stops, SIGHUP reloads).
//!
//! Owns process lifetime only; clocks are owned by the supervisor, games by device actors.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use tokio::signal::unix::{SignalKind, signal};
use zbus::Connection;

use crate::bus::names::BUS_NAME;
use crate::config::Config;
use crate::device::DeviceOptions;
use crate::engine::params::TimeControl;
use crate::supervisor::{self, ClockSpec, Defaults, SupervisorError, SupervisorHandle};

/// Which bus to serve on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusChoice {
    /// The system bus (production).
    System,
    /// The session bus (tests, demos).
    Session,
    /// An explicit address (private buses in tests).
    Address(String),
}

/// What `main` decided from the command line.
#[derive(Debug, Clone)]
pub struct ServiceOptions {
    /// Config file; `None` = the default path, which may be absent.
    pub config: Option<PathBuf>,
    /// Bus to use.
    pub bus: BusChoice,
    /// Overrides the configured state directory.
    pub state_dir: Option<PathBuf>,
    /// The log filter's control, served as org.freedesktop.LogControl1 (None: not served).
    pub log: Option<crate::logging::LogControl>,
}

/// Connect to the chosen bus.
pub async fn connect(bus: &BusChoice) -> zbus::Result<Connection> {
    match bus {
        BusChoice::System => zbus::connection::Builder::system().build().await,
        BusChoice::Session => zbus::connection::Builder::session().build().await,
        BusChoice::Address(a) => zbus::connection::Builder::address(a.as_str()).build().await,
    }
}

/// What a configuration starts, its notations parsed (here, once).
#[derive(Debug)]
pub struct Plan {
    /// The clocks' default options.
    pub device: DeviceOptions,
    /// The `[[clock]]` tables that name a board by its serial number.
    pub tables: Vec<supervisor::BoardTable>,
    /// The clocks the configuration attaches by their ports.
    pub ports: Vec<ClockSpec>,
    /// The board numbers the `[[clock]]` tables give.
    pub configured_boards: std::collections::BTreeSet<u32>,
}

/// The plan of `cfg`, or the first setting whose time control does not parse.
pub fn plan(cfg: &Config) -> Result<Plan, crate::config::ConfigError> {
    let mut tables = Vec::new();
    let mut ports = Vec::new();
    for (i, c) in cfg.clocks.iter().enumerate() {
        let spec = table_spec(c, cfg.clock_control(i)?);
        if let Some(board_serial) = c.board_serial.clone() {
            tables.push(supervisor::BoardTable {
                board_serial,
                spec: spec.clone(),
                key: format!("clock[{i}]"),
            });
        }
        if c.port.is_some() {
            ports.push(spec);
        }
    }
    Ok(Plan {
        device: device_defaults(cfg, cfg.default_control()?),
        tables,
        ports,
        configured_boards: cfg.clocks.iter().filter_map(|c| c.board).collect(),
    })
}

/// Device options from the configuration, new games on `time_control`.
fn device_defaults(cfg: &Config, time_control: TimeControl) -> DeviceOptions {
    DeviceOptions {
        time_control,
        transport_latency: Duration::from_millis(cfg.transport_latency_ms),
        command_timeout: Duration::from_millis(cfg.command_timeout_ms),
        command_retries: cfg.command_retries,
        pause_button: cfg.pause_button,
        draw_rules: cfg.draw_rules,
        live_dir: cfg.live_dir.clone(),
        tag_defaults: cfg.tag_defaults(),
        ..DeviceOptions::default()
    }
}

/// Where the clocks' files go: journals in `state_dir`; the live feed where the
/// configuration says, else in systemd's `RuntimeDirectory=` (`$RUNTIME_DIRECTORY/live`, a
/// tmpfs: no SD card wear, and every resumed game writes its file again at start), else in
/// `state_dir/live`.
fn place_files(device: &mut DeviceOptions, state_dir: &std::path::Path) {
    device.state_dir = Some(state_dir.to_path_buf());
    if device.live_dir.is_none() {
        device.live_dir = runtime_dir().map(|d| d.join("live"));
    }
}

/// systemd's `RuntimeDirectory=` for this service (the first of `$RUNTIME_DIRECTORY`).
fn runtime_dir() -> Option<PathBuf> {
    let dirs = std::env::var_os("RUNTIME_DIRECTORY")?;
    std::env::split_paths(&dirs)
        .next()
        .filter(|d| d.is_absolute())
}

/// The settings of a `[[clock]]` table (its port, if it has none, empty).
fn table_spec(c: &crate::config::ClockConfig, time_control: Option<TimeControl>) -> ClockSpec {
    ClockSpec {
        port: c.port.clone().unwrap_or_default(),
        name: c.name.clone(),
        white_side: c.white_side,
        time_control,
        game_info: c
            .game_info
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        board: c.board,
        move_source: c.move_source,
        mode: c.mode,
        draw_rules: c.draw_rules,
        remember: false,
        // A configured board that is not plugged in yet is waited for.
        wait_for_port: true,
        configured: true,
        board_serial: c.board_serial.clone(),
    }
}

/// Run the daemon until SIGTERM/SIGINT.
pub async fn run(opts: ServiceOptions) -> anyhow::Result<()> {
    let cfg = load_config(opts.config.as_deref())?;
    let state_dir = opts
        .state_dir
        .clone()
        .unwrap_or_else(|| cfg.state_dir.clone());
    std::fs::create_dir_all(&state_dir).with_context(|| {
        format!(
            "state directory {} cannot be created; give a writable one with --state-dir or \
             state_dir in the configuration",
            state_dir.display()
        )
    })?;
    let Plan {
        mut device,
        tables,
        ports,
        configured_boards,
    } = plan(&cfg).context("configuration")?;
    place_files(&mut device, &state_dir);
    let conn = connect(&opts.bus)
        .await
        .with_context(|| format!("cannot connect to the {:?} bus", opts.bus))?;
    // Device actors read their ttys on their own thread, whatever the bus is doing.
    let devices = crate::device::runtime::DeviceRuntime::start()
        .context("cannot start the device actors' runtime")?;
    // The bus (this thread, and every thread it starts from now on) yields to it.
    crate::device::runtime::defer_to_devices("bus");
    let (sup, changes) = supervisor::start(Defaults {
        device,
        devices: Some(devices.handle()),
        tables,
        configured_boards,
    });
    crate::bus::objects::serve(conn.clone(), sup.clone(), changes)
        .await
        .context("cannot serve the D-Bus objects")?;
    if let Some(log) = opts.log.clone() {
        conn.object_server()
            .at(crate::logging::LOG_CONTROL_PATH, log)
            .await
            .context("cannot serve the log control object")?;
    }
    // Configured clocks first, so that a client that sees the name also sees them; then the
    // boards attached at run time before the restart.
    attach_configured(&sup, ports).await;
    attach_remembered(&sup).await;
    conn.request_name(BUS_NAME).await.with_context(|| {
        format!("cannot own {BUS_NAME}: another chessclockd may be running, or the bus policy does not allow this user")
    })?;
    tracing::info!("serving {BUS_NAME}");
    notify_ready(&sup);
    let watchdog = tokio::spawn(watchdog(sup.clone()));
    let status = tokio::spawn(keep_status(sup.clone()));
    let mut scanning = cfg
        .scan
        .then(|| tokio::spawn(scan(sup.clone(), cfg.scan_ports.clone())));

    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let mut hup = signal(SignalKind::hangup())?;
    loop {
        tokio::select! {
            _ = term.recv() => break,
            _ = int.recv() => break,
            _ = hup.recv() => {
                let mut reloading = vec![sd_notify::NotifyState::Reloading];
                if let Ok(usec) = sd_notify::NotifyState::monotonic_usec_now() {
                    reloading.push(usec);
                }
                let _ = sd_notify::notify(&reloading);
                match load_config(opts.config.as_deref())
                    .and_then(|new| Ok((plan(&new).context("configuration")?, new)))
                {
                    Ok((Plan { mut device, tables, ports, configured_boards }, new)) => {
                        tracing::info!("configuration reloaded");
                        place_files(&mut device, &state_dir);
                        sup.set_defaults(Defaults {
                            device,
                            devices: Some(devices.handle()),
                            tables,
                            configured_boards,
                        }).await;
                        attach_configured(&sup, ports).await;
                        if new.scan && scanning.as_ref().is_none_or(|t| t.is_finished()) {
                            scanning = Some(tokio::spawn(scan(sup.clone(), new.scan_ports.clone())));
                        }
                    }
                    Err(e) => tracing::error!("configuration not reloaded, keeping the old one: {e:#}"),
                }
                notify_ready(&sup);
            }
        }
    }
    tracing::info!("stopping");
    if let Some(task) = scanning {
        task.abort();
    }
    let _ = sd_notify::notify(&[sd_notify::NotifyState::Stopping]);
    watchdog.abort();
    status.abort();
    sup.shutdown().await;
    devices.shutdown();
    let _ = conn.release_name(BUS_NAME).await;
    Ok(())
}

/// Read and check the configuration, time controls included: a bad file stops the start (or
/// a reload) with the key and the problem, before anything is attached.
fn load_config(path: Option<&std::path::Path>) -> anyhow::Result<Config> {
    check_config(path).map(|(cfg, _)| cfg)
}

/// What `chessclockd --check-config` and every start and reload check: the configuration
/// and the files it came from (the file, then its drop-ins).
pub fn check_config(path: Option<&std::path::Path>) -> anyhow::Result<(Config, Vec<PathBuf>)> {
    let (cfg, files) = Config::load_files(path).context("configuration")?;
    cfg.validate().context("configuration")?;
    Ok((cfg, files))
}

/// The opt-in scan: attach every port matching `patterns` that answers the DGT handshake and
/// is not attached yet. Ports that do not answer are left alone (and closed).
async fn scan(sup: SupervisorHandle, patterns: Vec<String>) {
    let attached: Vec<PathBuf> = sup
        .handles()
        .await
        .iter()
        .map(|h| PathBuf::from(&h.state().port))
        .collect();
    for port in crate::device::scan::candidates(&patterns).await {
        if attached.iter().any(|a| supervisor::same_port(a, &port)) {
            continue;
        }
        match crate::device::scan::probe(&port, crate::device::scan::PROBE_WAIT).await {
            Ok((major, minor)) => {
                tracing::info!(
                    "scan: {} is a DGT board (version {major}.{minor})",
                    port.display()
                );
                let spec = ClockSpec {
                    port: port.clone(),
                    ..ClockSpec::default()
                };
                match sup.attach_spec(spec).await {
                    Ok(index) => {
                        tracing::info!("scan: {} attached as clock {index}", port.display())
                    }
                    Err(SupervisorError::AlreadyAttached(_)) => {}
                    Err(e) => tracing::warn!("scan: {} not attached: {e}", port.display()),
                }
            }
            Err(e) => tracing::debug!("scan: {} skipped: {e}", port.display()),
        }
    }
    notify_ready(&sup);
}

/// Attach every configured clock that is not attached yet. Running games are untouched.
pub async fn attach_configured(sup: &SupervisorHandle, ports: Vec<ClockSpec>) {
    for spec in ports {
        let port = spec.port.display().to_string();
        match sup.attach_spec(spec).await {
            Ok(index) => tracing::info!("configured clock {port} attached as clock {index}"),
            Err(SupervisorError::AlreadyAttached(_)) => {}
            Err(e) => tracing::warn!("configured clock {port} not attached: {e}"),
        }
    }
}

/// Attach again the boards attached at run time and the virtual clocks added before a
/// restart (`state_dir/attached.json`), in the order of their board numbers. A board that is
/// not there now gets its clock, `disconnected`, with its game resumed, and is opened when
/// its port appears.
async fn attach_remembered(sup: &SupervisorHandle) {
    for remembered in sup.remembered().await {
        match remembered {
            supervisor::Remembered::Port(port) => {
                let spec = ClockSpec {
                    port: port.clone(),
                    remember: true,
                    wait_for_port: true,
                    ..ClockSpec::default()
                };
                match sup.attach_spec(spec).await {
                    Ok(index) => tracing::info!(
                        "{} (attached before the restart) attached again as clock {index}",
                        port.display()
                    ),
                    Err(SupervisorError::AlreadyAttached(_)) => {}
                    Err(e) => tracing::warn!(
                        "{} was attached before the restart but is not now: {e}; it stays \
                         remembered",
                        port.display()
                    ),
                }
            }
            supervisor::Remembered::Virtual(name) => match sup.add_virtual(&name).await {
                Ok(index) => tracing::info!("virtual clock {name:?} added again as clock {index}"),
                Err(e) => tracing::warn!(
                    "virtual clock {name:?} (added before the restart) is not added now: {e}; it \
                     stays remembered"
                ),
            },
        }
    }
}

fn notify_ready(sup: &SupervisorHandle) {
    let n = sup.clocks().len();
    let status = format!("{n} clock(s) attached");
    let _ = sd_notify::notify(&[
        sd_notify::NotifyState::Ready,
        sd_notify::NotifyState::Status(&status),
    ]);
}

/// Keep systemd's STATUS= line ("N clock(s) attached") current as clocks come and go.
async fn keep_status(sup: SupervisorHandle) {
    let mut clocks = sup.watch_clocks();
    while clocks.changed().await.is_ok() {
        let n = clocks.borrow_and_update().len();
        let status = format!("{n} clock(s) attached");
        let _ = sd_notify::notify(&[sd_notify::NotifyState::Status(&status)]);
    }
}

/// Ping systemd's watchdog only while the supervisor and every device actor answer: a wedged
/// loop, or an actor that died, gets the daemon restarted, and the journal resumes the games.
async fn watchdog(sup: SupervisorHandle) {
    let Some(period) = sd_notify::watchdog_enabled() else {
        return;
    };
    let every = period / 2;
    loop {
        tokio::time::sleep(every).await;
        if all_alive(&sup, every).await {
            let _ = sd_notify::notify(&[sd_notify::NotifyState::Watchdog]);
        }
    }
}

/// Whether the supervisor and every actor answer within `limit`.
async fn all_alive(sup: &SupervisorHandle, limit: Duration) -> bool {
    let Ok(handles) = tokio::time::timeout(limit, sup.handles()).await else {
        tracing::error!("watchdog: the supervisor did not answer");
        return false;
    };
    for h in handles {
        let index = h.state().index;
        match tokio::time::timeout(limit, h.live()).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                tracing::error!("watchdog: clock {index} has stopped unexpectedly: {e}");
                return false;
            }
            Err(_) => {
                tracing::error!("watchdog: clock {index} did not answer within {limit:?}");
                return false;
            }
        }
    }
    true
}
