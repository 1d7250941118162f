//! Every member of the D-Bus API (docs/dbus-api.md) and the CLI verbs built on them, through a
//! real bus: the real `chessclockd` on a private dbus-daemon, emulated boards from the real
//! `chessclock-emu` on ptys, a zbus client recording every signal the daemon emits, and the
//! real `chessclockctl`.
//!
//! Each test asserts the member's real effect: what the emulated clock received, what the
//! engine's snapshot says, which signals came. Waits poll with a deadline; no assertion is
//! about how long something took.

use std::collections::HashMap;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use chessclock_tests::rig::{Daemon, Emu, is_set_and_run, workspace_bin, write_config};
use chessclock_tests::{PrivateBus, TempDir};
use chessclockd::bus::names::{CLOCK_INTERFACE, ERROR_PREFIX, MANAGER_PATH, clock_path};
use chessclockd::bus::proxy::{ClockProxy, ManagerProxy};
use chessclockd::bus::variant::{dict_to_object, variant_to_json};
use serde_json::Value;
use zbus::{Message, MessageStream, OwnedObjectPath, OwnedVariant};

const WAIT: Duration = Duration::from_secs(10);

// ---- the rig ---------------------------------------------------------------------------------

fn emu(args: &[&str]) -> Result<Emu> {
    Emu::spawn(env!("CARGO_BIN_EXE_chessclock-emu").as_ref(), args)
}

/// A zbus client on the private bus that records every signal under the manager's path.
struct Client {
    conn: zbus::Connection,
    seen: Arc<Mutex<Vec<Message>>>,
    // Last: the runtime goes after the connection that lives on it.
    rt: tokio::runtime::Runtime,
}

