//! The bridge's settings: defaults, then `/etc/chessclockd/bridge.toml` (or `--config`), then
//! its drop-ins (`bridge.toml.d/*.toml`, lexical order, later files win:
//! [`chessclock_system::conffile`]), then `CHESSCLOCK_BRIDGE_*` environment variables, then
//! command-line flags. Owns loading and checking them with errors that name the key and
//! where it was set (file and line, variable or flag), and reads the secrets they name
//! ([`crate::secrets`]: files and systemd's credentials) and the TLS roots ([`crate::tls`]);
//! nothing here talks to the bus or the network.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use chessclock_system::conffile::{self, Layer};
use chessclock_system::logging::Program;

use crate::mqtt::settings::{MqttSettings, Target};
use crate::push::RoundSettings;
use crate::secrets::Credentials;
use serde::Deserialize;

/// Where the settings file is looked for by default.
pub(crate) const DEFAULT_CONFIG: &str = "/etc/chessclockd/bridge.toml";
/// Prefix of the environment variables that override settings.
const ENV_PREFIX: &str = "CHESSCLOCK_BRIDGE_";
/// The settings' keys, for messages.
const KEYS: &str = "listen, mqtt (a URL, or [mqtt] with url, password_file, ca_file), host, fleet, \
     replay, log, delay, settle, [[lichess]], [[alert]]";

/// The bridge as the logging module knows it.
pub(crate) const LOG: Program = Program {
    identifier: "chessclock-bridge",
    env: "CHESSCLOCK_BRIDGE_LOG",
    example: "info,chessclock_bridge=debug",
};

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
    /// Publish to this MQTT broker: mqtt://host[:port] or mqtts://user@host[:port] (the
    /// password from password_file or the credential mqtt-password; see bridge.toml(5)).
    #[arg(long, value_name = "URL")]
    pub(crate) mqtt: Option<String>,
    /// This machine's name in MQTT topics (default: the host name).
    #[arg(long, value_name = "NAME")]
    pub(crate) host: Option<String>,
    /// Log filter: a level (err, warning, info, debug, trace) or tracing directives such as
    /// info,chessclock_bridge=debug [default: $CHESSCLOCK_BRIDGE_LOG, $RUST_LOG, `log` in the
    /// settings file, or info]. It can be changed at run time through
    /// org.freedesktop.LogControl1 (systemctl service-log-level chessclock-bridge debug).
    #[arg(long, value_name = "FILTER")]
    pub(crate) log_level: Option<String>,
    /// Check the settings (the file, its drop-ins in bridge.toml.d/, the CHESSCLOCK_BRIDGE_*
    /// variables and these flags) as a start would, then exit: 0 and one line "settings OK"
    /// if they are valid, 2 and the key, the problem and where it was set if not.
    #[arg(long)]
    pub(crate) check_config: bool,
    /// Create the Lichess broadcast NAME (a tour) and one round per --pairings file (in
    /// round order, status new: not started), with the token and server of the first
    /// [[lichess]] table; print the broadcast's URL, each round's id and the `rounds` line for
    /// bridge.toml, then exit.
    #[arg(long, value_name = "NAME")]
    pub(crate) make_broadcast: Option<String>,
    /// A round's pairings for --make-broadcast (CSV, tags-only PGN or TRF, as `chessclockctl
    /// round load` reads them); once per round, in order.
    #[arg(long, value_name = "FILE", requires = "make_broadcast")]
    pub(crate) pairings: Vec<PathBuf>,
    /// The broadcast's time control for --make-broadcast, as Lichess shows it (e.g. "90+30").
    #[arg(long, value_name = "TC", requires = "make_broadcast")]
    pub(crate) time_control: Option<String>,
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
    /// The MQTT broker, if any: its URL, or a `[mqtt]` table.
    #[serde(default, deserialize_with = "crate::mqtt::settings::url_or_table")]
    pub(crate) mqtt: Option<MqttSettings>,
    /// `mqtt` resolved when the settings are loaded: the password read, TLS set up.
    #[serde(skip)]
    pub(crate) mqtt_target: Option<Target>,
    /// Name of this machine in MQTT topics.
    #[serde(default)]
    pub(crate) host: Option<String>,
    /// Follow the broker: every machine's boards on this bridge's dashboard and
    /// `/api/v1/clocks` (needs `mqtt`).
    #[serde(default)]
    pub(crate) fleet: bool,
    /// How many events a reconnecting SSE client can catch up on.
    pub(crate) replay: usize,
    /// Log filter (`info`, `chessclock_bridge=debug`, ...).
    pub(crate) log: String,
    /// The broadcast delay (`"15m"`): every output shows the boards as they stood this long
    /// ago ([`crate::delay`]); none by default.
    #[serde(default)]
    pub(crate) delay: Option<String>,
    /// `delay` read when the settings are loaded (zero: none).
    #[serde(skip)]
    pub(crate) delay_for: std::time::Duration,
    /// The settle time of the Lichess push (`"3s"`, `"0"`: none): a half-move is pushed
    /// once it stood this long ([`crate::settle`]).
    #[serde(default)]
    pub(crate) settle: Option<String>,
    /// `settle` read when the settings are loaded (3 s when not set).
    #[serde(skip)]
    pub(crate) settle_for: std::time::Duration,
    /// Lichess broadcast rounds to push the live PGN to (`[[lichess]]` tables).
    #[serde(default)]
    pub(crate) lichess: Vec<RoundSettings>,
    /// The tokens of `lichess`, read when the settings are loaded.
    #[serde(skip)]
    pub(crate) lichess_tokens: Vec<String>,
    /// TLS for https Lichess servers (the system's CA store), set up when the settings are
    /// loaded if a round needs it.
    #[serde(skip)]
    pub(crate) lichess_tls: Option<Arc<rustls::ClientConfig>>,
    /// Where to send alerts (`[[alert]]` tables).
    #[serde(default)]
    pub(crate) alert: Vec<crate::alert::AlertSettings>,
    /// TLS for https alert URLs (the system's CA store), set up when loaded if needed.
    #[serde(skip)]
    pub(crate) alert_tls: Option<Arc<rustls::ClientConfig>>,
    /// The files read, in the order they apply (the file, then its drop-ins).
    #[serde(skip)]
    pub(crate) files: Vec<PathBuf>,
}

