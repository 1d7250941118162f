//! `chessclock-bridge-bench`: the bridge's latency and load with N virtual clocks and many
//! Server-Sent Events clients (issue 12 item 6; figures in `docs/benchmarks.md`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use chessclock_bench::bridge::{BridgeReport, BridgeRunConfig, run_bridge};
use chessclock_bench::daemon::sibling_bin;
use clap::Parser;

/// Measure chessclock-bridge: daemon signal → SSE event and → MQTT message.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// Virtual clocks.
    #[arg(long, default_value_t = 128)]
    clocks: usize,
    /// SSE clients.
    #[arg(long, default_value_t = 50)]
    sse_clients: usize,
    /// Seconds measured.
    #[arg(long, default_value_t = 60)]
    duration: u64,
    /// Seed of the think times (2-8 s).
    #[arg(long, default_value_t = 11)]
    seed: u64,
    /// D-Bus policy directory [default: the checkout's dbus/].
    #[arg(long)]
    policy_dir: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chessclock-bridge-bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<()> {
    let cfg = BridgeRunConfig {
        clocks: args.clocks.max(1),
        sse_clients: args.sse_clients,
        duration: Duration::from_secs(args.duration.max(5)),
        seed: args.seed,
        daemon: sibling_bin("chessclockd")?,
        ctl: sibling_bin("chessclockctl")?,
        bridge: sibling_bin("chessclock-bridge")?,
        policy_dir: args
            .policy_dir
            .unwrap_or_else(|| chessclock_tests::paths::repo_path("dbus")),
    };
    let r = run_bridge(&cfg)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        print_table(&r);
    }
    Ok(())
}

fn ms(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.1}"))
}

fn print_table(r: &BridgeReport) {
    println!(
        "{} clocks, {} SSE clients, {:.0} s, {} presses, load {:.2} at start",
        r.clocks, r.sse_clients, r.seconds, r.presses, r.load_start
    );
    println!("| path | p50 ms | p99 ms | max ms | events | missing |");
    println!("|---|---|---|---|---|---|");
    println!(
        "| signal -> SSE | {} | {} | {} | {} | {} |",
        ms(r.sse_ms.p50),
        ms(r.sse_ms.p99),
        ms(r.sse_ms.max),
        r.sse_ms.count,
        r.sse_missing
    );
    match &r.mqtt_ms {
        Some(m) => println!(
            "| signal -> MQTT | {} | {} | {} | {} | {} |",
            ms(m.p50),
            ms(m.p99),
            ms(m.max),
            m.count,
            r.mqtt_missing
        ),
        None => println!("| signal -> MQTT | no mosquitto | | | | |"),
    }
    println!(
        "SSE events per client: {:.1}/s (all kinds)",
        r.sse_events_per_client_s
    );
    println!(
        "bridge: {:.2} % of a core, peak RSS {} KiB, {} threads",
        r.bridge_cpu_percent, r.bridge_memory.rss_kib, r.bridge_memory.threads
    );
}
