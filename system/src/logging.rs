//! Logging: the tracing subscriber and `org.freedesktop.LogControl1`, for each program that
//! runs as a system service (chessclockd, chessclock-bridge), described by a [`Program`].
//!
//! Owns the log filter: chosen at start (`--log-level`, else the program's variable such as
//! `CHESSCLOCKD_LOG`, else `RUST_LOG`, else the program's fallback, normally `info`; an
//! invalid filter is an error, never silently replaced), where logs go (the journal with
//! native fields under systemd, otherwise stderr, with ANSI colour only on a terminal and
//! never with `NO_COLOR` set), and the D-Bus object that reads and changes the filter at run
//! time, as systemd's own services do (`systemctl service-log-level chessclockd debug`).
//! Who may change it is the bus policy's business (root and the operators' group), not this
//! module's.

use std::io::IsTerminal;

use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::prelude::*;
use tracing_subscriber::{EnvFilter, Registry, reload};
use zbus::fdo;
use zbus::interface;

pub use chessclock_api::names::LOG_CONTROL_PATH;
/// The filter when nothing else is given.
pub const DEFAULT_FILTER: &str = "info";

/// A program that logs through this module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Program {
    /// Its journal `SYSLOG_IDENTIFIER` (the binary's name).
    pub identifier: &'static str,
    /// Its own variable for the start-up filter (`CHESSCLOCKD_LOG`).
    pub env: &'static str,
    /// Directives that messages give as an example (`info,chessclockd::device=debug`).
    pub example: &'static str,
}

/// Where log lines go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogTarget {
    /// The systemd journal (native fields).
    Journal,
    /// Standard error.
    Console,
}

impl LogTarget {
    /// The name LogControl1 uses.
    pub fn name(self) -> &'static str {
        match self {
            LogTarget::Journal => "journal",
            LogTarget::Console => "console",
        }
    }
}

/// Whether console lines get ANSI colour: only on a terminal, and not when `NO_COLOR` is set
/// to anything but the empty string (https://no-color.org).
pub fn use_colour(terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    terminal && no_color.is_none_or(|v| v.is_empty())
}

impl Program {
    /// Parse a level or filter as an operator gives it: a syslog level as LogControl1 uses
    /// (`emerg` … `debug`), a tracing level (`error` … `trace`, `off`), or tracing directives such
    /// as `info,chessclockd::device=debug`. `source` names where it came from, for the message.
    pub fn parse_filter(&self, spec: &str, source: &str) -> Result<EnvFilter, String> {
        let example = self.example;
        let spec = spec.trim();
        let directives = match spec {
            "emerg" | "alert" | "crit" | "err" => "error",
            "warning" => "warn",
            "notice" => "info",
            "" => {
                return Err(format!(
                    "{source}: the log filter is empty; use a level (err, warning, info, debug, \
                 trace) or directives such as {example}"
                ));
            }
            other => other,
        };
        // tracing reads a bare word as a target name (all its levels), so a misspelt level such
        // as "debgu" would be accepted and log nothing new: a directive is a level or has an '='.
        const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];
        if let Some(bad) = directives
            .split(',')
            .map(str::trim)
            .find(|d| !d.contains('=') && !LEVELS.contains(&d.to_ascii_lowercase().as_str()))
        {
            let within = if bad == spec {
                String::new()
            } else {
                format!(" in {spec:?}")
            };
            return Err(format!(
                "{source}: {bad:?}{within} is neither a level nor TARGET=LEVEL; use a level \
             (err, warning, info, debug, trace) or directives such as {example}"
            ));
        }
        EnvFilter::builder()
        .with_default_directive(LevelFilter::ERROR.into())
        .parse(directives)
        .map_err(|e| {
            format!(
                "{source}: {spec:?} is not a valid log filter ({e}); use a level (err, warning, \
                 info, debug, trace) or directives such as {example}"
            )
        })
    }

    /// The start-up filter: `flag` (named `--log-level` in messages), else the program's
    /// variable, else `RUST_LOG`, else `fallback` (`(filter, where it came from)`); the first
    /// given wins.
    pub fn startup_filter(
        &self,
        flag: Option<&str>,
        fallback: (&str, &str),
    ) -> Result<EnvFilter, String> {
        if let Some(spec) = flag {
            return self.parse_filter(spec, "--log-level");
        }
        for var in [self.env, "RUST_LOG"] {
            if let Some(value) = std::env::var_os(var) {
                let value = value
                    .into_string()
                    .map_err(|_| format!("{var}: the log filter is not valid UTF-8"))?;
                return self.parse_filter(&value, var);
            }
        }
        self.parse_filter(fallback.0, fallback.1)
    }

    /// Install the global subscriber with `filter`; the returned control changes it later.
    pub fn init(&self, filter: EnvFilter) -> Result<LogControl, String> {
        let level = syslog_level(&filter);
        let (filter, handle) = reload::Layer::new(filter);
        let registry = tracing_subscriber::registry().with(filter);
        // Under systemd (JOURNAL_STREAM set) log natively to the journal; otherwise to stderr.
        let journald = std::env::var_os("JOURNAL_STREAM")
            .is_some()
            .then(tracing_journald::layer)
            .and_then(Result::ok);
        let target = if let Some(journald) = journald {
            registry
                .with(journald.with_syslog_identifier(self.identifier.to_owned()))
                .try_init()
                .map_err(|e| format!("cannot set up logging: {e}"))?;
            LogTarget::Journal
        } else {
            let ansi = use_colour(
                std::io::stderr().is_terminal(),
                std::env::var_os("NO_COLOR").as_deref(),
            );
            registry
                .with(
                    tracing_subscriber::fmt::layer()
                        .with_writer(std::io::stderr)
                        .with_ansi(ansi),
                )
                .try_init()
                .map_err(|e| format!("cannot set up logging: {e}"))?;
            LogTarget::Console
        };
        Ok(LogControl {
            handle,
            target,
            level,
            program: *self,
        })
    }
}