/// `text` as an error message quotes it: at most 100 characters.
pub(crate) fn shorten(text: &str) -> String {
    match text.char_indices().nth(100) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_owned(),
    }
}

impl Settings {
    /// Load the settings for `args`, with systemd's credentials if it passed any.
    pub(crate) fn load(args: &Args) -> Result<Settings> {
        Settings::load_with(args, &Credentials::from_env(args.check_config))
    }

    /// Load the settings for `args`, with the credentials `creds`.
    pub(crate) fn load_with(args: &Args, creds: &Credentials) -> Result<Settings> {
        let (file, required) = match &args.config {
            Some(p) => (p.clone(), true),
            None => (PathBuf::from(DEFAULT_CONFIG), false),
        };
        let layers = conffile::read_layers(&file, required)?;
        let origin = Origin {
            layers: &layers,
            args,
        };
        let mut b = config::Config::builder()
            .set_default("listen", "127.0.0.1:7380")?
            .set_default("replay", 1024)?
            .set_default("log", "info")?;
        for layer in &layers {
            if let Some(detail) = chessclock_system::locate::syntax_error(&layer.text) {
                bail!("{} is not valid TOML: {detail}", layer.path.display());
            }
            b = b.add_source(config::File::from_str(
                &layer.text,
                config::FileFormat::Toml,
            ));
        }
        b = b.add_source(config::Environment::with_prefix(
            ENV_PREFIX.trim_end_matches('_'),
        ));
        let merged = b.build().map_err(|e| anyhow!("bad settings: {e}"))?;
        let mut s: Settings =
            serde_path_to_error::deserialize(merged).map_err(|e| origin.explain(&e))?;
        if let Some(l) = &args.listen {
            s.listen = l.clone();
        }
        if let Some(url) = &args.mqtt {
            let table = s.mqtt.take().unwrap_or_default();
            s.mqtt = Some(MqttSettings {
                url: url.clone(),
                ..table
            });
        }
        if let Some(h) = &args.host {
            s.host = Some(h.clone());
        }
        s.listen_addr().map_err(|e| origin.at("listen", e))?;
        if let Some(m) = &s.mqtt {
            let target = m.resolve(creds).map_err(|(key, e)| origin.at(key, e))?;
            s.mqtt_target = Some(target);
        }
        if s.fleet && s.mqtt.is_none() {
            return Err(origin.at(
                "fleet",
                anyhow!(
                    "fleet = true shows the boards every machine's bridge publishes to MQTT, \
                     and this bridge has no broker: add mqtt = \"mqtt://broker\" (or an [mqtt] \
                     table), or remove fleet to show this machine's clocks only"
                ),
            ));
        }
        LOG.startup_filter(args.log_level.as_deref(), (&s.log, &origin.name("log")))
            .map_err(anyhow::Error::msg)?;
        s.lichess_tokens = s
            .lichess
            .iter()
            .enumerate()
            .map(|(i, round)| {
                round
                    .token(creds)
                    .map_err(|e| origin.at(&format!("lichess[{i}]"), e))
            })
            .collect::<Result<_>>()?;
        for (i, r) in s.lichess.iter().enumerate() {
            r.check_source(s.mqtt.is_some())
                .map_err(|e| origin.at(&format!("lichess[{i}].source"), e))?;
        }
        let sets: Vec<_> = s.lichess.iter().map(|r| r.boards.as_ref()).collect();
        crate::push::boards::check(&sets)
            .map_err(|(i, e)| origin.at(&format!("lichess[{i}].boards"), anyhow!(e)))?;
        if s.lichess.iter().any(|r| r.server.starts_with("https://")) {
            let tls = crate::tls::client_config(None, "SSL_CERT_FILE")
                .map_err(|e| origin.at("lichess", e))?;
            s.lichess_tls = Some(tls);
        }
        for (i, a) in s.alert.iter().enumerate() {
            if !(a.url.starts_with("http://") || a.url.starts_with("https://")) {
                return Err(origin.at(
                    &format!("alert[{i}].url"),
                    anyhow!(
                        "alert[{i}].url = {:?} is not an http:// or https:// URL; give a \
                         webhook or an ntfy topic URL such as https://ntfy.sh/my-tournament",
                        shorten(&a.url)
                    ),
                ));
            }
        }
        if s.alert.iter().any(|a| a.url.starts_with("https://")) {
            let tls = crate::tls::client_config(None, "SSL_CERT_FILE")
                .map_err(|e| origin.at("alert", e))?;
            s.alert_tls = Some(tls);
        }
        if let Some(d) = &s.delay {
            s.delay_for = crate::delay::parse(d).map_err(|e| origin.at("delay", anyhow!(e)))?;
        }
        if s.fleet && !s.delay_for.is_zero() {
            return Err(origin.at(
                "fleet",
                anyhow!(
                    "fleet = true shows every machine's boards as they are now, and this bridge \
                     delays its outputs (delay = {:?}): the fleet screen is the operator's, \
                     live; keep the delay on the public bridge and run the fleet screen on \
                     one without it",
                    s.delay.as_deref().unwrap_or_default()
                ),
            ));
        }
        s.settle_for = match &s.settle {
            Some(d) => crate::delay::parse(d).map_err(|e| origin.at("settle", anyhow!(e)))?,
            None => std::time::Duration::from_secs(3),
        };
        if s.replay == 0 {
            return Err(origin.at(
                "replay",
                anyhow!(
                    "replay must be at least 1 (how many events a reconnecting client catches \
                     up on)"
                ),
            ));
        }
        s.files = layers.into_iter().map(|l| l.path).collect();
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

/// Where a setting came from, for messages: a flag, a variable, or a file and line.
struct Origin<'a> {
    layers: &'a [Layer],
    args: &'a Args,
}

impl Origin<'_> {
    /// The flag, the variable or the file and line that set `key` (`lichess[1]`), if any.
    fn place(&self, key: &str) -> Option<String> {
        let top = key.split(['.', '[']).next().unwrap_or_default();
        let flag = match top {
            "listen" => self.args.listen.is_some(),
            "mqtt" => self.args.mqtt.is_some() && matches!(key, "mqtt" | "mqtt.url"),
            "host" => self.args.host.is_some(),
            _ => false,
        };
        if flag {
            return Some(format!("--{top}"));
        }
        let var = format!("{ENV_PREFIX}{}", top.to_ascii_uppercase());
        if std::env::var_os(&var).is_some() {
            return Some(var);
        }
        conffile::where_set(self.layers, key)
    }

