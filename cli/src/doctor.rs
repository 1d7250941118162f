//! `chessclockctl doctor`: whether this machine is ready to run games, one check per line
//! (or, with `-J`, a JSON list of `{check, ok, skipped, detail}`), each failed one saying what
//! to do. A check that cannot be made here (the clock's synchronisation without systemd, the
//! MQTT broker when none is set, ...) is skipped, says why, and fails nothing. Exit 0 when no
//! check failed.
//!
//! Owns the checks and their wording; it reads the bus, a few files and `timedatectl`, runs
//! the programs' own `--check-config` (`settings.rs`), and changes nothing (the permission
//! probe asks to detach a clock that cannot exist).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use chessclock_api::ClockStatus;
use chessclock_api::names::BUS_NAME;
use chessclock_api::proxy::ManagerProxy;
use serde::Serialize;

use crate::client::{BusArgs, Failure, bus_label, connect};

mod settings;

/// Free space the state directory should have at least (journals and games of a day).
const MIN_FREE_BYTES: u64 = 100 * 1024 * 1024;
/// How long a network check waits.
const NET_TIMEOUT: Duration = Duration::from_secs(2);

/// Check this machine: daemon, permissions, boards, the daemon's and the bridge's settings,
/// udev rules, state directory, clock synchronisation, bridge, MQTT broker, Bluetooth.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The daemon's configuration, checked as `chessclockd --check-config --config FILE`
    /// does [default: the daemon's own, /etc/chessclockd/chessclockd.toml if it exists, and
    /// its drop-ins].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The daemon's state directory.
    #[arg(long, value_name = "DIR", default_value = "/var/lib/chessclockd")]
    state_dir: PathBuf,
    /// The bridge's configuration (checked as `chessclock-bridge --check-config` does; its
    /// HTTP address and MQTT broker, with its drop-ins); the bridge checks are skipped when it
    /// does not exist.
    #[arg(
        long,
        value_name = "FILE",
        default_value = "/etc/chessclockd/bridge.toml"
    )]
    bridge_config: PathBuf,
    /// Where udev rules are looked for (repeatable).
    #[arg(long, value_name = "DIR", default_values = ["/usr/lib/udev/rules.d", "/lib/udev/rules.d", "/etc/udev/rules.d"])]
    udev_dir: Vec<PathBuf>,
}

/// One check's outcome (the JSON schema of `doctor -J`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Check {
    /// Its name: `daemon`, `permission`, `boards`, `config`, `bridge_config`, `udev`,
    /// `state`, `time`, `bridge`, `mqtt`, `bluetooth`.
    check: &'static str,
    /// False only for a failed check (a skipped one failed nothing).
    ok: bool,
    /// The check could not be made here, or does not apply; `detail` says why.
    skipped: bool,
    /// What was found, and for a failure what to do.
    detail: String,
}

fn check(check: &'static str, ok: bool, detail: impl Into<String>) -> Check {
    Check {
        check,
        ok,
        skipped: false,
        detail: detail.into(),
    }
}

/// A check not made here; `detail` says why (and what to look at instead).
fn skip(check: &'static str, detail: impl Into<String>) -> Check {
    Check {
        check,
        ok: true,
        skipped: true,
        detail: detail.into(),
    }
}

/// What this host runs the services with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Host {
    /// systemd is PID 1 (`/run/systemd/system` exists, as `sd_booted(3)` asks): units,
    /// `systemctl` and `timedatectl` work. Without it (a container, a chroot, sysvinit) the
    /// package's init scripts run the daemon and the bridge (docs/install.md, "Without
    /// systemd").
    systemd: bool,
}

impl Host {
    fn this() -> Host {
        Host {
            systemd: Path::new("/run/systemd/system").is_dir(),
        }
    }

    /// How to start `unit` on this host.
    fn start(self, unit: &str) -> String {
        if self.systemd {
            format!("`sudo systemctl enable --now {unit}`")
        } else {
            format!(
                "systemd is not running here, so start it with `sudo service {unit} start` \
                 (/usr/share/doc/chessclockd/install.md, \"Without systemd\")"
            )
        }
    }

    /// How to make the running `unit` read its changed settings on this host.
    fn reload(self, unit: &str) -> String {
        if self.systemd {
            format!("`sudo systemctl reload {unit}`")
        } else {
            format!("`sudo service {unit} reload`")
        }
    }

