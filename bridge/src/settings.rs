//! The bridge's settings: defaults, then `/etc/chessclockd/bridge.toml` (or `--config`), then
//! `CHESSCLOCK_BRIDGE_*` environment variables, then command-line flags. Owns loading and
//! checking them with clear errors; nothing here talks to the bus or the network.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use chessclock_api::fleet::parse_broker;

use crate::push::RoundSettings;
use serde::Deserialize;

/// Where the settings file is looked for by default.
pub(crate) const DEFAULT_CONFIG: &str = "/etc/chessclockd/bridge.toml";

/// Command-line options (`chessclock-bridge --help`).
#[derive(Debug, clap::Parser)]
#[command(name = "chessclock-bridge", version, about)]
pub(crate) struct Args {
    /// Use the session bus instead of the system bus (tests, demos).
    #[arg(long)]
    pub(crate) session: bool,
    /// Connect to this D-Bus address instead (e.g. unix:path=/run/x/bus).
    #[arg(long, value_name = "ADDRESS", conflicts_with = "session")]
    pub(crate) address: Option<String>,
    /// Settings file (default /etc/chessclockd/bridge.toml, if it exists).
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// Address and port of the HTTP server (default 127.0.0.1:7380).
    #[arg(long, value_name = "ADDR:PORT")]
    pub(crate) listen: Option<String>,
    /// Publish to this MQTT broker: mqtt://host[:port].
    #[arg(long, value_name = "URL")]
    pub(crate) mqtt: Option<String>,
    /// This machine's name in MQTT topics (default: the host name).
    #[arg(long, value_name = "NAME")]
    pub(crate) host: Option<String>,
    /// Print the manual page chessclock-bridge(8) (roff) to stdout and exit; packaging uses it.
    #[arg(long, hide = true)]
    pub(crate) man: bool,
}

/// The settings in force.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Settings {
    /// HTTP listen address.
    pub(crate) listen: String,
    /// MQTT broker URL, if any.
    #[serde(default)]
    pub(crate) mqtt: Option<String>,
    /// Name of this machine in MQTT topics.
    #[serde(default)]
    pub(crate) host: Option<String>,
    /// How many events a reconnecting SSE client can catch up on.
    pub(crate) replay: usize,
    /// Log filter (`info`, `chessclock_bridge=debug`, ...).
    pub(crate) log: String,
    /// Lichess broadcast rounds to push the live PGN to (`[[lichess]]` tables).
    #[serde(default)]
    pub(crate) lichess: Vec<RoundSettings>,
    /// The tokens of `lichess`, read when the settings are loaded.
    #[serde(skip)]
    pub(crate) lichess_tokens: Vec<String>,
}

/// `text` as an error message quotes it: at most 100 characters.
pub(crate) fn shorten(text: &str) -> String {
    match text.char_indices().nth(100) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_owned(),
    }
}

impl Settings {
    /// Load the settings for `args`.
    pub(crate) fn load(args: &Args) -> Result<Settings> {
        let mut b = config::Config::builder()
            .set_default("listen", "127.0.0.1:7380")?
            .set_default("replay", 1024)?
            .set_default("log", "info")?;
        let (file, required) = match &args.config {
            Some(p) => (p.clone(), true),
            None => (PathBuf::from(DEFAULT_CONFIG), false),
        };
        if required || Path::new(&file).exists() {
            b = b.add_source(config::File::from(file.as_path()).format(config::FileFormat::Toml));
        }
        b = b.add_source(config::Environment::with_prefix("CHESSCLOCK_BRIDGE"));
        let mut s: Settings = b
            .build()
            .and_then(config::Config::try_deserialize)
            .with_context(|| {
                format!(
                    "bad settings (from {}, CHESSCLOCK_BRIDGE_* variables); keys are listen, \
                     mqtt, host, replay, log, [[lichess]] (docs/bridge.md)",
                    file.display()
                )
            })?;
        if let Some(l) = &args.listen {
            s.listen = l.clone();
        }
        if let Some(m) = &args.mqtt {
            s.mqtt = Some(m.clone());
        }
        if let Some(h) = &args.host {
            s.host = Some(h.clone());
        }
        s.listen_addr()?;
        if let Some(m) = &s.mqtt {
            parse_broker(m).map_err(anyhow::Error::msg)?;
        }
        s.lichess_tokens = s
            .lichess
            .iter()
            .map(RoundSettings::token)
            .collect::<Result<_>>()?;
        if s.replay == 0 {
            bail!(
                "replay must be at least 1 (how many events a reconnecting client catches up on)"
            );
        }
        Ok(s)
    }

    /// The HTTP listen address.
    pub(crate) fn listen_addr(&self) -> Result<SocketAddr> {
        self.listen.parse().with_context(|| {
            format!(
                "listen = {:?} is not an ADDR:PORT such as 127.0.0.1:7380 or [::]:7380",
                self.listen
            )
        })
    }

    /// The name of this machine in MQTT topics.
    pub(crate) fn host_name(&self) -> String {
        self.host.clone().unwrap_or_else(|| {
            rustix::system::uname()
                .nodename()
                .to_string_lossy()
                .into_owned()
        })
    }
}
