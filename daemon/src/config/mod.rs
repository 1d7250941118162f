//! Daemon configuration: built-in defaults, then the TOML file
//! (`/etc/chessclockd/chessclockd.toml` unless another path is given), then its drop-ins
//! (`chessclockd.toml.d/*.toml` in lexical order, later files overriding earlier keys:
//! [`chessclock_system::conffile`]), then `CHESSCLOCKD_*` environment variables, merged with
//! the `config` crate and checked into a typed [`Config`].
//!
//! Owns reading and checking settings only. It must not open devices, touch the state
//! directory or start anything. Every error names the key, the problem and the fix;
//! `docs/configuration.md` documents each key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chessclock_system::conffile::{self, Layer};
use chessclock_system::locate;
use serde::{Deserialize, Serialize};

use crate::engine::params::TimeControl;

mod explain;
mod value;

use explain::explain;

/// Where the daemon looks for its file when no path is given.
pub const DEFAULT_CONFIG_PATH: &str = "/etc/chessclockd/chessclockd.toml";
/// Environment variable that names the config file (an explicit path: it must exist).
pub const CONFIG_PATH_ENV: &str = "CHESSCLOCKD_CONFIG";
/// The ports the opt-in scan probes unless `scan_ports` says otherwise.
pub const DEFAULT_SCAN_PORTS: &[&str] = &["/dev/ttyACM*", "/dev/ttyUSB*", "/dev/rfcomm*"];
/// Short name accepted for `CHESSCLOCKD_TRANSPORT_LATENCY_MS`.
const LATENCY_ALIAS_ENV: &str = "CHESSCLOCKD_LATENCY_MS";
/// Prefix of the environment variables that override settings.
pub const ENV_PREFIX: &str = "CHESSCLOCKD_";
/// Log filter of the daemon (tracing `Env-Filter` syntax, e.g. `debug`); not a setting.
pub const LOG_ENV: &str = "CHESSCLOCKD_LOG";

/// Which half of the clock shows White's time: the device's own [`BoardSide`] (one type for
/// the halves, in the configuration as on the bus).
///
/// [`BoardSide`]: crate::device::BoardSide
pub use crate::device::BoardSide as WhiteSide;

/// One `[[clock]]` entry: a board the daemon attaches at start by its port and keeps
/// attached, or a board it recognises by its serial number whenever it is attached, or both.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockConfig {
    /// The tty of the board, e.g. `/dev/dgt/board-0` or `/dev/rfcomm0`. A table needs a port,
    /// a `board_serial` or both.
    #[serde(default, deserialize_with = "value::opt_abs_path")]
    pub port: Option<PathBuf>,
    /// The board's serial number (as `chessclockctl status` shows it): a board that reports
    /// it, however it is attached, gets this table's settings.
    #[serde(default, deserialize_with = "value::opt_serial")]
    pub board_serial: Option<String>,
    /// A name for operators and overlays (defaults to the port).
    #[serde(default, deserialize_with = "value::opt_text")]
    pub name: Option<String>,
    /// Which half of the clock is White's.
    #[serde(default, deserialize_with = "value::white_side")]
    pub white_side: WhiteSide,
    /// Time control of this clock in notation form; `None` means `default_time_control`.
    #[serde(default, deserialize_with = "value::opt_text")]
    pub time_control: Option<String>,
    /// Game information for the PGN (tag name to value: White, Black, Event, Round, Board...).
    #[serde(default)]
    pub game_info: BTreeMap<String, String>,
    /// The board number a round's pairings give this clock's game (1 to 9999); `None`: the
    /// clock's number + 1.
    #[serde(default, deserialize_with = "value::opt_board")]
    pub board: Option<u32>,
    /// What counts the moves of a multi-period control: `board` (default) or `lever`.
    #[serde(default, deserialize_with = "value::move_source")]
    pub move_source: crate::device::MoveSource,
    /// `drive` (default: chessclockd runs the time control) or `observe` (the clock runs
    /// its own mode; chessclockd follows it and sends it nothing).
    #[serde(default, deserialize_with = "value::mode")]
    pub mode: crate::device::observe::Mode,
    /// `fide`, `uscf` or `none`: the rules the board's position and history are judged by
    /// (FIDE's Laws, US Chess's rules, or no draw rules; default: `fide`, except under a
    /// double-flag control).
    #[serde(default, deserialize_with = "value::draw_rules")]
    pub draw_rules: Option<crate::device::DrawRules>,
}