    /// How to restart `unit` on this host.
    fn restart(self, unit: &str) -> String {
        if self.systemd {
            format!("`sudo systemctl restart {unit}`")
        } else {
            format!("`sudo service {unit} restart`")
        }
    }
}

/// Run every check and print them; exit 0 when none failed (a skipped one fails nothing), 1
/// otherwise.
pub(crate) fn run(bus: &BusArgs, args: &Args, json: bool) -> anyhow::Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let host = Host::this();
    let (mut checks, clocks) = rt.block_on(bus_checks(bus, host));
    checks.push(settings::daemon_config(args.config.as_deref(), host));
    checks.push(settings::bridge_config(&args.bridge_config, host));
    checks.push(udev(&args.udev_dir));
    checks.push(state(&args.state_dir));
    checks.push(time(host));
    checks.extend(bridge(&args.bridge_config, host));
    checks.push(bluetooth(clocks.as_deref()));
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string(&checks)?)?;
    } else {
        for c in &checks {
            let mark = match (c.ok, c.skipped) {
                (_, true) => "skip",
                (true, false) => "ok  ",
                (false, false) => "FAIL",
            };
            writeln!(out, "{mark} {:<13} {}", c.check, c.detail)?;
        }
        let skipped: Vec<&str> = checks
            .iter()
            .filter(|c| c.skipped)
            .map(|c| c.check)
            .collect();
        if !skipped.is_empty() {
            writeln!(out, "skipped: {} (not failed)", skipped.join(", "))?;
        }
    }
    Ok(if checks.iter().all(|c| c.ok) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The daemon on the bus, whether the caller may operate it, and its boards.
async fn bus_checks(bus: &BusArgs, host: Host) -> (Vec<Check>, Option<Vec<ClockStatus>>) {
    let where_ = bus_label(bus);
    let conn = match connect(bus).await {
        Ok(c) => c,
        Err(Failure::NotRunning(e) | Failure::Action(e)) => {
            let detail = if host.systemd {
                e
            } else {
                format!("{e} {}", host.start("the system bus, then chessclockd"))
            };
            return (vec![check("daemon", false, detail)], None);
        }
    };
    let dbus = zbus::fdo::DBusProxy::new(&conn).await;
    let owner = match dbus {
        Ok(d) => d
            .get_name_owner(BUS_NAME.try_into().expect("a valid bus name"))
            .await
            .ok(),
        Err(_) => None,
    };
    let Some(owner) = owner else {
        let detail = if host.systemd {
            format!(
                "chessclockd is not on {where_}: start it with `sudo systemctl start \
                 chessclockd`, and see why it stopped with `journalctl -u chessclockd`"
            )
        } else {
            format!(
                "chessclockd is not on {where_}: {} (why it stopped: /var/log/chessclockd.log)",
                host.start("chessclockd")
            )
        };
        return (vec![check("daemon", false, detail)], None);
    };
    let mut checks = vec![check(
        "daemon",
        true,
        format!("chessclockd is on {where_} ({owner})"),
    )];
    let Ok(manager) = ManagerProxy::new(&conn).await else {
        checks.push(check("permission", false, "cannot talk to chessclockd"));
        return (checks, None);
    };
    // Asking to detach a clock that cannot exist changes nothing: the answer says whether
    // the bus policy lets the caller operate the clocks.
    let probe = "/org/chessclockd/ChessClock1/Clock/4294967295";
    let path = zbus::ObjectPath::try_from(probe).expect("a valid path");
    let denied = |e: &zbus::Error| match e {
        zbus::Error::FDO(fdo) => matches!(**fdo, zbus::fdo::Error::AccessDenied(_)),
        zbus::Error::MethodError(name, _, _) => name.as_str().ends_with(".AccessDenied"),
        _ => false,
    };
    checks.push(match manager.detach(&path).await {
        Err(e) if denied(&e) => check(
            "permission",
            false,
            "you may read the clocks but not operate them: join the operators' group \
                 (`sudo adduser $USER chessclock`, then log in again)",
        ),
        _ => check("permission", true, "you may operate the clocks"),
    });
    let clocks = chessclock_api::read::all_clocks(&conn).await.ok();
    checks.push(boards(clocks.as_deref()));
    (checks, clocks)
}

/// Every clock's board present and ready.
fn boards(clocks: Option<&[ClockStatus]>) -> Check {
    let Some(clocks) = clocks else {
        return check("boards", false, "cannot read the clocks from chessclockd");
    };
    if clocks.is_empty() {
        return check(
            "boards",
            true,
            "no clocks attached (plug a board in, or attach one: `chessclockctl attach PORT`)",
        );
    }
    let bad: Vec<String> = clocks
        .iter()
        .filter(|c| c.device_state != chessclock_api::DeviceState::Ready)
        .map(|c| {
            let advice = crate::client::render::device_advice(c.device_state.as_str(), &c.model)
                .unwrap_or_default();
            format!("{} ({}) is {} {advice}", c.name, c.port, c.device_state)
                .trim_end()
                .to_owned()
        })
        .collect();
    if bad.is_empty() {
        check(
            "boards",
            true,
            format!("{} board(s) present and ready", clocks.len()),
        )
    } else {
        check("boards", false, bad.join("; "))
    }
}

/// The package's udev rules installed.
fn udev(dirs: &[PathBuf]) -> Check {
    let found = dirs.iter().find_map(|d| {
        std::fs::read_dir(d).ok()?.flatten().find_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name.contains("chessclock") && name.ends_with(".rules")).then(|| e.path())
        })
    });
    match found {
        Some(p) => check("udev", true, format!("rules in {}", p.display())),
        None => check(
            "udev",
            false,
            "no chessclockd udev rules: boards plugged in are not attached by themselves; \
             reinstall the package (`sudo apt install --reinstall chessclockd`)",
        ),
    }
}

