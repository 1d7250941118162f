//! `chessclock-bridge`: puts chessclockd on the network without giving the daemon network
//! access. A D-Bus client of the daemon (through `chessclock-api`) that serves read-only
//! HTTP (JSON, Server-Sent Events, a dashboard and a broadcast overlay) and publishes to MQTT.
//!
//! This file wires the parts: settings (with their secrets and TLS set-up), logging (the
//! daemon's module, with `org.freedesktop.LogControl1` under the bus name
//! `org.chessclockd.Bridge1`), the bus connection, the follower, the broadcast delay (a
//! second, delayed hub between the follower's and every output), HTTP, MQTT and the Lichess
//! push, and with `fleet = true` the fleet that MQTT reads and HTTP shows. See docs/bridge.md.

mod alert;
mod broadcast;
mod delay;
mod fleet;
mod follow;
mod http;
mod hub;
mod mqtt;
mod pgn;
mod push;
mod secrets;
mod settings;
mod settle;
mod tls;

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Parser;

use chessclock_api::names::{BRIDGE_BUS_NAME, LOG_CONTROL_PATH};
use chessclock_system::logging::LogControl;
use settings::{Args, LOG, Settings};

fn main() -> ExitCode {
    let args = Args::parse();
    if args.man {
        return chessclock_system::man::print(
            "chessclock-bridge",
            <Args as clap::CommandFactory>::command(),
        );
    }
    let settings = match Settings::load(&args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("chessclock-bridge: {e:#}");
            return ExitCode::from(2);
        }
    };
    if args.check_config {
        let read = chessclock_system::conffile::files_read(&settings.files);
        let unseen = match std::env::var_os("CREDENTIALS_DIRECTORY").is_none()
            && settings.lichess.iter().any(|r| r.token_file.is_none())
        {
            true => "; the credential lichess-token is the unit's, not checked here",
            false => "",
        };
        println!("chessclock-bridge: settings OK ({read}{unseen})");
        return ExitCode::SUCCESS;
    }
    if args.make_broadcast.is_some() {
        let made = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(anyhow::Error::from)
            .and_then(|rt| rt.block_on(broadcast::make(&args, &settings)));
        return match made {
            Ok(out) => {
                print!("{out}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("chessclock-bridge: {e:#}");
                ExitCode::FAILURE
            }
        };
    }
    // Settings::load has checked the filter: this fails only if logging cannot be set up.
    let log = match LOG
        .startup_filter(args.log_level.as_deref(), (&settings.log, "log"))
        .and_then(|filter| LOG.init(filter))
    {
        Ok(log) => log,
        Err(e) => {
            eprintln!("chessclock-bridge: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("chessclock-bridge: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args, settings, log)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chessclock-bridge: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn connect(args: &Args) -> Result<zbus::Connection> {
    let (builder, label) = match (&args.address, args.session) {
        (Some(a), _) => (
            zbus::connection::Builder::address(a.as_str()),
            format!("the bus at {a}"),
        ),
        (None, true) => (
            zbus::connection::Builder::session(),
            "the session bus".into(),
        ),
        (None, false) => (zbus::connection::Builder::system(), "the system bus".into()),
    };
    builder
        .build()
        .await
        .with_context(|| format!("cannot connect to {label}; is D-Bus running?"))
}

/// Serve `org.freedesktop.LogControl1` and own the bridge's bus name, so that
/// `systemctl service-log-level chessclock-bridge debug` (the unit's `BusName=`) reaches it,
/// and `/etc/init.d/chessclock-bridge start` knows the bridge is listening.
/// Not fatal: without the name (a bus policy without the bridge's file) the bridge does its
/// work and says how to change its level otherwise. While another bridge owns the name on the
/// same bus, this one waits in the bus's queue and takes the name when that one stops.
async fn serve_log_control(conn: &zbus::Connection, log: LogControl) {
    if let Err(e) = conn.object_server().at(LOG_CONTROL_PATH, log).await {
        tracing::warn!("cannot serve the log control object: {e}");
        return;
    }
    let flags = zbus::fdo::RequestNameFlags::empty();
    match conn.request_name_with_flags(BRIDGE_BUS_NAME, flags).await {
        Ok(zbus::fdo::RequestNameReply::InQueue) => tracing::warn!(
            "{BRIDGE_BUS_NAME} belongs to another bridge on this bus; this one takes it when \
             that one stops (until then, its log level is set at start only)"
        ),
        Ok(_) => tracing::debug!("serving {BRIDGE_BUS_NAME} (org.freedesktop.LogControl1)"),
        Err(e) => tracing::warn!(
            "cannot own {BRIDGE_BUS_NAME} ({e}); is the bus policy \
             org.chessclockd.Bridge1.conf installed? The log level is then set at start only \
             (--log-level, CHESSCLOCK_BRIDGE_LOG, log in bridge.toml)"
        ),
    }
}

async fn run(args: Args, settings: Settings, log: LogControl) -> Result<()> {
    let listen = settings.listen_addr()?;
    let conn = connect(&args).await?;
    // The follower feeds `live`; every output reads `hub`: the same, or with a broadcast
    // delay, `live` replayed that much later (delay.rs).
    let live = Arc::new(hub::Hub::new(settings.replay));
    let hub = if settings.delay_for.is_zero() {
        live.clone()
    } else {
        tracing::info!(
            "broadcast delay: every output shows the boards {:?} late",
            settings.delay_for
        );
        let delayed = Arc::new(hub::Hub::delayed(settings.replay));
        tokio::spawn(delay::run(
            conn.clone(),
            live.clone(),
            delayed.clone(),
            settings.delay_for,
        ));
        delayed
    };
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("cannot listen on {listen}"))?;
    tracing::info!("listening on http://{}", listener.local_addr()?);
    // The bus name last, once the port is ours: whoever sees it owned (the init script's
    // `start`, which waits for it) knows the bridge is up, not about to fail to listen.
    serve_log_control(&conn, log).await;
    // A `source = "fleet"` round reads every machine's boards from the broker (the settings
    // have checked that there is one).
    let fleet = settings
        .lichess
        .iter()
        .any(|r| r.source == push::Source::Fleet)
        .then(|| tokio::sync::watch::channel(push::union::Union::default()));
    // The push's problems by board: on every clock's `problems` (through the hub) and on
    // the bus for `chessclockctl status` and `watch`.
    let problems = Arc::new(push::problems::Problems::default());
    let object = push::problems::PushObject {
        problems: problems.clone(),
        tables: u32::try_from(settings.lichess.len()).unwrap_or(u32::MAX),
    };
    if let Err(e) = conn
        .object_server()
        .at(chessclock_api::push::BRIDGE_PATH, object)
        .await
    {
        tracing::warn!("cannot serve the push's problems on the bus: {e}");
    }
    // `fleet = true`: every machine's clocks, read from the broker, on the pages and the API
    // (the settings have checked that there is a broker).
    let view = settings.fleet.then(|| {
        Arc::new(std::sync::Mutex::new(fleet::Fleet::new(
            &settings.host_name(),
        )))
    });
    if let Some(target) = settings.mqtt_target.clone() {
        tokio::spawn(mqtt::run(
            target,
            settings.host_name(),
            hub.clone(),
            conn.clone(),
            fleet.as_ref().map(|(tx, _)| tx.clone()),
            problems.clone(),
            view.clone(),
        ));
    }
    for alert in &settings.alert {
        tokio::spawn(alert::run(
            hub.clone(),
            alert.clone(),
            settings.alert_tls.clone(),
        ));
    }
    tokio::spawn(push::problems::run(
        hub.clone(),
        problems.clone(),
        settings.lichess.clone(),
        fleet.as_ref().map(|(_, rx)| rx.clone()),
        conn.clone(),
    ));
    for (table, (round, token)) in settings
        .lichess
        .iter()
        .zip(&settings.lichess_tokens)
        .enumerate()
    {
        tracing::info!(round = %round.round, source = ?round.source, "pushing to {}", round.server);
        let boards = match round.source {
            push::Source::Fleet => fleet.as_ref().map(|(_, rx)| rx.clone()),
            push::Source::Local => None,
        };
        tokio::spawn(push::run(
            conn.clone(),
            hub.clone(),
            table,
            round.clone(),
            token.clone(),
            settings.lichess_tls.clone(),
            boards,
            problems.clone(),
            settings.settle_for,
        ));
    }
    let follower = tokio::spawn(follow::run(conn.clone(), live));
    let app = http::app(
        http::Bus {
            conn,
            hub,
            push: problems,
            tables: u32::try_from(settings.lichess.len()).unwrap_or(u32::MAX),
        },
        view,
    );
    let server = axum::serve(listener, app).with_graceful_shutdown(async {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(t) => t,
                Err(_) => return std::future::pending().await,
            };
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
    });
    tokio::select! {
        r = server => r.context("the HTTP server failed")?,
        r = follower => r.context("the D-Bus follower stopped")??,
    }
    Ok(())
}
