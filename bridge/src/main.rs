//! `chessclock-bridge`: puts chessclockd on the network without giving the daemon network
//! access. A D-Bus client of the daemon (through `chessclock-api`) that serves read-only
//! HTTP (JSON, Server-Sent Events, a dashboard and a broadcast overlay) and publishes to MQTT.
//!
//! This file wires the parts: settings, the bus connection, the follower, HTTP and MQTT.
//! See docs/bridge.md.

mod follow;
mod http;
mod hub;
mod mqtt;
mod pgn;
mod push;
mod settings;

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Parser;

use chessclock_api::fleet::parse_broker;
use settings::{Args, Settings};

/// Render chessclock-bridge(8) from the command-line definition.
fn print_man() -> ExitCode {
    use clap::CommandFactory;
    match clap_mangen::Man::new(Args::command())
        .section("8")
        .render(&mut std::io::stdout())
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chessclock-bridge: cannot write the manual page: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.man {
        return print_man();
    }
    let settings = match Settings::load(&args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("chessclock-bridge: {e:#}");
            return ExitCode::from(2);
        }
    };
    let filter = match tracing_subscriber::EnvFilter::try_new(&settings.log) {
        Ok(f) => f,
        Err(e) => {
            eprintln!(
                "chessclock-bridge: log = {:?} is not a log filter ({e}); try \"info\" or \
                 \"chessclock_bridge=debug\"",
                settings.log
            );
            return ExitCode::from(2);
        }
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
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
    match runtime.block_on(run(args, settings)) {
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

async fn run(args: Args, settings: Settings) -> Result<()> {
    let listen = settings.listen_addr()?;
    let conn = connect(&args).await?;
    let hub = Arc::new(hub::Hub::new(settings.replay));
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("cannot listen on {listen}"))?;
    tracing::info!("listening on http://{}", listener.local_addr()?);
    if let Some(url) = &settings.mqtt {
        let broker = parse_broker(url).map_err(anyhow::Error::msg)?;
        tokio::spawn(mqtt::run(broker, settings.host_name(), hub.clone()));
    }
    for (round, token) in settings.lichess.iter().zip(&settings.lichess_tokens) {
        tracing::info!(round = %round.round, "pushing to {}", round.server);
        tokio::spawn(push::run(
            conn.clone(),
            hub.clone(),
            round.clone(),
            token.clone(),
        ));
    }
    let follower = tokio::spawn(follow::run(conn.clone(), hub.clone()));
    let app = http::app(http::Bus { conn, hub });
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