/// The state directory there, with room for the day's games and no state file the daemon
/// set aside as damaged.
fn state(dir: &Path) -> Check {
    if !dir.is_dir() {
        return check(
            "state",
            false,
            format!(
                "{} does not exist: games are not kept; reinstall the package or set \
                 state_dir in /etc/chessclockd/chessclockd.toml",
                dir.display()
            ),
        );
    }
    let damaged = damaged_files(dir);
    if !damaged.is_empty() {
        return check(
            "state",
            false,
            format!(
                "{}: the daemon set aside state files it could not read: {}; their state was \
                 rebuilt or reset (the daemon's log says how, and what to give again): look at \
                 them, then remove them",
                dir.display(),
                damaged.join(", ")
            ),
        );
    }
    match rustix::fs::statvfs(dir) {
        Ok(st) => {
            let free = st.f_bavail.saturating_mul(st.f_frsize);
            let mib = free / (1024 * 1024);
            if free < MIN_FREE_BYTES {
                check(
                    "state",
                    false,
                    format!(
                        "{}: only {mib} MiB free; free space there (old games in games/ can \
                         be copied off with `chessclockctl pgn` and removed)",
                        dir.display()
                    ),
                )
            } else {
                check("state", true, format!("{}: {mib} MiB free", dir.display()))
            }
        }
        Err(e) => check("state", false, format!("{}: {e}", dir.display())),
    }
}

/// The state files the daemon set aside as damaged (`NAME.damaged-<UTC time>`, the daemon's
/// `store::state_file`), sorted.
fn damaged_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".damaged-"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The system clock synchronised (game dates, log times, Lichess push times); skipped
/// without systemd, whose timedated is the one asked.
fn time(host: Host) -> Check {
    if !host.systemd {
        return skip(
            "time",
            "systemd is not running here, so timedatectl cannot say whether the system clock \
             is synchronised: ask the host's time service (`chronyc tracking`, `ntpq -p`), or \
             the container's host",
        );
    }
    let out = std::process::Command::new("timedatectl")
        .args(["show", "-p", "NTPSynchronized", "--value"])
        .output();
    match out {
        Ok(o) if o.status.success() && String::from_utf8_lossy(&o.stdout).trim() == "yes" => {
            check("time", true, "the system clock is synchronised")
        }
        Ok(o) if o.status.success() => check(
            "time",
            false,
            "the system clock is not synchronised: dates in PGN files and logs may be wrong \
             (`sudo timedatectl set-ntp true`, and give the Pi network)",
        ),
        _ => check(
            "time",
            false,
            "cannot ask timedatectl whether the clock is synchronised: install systemd's \
             timedatectl (package systemd), or check the time service yourself",
        ),
    }
}