/// The daemon's settings after defaults, file and environment are merged.
///
/// Each key's type and range is checked by its `value::` reader; `CHESSCLOCKD_<KEY>` sets a
/// top-level key (the `config` crate maps the names); unknown keys are refused by serde.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Journal and snapshots live here (systemd `StateDirectory=`).
    #[serde(deserialize_with = "value::abs_path")]
    pub state_dir: PathBuf,
    /// Where the live PGN feed goes; unset: `live/` in systemd's `RuntimeDirectory=` (a
    /// tmpfs, rebuilt from the journal at start), else `live/` in the state directory.
    #[serde(
        default,
        deserialize_with = "value::opt_abs_path",
        skip_serializing_if = "Option::is_none"
    )]
    pub live_dir: Option<PathBuf>,
    /// Probe the ports matching `scan_ports` for boards at start and on reload (opt-in).
    #[serde(deserialize_with = "value::flag")]
    pub scan: bool,
    /// What the scan probes: paths whose file name may hold one `*`.
    #[serde(deserialize_with = "value::scan_ports")]
    pub scan_ports: Vec<String>,
    /// Subtracted from a press's arrival time (USB/Bluetooth transport delay).
    #[serde(deserialize_with = "value::whole::<_, 0, 2_000>")]
    pub transport_latency_ms: u64,
    /// The clock's play/pause button pauses and resumes the game.
    #[serde(deserialize_with = "value::flag")]
    pub pause_button: bool,
    /// How long to wait for a clock command's acknowledgement.
    #[serde(deserialize_with = "value::whole::<_, 20, 60_000>")]
    pub command_timeout_ms: u64,
    /// How often a timed-out clock command is sent again before "clock not responding".
    #[serde(deserialize_with = "value::whole_u32::<_, 0, 20>")]
    pub command_retries: u32,
    /// Time control of clocks that name none, in notation form.
    #[serde(deserialize_with = "value::text")]
    pub default_time_control: String,
    /// The draw rules of clocks that name none (`fide`, `uscf` or `none`; unset: FIDE's,
    /// none under a double-flag control).
    #[serde(
        default,
        deserialize_with = "value::draw_rules",
        skip_serializing_if = "Option::is_none"
    )]
    pub draw_rules: Option<crate::device::DrawRules>,
    /// The PGN `Event` of every game whose game information names none (unset: `?`).
    #[serde(
        default,
        deserialize_with = "value::opt_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub event: Option<String>,
    /// The PGN `Site` of every game whose game information names none (unset: `?`).
    #[serde(
        default,
        deserialize_with = "value::opt_text",
        skip_serializing_if = "Option::is_none"
    )]
    pub site: Option<String>,
    /// Boards to attach at start (`[[clock]]` tables, in file order).
    #[serde(rename = "clock")]
    pub clocks: Vec<ClockConfig>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            state_dir: PathBuf::from("/var/lib/chessclockd"),
            live_dir: None,
            scan: false,
            scan_ports: DEFAULT_SCAN_PORTS.iter().map(|p| (*p).to_owned()).collect(),
            transport_latency_ms: 0,
            pause_button: true,
            command_timeout_ms: 500,
            command_retries: 3,
            default_time_control: "G/90 inc/30".to_owned(),
            draw_rules: None,
            event: None,
            site: None,
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

/// The `CHESSCLOCKD_*` variables of `env` that are settings (not our own variables, such as
/// the configuration's path and the log filter); they map to keys by name.
fn settings_env(env: impl IntoIterator<Item = (String, String)>) -> BTreeMap<String, String> {
    env.into_iter()
        .filter(|(k, _)| k.starts_with(ENV_PREFIX) && k != CONFIG_PATH_ENV && k != LOG_ENV)
        .collect()
}

/// The setting `key`'s notation `text` as a control: the configuration's one notation parse.
fn control(key: &str, text: &str) -> Result<TimeControl, ConfigError> {
    crate::engine::notation::parse(text)
        .map(|p| p.control)
        .map_err(|e| bad_control(key.to_owned(), text, e.message))
}

/// The error of a setting whose notation does not parse.
fn bad_control(key: String, text: &str, why: String) -> ConfigError {
    invalid(
        key,
        format!("{text:?} is not a valid time control: {why}; see docs/timecontrols.md"),
    )
}

fn invalid(key: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.into(),
        message: message.into(),
    }
}

