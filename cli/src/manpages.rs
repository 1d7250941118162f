//! `chessclockctl man [--dir DIR]`: the manual pages, generated from the command-line
//! definition as git and nmcli ship theirs: `chessclockctl(1)` and one page per subcommand
//! (`chessclockctl-status(1)`, `chessclockctl-timecontrol-parse(1)`, ...), each with its
//! options, EXIT STATUS, FILES, ENVIRONMENT, EXAMPLES and SEE ALSO.
//!
//! Owns the pages' extra sections (their examples are `manpages/examples.rs`'s); the options
//! and descriptions are clap's (the definitions in `main.rs` and the modules are the one source).

mod examples;

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Command;

use examples::examples;

const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Success."),
    (
        "1",
        "The requested action failed (the daemon refused it, or it went wrong); the message says why.",
    ),
    ("2", "Usage: a bad argument or option."),
    (
        "3",
        "The daemon is not running or the bus cannot be reached.",
    ),
];

const FILES: &[(&str, &str)] = &[
    (
        "/etc/chessclockd/chessclockd.toml",
        "the daemon's configuration (chessclockd.toml(5)).",
    ),
    (
        "/var/lib/chessclockd/",
        "the daemon's state: journals, live PGN, finished games.",
    ),
    (
        "/var/lib/chessclockd/games/",
        "finished games (one PGN and one JSON each), read by chessclockctl games.",
    ),
    (
        "/usr/share/dbus-1/system.d/org.chessclockd.ChessClock1.conf",
        "who may read and who may control the clocks (group chessclock).",
    ),
];

const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "DBUS_SYSTEM_BUS_ADDRESS",
        "the system bus to use instead of the default socket.",
    ),
    (
        "DBUS_SESSION_BUS_ADDRESS",
        "the session bus, with --session.",
    ),
    ("NO_COLOR", "set to anything: no colour in the output."),
];

/// Every page: `chessclockctl` and each visible subcommand, recursively, with its page name.
fn pages(cmd: &Command) -> Vec<(String, Command)> {
    fn walk(cmd: &Command, path: &str, out: &mut Vec<(String, Command)>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let name = if path.is_empty() {
                sub.get_name().to_owned()
            } else {
                format!("{path}-{}", sub.get_name())
            };
            out.push((name.clone(), sub.clone()));
            walk(sub, &name, out);
        }
    }
    let mut cmd = cmd.clone().disable_help_subcommand(true);
    cmd.build();
    let mut out = vec![("chessclockctl".to_owned(), cmd.clone())];
    walk(&cmd, "", &mut out);
    out
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\e").replace('-', "\\-")
}

fn section(w: &mut dyn Write, title: &str, rows: &[(&str, &str)]) -> std::io::Result<()> {
    writeln!(w, ".SH {title}")?;
    for (term, text) in rows {
        writeln!(w, ".TP\n\\fB{}\\fR\n{}", escape(term), escape(text))?;
    }
    Ok(())
}

/// Render page `name` of `cmd`: clap's sections, then ours.
fn render(name: &str, cmd: Command, w: &mut dyn Write) -> std::io::Result<()> {
    let title = if name == "chessclockctl" {
        name.to_owned()
    } else {
        format!("chessclockctl-{name}")
    };
    let man = clap_mangen::Man::new(cmd.clone().display_name(title.clone())).manual("chessclockd");
    man.render_title(w)?;
    man.render_name_section(w)?;
    man.render_synopsis_section(w)?;
    man.render_description_section(w)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(w)?;
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(w)?;
    }
    section(w, "EXIT STATUS", EXIT_STATUS)?;
    section(w, "FILES", FILES)?;
    section(w, "ENVIRONMENT", ENVIRONMENT)?;
    section(w, "EXAMPLES", examples(name).unwrap_or_default())?;
    writeln!(w, ".SH SEE ALSO")?;
    let mut see = vec![
        "chessclockd(8)".to_owned(),
        "chessclockd.toml(5)".to_owned(),
    ];
    if name != "chessclockctl" {
        see.insert(0, "chessclockctl(1)".to_owned());
    }
    writeln!(w, "{}", escape(&see.join(", ")))?;
    man.render_version_section(w)
}

/// Print the main page, or write every page into `dir`; returns the files written.
pub(crate) fn run(cmd: Command, dir: Option<&Path>) -> std::io::Result<Vec<PathBuf>> {
    let all = pages(&cmd);
    let Some(dir) = dir else {
        render("chessclockctl", cmd, &mut std::io::stdout().lock())?;
        return Ok(Vec::new());
    };
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for (name, cmd) in all {
        let file = if name == "chessclockctl" {
            dir.join("chessclockctl.1")
        } else {
            dir.join(format!("chessclockctl-{name}.1"))
        };
        let mut out = std::io::BufWriter::new(std::fs::File::create(&file)?);
        render(&name, cmd, &mut out)?;
        out.flush()?;
        written.push(file);
    }
    Ok(written)
}

#[cfg(test)]
mod tests;