/// The bridge's HTTP server answering, and its MQTT broker reachable, from its
/// configuration file and its drop-ins; both skipped without the file, the broker when none
/// is set.
fn bridge(config: &Path, host: Host) -> Vec<Check> {
    let table = match settings::bridge_table(config) {
        Ok(Some(t)) => t,
        Ok(None) => {
            let shown = config.display();
            return vec![
                skip(
                    "bridge",
                    format!("no {shown}: the bridge is not set up (skipped)"),
                ),
                skip(
                    "mqtt",
                    format!("no {shown}, so no MQTT broker to check (skipped)"),
                ),
            ];
        }
        Err(detail) => {
            return vec![
                check("bridge", false, detail),
                skip("mqtt", "the bridge's settings do not load (skipped)"),
            ];
        }
    };
    let listen = table
        .get("listen")
        .and_then(toml::Value::as_str)
        .unwrap_or("127.0.0.1:7380")
        .to_owned();
    let mut checks = vec![match http_status(&listen, "/api/v1/clocks") {
        Ok(200) => check("bridge", true, format!("the bridge answers on {listen}")),
        Ok(code) => check(
            "bridge",
            false,
            format!("the bridge on {listen} answers {code}: is chessclockd running?"),
        ),
        Err(e) => check(
            "bridge",
            false,
            format!(
                "nothing answers on {listen} ({e}): {}",
                host.start("chessclock-bridge")
            ),
        ),
    }];
    let mqtt = table.get("mqtt").and_then(|m| {
        m.as_str()
            .or_else(|| m.get("url").and_then(toml::Value::as_str))
    });
    checks.push(match mqtt {
        Some(url) => broker(url),
        None => skip(
            "mqtt",
            format!(
                "no `mqtt` broker in {}: the bridge publishes nothing over MQTT (skipped)",
                config.display()
            ),
        ),
    });
    checks
}

/// The MQTT broker of `url` reachable over TCP (its TLS and password are the bridge's to
/// check: its log says).
fn broker(url: &str) -> Check {
    let (tls, rest) = match url.split_once("://") {
        Some(("mqtts", rest)) => (true, rest),
        Some((_, rest)) => (false, rest),
        None => (false, url),
    };
    let host_port = rest.rsplit('@').next().unwrap_or(rest);
    let host_port = host_port.split(['/', '?']).next().unwrap_or(host_port);
    let addr = if host_port.contains(':') {
        host_port.to_owned()
    } else {
        format!("{host_port}:{}", if tls { 8883 } else { 1883 })
    };
    match connect_tcp(&addr) {
        Ok(_) => check(
            "mqtt",
            true,
            format!("the broker {addr} is reachable (login and TLS: see the bridge's log)"),
        ),
        Err(e) => check(
            "mqtt",
            false,
            format!("the broker {addr} is not reachable ({e}): is mosquitto running there?"),
        ),
    }
}

fn connect_tcp(addr: &str) -> std::io::Result<TcpStream> {
    let mut last = std::io::Error::other("no address");
    for a in addr.to_socket_addrs()? {
        match TcpStream::connect_timeout(&a, NET_TIMEOUT) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// The status code of `GET path` on `addr` (HTTP/1.0, no body read).
fn http_status(addr: &str, path: &str) -> std::io::Result<u16> {
    let mut s = connect_tcp(addr)?;
    s.set_read_timeout(Some(NET_TIMEOUT))?;
    s.write_all(format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").as_bytes())?;
    let mut head = [0u8; 12];
    s.read_exact(&mut head)?;
    std::str::from_utf8(&head[9..12])
        .ok()
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::other("not an HTTP answer"))
}

/// The rfcomm module loaded when a board is on a Bluetooth serial port.
fn bluetooth(clocks: Option<&[ClockStatus]>) -> Check {
    let rfcomm: Vec<&str> = clocks
        .unwrap_or_default()
        .iter()
        .filter(|c| c.port.starts_with("/dev/rfcomm"))
        .map(|c| c.port.as_str())
        .collect();
    if rfcomm.is_empty() {
        return skip("bluetooth", "no Bluetooth boards (skipped)");
    }
    if Path::new("/sys/module/rfcomm").exists() {
        check(
            "bluetooth",
            true,
            format!("rfcomm loaded for {}", rfcomm.join(", ")),
        )
    } else {
        check(
            "bluetooth",
            false,
            format!(
                "{} configured but the rfcomm module is not loaded: `sudo modprobe rfcomm` \
                 (docs/install.md, Bluetooth boards)",
                rfcomm.join(", ")
            ),
        )
    }
}

#[cfg(test)]
mod tests;
