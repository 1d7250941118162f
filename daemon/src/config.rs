//! Daemon configuration: built-in defaults, then the TOML file
//! (`/etc/chessclockd/chessclockd.toml` unless another path is given), then `CHESSCLOCKD_*`
//! environment variables, merged with the `config` crate and checked into a typed [`Config`].
//!
//! Owns reading and checking settings only. It must not open devices, touch the state
//! directory or start anything. Every error names the key, the problem and the fix;
//! `docs/configuration.md` documents each key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Where the daemon looks for its file when no path is given.
pub const DEFAULT_CONFIG_PATH: &str = "/etc/chessclockd/chessclockd.toml";
/// Environment variable that names the config file (an explicit path: it must exist).
pub const CONFIG_PATH_ENV: &str = "CHESSCLOCKD_CONFIG";
/// The ports the opt-in scan probes unless `scan_ports` says otherwise.
pub const DEFAULT_SCAN_PORTS: &[&str] = &["/dev/ttyACM*", "/dev/ttyUSB*", "/dev/rfcomm*"];
/// Prefix of the environment variables that override settings.
pub const ENV_PREFIX: &str = "CHESSCLOCKD_";
/// Log filter of the daemon (tracing `Env-Filter` syntax, e.g. `debug`); not a setting.
pub const LOG_ENV: &str = "CHESSCLOCKD_LOG";

/// Which half of the clock shows White's time: the device's own [`BoardSide`] (one type for
/// the halves, in the configuration as on the bus).
///
/// [`BoardSide`]: crate::device::handle::BoardSide
pub use crate::device::handle::BoardSide as WhiteSide;

/// One `[[clock]]` entry: a board the daemon attaches at start and keeps attached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockConfig {
    /// The tty of the board, e.g. `/dev/dgt/board-0` or `/dev/rfcomm0`.
    pub port: PathBuf,
    /// A name for operators and overlays (defaults to the port).
    pub name: Option<String>,
    /// Which half of the clock is White's.
    pub white_side: WhiteSide,
    /// Time control of this clock in notation form; `None` means `default_time_control`.
    pub time_control: Option<String>,
}

/// The daemon's settings after defaults, file and environment are merged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Journal and snapshots live here (systemd `StateDirectory=`).
    pub state_dir: PathBuf,
    /// Probe the ports matching `scan_ports` for boards at start and on reload (opt-in).
    pub scan: bool,
    /// What the scan probes: paths whose file name may hold one `*`.
    pub scan_ports: Vec<String>,
    /// Subtracted from a press's arrival time (USB/Bluetooth transport delay).
    pub transport_latency_ms: u64,
    /// The clock's play/pause button pauses and resumes the game.
    pub pause_button: bool,
    /// How long to wait for a clock command's acknowledgement.
    pub command_timeout_ms: u64,
    /// How often a timed-out clock command is sent again before "clock not responding".
    pub command_retries: u32,
    /// Time control of clocks that name none, in notation form.
    pub default_time_control: String,
    /// Boards to attach at start (`[[clock]]` tables, in file order).
    #[serde(rename = "clock")]
    pub clocks: Vec<ClockConfig>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            state_dir: PathBuf::from("/var/lib/chessclockd"),
            scan: false,
            scan_ports: DEFAULT_SCAN_PORTS.iter().map(|p| (*p).to_owned()).collect(),
            transport_latency_ms: 0,
            pause_button: true,
            command_timeout_ms: 500,
            command_retries: 3,
            default_time_control: "G/90 inc/30".to_owned(),
            clocks: Vec::new(),
        }
    }
}

/// Why the configuration was rejected. The display form is a sentence a person can act on.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file could not be read.
    #[error(
        "cannot read config file {path}: {source}; create it, fix its permissions or name another file"
    )]
    Read {
        /// The file that was asked for.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The file is not valid TOML.
    #[error("{origin} is not valid TOML: {detail}")]
    Syntax {
        /// The file path, or "config text" for text given directly.
        origin: String,
        /// The parser's description, with line and column.
        detail: String,
    },
    /// A setting has a wrong name, type or value.
    #[error("{key}: {message}")]
    Invalid {
        /// The key in file notation (`clock[1].white_side`) or the environment variable.
        key: String,
        /// What is wrong and how to fix it.
        message: String,
    },
}

fn invalid(key: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.into(),
        message: message.into(),
    }
}

