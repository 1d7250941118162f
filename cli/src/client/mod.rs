//! The D-Bus client side of `chessclockctl`: connecting, naming clocks, turning bus errors
//! into one clear sentence and an exit code. No game logic: the daemon is the authority.

pub(crate) mod commands;
mod events;
mod feed;
pub(crate) mod game;
mod identify;
mod monitor;
pub(crate) mod render;
pub(crate) mod resolve;
mod round;
mod round_check;
pub(crate) mod said;
pub(crate) mod watch;

use std::process::ExitCode;

use chessclock_api::names::BUS_NAME;
use chessclock_api::read::ReadError;
use zbus::Connection;

/// Which bus to talk to.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct BusArgs {
    /// Use the session bus instead of the system bus (tests, demos).
    #[arg(long, global = true)]
    pub session: bool,
    /// Connect to this D-Bus address instead (e.g. unix:path=/run/x/bus).
    #[arg(
        long,
        global = true,
        value_name = "ADDRESS",
        conflicts_with = "session"
    )]
    pub address: Option<String>,
}

/// A failure with its exit code (architecture §6).
#[derive(Debug)]
pub(crate) enum Failure {
    /// 1: the requested action failed.
    Action(String),
    /// 3: the daemon (or the bus) is not there.
    NotRunning(String),
}

impl Failure {
    pub(crate) fn report(&self) -> ExitCode {
        let (msg, code) = match self {
            Failure::Action(m) => (m, 1),
            Failure::NotRunning(m) => (m, 3),
        };
        eprintln!("chessclockctl: {msg}");
        ExitCode::from(code)
    }
}

pub(crate) type Result<T> = std::result::Result<T, Failure>;

/// Run one bus verb to its end on a runtime of its own; returns the exit code.
pub(crate) fn block_on(verb: impl Future<Output = Result<()>>) -> ExitCode {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("chessclockctl: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    match rt.block_on(verb) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}

pub(crate) fn bus_label(args: &BusArgs) -> String {
    match (&args.address, args.session) {
        (Some(a), _) => format!("the bus at {a}"),
        (None, true) => "the session bus".into(),
        (None, false) => "the system bus".into(),
    }
}

/// Connect to the chosen bus.
pub(crate) async fn connect(args: &BusArgs) -> Result<Connection> {
    let builder = match (&args.address, args.session) {
        (Some(a), _) => zbus::connection::Builder::address(a.as_str()),
        (None, true) => zbus::connection::Builder::session(),
        (None, false) => zbus::connection::Builder::system(),
    };
    builder.build().await.map_err(|e| {
        Failure::NotRunning(format!(
            "cannot connect to {} ({e}); is D-Bus running?",
            bus_label(args)
        ))
    })
}

/// Turn a failed read of the clocks into one sentence and an exit code.
pub(crate) fn read_failure(args: &BusArgs, e: ReadError) -> Failure {
    match e {
        ReadError::Bus(e) => bus_failure(args, e),
        ReadError::Status(e) => Failure::Action(format!(
            "chessclockd answered with a clock this chessclockctl cannot read ({e}); are the \
             two of the same version?"
        )),
    }
}

/// That nobody owns the daemon's name on the bus, and how to start it on this host: with
/// systemd (PID 1) its unit, else the package's init script.
fn not_running(args: &BusArgs) -> String {
    let start = if std::path::Path::new("/run/systemd/system").is_dir() {
        "`sudo systemctl start chessclockd`"
    } else {
        "`sudo service chessclockd start`"
    };
    format!(
        "chessclockd is not running: nobody owns {BUS_NAME} on {}; start it with {start} (or \
         `chessclockd --session` for a test)",
        bus_label(args)
    )
}

/// Turn a bus error into one sentence and an exit code.
pub(crate) fn bus_failure(args: &BusArgs, e: zbus::Error) -> Failure {
    use zbus::DBusError;
    use zbus::fdo::Error as Fdo;
    match e {
        zbus::Error::FDO(fdo) => match *fdo {
            Fdo::ServiceUnknown(_) | Fdo::NameHasNoOwner(_) => {
                Failure::NotRunning(not_running(args))
            }
            // The bus tried to start it (the activation file hands that to systemd, which
            // is not there, or whose unit failed).
            spawn
                if spawn
                    .name()
                    .as_str()
                    .starts_with("org.freedesktop.DBus.Error.Spawn.") =>
            {
                Failure::NotRunning(format!(
                    "{}; the bus could not start it ({})",
                    not_running(args),
                    spawn.description().unwrap_or_default()
                ))
            }
            Fdo::AccessDenied(_) => Failure::Action(
                "permission denied: controlling clocks needs membership of group chessclock \
                 (`sudo usermod -aG chessclock $USER`, then log in again)"
                    .into(),
            ),
            Fdo::UnknownObject(_) | Fdo::UnknownInterface(_) => Failure::Action(
                "that clock is gone (detached); `chessclockctl list` shows the attached clocks"
                    .into(),
            ),
            Fdo::NoReply(_) | Fdo::Timeout(_) => Failure::Action(
                "chessclockd did not answer in time; see `journalctl -u chessclockd`".into(),
            ),
            other => Failure::Action(other.to_string()),
        },
        zbus::Error::MethodError(name, desc, _) => {
            let desc = desc.unwrap_or_default();
            if name.as_str().starts_with("org.chessclockd.") {
                Failure::Action(desc)
            } else {
                Failure::Action(format!("{}: {desc}", name.as_str()))
            }
        }
        zbus::Error::InputOutput(io) => {
            Failure::NotRunning(format!("lost the connection to {} ({io})", bus_label(args)))
        }
        other => Failure::Action(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_daemon_the_bus_could_not_start_is_not_running_with_how_to_start_it() {
        let args = BusArgs::default();
        let spawn =
            zbus::fdo::Error::SpawnChildExited("Process /bin/false exited with status 1".into());
        let Failure::NotRunning(msg) = bus_failure(&args, zbus::Error::FDO(Box::new(spawn))) else {
            panic!("exit code 3")
        };
        assert!(
            msg.starts_with("chessclockd is not running: nobody owns org.chessclockd.ChessClock1")
                && (msg.contains("`sudo service chessclockd start`")
                    || msg.contains("`sudo systemctl start chessclockd`"))
                && msg.ends_with(
                    "the bus could not start it (Process /bin/false exited with status 1)"
                ),
            "{msg}"
        );
        let unknown = zbus::fdo::Error::ServiceUnknown("x".into());
        assert!(matches!(
            bus_failure(&args, zbus::Error::FDO(Box::new(unknown))),
            Failure::NotRunning(_)
        ));
    }
}
