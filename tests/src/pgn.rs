//! PGN read back by an independent reader: python-chess through `scripts/pgn-read.py`, which
//! prints one JSON object per game (headers, SAN and UCI moves, `[%clk]` seconds, errors).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::paths::repo_path;

/// The games python-chess reads from `file`.
pub fn python_reads(file: &Path) -> Result<Vec<Value>> {
    let out = Command::new("python3")
        .arg(repo_path("scripts/pgn-read.py"))
        .arg(file)
        .output()
        .context("python3 with python-chess (scripts/test.sh installs it)")?;
    if !out.status.success() {
        bail!("pgn-read.py: {}", String::from_utf8_lossy(&out.stderr));
    }
    String::from_utf8(out.stdout)?
        .lines()
        .map(|l| Ok(serde_json::from_str(l)?))
        .collect()
}

/// The SAN moves of a game python-chess read.
pub fn sans(game: &Value) -> Vec<String> {
    game["san"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|m| m.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