/// The type of a setting, for converting environment strings and checking file values.
#[derive(Clone, Copy)]
enum Kind {
    Bool,
    Int {
        min: u64,
        max: u64,
    },
    Text,
    Path,
    /// A list of strings: a TOML array, or comma-separated in the environment.
    List,
}

const TOP_KEYS: &[(&str, Kind)] = &[
    ("state_dir", Kind::Path),
    ("scan", Kind::Bool),
    ("scan_ports", Kind::List),
    ("transport_latency_ms", Kind::Int { min: 0, max: 2_000 }),
    ("pause_button", Kind::Bool),
    (
        "command_timeout_ms",
        Kind::Int {
            min: 20,
            max: 60_000,
        },
    ),
    ("command_retries", Kind::Int { min: 0, max: 20 }),
    ("default_time_control", Kind::Text),
];
const CLOCK_KEYS: &[&str] = &["port", "name", "white_side", "time_control"];
/// Environment names that are not simply the upper-cased key.
const ENV_ALIASES: &[(&str, &str)] = &[("LATENCY_MS", "transport_latency_ms")];

impl Config {
    /// Load defaults, then the file, then `CHESSCLOCKD_*` variables of this process.
    ///
    /// `path` (or else `$CHESSCLOCKD_CONFIG`) is an explicit file and must exist; without
    /// either, [`DEFAULT_CONFIG_PATH`] is read if it exists.
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        let env: Vec<(String, String)> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        let explicit = path.map(Path::to_path_buf).or_else(|| {
            env.iter()
                .find(|(k, _)| k == CONFIG_PATH_ENV)
                .map(|(_, v)| PathBuf::from(v))
        });
        let (file, text) = match explicit {
            Some(p) => {
                let text = std::fs::read_to_string(&p).map_err(|source| ConfigError::Read {
                    path: p.clone(),
                    source,
                })?;
                (p, Some(text))
            }
            None => {
                let p = PathBuf::from(DEFAULT_CONFIG_PATH);
                match std::fs::read_to_string(&p) {
                    Ok(text) => (p, Some(text)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => (p, None),
                    Err(source) => return Err(ConfigError::Read { path: p, source }),
                }
            }
        };
        Self::merge(text.as_deref(), &file.display().to_string(), env)
    }

    /// Build from TOML text (None = no file) and environment pairs; for tests and tools.
    pub fn from_sources<I, K, V>(file_text: Option<&str>, env: I) -> Result<Config, ConfigError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        Self::merge(
            file_text,
            "config text",
            env.into_iter().map(|(k, v)| (k.into(), v.into())),
        )
    }

    fn merge(
        file_text: Option<&str>,
        origin: &str,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Config, ConfigError> {
        let mut builder = config::Config::builder();
        if let Some(text) = file_text {
            builder = builder.add_source(config::File::from_str(text, config::FileFormat::Toml));
        }
        for (key, value) in env_overrides(env)? {
            builder = builder
                .set_override(key, value)
                .map_err(|e| invalid(key, e.to_string()))?;
        }
        let merged = builder.build().map_err(|e| match e {
            config::ConfigError::FileParse { cause, .. } => ConfigError::Syntax {
                origin: origin.to_owned(),
                detail: cause.to_string(),
            },
            other => ConfigError::Syntax {
                origin: origin.to_owned(),
                detail: other.to_string(),
            },
        })?;
        let tree: Map<String, Value> =
            merged.try_deserialize().map_err(|e| ConfigError::Syntax {
                origin: origin.to_owned(),
                detail: e.to_string(),
            })?;
        from_tree(&tree)
    }

    /// Check every time-control string with `check` (normally the notation parser).
    pub fn validate_with(
        &self,
        check: &dyn Fn(&str) -> Result<(), String>,
    ) -> Result<(), ConfigError> {
        let bad = |key: String, text: &str, why: String| {
            invalid(
                key,
                format!("{text:?} is not a valid time control: {why}; see docs/timecontrols.md"),
            )
        };
        check(&self.default_time_control).map_err(|why| {
            bad(
                "default_time_control".into(),
                &self.default_time_control,
                why,
            )
        })?;
        for (i, clock) in self.clocks.iter().enumerate() {
            if let Some(tc) = &clock.time_control {
                check(tc).map_err(|why| bad(format!("clock[{i}].time_control"), tc, why))?;
            }
        }
        Ok(())
    }

    /// Check every time-control string with the daemon's notation parser.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_with(&|text| {
            crate::engine::notation::parse(text)
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
    }
}

