//! The rig the bridge's Lichess end-to-end tests share: an emulated board under `G/5 inc/3`
//! on a real daemon, read once, and a bridge.toml pushing one Lichess round to the stand-in
//! with a token file. It starts no bridge: each test starts it when its story needs it.

use std::path::PathBuf;

use anyhow::Result;

use super::StandIn;
use crate::e2e::{board_read, emu};
use crate::rig::{Daemon, Emu, write_config};
use crate::{PrivateBus, TempDir};

/// An emulated board on a daemon, and the bridge's settings for one round of the stand-in.
#[derive(Debug)]
pub struct PushRig {
    pub dir: TempDir,
    pub bus: PrivateBus,
    pub emu: Emu,
    pub daemon: Daemon,
    /// The bridge's settings file: `settings`, then a `[[lichess]]` table for the round.
    pub bridge_toml: PathBuf,
}

impl PushRig {
    /// The rig in a fresh directory named `name`; `settings` are the bridge's top-level lines
    /// (`settle = "8s"\n`, or empty) before the table pushing `round` to `lichess`.
    pub fn start(name: &str, lichess: &StandIn, round: &str, settings: &str) -> Result<PushRig> {
        let dir = TempDir::new(name)?;
        let bus = PrivateBus::start_session()?;
        let emu = emu(&[])?;
        let config = write_config(dir.path(), &[(&emu.path, "G/5 inc/3")], "")?;
        let daemon = Daemon::spawn(bus.address(), &config, &[])?;
        board_read(&daemon, |f| !f.is_empty())?;
        let token = dir.path().join("lichess.token");
        std::fs::write(&token, "lip_testtoken123\n")?;
        let bridge_toml = dir.path().join("bridge.toml");
        std::fs::write(
            &bridge_toml,
            format!(
                "{settings}[[lichess]]\nround = \"{round}\"\ntoken_file = \"{}\"\nserver = \"{}\"\n",
                token.display(),
                lichess.base
            ),
        )?;
        Ok(PushRig {
            dir,
            bus,
            emu,
            daemon,
            bridge_toml,
        })
    }
}
