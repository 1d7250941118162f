//! The bridge's settings: defaults, then `/etc/chessclockd/bridge.toml` (or `--config`), then
//! `CHESSCLOCK_BRIDGE_*` environment variables, then command-line flags. Owns loading and
//! checking them with clear errors; nothing here talks to the bus or the network.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
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
}

/// An MQTT broker address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Broker {
    /// Host name or address.
    pub(crate) host: String,
    /// TCP port.
    pub(crate) port: u16,
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
                     mqtt, host, replay, log (docs/bridge.md)",
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
            parse_broker(m)?;
        }
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

/// `mqtt://host[:port]` as a broker address (port 1883 by default).
pub(crate) fn parse_broker(url: &str) -> Result<Broker> {
    let Some(rest) = url.strip_prefix("mqtt://") else {
        bail!("MQTT broker {url:?} is not an mqtt://host[:port] URL");
    };
    let rest = rest.trim_end_matches('/');
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (
            h,
            p.parse::<u16>()
                .with_context(|| format!("MQTT broker {url:?}: {p:?} is not a port number"))?,
        ),
        _ => (rest, 1883),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() {
        bail!("MQTT broker {url:?} names no host");
    }
    Ok(Broker {
        host: host.to_owned(),
        port,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_urls_parse_with_default_port_and_bad_ones_say_why() {
        let b = parse_broker("mqtt://broker.local").expect("default port");
        assert_eq!((b.host.as_str(), b.port), ("broker.local", 1883));
        let b = parse_broker("mqtt://127.0.0.1:18830/").expect("port");
        assert_eq!((b.host.as_str(), b.port), ("127.0.0.1", 18830));
        let e = parse_broker("http://x").expect_err("scheme");
        assert!(e.to_string().contains("mqtt://"), "{e}");
        let e = parse_broker("mqtt://x:99999").expect_err("port");
        assert!(format!("{e:#}").contains("not a port"), "{e:#}");
        assert!(parse_broker("mqtt://").is_err());
    }
}