/// Turn `CHESSCLOCKD_*` pairs into typed overrides keyed by setting name.
fn env_overrides(
    env: impl IntoIterator<Item = (String, String)>,
) -> Result<BTreeMap<&'static str, config::Value>, ConfigError> {
    let mut out = BTreeMap::new();
    for (name, raw) in env {
        let Some(rest) = name.strip_prefix(ENV_PREFIX) else {
            continue;
        };
        if name == CONFIG_PATH_ENV || name == LOG_ENV {
            continue;
        }
        let lower = rest.to_ascii_lowercase();
        let found = TOP_KEYS
            .iter()
            .find(|(k, _)| *k == lower)
            .copied()
            .or_else(|| {
                let (_, key) = ENV_ALIASES.iter().find(|(alias, _)| *alias == rest)?;
                TOP_KEYS.iter().find(|(k, _)| k == key).copied()
            });
        let Some((key, kind)) = found else {
            let known: Vec<String> = TOP_KEYS
                .iter()
                .map(|(k, _)| format!("{ENV_PREFIX}{}", k.to_ascii_uppercase()))
                .collect();
            return Err(invalid(
                name.clone(),
                format!(
                    "is not a chessclockd setting; unset it or use one of {}, {CONFIG_PATH_ENV}",
                    known.join(", ")
                ),
            ));
        };
        let value: config::Value = match kind {
            Kind::Bool => parse_bool(raw.trim())
                .ok_or_else(|| {
                    invalid(
                        name.clone(),
                        format!("{raw:?} is not a boolean; use true or false"),
                    )
                })?
                .into(),
            Kind::Int { .. } => raw
                .trim()
                .parse::<i64>()
                .map_err(|_| {
                    invalid(
                        name.clone(),
                        format!("{raw:?} is not a whole number; use digits only, e.g. 20"),
                    )
                })?
                .into(),
            Kind::Text | Kind::Path => raw.into(),
            Kind::List => raw
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect::<Vec<String>>()
                .into(),
        };
        out.insert(key, value);
    }
    Ok(out)
}

fn parse_bool(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

fn from_tree(tree: &Map<String, Value>) -> Result<Config, ConfigError> {
    let mut cfg = Config::default();
    for (key, value) in tree {
        match key.as_str() {
            "state_dir" => cfg.state_dir = path_value(key, value)?,
            "scan" => cfg.scan = bool_value(key, value)?,
            "scan_ports" => cfg.scan_ports = scan_ports_value(key, value)?,
            "pause_button" => cfg.pause_button = bool_value(key, value)?,
            "transport_latency_ms" | "command_timeout_ms" | "command_retries" => {
                let Some((_, Kind::Int { min, max })) = TOP_KEYS.iter().find(|(k, _)| k == key)
                else {
                    continue;
                };
                let n = int_value(key, value, *min, *max)?;
                match key.as_str() {
                    "transport_latency_ms" => cfg.transport_latency_ms = n,
                    "command_timeout_ms" => cfg.command_timeout_ms = n,
                    _ => cfg.command_retries = u32::try_from(n).unwrap_or(u32::MAX),
                }
            }
            "default_time_control" => cfg.default_time_control = text_value(key, value)?,
            "clock" => cfg.clocks = clocks_value(value)?,
            other => {
                let mut known: Vec<&str> = TOP_KEYS.iter().map(|(k, _)| *k).collect();
                known.push("clock");
                return Err(unknown_key(other, &known));
            }
        }
    }
    Ok(cfg)
}

fn clocks_value(value: &Value) -> Result<Vec<ClockConfig>, ConfigError> {
    let Value::Array(items) = value else {
        return Err(invalid(
            "clock",
            format!(
                "expected [[clock]] tables, found {}; write each board as a [[clock]] table with a port",
                describe(value)
            ),
        ));
    };
    let mut clocks: Vec<ClockConfig> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("clock[{i}]");
        let Value::Object(table) = item else {
            return Err(invalid(
                at,
                format!(
                    "expected a table, found {}; use [[clock]] with port = \"/dev/...\"",
                    describe(item)
                ),
            ));
        };
        for key in table.keys() {
            if !CLOCK_KEYS.contains(&key.as_str()) {
                return Err(unknown_key(&format!("{at}.{key}"), CLOCK_KEYS));
            }
        }
        let port = match table.get("port") {
            Some(v) => path_value(&format!("{at}.port"), v)?,
            None => {
                return Err(invalid(
                    format!("{at}.port"),
                    "is missing; every [[clock]] needs the board's tty, e.g. port = \"/dev/dgt/board-0\"",
                ));
            }
        };
        if let Some(j) = clocks.iter().position(|c| c.port == port) {
            return Err(invalid(
                format!("{at}.port"),
                format!(
                    "{} is already used by clock[{j}]; each [[clock]] needs its own port",
                    port.display()
                ),
            ));
        }
        let name = table
            .get("name")
            .map(|v| text_value(&format!("{at}.name"), v))
            .transpose()?;
        let white_side = match table.get("white_side") {
            None => WhiteSide::Left,
            Some(Value::String(s)) if s == "left" => WhiteSide::Left,
            Some(Value::String(s)) if s == "right" => WhiteSide::Right,
            Some(Value::String(s)) => {
                return Err(invalid(
                    format!("{at}.white_side"),
                    format!("{s:?} is not a side; use \"left\" or \"right\""),
                ));
            }
            Some(other) => {
                return Err(invalid(
                    format!("{at}.white_side"),
                    format!("expected \"left\" or \"right\", found {}", describe(other)),
                ));
            }
        };
        let time_control = table
            .get("time_control")
            .map(|v| text_value(&format!("{at}.time_control"), v))
            .transpose()?;
        clocks.push(ClockConfig {
            port,
            name,
            white_side,
            time_control,
        });
    }
    Ok(clocks)
}