impl Config {
    /// Load defaults, then the file and its drop-ins, then `CHESSCLOCKD_*` variables of this
    /// process.
    ///
    /// `path` (or else `$CHESSCLOCKD_CONFIG`) is an explicit file and must exist; without
    /// either, [`DEFAULT_CONFIG_PATH`] is read if it exists. The drop-ins are the `*.toml`
    /// files in `<file>.d/`, read whether the file exists or not.
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        Self::load_files(path).map(|(config, _)| config)
    }

    /// [`Config::load`], and the files it read, in the order they apply (for
    /// `chessclockd --check-config`).
    pub fn load_files(path: Option<&Path>) -> Result<(Config, Vec<PathBuf>), ConfigError> {
        let env: Vec<(String, String)> = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        let explicit = path.map(Path::to_path_buf).or_else(|| {
            env.iter()
                .find(|(k, _)| k == CONFIG_PATH_ENV)
                .map(|(_, v)| PathBuf::from(v))
        });
        let required = explicit.is_some();
        let file = explicit.unwrap_or_else(|| PathBuf::from(DEFAULT_CONFIG_PATH));
        let layers = conffile::read_layers(&file, required).map_err(|e| ConfigError::Read {
            path: e.path,
            source: e.source,
        })?;
        let env = settings_env(env);
        let config = Self::merge(&layers, env.clone())?;
        // A value that reads but does not hold (a notation that does not parse) is named
        // with the file and line that set it, as serde's errors are.
        config
            .validate()
            .map_err(|e| explain::place(e, &layers, &env))?;
        Ok((config, layers.into_iter().map(|l| l.path).collect()))
    }

    /// Build from TOML text (None = no file) and environment pairs; for tests and tools.
    pub fn from_sources<I, K, V>(file_text: Option<&str>, env: I) -> Result<Config, ConfigError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        let layers: Vec<Layer> = file_text
            .map(|text| Layer {
                path: PathBuf::from("config text"),
                text: text.to_owned(),
            })
            .into_iter()
            .collect();
        Self::merge(&layers, env.into_iter().map(|(k, v)| (k.into(), v.into())))
    }

    fn merge(
        layers: &[Layer],
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Config, ConfigError> {
        let env = settings_env(env);
        for (i, layer) in layers.iter().enumerate() {
            let text = layer.text.as_str();
            let Some(detail) = locate::syntax_error(text) else {
                continue;
            };
            // A number beyond TOML's 64 bits: read it again as a string, so the key's
            // own reader names the key, its range and the line. Only its error is used.
            if let Some(span) = locate::too_large_number(text) {
                let mut quoted = layers.to_vec();
                quoted[i].text = format!(
                    "{}\"{}\"{}",
                    &text[..span.start],
                    &text[span.clone()],
                    &text[span.end..]
                );
                if let Err(e @ ConfigError::Invalid { .. }) = Self::merge(&quoted, env.clone()) {
                    return Err(e);
                }
            }
            return Err(ConfigError::Syntax {
                origin: layer.path.display().to_string(),
                detail,
            });
        }
        let syntax = |detail: String| ConfigError::Syntax {
            origin: layers.last().map_or_else(
                || "the environment".to_owned(),
                |l| l.path.display().to_string(),
            ),
            detail,
        };
        let mut builder = config::Config::builder();
        for layer in layers {
            builder = builder.add_source(config::File::from_str(
                &layer.text,
                config::FileFormat::Toml,
            ));
        }
        // Environment values are strings; each key's reader converts and checks them. Two
        // names need help: the short alias of the latency, and the comma-separated list.
        let mut strings = env.clone();
        if let Some(v) = strings.remove(LATENCY_ALIAS_ENV) {
            strings
                .entry(format!("{ENV_PREFIX}TRANSPORT_LATENCY_MS"))
                .or_insert(v);
        }
        let scan_ports = strings.remove(&format!("{ENV_PREFIX}SCAN_PORTS"));
        builder = builder.add_source(
            config::Environment::with_prefix(ENV_PREFIX.trim_end_matches('_'))
                .prefix_separator("_")
                .source(Some(strings.into_iter().collect())),
        );
        if let Some(list) = scan_ports {
            let items: Vec<String> = list
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_owned)
                .collect();
            builder = builder
                .set_override("scan_ports", items)
                .map_err(|e| syntax(e.to_string()))?;
        }
        let merged = builder.build().map_err(|e| syntax(e.to_string()))?;
        let config: Config =
            serde_path_to_error::deserialize(merged).map_err(|e| explain(&e, layers, &env))?;
        config.check_ports()?;
        Ok(config)
    }

    /// Every `[[clock]]` names its board by a port, a serial number or both, and no two
    /// tables name the same port or the same serial number.
    fn check_ports(&self) -> Result<(), ConfigError> {
        for (i, clock) in self.clocks.iter().enumerate() {
            let before = &self.clocks[..i];
            match (&clock.port, &clock.board_serial) {
                (None, None) => {
                    let which = clock
                        .name
                        .as_deref()
                        .map_or_else(String::new, |n| format!(" ({})", value::quote(n)));
                    return Err(invalid(
                        format!("clock[{i}]"),
                        format!(
                            "this [[clock]]{which} names no board; give it the board's tty \
                             (port = \"/dev/dgt/board-0\"), its serial number (board_serial = \
                             \"12345\", as `chessclockctl status` shows it) or both"
                        ),
                    ));
                }
                (Some(port), _) => {
                    if let Some(j) = before.iter().position(|c| c.port.as_ref() == Some(port)) {
                        return Err(invalid(
                            format!("clock[{i}].port"),
                            format!(
                                "{} is already used by clock[{j}]; each [[clock]] needs its own \
                                 port",
                                port.display()
                            ),
                        ));
                    }
                }
                (None, Some(_)) => {}
            }
            if let Some(board) = clock.board
                && let Some(j) = before.iter().position(|c| c.board == Some(board))
            {
                return Err(invalid(
                    format!("clock[{i}].board"),
                    format!("board {board} is already clock[{j}]'s; give each [[clock]] its own"),
                ));
            }
            if let Some(serial) = &clock.board_serial
                && let Some(j) = before
                    .iter()
                    .position(|c| c.board_serial.as_ref() == Some(serial))
            {
                return Err(invalid(
                    format!("clock[{i}].board_serial"),
                    format!(
                        "board {} is already clock[{j}]'s; one board gets one table's settings, so \
                         remove one of them or correct the serial number",
                        value::quote(serial)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Check every time-control string with `check` (normally the notation parser).
    pub fn validate_with(
        &self,
        check: &dyn Fn(&str) -> Result<(), String>,
    ) -> Result<(), ConfigError> {
        let bad = bad_control;
        check(&self.default_time_control).map_err(|why| {
            bad(
                "default_time_control".into(),
                &self.default_time_control,
                why,
            )
        })?;
        for (key, tag, value) in [
            ("event", "Event", &self.event),
            ("site", "Site", &self.site),
        ] {
            if let Some(v) = value {
                crate::device::check_game_info(&[(tag.to_owned(), v.clone())])
                    .map_err(|why| invalid(key.to_owned(), why))?;
            }
        }
        for (i, clock) in self.clocks.iter().enumerate() {
            if let Some(tc) = &clock.time_control {
                check(tc).map_err(|why| bad(format!("clock[{i}].time_control"), tc, why))?;
            }
            for (k, v) in &clock.game_info {
                crate::device::check_game_info(&[(k.clone(), v.clone())])
                    .map_err(|why| invalid(format!("clock[{i}].game_info.{k}"), why))?;
            }
        }
        Ok(())
    }

    /// `Event` and `Site` as the settings give them (the tags every game carries unless its
    /// game information names its own).
    pub fn tag_defaults(&self) -> Vec<(String, String)> {
        [("Event", &self.event), ("Site", &self.site)]
            .into_iter()
            .filter_map(|(tag, v)| Some((tag.to_owned(), v.clone()?)))
            .collect()
    }

    /// The control of new games: `default_time_control`, parsed.
    pub fn default_control(&self) -> Result<TimeControl, ConfigError> {
        control("default_time_control", &self.default_time_control)
    }

    /// Clock `i`'s own control (`[[clock]] time_control`), parsed; `None` if it has none.
    pub fn clock_control(&self, i: usize) -> Result<Option<TimeControl>, ConfigError> {
        self.clocks
            .get(i)
            .and_then(|c| c.time_control.as_deref())
            .map(|text| control(&format!("clock[{i}].time_control"), text))
            .transpose()
    }

    /// Check every time-control string with the daemon's notation parser.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_with(&|text| {
            crate::engine::notation::parse(text)
                .map(|_| ())
                .map_err(|e| e.message)
        })
    }
}
