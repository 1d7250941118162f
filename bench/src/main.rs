//! `chessclock-bench`: command line, the loop over sizes, and the report (table or JSON).
//!
//! Owns argument handling only; see the library for the run and the figures.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use chessclock_bench::daemon::sibling_bin;
use chessclock_bench::report::{Floor, Report, render};
use chessclock_bench::run::{RunConfig, run_size};
use chessclock_bench::{floor, procstat};
use clap::Parser;

/// The time controls played by default, round robin over the boards: Fischer, US delay,
/// hourglass, double flag, phased swing (docs/timecontrols.md).
const CONTROLS: &str = "G/5 inc/3;G/5 d/3;HG/3;G/5 df/60:10:hybrid;G/5 swing/30:40";

/// Benchmark the real chessclockd with N emulated boards on ptys and a private bus.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// Board counts to run, one run each.
    #[arg(long, value_delimiter = ',', default_value = "1,16,64,128")]
    sizes: Vec<usize>,
    /// Seconds per size: the first half without status polling, the second half with it.
    #[arg(long, default_value_t = 60)]
    duration: u64,
    /// Seed of the players' think times (2-8 s).
    #[arg(long, default_value_t = 11)]
    seed: u64,
    /// The daemon binary [default: chessclockd next to this program].
    #[arg(long)]
    daemon: Option<PathBuf>,
    /// The client binary [default: chessclockctl next to this program].
    #[arg(long)]
    ctl: Option<PathBuf>,
    /// D-Bus policy directory for the private bus [default: the checkout's dbus/].
    #[arg(long)]
    policy_dir: Option<PathBuf>,
    /// Time controls separated by `;`, assigned round robin.
    #[arg(long, default_value = CONTROLS)]
    controls: String,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chessclock-bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<()> {
    if args.sizes.is_empty() || args.sizes.contains(&0) {
        bail!("--sizes needs board counts of at least 1, e.g. --sizes 1,16");
    }
    if args.duration < 2 {
        bail!("--duration must be at least 2 seconds (half quiet, half polled)");
    }
    let controls: Vec<String> = args
        .controls
        .split(';')
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty())
        .collect();
    if controls.is_empty() {
        bail!("--controls needs at least one time control, e.g. \"G/5 inc/3\"");
    }
    let daemon = match args.daemon {
        Some(p) => p,
        None => sibling_bin("chessclockd")?,
    };
    let ctl = match args.ctl {
        Some(p) => p,
        None => sibling_bin("chessclockctl")?,
    };
    let policy_dir = args
        .policy_dir
        .unwrap_or_else(|| chessclock_tests::paths::repo_path("dbus"));
    let floor = Floor {
        pty_one_way_us: floor::pty_one_way(200)?,
    };
    let mut sizes = Vec::new();
    for &n in &args.sizes {
        eprintln!("chessclock-bench: {n} boards, {} s ...", args.duration);
        let cfg = RunConfig {
            boards: n,
            duration: Duration::from_secs(args.duration),
            seed: args.seed,
            daemon: daemon.clone(),
            ctl: ctl.clone(),
            policy_dir: policy_dir.clone(),
            controls: controls.clone(),
        };
        sizes.push(run_size(&cfg).with_context(|| format!("the run with {n} boards failed"))?);
    }
    let report = Report {
        machine: procstat::machine(),
        command: std::env::args().collect::<Vec<_>>().join(" "),
        seed: args.seed,
        floor,
        sizes,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render(&report));
    }
    Ok(())
}