fn scan_ports_value(key: &str, value: &Value) -> Result<Vec<String>, ConfigError> {
    let Value::Array(items) = value else {
        return Err(invalid(
            key,
            format!(
                "expected a list of paths, found {}; e.g. scan_ports = [\"/dev/ttyACM*\"]",
                describe(value)
            ),
        ));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("{key}[{i}]");
        let text = text_value(&at, item)?;
        if !text.starts_with('/') {
            return Err(invalid(
                at,
                format!("{text:?} is not an absolute path; write e.g. \"/dev/ttyACM*\""),
            ));
        }
        let name = text.rsplit('/').next().unwrap_or_default();
        if text.matches('*').count() > 1 || (text.contains('*') && !name.contains('*')) {
            return Err(invalid(
                at,
                format!(
                    "{text:?}: only one `*`, in the file name, is supported (e.g. \"/dev/ttyUSB*\")"
                ),
            ));
        }
        out.push(text);
    }
    Ok(out)
}

fn bool_value(key: &str, value: &Value) -> Result<bool, ConfigError> {
    match value {
        Value::Bool(b) => Ok(*b),
        other => Err(invalid(
            key,
            format!("expected true or false, found {}", describe(other)),
        )),
    }
}

fn int_value(key: &str, value: &Value, min: u64, max: u64) -> Result<u64, ConfigError> {
    let n = match value {
        Value::Number(n) => n.as_i64(),
        _ => None,
    };
    match n {
        Some(n) if n >= 0 && (n as u64) >= min && (n as u64) <= max => Ok(n as u64),
        Some(n) => Err(invalid(
            key,
            format!("{n} is out of range; use a whole number from {min} to {max}"),
        )),
        None => Err(invalid(
            key,
            format!(
                "expected a whole number from {min} to {max}, found {}",
                describe(value)
            ),
        )),
    }
}

fn text_value(key: &str, value: &Value) -> Result<String, ConfigError> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Ok(s.clone()),
        Value::String(_) => Err(invalid(key, "is empty; give a value or remove the line")),
        other => Err(invalid(
            key,
            format!("expected a quoted string, found {}", describe(other)),
        )),
    }
}

fn path_value(key: &str, value: &Value) -> Result<PathBuf, ConfigError> {
    let text = text_value(key, value)?;
    if !text.starts_with('/') {
        return Err(invalid(
            key,
            format!("{text:?} is a relative path; use an absolute path starting with /"),
        ));
    }
    Ok(PathBuf::from(text))
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "nothing".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "a list".to_owned(),
        Value::Object(_) => "a table".to_owned(),
    }
}

fn unknown_key(key: &str, known: &[&str]) -> ConfigError {
    let last = key.rsplit('.').next().unwrap_or(key);
    let near = known
        .iter()
        .min_by_key(|k| edit_distance(last, k))
        .filter(|k| edit_distance(last, k) <= 3);
    let hint = match near {
        Some(k) => format!("did you mean {k:?}?"),
        None => format!("known keys here: {}", known.join(", ")),
    };
    invalid(
        key,
        format!("is not a known setting; {hint} (docs/configuration.md lists every key)"),
    )
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}