impl Client {
    fn connect(address: &str) -> Result<Client> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let conn = rt.block_on(async {
            let conn = zbus::connection::Builder::address(address).build().await?;
            let rule = zbus::MatchRule::builder()
                .msg_type(zbus::message::Type::Signal)
                .path_namespace(MANAGER_PATH)
                .build()?;
            // The match is in place once this returns: nothing emitted later is missed.
            let mut stream =
                MessageStream::for_match_rule(rule, &conn, std::num::NonZeroUsize::new(4096))
                    .await?;
            let sink = Arc::clone(&seen);
            tokio::spawn(async move {
                while let Some(Ok(msg)) = std::future::poll_fn(|cx| {
                    zbus::export::futures_core::Stream::poll_next(
                        std::pin::Pin::new(&mut stream),
                        cx,
                    )
                })
                .await
                {
                    sink.lock().unwrap_or_else(|e| e.into_inner()).push(msg);
                }
            });
            anyhow::Ok(conn)
        })?;
        Ok(Client { conn, seen, rt })
    }

    fn run<F: Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }

    fn manager(&self) -> Result<ManagerProxy<'static>> {
        Ok(self.run(
            ManagerProxy::builder(&self.conn)
                .cache_properties(zbus::proxy::CacheProperties::No)
                .build(),
        )?)
    }

    fn clock(&self, path: &str) -> Result<ClockProxy<'static>> {
        Ok(self.run(
            ClockProxy::builder(&self.conn)
                .path(path.to_owned())
                .cache_properties(zbus::proxy::CacheProperties::No)
                .build(),
        )?)
    }

    /// `org.freedesktop.DBus.ObjectManager.GetManagedObjects` on the manager.
    fn managed_objects(&self) -> Result<Vec<String>> {
        let om = self.run(
            zbus::fdo::ObjectManagerProxy::builder(&self.conn)
                .destination(chessclockd::bus::names::BUS_NAME)
                .path(MANAGER_PATH)
                .build(),
        )?;
        let objects = self.run(om.get_managed_objects())?;
        let mut paths: Vec<String> = objects
            .into_iter()
            .filter(|(_, ifaces)| ifaces.keys().any(|i| i.as_str() == CLOCK_INTERFACE))
            .map(|(p, _)| p.as_str().to_owned())
            .collect();
        paths.sort();
        Ok(paths)
    }

    fn snapshot(&self, clock: &ClockProxy<'_>) -> Result<Value> {
        let dict = self.run(clock.get_snapshot())?;
        Ok(Value::Object(dict_to_object(&dict)))
    }

    /// Index of the next signal (for `wait_signal(from, ..)`).
    fn mark(&self) -> usize {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Signals received from `from` on.
    fn signals(&self, from: usize) -> Vec<Message> {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.get(from..).unwrap_or_default().to_vec()
    }

    /// The first signal from index `from` on that `pred` accepts.
    fn wait_signal(
        &self,
        from: usize,
        what: &str,
        pred: impl Fn(&Message) -> bool,
    ) -> Result<(usize, Message)> {
        let deadline = Instant::now() + WAIT;
        loop {
            let seen = self.signals(from);
            if let Some((i, m)) = seen.iter().enumerate().find(|(_, m)| pred(m)) {
                return Ok((from + i, m.clone()));
            }
            if Instant::now() > deadline {
                let names: Vec<String> = seen.iter().map(describe).collect();
                bail!("timed out waiting for {what}; signals since the mark: {names:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// `path member` of a signal, for failure messages.
fn describe(m: &Message) -> String {
    let h = m.header();
    format!(
        "{} {}",
        h.path().map(|p| p.as_str()).unwrap_or(""),
        h.member().map(|p| p.as_str()).unwrap_or("")
    )
}

fn is(m: &Message, path: &str, member: &str) -> bool {
    let h = m.header();
    h.path().is_some_and(|p| p.as_str() == path) && h.member().is_some_and(|n| n.as_str() == member)
}

fn state_changed(m: &Message) -> Option<(String, String, String)> {
    m.body().deserialize().ok()
}

fn pressed(m: &Message) -> Option<(String, u32, u64, u64, u64)> {
    m.body().deserialize().ok()
}

fn two_strings(m: &Message) -> Option<(String, String)> {
    m.body().deserialize().ok()
}

type Changed = (String, HashMap<String, OwnedVariant>, Vec<String>);

/// The names and values of a `PropertiesChanged` signal.
fn props_changed(m: &Message) -> Option<(String, serde_json::Map<String, Value>)> {
    let (iface, changed, _invalidated): Changed = m.body().deserialize().ok()?;
    let values = changed
        .iter()
        .map(|(k, v)| (k.clone(), variant_to_json(v)))
        .collect();
    Some((iface, values))
}

/// The name of the D-Bus error a call failed with (with a message); panics if it succeeded.
fn error_name<T: std::fmt::Debug>(r: zbus::Result<T>) -> String {
    match r {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(zbus::Error::MethodError(name, desc, _)) => {
            let desc = desc.unwrap_or_default();
            assert!(!desc.is_empty(), "{name} comes with a message");
            name.as_str().to_owned()
        }
        Err(zbus::Error::FDO(e)) => match *e {
            zbus::fdo::Error::UnknownObject(_) => "org.freedesktop.DBus.Error.UnknownObject".into(),
            other => format!("fdo: {other}"),
        },
        Err(e) => format!("other: {e}"),
    }
}

fn typed(name: &str) -> String {
    format!("{ERROR_PREFIX}.{name}")
}

/// Dropped in field order: the daemon goes before its board (no "board gone" noise).
struct Rig {
    client: Client,
    daemon: Daemon,
    emu: Emu,
    bus: PrivateBus,
    _dir: TempDir,
}

/// A daemon with one configured emulated board (clock 0) running `control`.
fn rig(control: &str) -> Result<Rig> {
    let dir = TempDir::new("bus-api")?;
    let bus = PrivateBus::start_session()?;
    let emu = emu(&[])?;
    let config = write_config(dir.path(), &[(&emu.path, control)], "")?;
    // Quiet logs: the signals and the emulator say what happened.
    let daemon = Daemon::spawn(
        bus.address(),
        &config,
        &[("CHESSCLOCKD_LOG", "chessclockd=warn")],
    )?;
    let client = Client::connect(bus.address())?;
    Ok(Rig {
        client,
        emu,
        daemon,
        bus,
        _dir: dir,
    })
}

impl Rig {
    fn clock0(&self) -> Result<ClockProxy<'static>> {
        self.client.clock(&clock_path(0))
    }

    fn ctl_ok(&self, args: &[&str]) -> String {
        let out = self.daemon.ctl(args);
        assert!(
            out.status.success(),
            "chessclockctl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Poll `GetSnapshot` until `pred` holds.
    fn wait_snapshot(
        &self,
        clock: &ClockProxy<'_>,
        what: &str,
        pred: impl Fn(&Value) -> bool,
    ) -> Result<Value> {
        let deadline = Instant::now() + WAIT;
        loop {
            let snap = self.client.snapshot(clock)?;
            if pred(&snap) {
                return Ok(snap);
            }
            if Instant::now() > deadline {
                bail!("timed out waiting for {what}; last snapshot: {snap}");
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    fn ready(&self, clock: &ClockProxy<'_>) -> Result<()> {
        let deadline = Instant::now() + WAIT;
        while self.client.run(clock.device_state())? != "ready" {
            if Instant::now() > deadline {
                bail!("the clock did not become ready");
            }
            std::thread::sleep(Duration::from_millis(30));
        }
        Ok(())
    }
}

fn s<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

fn u(v: &Value, ptr: &str) -> u64 {
    v.pointer(ptr)
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("no number at {ptr} in {v}"))
}

fn host_command<'a>(v: &'a Value, sub: &str) -> Option<&'a Value> {
    (v.get("event").and_then(Value::as_str) == Some("host_command")
        && v.pointer("/command/sub").and_then(Value::as_str) == Some(sub))
    .then(|| v.get("command"))
    .flatten()
}

// ---- Manager ---------------------------------------------------------------------------------

#[test]
fn attach_detach_clocks_and_the_object_manager() -> Result<()> {
    let r = rig("G/5 d/0")?;
    let c = &r.client;
    let mgr = c.manager()?;
    let c0 = clock_path(0);
    let paths =
        |v: Vec<OwnedObjectPath>| v.iter().map(|p| p.as_str().to_owned()).collect::<Vec<_>>();
    assert_eq!(paths(c.run(mgr.clocks())?), [c0.as_str()]);
    assert_eq!(c.managed_objects()?, [c0.as_str()]);

    // Attach a second emulated board: a new object, announced three ways.
    let emu2 = emu(&[])?;
    let mark = c.mark();
    let p1 = c.run(mgr.attach(&emu2.path))?;
    let c1 = clock_path(1);
    assert_eq!(p1.as_str(), c1);
    let (_, added) = c.wait_signal(mark, "InterfacesAdded", |m| {
        is(m, MANAGER_PATH, "InterfacesAdded")
    })?;
    let (obj, ifaces): (
        OwnedObjectPath,
        HashMap<String, HashMap<String, OwnedVariant>>,
    ) = added.body().deserialize()?;
    assert_eq!(obj.as_str(), c1);
    let props = ifaces
        .get(CLOCK_INTERFACE)
        .ok_or_else(|| anyhow!("InterfacesAdded without the Clock interface: {ifaces:?}"))?;
    assert_eq!(
        props.get("Port").map(|v| variant_to_json(v)),
        Some(Value::from(emu2.path.as_str())),
        "the added object's properties come along"
    );
    c.wait_signal(mark, "ClockAdded", |m| {
        is(m, MANAGER_PATH, "ClockAdded")
            && m.body()
                .deserialize::<OwnedObjectPath>()
                .is_ok_and(|p| p.as_str() == c1)
    })?;
    c.wait_signal(mark, "Clocks changed", |m| {
        is(m, MANAGER_PATH, "PropertiesChanged")
            && props_changed(m).is_some_and(|(_, v)| {
                v.get("Clocks") == Some(&serde_json::json!([c0.as_str(), c1.as_str()]))
            })
    })?;
    assert_eq!(paths(c.run(mgr.clocks())?), [c0.as_str(), c1.as_str()]);
    assert_eq!(c.managed_objects()?, [c0.as_str(), c1.as_str()]);
    let clock1 = c.clock(&c1)?;
    r.ready(&clock1)?;
    assert_eq!(c.run(clock1.port())?, emu2.path);
    assert_eq!(c.run(clock1.model())?, "DGT 3000");
    assert_eq!(c.run(clock1.index())?, 1);

    // The same port twice, a port that is not there, a path that is no clock.
    assert_eq!(
        error_name(c.run(mgr.attach(&emu2.path))),
        typed("AlreadyAttached")
    );
    assert_eq!(
        error_name(c.run(mgr.attach("/dev/chessclock-no-such-tty"))),
        typed("PortFailed")
    );
    let no_clock = zbus::ObjectPath::try_from(clock_path(99))?;
    assert_eq!(
        error_name(c.run(mgr.detach(&no_clock))),
        typed("NoSuchClock")
    );
    let manager_path = zbus::ObjectPath::try_from(MANAGER_PATH)?;
    assert_eq!(
        error_name(c.run(mgr.detach(&manager_path))),
        typed("NoSuchClock")
    );
    assert_eq!(
        error_name(c.run(c.clock(&clock_path(99))?.start("white"))),
        "org.freedesktop.DBus.Error.UnknownObject",
        "a clock object that does not exist"
    );

    // Detach: the object goes, announced three ways; the other clock stays.
    let mark = c.mark();
    c.run(mgr.detach(&zbus::ObjectPath::try_from(c1.as_str())?))?;
    let (_, removed) = c.wait_signal(mark, "InterfacesRemoved", |m| {
        is(m, MANAGER_PATH, "InterfacesRemoved")
    })?;
    let (obj, ifaces): (OwnedObjectPath, Vec<String>) = removed.body().deserialize()?;
    assert_eq!(obj.as_str(), c1);
    assert!(ifaces.iter().any(|i| i == CLOCK_INTERFACE), "{ifaces:?}");
    c.wait_signal(mark, "ClockRemoved", |m| {
        is(m, MANAGER_PATH, "ClockRemoved")
            && m.body()
                .deserialize::<OwnedObjectPath>()
                .is_ok_and(|p| p.as_str() == c1)
    })?;
    c.wait_signal(mark, "Clocks changed", |m| {
        is(m, MANAGER_PATH, "PropertiesChanged")
            && props_changed(m)
                .is_some_and(|(_, v)| v.get("Clocks") == Some(&serde_json::json!([c0.as_str()])))
    })?;
    assert_eq!(paths(c.run(mgr.clocks())?), [c0.as_str()]);
    assert_eq!(c.managed_objects()?, [c0.as_str()]);
    assert_eq!(
        error_name(c.run(clock1.game_state())),
        "org.freedesktop.DBus.Error.UnknownObject",
        "the detached object is gone"
    );
    assert_eq!(
        error_name(c.run(mgr.detach(&zbus::ObjectPath::try_from(c1.as_str())?))),
        typed("NoSuchClock")
    );

    // The same through the CLI: attach prints the new path (indices are not reused),
    // detach takes any clock name (here the tty path).
    let mark = c.mark();
    let out = r.ctl_ok(&["attach", &emu2.path]);
    let c2 = clock_path(2);
    assert_eq!(out.trim(), c2);
    c.wait_signal(mark, "InterfacesAdded for the CLI's attach", |m| {
        is(m, MANAGER_PATH, "InterfacesAdded")
            && m.body()
                .deserialize::<(
                    OwnedObjectPath,
                    HashMap<String, HashMap<String, OwnedVariant>>,
                )>()
                .is_ok_and(|(p, _)| p.as_str() == c2)
    })?;
    let list = r.daemon.ctl_json(&["list", "--json"])?;
    assert_eq!(list.as_array().map(Vec::len), Some(2), "{list}");
    // Hotplug's `attach --if-absent` of a port attached already is success; a plain attach
    // is the action's failure (exit 1).
    let again = r.daemon.ctl(&["attach", &emu2.path]);
    assert_eq!(again.status.code(), Some(1), "{again:?}");
    let again = r.daemon.ctl(&["attach", "--if-absent", &emu2.path]);
    assert!(again.status.success(), "{again:?}");
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already attached"),
        "{again:?}"
    );
    let list = r.daemon.ctl_json(&["list", "--json"])?;
    assert_eq!(
        list.as_array().map(Vec::len),
        Some(2),
        "nothing new: {list}"
    );
    let mark = c.mark();
    r.ctl_ok(&["detach", &emu2.path]);
    c.wait_signal(mark, "InterfacesRemoved for the CLI's detach", |m| {
        is(m, MANAGER_PATH, "InterfacesRemoved")
            && m.body()
                .deserialize::<(OwnedObjectPath, Vec<String>)>()
                .is_ok_and(|(p, _)| p.as_str() == c2)
    })?;
    assert_eq!(paths(c.run(mgr.clocks())?), [c0]);
    let out = r.daemon.ctl(&["detach", "2"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "detaching a detached clock fails"
    );
    Ok(())
}

// ---- Clock: the game -------------------------------------------------------------------------

/// The `StateChanged` signal of clock 0 from `old` to `new`.
fn state_change(m: &Message, old: &str, new: &str) -> bool {
    is(m, &clock_path(0), "StateChanged")
        && state_changed(m).is_some_and(|(o, n, _)| o == old && n == new)
}

/// A `PropertiesChanged` of clock 0 carrying `prop`.
fn prop_change(m: &Message, prop: &str) -> Option<Value> {
    if !is(m, &clock_path(0), "PropertiesChanged") {
        return None;
    }
    let (iface, values) = props_changed(m)?;
    (iface == CLOCK_INTERFACE)
        .then(|| values.get(prop).cloned())
        .flatten()
}

#[test]
fn start_press_pause_resume_signal_and_change_properties() -> Result<()> {
    let mut r = rig("G/5 d/0")?;
    let c = &r.client;
    let clock = r.clock0()?;
    r.ready(&clock)?;

    assert_eq!(
        error_name(c.run(clock.start("purple"))),
        typed("InvalidArgument")
    );
    assert_eq!(
        error_name(c.run(clock.press("white"))),
        typed("NotAllowed"),
        "not started"
    );
    assert_eq!(
        error_name(c.run(clock.resume())),
        typed("NotAllowed"),
        "nothing to resume"
    );

    let mark = c.mark();
    let emu_mark = r.emu.mark();
    c.run(clock.start("white"))?;
    let (_, m) = c.wait_signal(mark, "StateChanged ready -> running", |m| {
        state_change(m, "ready", "running")
    })?;
    assert_eq!(state_changed(&m).map(|t| t.2), Some("start".into()));
    c.wait_signal(mark, "GameState running", |m| {
        prop_change(m, "GameState") == Some(Value::from("running"))
    })?;
    c.wait_signal(mark, "Snapshot with White running", |m| {
        prop_change(m, "Snapshot").is_some_and(|v| s(&v, "/running") == "white")
    })?;
    assert_eq!(c.run(clock.game_state())?, "running");
    r.emu.wait_for(emu_mark, WAIT, "White's half runs", |v| {
        is_set_and_run(v) && v.pointer("/command/run").and_then(Value::as_str) == Some("left")
    })?;
    assert_eq!(
        error_name(c.run(clock.start("white"))),
        typed("NotAllowed"),
        "started already"
    );
    assert_eq!(
        error_name(c.run(clock.press("black"))),
        typed("NotAllowed"),
        "White's turn"
    );
    assert_eq!(
        error_name(c.run(clock.press("grey"))),
        typed("InvalidArgument")
    );

    // White thinks a moment (the sleep only makes the move take time).
    std::thread::sleep(Duration::from_millis(300));
    let mark = c.mark();
    let emu_mark = r.emu.mark();
    c.run(clock.press("white"))?;
    let (_, m) = c.wait_signal(mark, "Pressed", |m| is(m, &clock_path(0), "Pressed"))?;
    let (side, mv, move_ms, white_ms, black_ms) =
        pressed(&m).ok_or_else(|| anyhow!("Pressed has the wrong signature"))?;
    assert_eq!((side.as_str(), mv), ("white", 1), "White's first move");
    assert!(move_ms >= 300, "White thought at least 0.3 s: {move_ms}");
    assert_eq!(
        white_ms + move_ms,
        300_000,
        "sudden death: White's time is 5 min minus the move"
    );
    assert_eq!(black_ms, 300_000, "Black has not moved");
    let snap = c.snapshot(&clock)?;
    assert_eq!(
        u(&snap, "/white_ms"),
        white_ms,
        "White's time is static now: {snap}"
    );
    assert!(u(&snap, "/black_ms") <= black_ms, "{snap}");
    assert_eq!(s(&snap, "/running"), "black", "{snap}");
    assert_eq!(u(&snap, "/moves/white"), 1, "{snap}");
    let (_, push) = r.emu.wait_for(emu_mark, WAIT, "Black's half runs", |v| {
        is_set_and_run(v) && v.pointer("/command/run").and_then(Value::as_str) == Some("right")
    })?;
    assert_eq!(
        u(&push, "/command/left_s"),
        white_ms.div_ceil(1000),
        "{push}"
    );
    c.wait_signal(mark, "Snapshot with Black running", |m| {
        prop_change(m, "Snapshot").is_some_and(|v| s(&v, "/running") == "black")
    })?;

    // Black thinks; nothing else happens: no PropertiesChanged for the ticking time (the
    // running side is extrapolated from the Snapshot's as_of_us).
    let quiet = c.mark();
    std::thread::sleep(Duration::from_millis(1500));
    let ticks: Vec<String> = c
        .signals(quiet)
        .iter()
        .filter(|m| is(m, &clock_path(0), "PropertiesChanged"))
        .map(|m| format!("{:?}", props_changed(m)))
        .collect();
    assert!(
        ticks.is_empty(),
        "PropertiesChanged without a state change: {ticks:?}"
    );

    let mark = c.mark();
    c.run(clock.pause())?;
    let (_, m) = c.wait_signal(mark, "StateChanged running -> paused", |m| {
        state_change(m, "running", "paused")
    })?;
    assert_eq!(state_changed(&m).map(|t| t.2), Some("pause".into()));
    c.wait_signal(mark, "GameState paused", |m| {
        prop_change(m, "GameState") == Some(Value::from("paused"))
    })?;
    assert_eq!(
        error_name(c.run(clock.pause())),
        typed("NotAllowed"),
        "paused already"
    );
    assert_eq!(
        error_name(c.run(clock.press("black"))),
        typed("NotAllowed"),
        "paused"
    );
    let mark = c.mark();
    c.run(clock.resume())?;
    let (_, m) = c.wait_signal(mark, "StateChanged paused -> running", |m| {
        state_change(m, "paused", "running")
    })?;
    assert_eq!(state_changed(&m).map(|t| t.2), Some("resume".into()));
    assert_eq!(c.run(clock.game_state())?, "running");
    assert_eq!(
        error_name(c.run(clock.adjust("white", "main_ms", "add", 1000))),
        typed("NotAllowed"),
        "control while running"
    );
    assert_eq!(
        error_name(c.run(clock.set_moves("white", 3))),
        typed("NotAllowed"),
        "control while running"
    );
    assert_eq!(
        error_name(c.run(clock.adjust("white", "main_ms", "multiply", 1000))),
        typed("InvalidArgument")
    );
    assert_eq!(
        error_name(c.run(clock.set_time_control("G/5 inc/2 d/5"))),
        typed("InvalidArgument"),
        "bad notation"
    );
    let mark = c.mark();
    c.run(clock.press("black"))?;
    let (_, m) = c.wait_signal(mark, "Black's Pressed", |m| {
        is(m, &clock_path(0), "Pressed")
    })?;
    let (side, mv, ..) = pressed(&m).ok_or_else(|| anyhow!("Pressed signature"))?;
    assert_eq!((side.as_str(), mv), ("black", 1), "Black's first move");
    Ok(())
}

/// Clock 0's `Result` signal.
fn result_signal(m: &Message) -> Option<(String, String)> {
    is(m, &clock_path(0), "Result")
        .then(|| two_strings(m))
        .flatten()
}

fn ascii_text(v: &Value) -> Option<&str> {
    host_command(v, "ascii")
        .and_then(|c| c.get("text"))
        .and_then(Value::as_str)
}

#[test]
fn a_flag_signals_flag_result_and_state() -> Result<()> {
    let r = rig("G/1s d/0")?;
    let c = &r.client;
    let clock = r.clock0()?;
    r.ready(&clock)?;
    let mark = c.mark();
    c.run(clock.start("white"))?;
    let (_, flag) = c.wait_signal(mark, "Flag", |m| is(m, &clock_path(0), "Flag"))?;
    assert_eq!(
        two_strings(&flag),
        Some(("white".into(), "time".into())),
        "White's flag fell on time"
    );
    let (_, res) = c.wait_signal(mark, "Result", |m| result_signal(m).is_some())?;
    assert_eq!(result_signal(&res).map(|r| r.0), Some("0-1".into()));
    c.wait_signal(mark, "StateChanged running -> flagged", |m| {
        state_change(m, "running", "flagged")
    })?;
    c.wait_signal(mark, "GameState flagged", |m| {
        prop_change(m, "GameState") == Some(Value::from("flagged"))
    })?;
    let snap = c.snapshot(&clock)?;
    assert_eq!(s(&snap, "/result"), "0-1", "{snap}");
    assert_eq!(s(&snap, "/flags/0/side"), "white", "{snap}");
    assert_eq!(u(&snap, "/white_ms"), 0, "{snap}");
    assert_eq!(
        error_name(c.run(clock.resume())),
        typed("NotAllowed"),
        "the flagged side has no time"
    );
    Ok(())
}

#[test]
fn set_result_ends_the_game_and_the_cli_result_verb_too() -> Result<()> {
    let mut r = rig("G/5 d/0")?;
    let c = &r.client;
    let clock = r.clock0()?;
    r.ready(&clock)?;
    assert_eq!(
        error_name(c.run(clock.set_result("1-0"))),
        typed("NotAllowed"),
        "no game yet"
    );
    c.run(clock.start("white"))?;
    assert_eq!(
        error_name(c.run(clock.set_result("2-0"))),
        typed("InvalidArgument")
    );
    let mark = c.mark();
    let emu_mark = r.emu.mark();
    c.run(clock.set_result("1-0"))?;
    let (_, res) = c.wait_signal(mark, "Result", |m| result_signal(m).is_some())?;
    assert_eq!(result_signal(&res), Some(("1-0".into(), "board".into())));
    c.wait_signal(mark, "StateChanged running -> ended", |m| {
        state_change(m, "running", "ended")
    })?;
    c.wait_signal(mark, "GameState ended", |m| {
        prop_change(m, "GameState") == Some(Value::from("ended"))
    })?;
    assert_eq!(c.run(clock.game_state())?, "ended");
    let snap = c.snapshot(&clock)?;
    assert_eq!(s(&snap, "/result"), "1-0", "{snap}");
    assert_eq!(s(&snap, "/running"), "", "nothing runs: {snap}");
    r.emu
        .wait_for(emu_mark, WAIT, "the result on the clock", |v| {
            ascii_text(v) == Some("1-0")
        })?;
    assert_eq!(
        error_name(c.run(clock.set_result("0-1"))),
        typed("NotAllowed"),
        "ended already"
    );

    // The CLI verb on a new game.
    let mark = c.mark();
    r.ctl_ok(&["new-game", "0"]);
    c.wait_signal(mark, "StateChanged ended -> ready", |m| {
        state_change(m, "ended", "ready")
    })?;
    r.ctl_ok(&["start", "0", "--side", "black"]);
    r.ctl_ok(&["result", "0", "1/2-1/2"]);
    let (_, res) = c.wait_signal(mark, "the CLI's Result", |m| result_signal(m).is_some())?;
    assert_eq!(
        result_signal(&res),
        Some(("1/2-1/2".into(), "board".into()))
    );
    let st = r.daemon.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(s(&st, "/game_state"), "ended", "{st}");
    assert_eq!(s(&st, "/result"), "1/2-1/2", "{st}");
    Ok(())
}

#[test]
fn claim_draw_under_double_flag_by_bus_and_by_cli() -> Result<()> {
    // One second of main time: White flags into extra time at once.
    let r = rig("G/1s df/30:5:hybrid")?;
    let c = &r.client;
    let clock = r.clock0()?;
    r.ready(&clock)?;
    assert_eq!(
        error_name(c.run(clock.claim_draw("black"))),
        typed("NotAllowed"),
        "no game yet"
    );
    assert_eq!(
        error_name(c.run(clock.claim_draw("nobody"))),
        typed("InvalidArgument")
    );
    for by_cli in [false, true] {
        c.run(clock.start("white"))?;
        r.wait_snapshot(&clock, "White in extra time", |v| {
            s(v, "/phase/white") == "extra"
        })?;
        assert_eq!(
            error_name(c.run(clock.claim_draw("white"))),
            typed("NotAllowed"),
            "the side in extra time cannot claim"
        );
        let mark = c.mark();
        if by_cli {
            r.ctl_ok(&["claim", "0", "black"]);
        } else {
            c.run(clock.claim_draw("black"))?;
        }
        let (_, res) = c.wait_signal(mark, "Result", |m| result_signal(m).is_some())?;
        assert_eq!(
            result_signal(&res),
            Some(("1/2-1/2".into(), "draw_claim_opponent_in_extra".into())),
            "cli: {by_cli}"
        );
        c.wait_signal(mark, "StateChanged running -> ended", |m| {
            state_change(m, "running", "ended")
        })?;
        assert_eq!(c.run(clock.game_state())?, "ended");
        c.run(clock.new_game())?;
    }
    // No claims under other methods.
    c.run(clock.set_time_control("G/5 d/0"))?;
    c.run(clock.start("white"))?;
    assert_eq!(
        error_name(c.run(clock.claim_draw("black"))),
        typed("NotAllowed")
    );
    Ok(())
}

// ---- Clock: the display and the counters ------------------------------------------------------

#[test]
fn show_text_and_beep_reach_the_clock() -> Result<()> {
    let mut r = rig("G/5 d/0")?;
    let c = &r.client;
    let clock = r.clock0()?;
    r.ready(&clock)?;

    let mark = r.emu.mark();
    c.run(clock.show_text("HELLO", 300))?;
    let (at, _) = r.emu.wait_for(mark, WAIT, "the ASCII text", |v| {
        ascii_text(v) == Some("HELLO")
    })?;
    // After its time the text goes (END) and the clock shows the times again.
    // (The emulator may report its display change before the command that caused it.)
    r.emu.wait_for(at, WAIT, "the end of the text", |v| {
        host_command(v, "end").is_some()
    })?;
    r.emu.wait_for(at, WAIT, "the times shown again", |v| {
        v.get("event").and_then(Value::as_str) == Some("display")
            && v.get("text") == Some(&Value::Null)
            && v.get("left").and_then(Value::as_str) == Some("5:00")
    })?;

    // Longer than the DGT 3000's 8 characters: cut.
    let mark = r.emu.mark();
    c.run(clock.show_text("ABCDEFGHIJ", 200))?;
    r.emu.wait_for(mark, WAIT, "the text cut to 8", |v| {
        ascii_text(v) == Some("ABCDEFGH")
    })?;

    let mark = r.emu.mark();
    c.run(clock.beep(640))?;
    let (_, beep) = r
        .emu
        .wait_for(mark, WAIT, "a beep", |v| host_command(v, "beep").is_some())?;
    assert_eq!(
        u(&beep, "/command/units"),
        10,
        "640 ms in 64 ms units: {beep}"
    );

    // The CLI verbs.
    let mark = r.emu.mark();
    r.ctl_ok(&["text", "0", "CLI OK", "--ms", "200"]);
    r.emu.wait_for(mark, WAIT, "the CLI's text", |v| {
        ascii_text(v) == Some("CLI OK")
    })?;
    let mark = r.emu.mark();
    r.ctl_ok(&["beep", "0", "--ms", "320"]);
    let (_, beep) = r.emu.wait_for(mark, WAIT, "the CLI's beep", |v| {
        host_command(v, "beep").is_some()
    })?;
    assert_eq!(u(&beep, "/command/units"), 5, "{beep}");
    Ok(())
}

#[test]
fn set_white_side_swaps_the_halves() -> Result<()> {
    // Different times per side, so the halves tell who is where.
    let mut r = rig("W{G/5 d/0} B{G/3 d/0}")?;
    let c = &r.client;
    let clock = r.clock0()?;
    r.ready(&clock)?;
    assert_eq!(c.run(clock.white_side())?, "left");
    assert_eq!(
        error_name(c.run(clock.set_white_side("middle"))),
        typed("InvalidArgument")
    );

    let mark = c.mark();
    let emu_mark = r.emu.mark();
    c.run(clock.set_white_side("right"))?;
    c.wait_signal(mark, "WhiteSide changed", |m| {
        prop_change(m, "WhiteSide") == Some(Value::from("right"))
    })?;
    assert_eq!(c.run(clock.white_side())?, "right");
    let (_, push) = r.emu.wait_for(emu_mark, WAIT, "the swapped halves", |v| {
        is_set_and_run(v)
            && v.pointer("/command/left_s").and_then(Value::as_u64) == Some(180)
            && v.pointer("/command/right_s").and_then(Value::as_u64) == Some(300)
    })?;
    assert_eq!(s(&push, "/command/run"), "none", "nothing runs yet: {push}");

    // White now runs on the right half.
    let emu_mark = r.emu.mark();
    c.run(clock.start("white"))?;
    r.emu
        .wait_for(emu_mark, WAIT, "White's half (right) runs", |v| {
            is_set_and_run(v) && v.pointer("/command/run").and_then(Value::as_str) == Some("right")
        })?;
    let emu_mark = r.emu.mark();
    c.run(clock.press("white"))?;
    r.emu
        .wait_for(emu_mark, WAIT, "Black's half (left) runs", |v| {
            is_set_and_run(v) && v.pointer("/command/run").and_then(Value::as_str) == Some("left")
        })?;

    // And back, mid-game: the next push swaps again.
    let emu_mark = r.emu.mark();
    c.run(clock.set_white_side("left"))?;
    r.emu
        .wait_for(emu_mark, WAIT, "Black's half (right) runs", |v| {
            is_set_and_run(v)
                && v.pointer("/command/run").and_then(Value::as_str) == Some("right")
                && v.pointer("/command/left_s").and_then(Value::as_u64) == Some(300)
                && v.pointer("/command/right_s").and_then(Value::as_u64) <= Some(180)
        })?;
    let st = r.daemon.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(s(&st, "/white_side"), "left", "{st}");
    Ok(())
}

#[test]
fn set_moves_corrects_the_counters() -> Result<()> {
    let r = rig("40/90 SD/30")?;
    let c = &r.client;
    let clock = r.clock0()?;
    r.ready(&clock)?;
    assert_eq!(
        error_name(c.run(clock.set_moves("left", 3))),
        typed("InvalidArgument")
    );
    let mark = c.mark();
    c.run(clock.set_moves("black", 3))?;
    let snap = c.snapshot(&clock)?;
    assert_eq!(u(&snap, "/moves/black"), 3, "{snap}");
    assert_eq!(u(&snap, "/moves/white"), 0, "{snap}");
    c.wait_signal(mark, "the Snapshot with the new counter", |m| {
        prop_change(m, "Snapshot")
            .is_some_and(|v| v.pointer("/moves/black") == Some(&Value::from(3)))
    })?;
    // Past the 40th move the second period's time is due: 90 + 30 minutes.
    c.run(clock.set_moves("white", 40))?;
    let snap = c.snapshot(&clock)?;
    assert_eq!(u(&snap, "/moves/white"), 40, "{snap}");
    assert_eq!(u(&snap, "/white_ms"), 120 * 60_000, "{snap}");
    assert_eq!(u(&snap, "/black_ms"), 90 * 60_000, "{snap}");

    // While running: not allowed; paused: allowed (the CLI verb).
    c.run(clock.start("white"))?;
    assert_eq!(
        error_name(c.run(clock.set_moves("white", 41))),
        typed("NotAllowed")
    );
    let out = r.daemon.ctl(&["moves", "0", "white", "41"]);
    assert_eq!(out.status.code(), Some(1), "moves while running fails");
    r.ctl_ok(&["pause", "0"]);
    r.ctl_ok(&["moves", "0", "black", "7"]);
    let st = r.daemon.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(u(&st, "/moves/black"), 7, "{st}");
    assert_eq!(u(&st, "/moves/white"), 40, "{st}");
    r.ctl_ok(&["resume", "0"]);
    let st = r.daemon.ctl_json(&["status", "0", "--json"])?;
    assert_eq!(s(&st, "/game_state"), "running", "{st}");
    Ok(())
}

// ---- the CLI's reading verbs -----------------------------------------------------------------

/// A running `chessclockctl` whose stdout is read line by line; killed on drop.
struct Spawned {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
    what: String,
}

impl Spawned {
    fn ctl(address: &str, args: &[&str]) -> Result<Spawned> {
        let mut cmd = Command::new(workspace_bin("chessclockctl")?);
        cmd.args(["--address", address])
            .args(args)
            .stderr(Stdio::inherit());
        Spawned::start(cmd, &format!("chessclockctl {args:?}"))
    }

    /// Run `cmd` with its stdout on a pseudo-terminal (`script` from util-linux); `None` when
    /// `script` is not installed.
    fn on_terminal(shell_command: &str) -> Result<Option<Spawned>> {
        if Command::new("script").arg("--version").output().is_err() {
            return Ok(None);
        }
        let mut cmd = Command::new("script");
        // Its stderr only says "Session terminated" when it is stopped.
        cmd.args(["-q", "-e", "-f", "-c", shell_command, "/dev/null"])
            .stderr(Stdio::null());
        Spawned::start(cmd, shell_command).map(Some)
    }

    fn start(mut cmd: Command, what: &str) -> Result<Spawned> {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start {what}"))?;
        let mut out = child.stdout.take().context("stdout")?;
        let (tx, rx) = mpsc::channel();
        // Raw chunks rather than lines: a terminal frame does not end in a newline.
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            let mut pending = Vec::new();
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                pending.extend_from_slice(&buf[..n]);
                while let Some(nl) = pending.iter().position(|&b| b == b'\n') {
                    let line: Vec<u8> = pending.drain(..=nl).collect();
                    let line = String::from_utf8_lossy(&line).trim_end().to_owned();
                    if tx.send(line).is_err() {
                        return;
                    }
                }
            }
        });
        Ok(Spawned {
            child,
            lines: rx,
            seen: Vec::new(),
            what: what.to_owned(),
        })
    }

    /// Wait (up to `timeout`) for a line from index `from` on that `pred` accepts.
    fn wait_line(
        &mut self,
        from: usize,
        timeout: Duration,
        what: &str,
        pred: impl Fn(&str) -> bool,
    ) -> Result<(usize, String)> {
        let deadline = Instant::now() + timeout;
        let mut i = from;
        loop {
            while i < self.seen.len() {
                if pred(&self.seen[i]) {
                    return Ok((i, self.seen[i].clone()));
                }
                i += 1;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left.max(Duration::from_millis(1))) {
                Ok(line) => self.seen.push(line),
                Err(_) if Instant::now() < deadline => {}
                Err(_) => bail!(
                    "{}: timed out waiting for {what}; its last lines: {:?}",
                    self.what,
                    self.seen.iter().rev().take(8).collect::<Vec<_>>()
                ),
            }
        }
    }

    /// A JSON line from `from` on that `pred` accepts.
    fn wait_json(
        &mut self,
        from: usize,
        what: &str,
        pred: impl Fn(&Value) -> bool,
    ) -> Result<(usize, Value)> {
        let (i, line) = self.wait_line(from, WAIT, what, |l| {
            serde_json::from_str::<Value>(l).is_ok_and(|v| pred(&v))
        })?;
        Ok((i, serde_json::from_str(&line)?))
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        // SIGTERM first: `script` then ends the program on its terminal too.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn status_and_list_json_shapes_and_clock_names() -> Result<()> {
    let r = rig("G/5 d/0")?;
    let d = &r.daemon;
    let st = d.wait_status("0", WAIT, "the board serial", |v| {
        !s(v, "/board_serial").is_empty()
    })?;
    let serial = s(&st, "/board_serial").to_owned();
    assert!(
        serial.bytes().all(|b| b.is_ascii_digit()),
        "the emulated board's serial is a number: {serial}"
    );

    // Without CLOCK: an array, also of one; with CLOCK: the object.
    let all = d.ctl_json(&["status", "--json"])?;
    assert_eq!(all.as_array().map(Vec::len), Some(1), "{all}");
    assert_eq!(u(&all, "/0/index"), 0, "{all}");
    let list = d.ctl_json(&["list", "--json"])?;
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
    let c0 = clock_path(0);
    for name in ["0", c0.as_str(), r.emu.path.as_str(), serial.as_str()] {
        let one = d.ctl_json(&["status", name, "--json"])?;
        assert!(one.is_object(), "status {name}: {one}");
        assert_eq!(s(&one, "/clock"), c0, "status {name}: {one}");
        for key in [
            "index",
            "name",
            "port",
            "model",
            "firmware",
            "board_serial",
            "connected",
            "device_state",
            "game_state",
            "time_control",
            "white_side",
            "as_of_us",
            "t_ms",
            "white_ms",
            "black_ms",
            "text",
            "running",
            "status",
            "phase",
            "moves",
            "detail",
            "result",
        ] {
            assert!(
                one.get(key).is_some(),
                "status {name} --json has {key}: {one}"
            );
        }
    }
    let text = r.ctl_ok(&["status", &serial]);
    assert!(
        text.contains("Clock 0") && text.contains("G/5 d/0"),
        "{text}"
    );

    // A second board with the same serial: the number is ambiguous, indices are not.
    let emu2 = emu(&[])?;
    r.ctl_ok(&["attach", &emu2.path]);
    d.wait_status("1", WAIT, "the second board's serial", |v| {
        s(v, "/board_serial") == serial
    })?;
    let all = d.ctl_json(&["status", "--json"])?;
    assert_eq!(all.as_array().map(Vec::len), Some(2), "{all}");
    let list = d.ctl_json(&["list", "--json"])?;
    assert_eq!(list.as_array().map(Vec::len), Some(2), "{list}");
    assert_eq!(
        s(&d.ctl_json(&["status", "1", "--json"])?, "/port"),
        emu2.path
    );
    let out = d.ctl(&["status", &serial, "--json"]);
    assert_eq!(out.status.code(), Some(1), "an ambiguous serial fails");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&serial) && err.contains("0, 1"), "{err}");
    let text = r.ctl_ok(&["list"]);
    assert_eq!(text.lines().count(), 3, "a header and two clocks: {text}");

    // Clock 0 detached: "0" is no index any more, and no serial either.
    r.ctl_ok(&["detach", "0"]);
    let out = d.ctl(&["status", "0"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let one = d.ctl_json(&["status", &serial, "--json"])?;
    assert_eq!(
        s(&one, "/clock"),
        clock_path(1),
        "the only board with it: {one}"
    );
    let all = d.ctl_json(&["status", "--json"])?;
    assert_eq!(all.as_array().map(Vec::len), Some(1), "{all}");
    r.ctl_ok(&["detach", "1"]);
    assert_eq!(d.ctl_json(&["status", "--json"])?, serde_json::json!([]));
    assert_eq!(d.ctl_json(&["list", "--json"])?, serde_json::json!([]));
    Ok(())
}

#[test]
fn monitor_prints_events_as_they_happen() -> Result<()> {
    let r = rig("G/5 d/0")?;
    let address = r.bus.address().to_owned();
    let mut json = Spawned::ctl(&address, &["monitor", "--json"])?;
    let mut human = Spawned::ctl(&address, &["monitor"])?;

    // The monitors subscribe after they start: change the control back and forth until
    // both have printed a change (then they are listening).
    let deadline = Instant::now() + WAIT;
    let (mut json_ok, mut human_ok) = (false, false);
    for control in ["G/6 d/0", "G/5 d/0"].iter().cycle() {
        if json_ok && human_ok {
            break;
        }
        if Instant::now() > deadline {
            bail!(
                "the monitors printed nothing: {:?} {:?}",
                json.seen,
                human.seen
            );
        }
        r.ctl_ok(&["set", "0", control]);
        let tick = Duration::from_millis(300);
        json_ok = json_ok
            || json
                .wait_line(0, tick, "TimeControl", |l| l.contains("TimeControl"))
                .is_ok();
        human_ok = human_ok
            || human
                .wait_line(0, tick, "TimeControl", |l| l.contains("TimeControl"))
                .is_ok();
    }
    r.ctl_ok(&["set", "0", "G/5 d/0"]);
    let c0 = clock_path(0);
    let (j, h) = (json.seen.len(), human.seen.len());

    r.ctl_ok(&["start", "0"]);
    let (_, ev) = json.wait_json(j, "state_changed", |v| s(v, "/event") == "state_changed")?;
    assert_eq!(
        ev,
        serde_json::json!({"event": "state_changed", "clock": c0, "old": "ready",
                           "new": "running", "reason": "start"})
    );
    human.wait_line(h, WAIT, "the start", |l| {
        l.contains("clock 0: ready -> running (start)")
    })?;

    r.ctl_ok(&["press", "0", "white"]);
    let (_, ev) = json.wait_json(j, "pressed", |v| s(v, "/event") == "pressed")?;
    assert_eq!(s(&ev, "/clock"), c0, "{ev}");
    assert_eq!(s(&ev, "/side"), "white", "{ev}");
    assert_eq!(u(&ev, "/move"), 1, "{ev}");
    assert_eq!(u(&ev, "/white_ms") + u(&ev, "/move_ms"), 300_000, "{ev}");
    assert_eq!(u(&ev, "/black_ms"), 300_000, "{ev}");
    human.wait_line(h, WAIT, "the press", |l| {
        l.contains("clock 0: white pressed, move 1")
    })?;

    r.ctl_ok(&["result", "0", "1-0"]);
    let (_, ev) = json.wait_json(j, "result", |v| s(v, "/event") == "result")?;
    assert_eq!(
        ev,
        serde_json::json!({"event": "result", "clock": c0, "result": "1-0", "reason": "board"})
    );
    human.wait_line(h, WAIT, "the result", |l| {
        l.contains("clock 0: result 1-0 (board)")
    })?;

    // A flag.
    r.ctl_ok(&["new-game", "0"]);
    r.ctl_ok(&["set", "0", "G/1s d/0"]);
    r.ctl_ok(&["start", "0"]);
    let (_, ev) = json.wait_json(j, "flag", |v| s(v, "/event") == "flag")?;
    assert_eq!(
        ev,
        serde_json::json!({"event": "flag", "clock": c0, "side": "white", "reason": "time"})
    );
    human.wait_line(h, WAIT, "the flag", |l| {
        l.contains("clock 0: white flag (time)")
    })?;

    // Clocks coming and going, and a device state change.
    let emu2 = emu(&[])?;
    let c1 = clock_path(1);
    r.ctl_ok(&["attach", &emu2.path]);
    json.wait_json(j, "clock_added", |v| {
        s(v, "/event") == "clock_added" && s(v, "/clock") == c1
    })?;
    json.wait_json(j, "clock 1 ready", |v| {
        s(v, "/event") == "properties_changed"
            && s(v, "/clock") == c1
            && s(v, "/changed/DeviceState") == "ready"
    })?;
    human.wait_line(h, WAIT, "the attach", |l| l == format!("{c1} attached"))?;
    r.ctl_ok(&["detach", "1"]);
    json.wait_json(j, "clock_removed", |v| {
        s(v, "/event") == "clock_removed" && s(v, "/clock") == c1
    })?;
    human.wait_line(h, WAIT, "the detach", |l| l == format!("{c1} detached"))?;
    Ok(())
}

#[test]
fn watch_renders_a_table_on_a_terminal_and_json_lines_otherwise() -> Result<()> {
    let r = rig("G/5 d/0")?;
    let address = r.bus.address().to_owned();
    let running = |v: &Value| {
        v.as_array()
            .is_some_and(|a| a.len() == 1 && s(&a[0], "/game_state") == "running")
    };
    let ready = |v: &Value| {
        v.as_array()
            .is_some_and(|a| a.len() == 1 && s(&a[0], "/game_state") == "ready")
    };
    let mut json = Spawned::ctl(&address, &["watch", "--json", "--interval-ms", "50"])?;
    // Not a terminal: JSON lines as well.
    let mut piped = Spawned::ctl(&address, &["watch", "--interval-ms", "50"])?;
    json.wait_json(0, "a first frame", ready)?;
    piped.wait_json(0, "a first frame", ready)?;

    let ctl = workspace_bin("chessclockctl")?;
    let term = Spawned::on_terminal(&format!(
        "{} --address '{address}' watch --interval-ms 50",
        ctl.display()
    ))?;
    let mut term = match term {
        Some(t) => Some(t),
        None => {
            eprintln!("SKIP the terminal part: `script` (util-linux) is not installed");
            None
        }
    };
    if let Some(t) = term.as_mut() {
        let (_, header) = t.wait_line(0, WAIT, "the table header", |l| {
            l.contains("NAME") && l.contains("CONTROL")
        })?;
        assert!(
            header.contains("\x1b[?25l"),
            "the cursor is hidden and the screen cleared first: {header:?}"
        );
        let (_, row) = t.wait_line(0, WAIT, "clock 0's row", |l| {
            l.contains("G/5 d/0") && l.contains("ready")
        })?;
        assert!(row.contains("5:00"), "both clocks shown: {row:?}");
        assert!(
            row.ends_with("\x1b[K"),
            "each line clears its rest: {row:?}"
        );
    }

    r.ctl_ok(&["start", "0"]);
    let (_, frame) = json.wait_json(0, "a frame with the game running", running)?;
    assert_eq!(s(&frame, "/0/running"), "white", "{frame}");
    piped.wait_json(0, "a frame with the game running", running)?;
    if let Some(t) = term.as_mut() {
        // Redrawn in place: a frame starts at the top left.
        let (_, row) = t.wait_line(0, WAIT, "the row redrawn with the game running", |l| {
            l.contains("G/5 d/0") && l.contains("running")
        })?;
        assert!(row.contains("*"), "the running side is marked: {row:?}");
        assert!(
            t.seen.iter().any(|l| l.contains("\x1b[H")),
            "frames are drawn from home: {:?}",
            t.seen
        );
    }
    Ok(())
}
