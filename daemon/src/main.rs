//! The `chessclockd` binary: command line, logging, runtime; everything else is the library.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use chessclockd::config::LOG_ENV;
use chessclockd::service::{self, BusChoice, ServiceOptions};

/// Runs chess time controls in software and drives DGT clocks; D-Bus API
/// org.chessclockd.ChessClock1.
#[derive(Debug, Parser)]
#[command(name = "chessclockd", version, about)]
struct Args {
    /// Configuration file [default: /etc/chessclockd/chessclockd.toml if it exists, or
    /// $CHESSCLOCKD_CONFIG].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Serve on the session bus instead of the system bus.
    #[arg(long)]
    session: bool,
    /// Serve on the bus at this D-Bus address (e.g. a private test bus).
    #[arg(long, value_name = "ADDRESS", conflicts_with = "session")]
    address: Option<String>,
    /// Directory for journals and game records [default: from the configuration].
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// Start a demonstration: an emulated DGT board and DGT 3000 on a pty, auto-playing a
    /// double-flag game, on the session bus (or a private bus if there is none).
    #[arg(long)]
    demo: bool,
}

fn init_logging() {
    use tracing_subscriber::EnvFilter;
    use tracing_subscriber::prelude::*;
    let filter = EnvFilter::try_from_env(LOG_ENV)
        .or_else(|_| EnvFilter::try_from_default_env())
        .unwrap_or_else(|_| EnvFilter::new("info"));
    let registry = tracing_subscriber::registry().with(filter);
    // Under systemd (JOURNAL_STREAM set) log natively to the journal; otherwise to stderr.
    if std::env::var_os("JOURNAL_STREAM").is_some()
        && let Ok(journald) = tracing_journald::layer()
    {
        registry.with(journald).init();
        return;
    }
    registry
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .init();
}

fn main() -> ExitCode {
    let args = Args::parse();
    init_logging();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("chessclockd: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let bus = match (args.address, args.session) {
        (Some(a), _) => BusChoice::Address(a),
        (None, true) => BusChoice::Session,
        (None, false) => BusChoice::System,
    };
    let result = if args.demo {
        runtime.block_on(chessclockd::demo::run(args.config, args.state_dir))
    } else {
        runtime.block_on(service::run(ServiceOptions {
            config: args.config,
            bus,
            state_dir: args.state_dir,
        }))
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chessclockd: {e:#}");
            ExitCode::FAILURE
        }
    }
}