/// The syslog level name (as LogControl1 reports it) of the most verbose level `filter` lets
/// through; tracing's `trace` has no syslog name and reads as `debug`.
pub fn syslog_level(filter: &EnvFilter) -> &'static str {
    match filter.max_level_hint() {
        Some(LevelFilter::OFF) => "emerg",
        Some(LevelFilter::ERROR) => "err",
        Some(LevelFilter::WARN) => "warning",
        Some(LevelFilter::INFO) => "info",
        _ => "debug",
    }
}

/// Changes the installed filter; served on the bus as `org.freedesktop.LogControl1`.
#[derive(Debug, Clone)]
pub struct LogControl {
    handle: reload::Handle<EnvFilter, Registry>,
    target: LogTarget,
    level: &'static str,
    program: Program,
}

impl LogControl {
    /// Replace the filter; returns its syslog level name.
    pub fn set(&mut self, spec: &str) -> Result<&'static str, String> {
        let filter = self.program.parse_filter(spec, "LogLevel")?;
        let level = syslog_level(&filter);
        self.handle
            .reload(filter)
            .map_err(|e| format!("cannot change the log filter: {e}"))?;
        self.level = level;
        tracing::info!("log level set to {spec}");
        Ok(level)
    }

    /// Where logs go.
    pub fn target(&self) -> LogTarget {
        self.target
    }
}

#[interface(name = "org.freedesktop.LogControl1")]
impl LogControl {
    /// The most verbose syslog level logged (emerg, alert, crit, err, warning, notice, info,
    /// debug). Setting it also accepts tracing levels and directives
    /// (info,chessclockd::device=debug). Root and the operators' group may set it (bus policy).
    #[zbus(property)]
    fn log_level(&self) -> String {
        self.level.to_owned()
    }

    #[zbus(property)]
    fn set_log_level(&mut self, level: String) -> fdo::Result<()> {
        self.set(&level)
            .map(|_| ())
            .map_err(fdo::Error::InvalidArgs)
    }

    /// Where logs go: "journal" under systemd, "console" (stderr) otherwise. Chosen at start.
    #[zbus(property)]
    fn log_target(&self) -> String {
        self.target.name().to_owned()
    }

    #[zbus(property)]
    fn set_log_target(&mut self, target: String) -> fdo::Result<()> {
        if target == self.target.name() {
            return Ok(());
        }
        Err(fdo::Error::NotSupported(format!(
            "the log target is chosen at start (journal under systemd, console otherwise); \
             it is {} and cannot be changed to {target:?} at run time",
            self.target.name()
        )))
    }

    /// The journal's SYSLOG_IDENTIFIER of the program's lines.
    #[zbus(property(emits_changed_signal = "const"))]
    fn syslog_identifier(&self) -> String {
        self.program.identifier.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAEMON: Program = Program {
        identifier: "chessclockd",
        env: "CHESSCLOCKD_LOG",
        example: "info,chessclockd::device=debug",
    };

    fn parse_filter(spec: &str, source: &str) -> Result<EnvFilter, String> {
        DAEMON.parse_filter(spec, source)
    }

    #[test]
    fn colour_only_on_a_terminal_without_no_color() {
        use std::ffi::OsStr;
        assert!(use_colour(true, None));
        assert!(use_colour(true, Some(OsStr::new(""))), "empty means unset");
        assert!(!use_colour(true, Some(OsStr::new("1"))));
        assert!(!use_colour(false, None));
        assert!(!use_colour(false, Some(OsStr::new("1"))));
    }

    #[test]
    fn syslog_and_tracing_levels_and_directives_parse() {
        let cases = [
            ("err", "err"),
            ("crit", "err"),
            ("warning", "warning"),
            ("warn", "warning"),
            ("notice", "info"),
            ("info", "info"),
            ("debug", "debug"),
            ("trace", "debug"),
            ("off", "emerg"),
            ("warn,chessclockd::device=debug", "debug"),
        ];
        for (spec, level) in cases {
            let filter = parse_filter(spec, "test").unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert_eq!(syslog_level(&filter), level, "{spec}");
        }
    }

    #[test]
    fn bad_filters_are_errors_that_name_their_source() {
        for spec in [
            "loud",
            "debgu",
            "chessclockd=verbose",
            "",
            "  ",
            "info,",
            "x=debug[y",
        ] {
            let err = parse_filter(spec, "CHESSCLOCKD_LOG").expect_err(spec);
            assert!(err.starts_with("CHESSCLOCKD_LOG: "), "{err}");
            assert!(err.contains("debug"), "says what to use: {err}");
        }
    }
}
