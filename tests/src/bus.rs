//! Private `dbus-daemon` instances for tests: a permissive session bus, and a system-like
//! bus that enforces the stock system policy plus the project's real policy files
//! (`dbus/*.conf`, pulled in with `<includedir>`).
//!
//! Owns the bus configuration text and the daemon's lifetime (killed on drop). It must not
//! know the project's policy rules: those come only from the included directory.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::tempdir::TempDir;

/// A running private `dbus-daemon`; killed when dropped.
#[derive(Debug)]
pub struct PrivateBus {
    child: Child,
    address: String,
    log: PathBuf,
    dir: TempDir,
}

/// Escape text for an XML element body.
fn xml_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The shape of the stock system bus policy (`/usr/share/dbus-1/system.conf`): nobody may
/// own names or send method calls unless a policy file allows it; signals and requested
/// replies flow; the bus driver itself is reachable.
fn system_like_config(socket: &Path, policy_dir: &Path) -> String {
    bus_config(
        "system",
        socket,
        &format!(
            r#"  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Peer"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus" send_member="UpdateActivationEnvironment"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Debug.Stats"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.systemd1.Activator"/>
  </policy>
  <policy user="root">
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.systemd1.Activator"/>
  </policy>
  <includedir>{policy_dir}</includedir>
"#,
            policy_dir = xml_text(&policy_dir.display().to_string()),
        ),
    )
}

/// A permissive bus: anyone may own any name and call anything.
fn session_config(socket: &Path) -> String {
    bus_config(
        "session",
        socket,
        r#"  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
"#,
    )
}

/// A `dbus-daemon` configuration of bus `kind` listening on `socket`, with `policy` after
/// its authentication.
fn bus_config(kind: &str, socket: &Path, policy: &str) -> String {
    format!(
        r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>{kind}</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
{policy}</busconfig>
"#,
        socket = xml_text(&socket.display().to_string()),
    )
}

impl PrivateBus {
    /// Start a bus that enforces the system bus defaults plus every `*.conf` in `policy_dir`
    /// (normally the project's `dbus/` directory). Fails if `dbus-daemon` rejects the
    /// configuration, e.g. because a policy file is malformed.
    pub fn start_system_like(policy_dir: &Path) -> Result<PrivateBus> {
        let dir = TempDir::new("sysbus").context("cannot create a temp dir for the bus")?;
        let socket = dir.path().join("system_bus_socket");
        let policy_dir = policy_dir
            .canonicalize()
            .with_context(|| format!("policy directory {} does not exist", policy_dir.display()))?;
        let bus = Self::start(dir, system_like_config(&socket, &policy_dir))?;
        // dbus-daemon skips an included file it cannot parse and only logs it (before it
        // prints its address): treat that as fatal, or a broken policy would go unnoticed.
        let log = bus.log();
        if let Some(line) = log.lines().find(|l| l.contains("Encountered error")) {
            bail!(
                "dbus-daemon rejected a policy file in {}: {}",
                policy_dir.display(),
                line.trim()
            );
        }
        Ok(bus)
    }

    /// Start a permissive session-like bus for simple tests.
    pub fn start_session() -> Result<PrivateBus> {
        let dir = TempDir::new("sessionbus").context("cannot create a temp dir for the bus")?;
        let socket = dir.path().join("session_bus_socket");
        Self::start(dir, session_config(&socket))
    }

    fn start(dir: TempDir, config: String) -> Result<PrivateBus> {
        let conf = dir.path().join("bus.conf");
        std::fs::write(&conf, config)
            .with_context(|| format!("cannot write {}", conf.display()))?;
        let log = dir.path().join("dbus-daemon.log");
        let log_file = std::fs::File::create(&log)
            .with_context(|| format!("cannot create {}", log.display()))?;
        let mut child = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", conf.display()))
            .args(["--nofork", "--nosyslog", "--print-address"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .context("cannot start dbus-daemon; install the `dbus-daemon` package (scripts/test.sh does)")?;
        let mut line = String::new();
        if let Some(out) = child.stdout.take() {
            // dbus-daemon prints the address once it listens, or exits on a bad config.
            BufReader::new(out)
                .read_line(&mut line)
                .context("cannot read dbus-daemon's address")?;
        }
        let address = line.trim().to_owned();
        if address.is_empty() {
            let _ = child.kill();
            let _ = child.wait();
            let why = std::fs::read_to_string(&log).unwrap_or_default();
            bail!(
                "dbus-daemon did not start with {}: {}",
                conf.display(),
                why.trim()
            );
        }
        Ok(PrivateBus {
            child,
            address,
            log,
            dir,
        })
    }

    /// The bus address, for `DBUS_SYSTEM_BUS_ADDRESS` / `DBUS_SESSION_BUS_ADDRESS` or
    /// `zbus::connection::Builder::address`.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// What `dbus-daemon` wrote to stderr so far (it logs each policy rejection with the
    /// matched rule).
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The bus's scratch directory (socket, config, log).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// A `dbus-send --system --print-reply` command aimed at this bus; add `--dest=…`, the
    /// path, `interface.Member` and arguments. Pass a [`crate::TestUser`]'s command to run
    /// it as that user, or `None` to run as the current user.
    pub fn dbus_send(&self, as_user: Option<&crate::TestUser>) -> Command {
        let mut cmd = match as_user {
            Some(user) => user.command("dbus-send"),
            None => Command::new("dbus-send"),
        };
        cmd.env("DBUS_SYSTEM_BUS_ADDRESS", &self.address)
            .args(["--system", "--print-reply"]);
        cmd
    }
}

impl Drop for PrivateBus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
