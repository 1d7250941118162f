//! `chessclockctl log-level [LEVEL]`: read or change the daemon's log filter through
//! `org.freedesktop.LogControl1` (the interface systemd's services serve, so
//! `systemctl service-log-level chessclockd debug` does the same).
//!
//! Owns this verb only: connecting and exit codes are the client module's; what a level means
//! is the daemon's (`chessclockd::logging`).

use std::process::ExitCode;

use chessclock_api::names::{BUS_NAME, LOG_CONTROL_PATH};

use crate::client::said::Voice;
use crate::client::{BusArgs, Failure, bus_failure, connect};

/// Arguments of `log-level`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// New level: err, warning, info, debug, trace (or tracing directives such as
    /// info,chessclockd::device=debug). Without it, print the current level. Setting needs root
    /// or group chessclock.
    level: Option<String>,
}

#[zbus::proxy(interface = "org.freedesktop.LogControl1")]
trait LogControl {
    #[zbus(property)]
    fn log_level(&self) -> zbus::Result<String>;
    #[zbus(property)]
    fn set_log_level(&self, level: &str) -> zbus::Result<()>;
    #[zbus(property)]
    fn log_target(&self) -> zbus::Result<String>;
    #[zbus(property)]
    fn syslog_identifier(&self) -> zbus::Result<String>;
}

/// Run the verb on its own runtime; returns the exit code.
pub(crate) fn run(bus: &BusArgs, args: Args, voice: Voice) -> ExitCode {
    crate::client::block_on(log_level(bus, args, voice))
}

async fn log_level(bus: &BusArgs, args: Args, voice: Voice) -> Result<(), Failure> {
    let json = voice.json;
    let conn = connect(bus).await?;
    let failure = |e: zbus::Error| match e {
        zbus::Error::FDO(fdo) => match *fdo {
            zbus::fdo::Error::AccessDenied(_) => Failure::Action(
                "permission denied: changing the log level needs root or membership of group \
                 chessclock (`sudo usermod -aG chessclock $USER`, then log in again)"
                    .into(),
            ),
            zbus::fdo::Error::InvalidArgs(msg) => Failure::Action(msg),
            other => bus_failure(bus, zbus::Error::FDO(Box::new(other))),
        },
        other => bus_failure(bus, other),
    };
    let proxy = LogControlProxy::builder(&conn)
        .destination(BUS_NAME)
        .path(LOG_CONTROL_PATH)
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .map_err(failure)?;
    let was = match &args.level {
        Some(level) => {
            let was = proxy.log_level().await.map_err(failure)?;
            proxy.set_log_level(level).await.map_err(failure)?;
            Some(was)
        }
        None => None,
    };
    let level = proxy.log_level().await.map_err(failure)?;
    if json {
        let target = proxy.log_target().await.map_err(failure)?;
        let ident = proxy.syslog_identifier().await.map_err(failure)?;
        let doc = serde_json::json!({
            "log_level": level,
            "log_target": target,
            "syslog_identifier": ident,
        });
        println!("{doc}");
    } else if let Some(was) = was {
        if voice.says() {
            println!("chessclockd's log level is now {level} (was {was})");
        }
    } else {
        println!("{level}");
    }
    Ok(())
}
