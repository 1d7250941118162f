//! `chessclockctl`: the command-line client of chessclockd and its offline tools.
//!
//! Owns argument parsing, output formatting and exit codes (0 ok, 1 the action failed,
//! 2 usage, 3 daemon not running). It must not keep game state of its own: live data comes
//! from the daemon over D-Bus; the offline tools run the pure crates (engine, game,
//! protocol) in-process. It never links the daemon crate.

mod client;
mod doctor;
mod fleet;
mod games;
mod logctl;
mod manpages;
mod offline;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Command-line client and offline tools for chessclockd.
#[derive(Debug, Parser)]
#[command(name = "chessclockctl", version, about, propagate_version = true)]
struct Cli {
    #[command(flatten)]
    bus: client::BusArgs,
    /// Print JSON for scripts (stable schemas, docs/cli.md). Works before or after the
    /// subcommand.
    #[arg(short = 'J', long, global = true)]
    json: bool,
    /// Print nothing on success: a command that changes something (set, start, result,
    /// attach, round load, ...) leaves out the line that says what it did; errors still go
    /// to stderr, and reading commands print what they read.
    #[arg(short = 'q', long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Work with time-control notation.
    #[command(subcommand)]
    Timecontrol(TimecontrolCommand),
    /// Run a time control offline: a scripted game, or conformance vectors.
    Simulate(offline::simulate::Args),
    /// Decode DGT board traffic into messages.
    Decode(offline::decode::Args),
    /// Replay a recorded board stream: the game's moves, clocks and result.
    Replay(offline::replay::Args),
    #[command(flatten)]
    Bus(client::commands::BusCommand),
    /// Every board of every machine, from the MQTT broker the bridges publish to.
    Fleet(fleet::Args),
    /// The finished games in the state directory: list them, or export them as one PGN.
    #[command(subcommand)]
    Games(games::Command),
    /// Show or change the daemon's log level (org.freedesktop.LogControl1).
    LogLevel(logctl::Args),
    /// Check that this machine is ready to run games: daemon, permission, boards, the
    /// daemon's and the bridge's settings, udev rules, state directory, clock
    /// synchronisation, bridge, MQTT, Bluetooth. A check that cannot be made here (no
    /// systemd, no broker set) is skipped and named; exit 0 when none failed.
    Doctor(doctor::Args),
    /// Print shell completions (bash, zsh, fish, elvish, powershell) to stdout.
    #[command(hide = true)]
    Completions {
        /// Shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to stdout, or write every page (one per subcommand) to DIR.
    #[command(hide = true)]
    Man {
        /// Write chessclockctl.1 and chessclockctl-<subcommand>.1 here instead.
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum TimecontrolCommand {
    /// Parse a time control, explain how the clock will behave and give its rating systems
    /// (US Chess rule 5B, FIDE).
    Parse(offline::parse::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let voice = client::said::Voice {
        json: cli.json,
        quiet: cli.quiet,
    };
    let result = match cli.command {
        Command::Timecontrol(TimecontrolCommand::Parse(args)) => {
            offline::parse::run(args, cli.json)
        }
        // `position assess` is offline: it sits beside the bus's `position CLOCK FEN`.
        Command::Bus(client::commands::BusCommand::Game(client::game::GameCommand::Position {
            offline: Some(client::game::PositionOffline::Assess(args)),
            ..
        })) => offline::position::run(args, cli.json),
        Command::Simulate(args) => offline::simulate::run(args, cli.json),
        Command::Decode(args) => offline::decode::run(args, cli.json),
        Command::Replay(args) => offline::replay::run(args, cli.json),
        Command::Fleet(args) => fleet::run(args, cli.json),
        Command::Bus(cmd) => {
            return client::block_on(client::commands::run(&cli.bus, cmd, voice));
        }
        Command::Games(command) => return games::run(command, cli.json),
        Command::LogLevel(args) => return logctl::run(&cli.bus, args, voice),
        Command::Doctor(args) => doctor::run(&cli.bus, &args, cli.json),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "chessclockctl",
                &mut std::io::stdout(),
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Man { dir } => {
            use clap::CommandFactory;
            manpages::run(Cli::command(), dir.as_deref())
                .map(|_| ExitCode::SUCCESS)
                .map_err(anyhow::Error::from)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("chessclockctl: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
