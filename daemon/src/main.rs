//! The `chessclockd` binary: command line, logging, runtime; everything else is the library.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use chessclockd::service::{self, BusChoice, ServiceOptions};

/// mimalloc, not glibc's malloc: every press builds and drops D-Bus messages, dictionaries
/// and strings on the bus thread and hands journal entries between threads; glibc spent a
/// tenth of the daemon's CPU in malloc, free and the consolidation of its fast bins, and
/// a quarter of it while every clock's status is polled (docs/benchmarks.md, "The
/// allocator"). Its arena is committed eagerly; [`main`] keeps it off huge pages.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    /// The demo's time control (notation, see `chessclockctl timecontrol parse`) [default:
    /// G/1 df/20:5:hybrid, a double-flag control no clock has built in].
    #[arg(long, value_name = "NOTATION", requires = "demo")]
    control: Option<String>,
    /// Log filter: a level (err, warning, info, debug, trace) or tracing directives such as
    /// info,chessclockd::device=debug [default: $CHESSCLOCKD_LOG, $RUST_LOG, or info]. It can be
    /// changed at run time with `chessclockctl log-level`.
    #[arg(long, value_name = "FILTER")]
    log_level: Option<String>,
    /// Check the configuration (the file, its drop-ins in chessclockd.toml.d/ and the
    /// CHESSCLOCKD_* variables) as a start or reload would, then exit: 0 and one line
    /// "configuration OK" if it is valid, 1 and the file, line, key and problem if not.
    #[arg(long, conflicts_with = "demo")]
    check_config: bool,
    /// Print the manual page chessclockd(8) (roff) to stdout and exit; packaging uses it.
    #[arg(long, hide = true)]
    man: bool,
}

/// `--check-config`: the configuration's first error, or one line saying it is valid.
fn check_config(path: Option<&std::path::Path>) -> ExitCode {
    match service::check_config(path) {
        Ok((_, files)) => {
            let read = chessclock_system::conffile::files_read(&files);
            println!("chessclockd: configuration OK ({read})");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("chessclockd: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    // No transparent huge pages for this process: a daemon of a few MiB gains nothing from
    // them, and where the system's policy is `always` the allocator's eagerly committed
    // arena would fault in 2 MiB at a time (RSS 37 MiB instead of 23 at 128 clocks). Only
    // the resident memory depends on it, so a refusal (an old kernel) is not an error.
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    let args = Args::parse();
    if args.man {
        return chessclock_system::man::print(
            "chessclockd",
            <Args as clap::CommandFactory>::command(),
        );
    }
    if args.check_config {
        return check_config(args.config.as_deref());
    }
    // The demo's status line shares the terminal: only warnings, unless asked otherwise.
    let quiet_demo = args.demo
        && args.log_level.is_none()
        && std::env::var_os(chessclockd::config::LOG_ENV).is_none()
        && std::env::var_os("RUST_LOG").is_none();
    let level = if quiet_demo {
        Some("warning")
    } else {
        args.log_level.as_deref()
    };
    let program = chessclockd::logging::PROGRAM;
    let log = match program
        .startup_filter(level, (chessclockd::logging::DEFAULT_FILTER, "the default"))
        .and_then(|filter| program.init(filter))
    {
        Ok(log) => log,
        Err(e) => {
            eprintln!("chessclockd: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The bus and the supervisor on this thread (the device actors have their own,
    // `device::runtime`): one thread, no work stealing between workers, no wake-ups of a
    // second worker for every signal the actors' changes bring.
    let runtime = match tokio::runtime::Builder::new_current_thread()
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
        #[cfg(feature = "virtual-board")]
        let demo = runtime.block_on(chessclockd::demo::run(
            args.config,
            args.state_dir,
            args.control,
        ));
        #[cfg(not(feature = "virtual-board"))]
        let demo = Err(anyhow::anyhow!(
            "--demo needs the emulated board, and this chessclockd was built without it; \
             build it with the cargo feature virtual-board (on by default)"
        ));
        demo
    } else {
        runtime.block_on(service::run(ServiceOptions {
            config: args.config,
            bus,
            state_dir: args.state_dir,
            log: Some(log),
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
