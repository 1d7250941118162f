//! What chessclockd and chessclock-bridge share as system services, so that both behave as
//! operators of gpsd, mosquitto or NetworkManager expect:
//!
//! - [`logging`]: the log filter, where logs go (journald fields under systemd, stderr with
//!   colour only on a terminal and without `NO_COLOR`), and `org.freedesktop.LogControl1`.
//! - [`conffile`]: a configuration file and its drop-in directory (`<file>.d/*.toml`, read in
//!   lexical order), and which file and line set a key, for error messages.
//! - [`locate`]: positions in TOML text (syntax errors, the line of a key).
//! - [`man`]: a daemon's manual page from its command line (`--man`).
//!
//! It must not know either program's settings: each binary owns its keys and their checks.
//! The CLI does not depend on it (it keeps the CLI free of journald and subscriber code).

pub mod conffile;
pub mod locate;
pub mod logging;
pub mod man;