    /// `key` named with where it was set: `log (/etc/chessclockd/bridge.toml, line 3)`.
    fn name(&self, key: &str) -> String {
        match self.place(key) {
            Some(place) => format!("{key} ({place})"),
            None => key.to_owned(),
        }
    }

    /// `err` about `key`, followed by where the key was set.
    fn at(&self, key: &str, err: anyhow::Error) -> anyhow::Error {
        match self.place(key) {
            Some(place) => anyhow!("{err:#} ({place})"),
            None => err,
        }
    }

    /// serde's error as the key, the problem and where the key was set.
    fn explain(&self, err: &serde_path_to_error::Error<config::ConfigError>) -> anyhow::Error {
        let full = err.inner().to_string();
        // The config crate appends where it was reading; we say that ourselves.
        let inner = full.split(" for key `").next().unwrap_or_default();
        let mut key = err.path().to_string();
        let mut message = inner.to_owned();
        if let Some(field) = inner
            .split_once("unknown field `")
            .and_then(|(_, rest)| rest.split_once('`'))
            .map(|(field, _)| field)
        {
            let parent = key
                .strip_suffix(field)
                .map_or(key.as_str(), |p| p.trim_end_matches('.'));
            key = match parent {
                "" | "." => field.to_owned(),
                p => format!("{p}.{field}"),
            };
            message = format!("is not a known setting; keys are {KEYS} (docs/bridge.md)");
        } else if let Some(field) = inner
            .split_once("missing field `")
            .and_then(|(_, rest)| rest.split_once('`'))
            .map(|(field, _)| field)
            .or_else(|| {
                // The config crate's words: missing configuration field "lichess[0]round".
                let path = inner.split_once("missing configuration field \"")?.1;
                path.split_once('"')?.0.rsplit([']', '.']).next()
            })
        {
            key = format!("{key}.{field}").trim_start_matches('.').to_owned();
            message = "is missing".to_owned();
        }
        let key = key.trim_start_matches('.');
        match self.place(key) {
            Some(place) => anyhow!("{key}: {message} ({place})"),
            None => anyhow!("{key}: {message}"),
        }
    }
}

#[cfg(test)]
mod tests;
