//! `chessclockctl simulate` (not implemented yet).
use std::process::ExitCode;

/// Arguments of this subcommand.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {}

pub(crate) fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("simulate is not implemented yet")
}
