//! The bridge's MQTT output against a real mosquitto broker (Debian's `mosquitto`, started
//! here on a free local port), read back with `mosquitto_sub`: retained state per clock (the
//! status JSON), events, `online` and the last will `offline`; and `chessclockctl fleet`
//! listing the boards of two daemons through one broker. In CI a missing broker fails.

use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chessclock_tests::bridge::{Bridge, free_port, have, stable};
use chessclock_tests::e2e::daemon_with;
use chessclock_tests::json::s;
use chessclock_tests::rig::{Collector, Daemon, Spawned, WAIT, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use serde_json::Value;

/// A private mosquitto, killed on drop.
pub(crate) struct Broker {
    child: Child,
    pub(crate) port: u16,
}

impl Broker {
    /// An anonymous broker on a plain listener.
    fn start(exe: &Path, dir: &TempDir) -> Result<Broker> {
        Broker::start_with(exe, dir, "allow_anonymous true\n")
    }

    /// A broker whose config is its listener on a free port followed by `settings`.
    pub(crate) fn start_with(exe: &Path, dir: &TempDir, settings: &str) -> Result<Broker> {
        let port = free_port()?;
        let conf = dir.path().join("mosquitto.conf");
        std::fs::write(
            &conf,
            format!("listener {port} 127.0.0.1\n{settings}persistence false\n"),
        )?;
        let child = Command::new(exe)
            .arg("-c")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("cannot start mosquitto")?;
        let mut b = Broker { child, port };
        let deadline = Instant::now() + WAIT;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(st)) = b.child.try_wait() {
                bail!("mosquitto exited: {st}");
            }
            if Instant::now() > deadline {
                bail!("mosquitto does not listen on {port}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(b)
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `mosquitto_sub -v` on `topic`, its lines (`TOPIC PAYLOAD`) collected; killed on drop.
pub(crate) struct Sub {
    child: Child,
    lines: Collector<String>,
}

impl Sub {
    fn start(exe: &Path, port: u16, topic: &str) -> Result<Sub> {
        Sub::start_with(exe, port, topic, &[])
    }

    /// `mosquitto_sub` with `extra` arguments (TLS, user and password).
    pub(crate) fn start_with(exe: &Path, port: u16, topic: &str, extra: &[&str]) -> Result<Sub> {
        let mut child = Command::new(exe)
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &port.to_string(),
                "-v",
                "-t",
                topic,
            ])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .context("cannot start mosquitto_sub")?;
        let out = child.stdout.take().context("stdout")?;
        Ok(Sub {
            child,
            lines: Collector::lines(out, "mosquitto_sub", None),
        })
    }

    /// The payload of the first message on `topic` from line `from` on that `pred` accepts.
    pub(crate) fn wait(
        &mut self,
        from: usize,
        topic: &str,
        pred: impl Fn(&str) -> bool,
    ) -> Result<(usize, String)> {
        let prefix = format!("{topic} ");
        let (i, line) = self.lines.wait_for(from, WAIT, topic, |l| {
            l.strip_prefix(&prefix).is_some_and(&pred)
        })?;
        Ok((i, line[prefix.len()..].to_owned()))
    }
}

impl Drop for Sub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn state_is_retained_events_are_published_and_the_will_says_offline() -> Result<()> {
    let (Some(mosquitto), Some(sub_exe)) = (
        have("mosquitto", "mosquitto")?,
        have("mosquitto_sub", "mosquitto-clients")?,
    ) else {
        return Ok(());
    };
    let dir = TempDir::new("bridge-mqtt")?;
    let broker = Broker::start(&mosquitto, &dir)?;
    let bus = PrivateBus::start_session()?;
    let d = Daemon::spawn(bus.address(), &write_config(dir.path(), &[], "")?, &[])?;
    anyhow::ensure!(d.ctl(&["add-virtual", "alpha"]).status.success());
    d.wait_status("0", WAIT, "a ready clock", |v| {
        s(v, "/device_state") == "ready" && !s(v, "/board_serial").is_empty()
    })?;
    let url = format!("mqtt://127.0.0.1:{}", broker.port);
    let mut bridge = Bridge::spawn(bus.address(), &["--mqtt", &url, "--host", "rig"])?;
    bridge.wait_log(0, "connected to MQTT broker")?;

    // Subscribed after the bridge published: what arrives is retained.
    let mut sub = Sub::start(&sub_exe, broker.port, "chessclockd/rig/#")?;
    sub.wait(0, "chessclockd/rig/status", |p| p == "online")?;
    let (_, state) = sub.wait(0, "chessclockd/rig/clock/0/state", |_| true)?;
    let state: Value = serde_json::from_str(&state)?;
    let cli = d.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(
        stable(&state),
        stable(&cli),
        "the retained state is the status JSON"
    );

    let mark = sub.lines.mark();
    anyhow::ensure!(d.ctl(&["start", "0"]).status.success());
    anyhow::ensure!(d.ctl(&["press", "0", "white"]).status.success());
    let (_, ev) = sub.wait(mark, "chessclockd/rig/clock/0/event", |p| {
        p.contains("\"pressed\"")
    })?;
    let ev: Value = serde_json::from_str(&ev)?;
    assert_eq!(s(&ev, "/side"), "white");
    let (_, st) = sub.wait(mark, "chessclockd/rig/clock/0/state", |p| {
        p.contains("\"running\":\"black\"")
    })?;
    let st: Value = serde_json::from_str(&st)?;
    assert_eq!(st["moves"]["white"], 1);

    // A new subscriber gets the latest state, retained.
    let mut late = Sub::start(&sub_exe, broker.port, "chessclockd/rig/clock/0/state")?;
    let (_, kept) = late.wait(0, "chessclockd/rig/clock/0/state", |_| true)?;
    assert!(kept.contains("\"running\":\"black\""), "{kept}");

    // The bridge dies: the broker publishes its will.
    let mark = sub.lines.mark();
    bridge.kill();
    sub.wait(mark, "chessclockd/rig/status", |p| p == "offline")?;
    Ok(())
}

/// A daemon on its own private bus with virtual clocks named `names`, each ready.
fn machine(dir: &TempDir, names: &[&str]) -> Result<(PrivateBus, Daemon)> {
    let bus = PrivateBus::start_session()?;
    let d = daemon_with(&bus, dir, names)?;
    Ok((bus, d))
}

/// `(host, name, online)` of every board in a `fleet --json` frame.
fn boards(frame: &Value) -> Vec<(String, String, bool)> {
    frame
        .as_array()
        .map(|a| {
            a.iter()
                .map(|b| {
                    (
                        s(b, "/host").to_owned(),
                        s(b, "/name").to_owned(),
                        b["online"] == Value::Bool(true),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn fleet_lists_the_clocks_of_two_daemons_through_one_broker() -> Result<()> {
    let (Some(mosquitto), Some(_)) = (
        have("mosquitto", "mosquitto")?,
        have("mosquitto_sub", "mosquitto-clients")?,
    ) else {
        return Ok(());
    };
    let dir = TempDir::new("bridge-fleet")?;
    let broker = Broker::start(&mosquitto, &dir)?;
    let url = format!("mqtt://127.0.0.1:{}", broker.port);
    let (bus_a, _da) = machine(&TempDir::new("fleet-a")?, &["a-one"])?;
    let (bus_b, db) = machine(&TempDir::new("fleet-b")?, &["b-one", "b-two"])?;
    let _bridge_a = Bridge::spawn(bus_a.address(), &["--mqtt", &url, "--host", "pi-a"])?;
    let mut bridge_b = Bridge::spawn(bus_b.address(), &["--mqtt", &url, "--host", "pi-b"])?;

    let mut fleet = Spawned::ctl(bus_a.address(), &["fleet", "--mqtt", &url, "--json"])?;
    let all_three = |f: &Value| {
        let b = boards(f);
        b.len() == 3 && b.iter().all(|x| x.2)
    };
    let (i, frame) = fleet.wait_json(0, "the boards of both machines", all_three)?;
    let mut got = boards(&frame);
    got.sort();
    let want: Vec<(String, String, bool)> =
        [("pi-a", "a-one"), ("pi-b", "b-one"), ("pi-b", "b-two")]
            .iter()
            .map(|(h, n)| (h.to_string(), n.to_string(), true))
            .collect();
    assert_eq!(got, want, "{frame}");
    // `--once`: what the broker holds, printed once, for scripts.
    let once = db.ctl_json(&["fleet", "--mqtt", &url, "--once", "--json"])?;
    let mut got_once = boards(&once);
    got_once.sort();
    assert_eq!(got_once, want, "{once}");
    let table = db.ctl(&["fleet", "--mqtt", &url, "--once"]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(table.status.success(), "{table:?}");
    assert!(text.contains("b-two") && !text.contains('\x1b'), "{text}");
    let closed = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let away = db.ctl(&[
        "fleet",
        "--mqtt",
        &format!("mqtt://127.0.0.1:{closed}"),
        "--once",
    ]);
    assert_eq!(away.status.code(), Some(3), "{away:?}");
    assert!(
        String::from_utf8_lossy(&away.stderr).contains("cannot reach the MQTT broker"),
        "{away:?}"
    );
    let b_two = frame
        .as_array()
        .and_then(|a| a.iter().find(|b| s(b, "/name") == "b-two"))
        .context("b-two")?;
    let mut clock = b_two.clone();
    if let Some(o) = clock.as_object_mut() {
        o.remove("host");
        o.remove("online");
        assert_eq!(o.remove("stale"), Some(Value::Bool(false)), "{b_two}");
    }
    assert_eq!(
        stable(&clock),
        stable(&db.ctl_json(&["status", "1", "--json"])?),
        "a fleet board is the machine's status JSON"
    );

    // A machine's bridge goes away: its boards show offline (the last will).
    bridge_b.kill();
    fleet.wait_json(i, "pi-b offline", |f| {
        let b = boards(f);
        b.len() == 3
            && b.iter()
                .all(|(h, _, online)| *online == (h.as_str() == "pi-a"))
    })?;
    Ok(())
}
