//! A zbus client for the end-to-end tests of the D-Bus API: it records every signal the
//! daemon emits under the manager's path, reads the signals' bodies and the errors calls
//! fail with, and [`BusRig`] sets up a daemon with one emulated board to talk to.
//!
//! Test scaffolding only: it decodes what the daemon sends, it does not judge it.

use crate::clock_fields::ClockFields;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use chessclock_api::names::{CLOCK_INTERFACE, ERROR_PREFIX, MANAGER_PATH, clock_path};
use chessclock_api::proxy::{ClockProxy, ManagerProxy};
use chessclock_api::variant::{dict_to_object, variant_to_json};
use serde_json::Value;
use zbus::{Message, MessageStream, OwnedVariant};

use crate::e2e::emu;
use crate::rig::{Daemon, Emu, WAIT, write_config};
use crate::{PrivateBus, TempDir};

/// Call `probe` every `every` until it breaks with a value; after [`WAIT`] fail with `what`
/// and the last thing it continued with.
pub fn poll<T>(
    what: &str,
    every: Duration,
    mut probe: impl FnMut() -> Result<ControlFlow<T, String>>,
) -> Result<T> {
    let deadline = Instant::now() + WAIT;
    loop {
        let last = match probe()? {
            ControlFlow::Break(v) => return Ok(v),
            ControlFlow::Continue(last) => last,
        };
        if Instant::now() > deadline {
            bail!("timed out waiting for {what}; {last}");
        }
        std::thread::sleep(every);
    }
}

/// A zbus client on the private bus that records every signal under the manager's path.
#[derive(Debug)]
pub struct Client {
    conn: zbus::Connection,
    seen: Arc<Mutex<Vec<Message>>>,
    // Last: the runtime goes after the connection that lives on it.
    rt: tokio::runtime::Runtime,
}

impl Client {
    /// Connect to `address` and start recording signals.
    pub fn connect(address: &str) -> Result<Client> {
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

    /// The bus connection (for proxies this type has no helper for).
    pub fn connection(&self) -> &zbus::Connection {
        &self.conn
    }

    /// Run a future (a proxy call) to completion.
    pub fn run<F: Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }

    /// The manager object, without property caching.
    pub fn manager(&self) -> Result<ManagerProxy<'static>> {
        Ok(self.run(
            ManagerProxy::builder(&self.conn)
                .cache_properties(zbus::proxy::CacheProperties::No)
                .build(),
        )?)
    }

    /// The clock object at `path`, without property caching.
    pub fn clock(&self, path: &str) -> Result<ClockProxy<'static>> {
        Ok(self.run(
            ClockProxy::builder(&self.conn)
                .path(path.to_owned())
                .cache_properties(zbus::proxy::CacheProperties::No)
                .build(),
        )?)
    }

    /// `org.freedesktop.DBus.ObjectManager.GetManagedObjects` on the manager: the paths of
    /// the objects with the Clock interface, sorted.
    pub fn managed_objects(&self) -> Result<Vec<String>> {
        let om = self.run(
            zbus::fdo::ObjectManagerProxy::builder(&self.conn)
                .destination(chessclock_api::names::BUS_NAME)
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

    /// `GetSnapshot` as JSON.
    pub fn snapshot(&self, clock: &ClockProxy<'_>) -> Result<Value> {
        let dict = self.run(clock.get_snapshot())?;
        Ok(Value::Object(dict_to_object(&dict)))
    }

    /// Index of the next signal (for `wait_signal(from, ..)`).
    pub fn mark(&self) -> usize {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Signals received from `from` on.
    pub fn signals(&self, from: usize) -> Vec<Message> {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.get(from..).unwrap_or_default().to_vec()
    }

    /// The first signal from index `from` on that `pred` accepts.
    pub fn wait_signal(
        &self,
        from: usize,
        what: &str,
        pred: impl Fn(&Message) -> bool,
    ) -> Result<(usize, Message)> {
        poll(what, Duration::from_millis(20), || {
            let seen = self.signals(from);
            Ok(match seen.iter().enumerate().find(|(_, m)| pred(m)) {
                Some((i, m)) => ControlFlow::Break((from + i, m.clone())),
                None => {
                    let names: Vec<String> = seen.iter().map(describe).collect();
                    ControlFlow::Continue(format!("signals since the mark: {names:?}"))
                }
            })
        })
    }
}

/// `path member` of a signal, for failure messages.
pub fn describe(m: &Message) -> String {
    let h = m.header();
    format!(
        "{} {}",
        h.path().map(|p| p.as_str()).unwrap_or(""),
        h.member().map(|p| p.as_str()).unwrap_or("")
    )
}

/// Is `m` the signal `member` from the object at `path`?
pub fn is(m: &Message, path: &str, member: &str) -> bool {
    let h = m.header();
    h.path().is_some_and(|p| p.as_str() == path) && h.member().is_some_and(|n| n.as_str() == member)
}

/// The body of `StateChanged`: old, new, reason.
pub fn state_changed(m: &Message) -> Option<(String, String, String)> {
    m.body().deserialize().ok()
}

/// The body of `Pressed`: side, move, move_ms, white_ms, black_ms.
pub fn pressed(m: &Message) -> Option<(String, u32, u64, u64, u64)> {
    m.body().deserialize().ok()
}

/// A body of two strings (`Flag`, `Result`).
pub fn two_strings(m: &Message) -> Option<(String, String)> {
    m.body().deserialize().ok()
}

type Changed = (String, HashMap<String, OwnedVariant>, Vec<String>);

/// The interface, names and values of a `PropertiesChanged` signal.
pub fn props_changed(m: &Message) -> Option<(String, serde_json::Map<String, Value>)> {
    let (iface, changed, _invalidated): Changed = m.body().deserialize().ok()?;
    let values = changed
        .iter()
        .map(|(k, v)| (k.clone(), variant_to_json(v)))
        .collect();
    Some((iface, values))
}

/// The name of the D-Bus error a call failed with (with a message); panics if it succeeded.
pub fn error_name<T: std::fmt::Debug>(r: zbus::Result<T>) -> String {
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

/// The full name of the daemon's error `name` (`NotAllowed`, ...).
pub fn typed(name: &str) -> String {
    format!("{ERROR_PREFIX}.{name}")
}

/// Assert that a call failed with the daemon's error `name`; `why` says what makes it fail.
#[track_caller]
pub fn assert_fails<T: std::fmt::Debug>(r: zbus::Result<T>, name: &str, why: &str) {
    assert_eq!(error_name(r), typed(name), "{why}");
}

/// A daemon with one configured emulated board (clock 0), a recording [`Client`] on its
/// bus. Dropped in field order: the daemon goes before its board (no "board gone" noise).
#[derive(Debug)]
pub struct BusRig {
    pub client: Client,
    pub daemon: Daemon,
    pub emu: Emu,
    pub bus: PrivateBus,
    _dir: TempDir,
}

impl BusRig {
    /// Start it, clock 0 running `control`.
    pub fn start(control: &str) -> Result<BusRig> {
        let dir = TempDir::new("bus-api")?;
        let bus = PrivateBus::start_session()?;
        let emu = emu(&[])?;
        let config = write_config(dir.path(), &[(&emu.path, control)], "")?;
        // Quiet logs: the signals and the emulator say what happened.
        let daemon = Daemon::spawn(
            bus.address(),
            &config,
            &[("CHESSCLOCKD_LOG", "chessclockd=warn,chessclock_device=warn")],
        )?;
        let client = Client::connect(bus.address())?;
        Ok(BusRig {
            client,
            emu,
            daemon,
            bus,
            _dir: dir,
        })
    }

    /// Another emulated board (not attached).
    pub fn another_emu(&self) -> Result<Emu> {
        emu(&[])
    }

    /// [`BusRig::another_emu`] with `args` (`--board-serial N`, ...).
    pub fn another_emu_with(&self, args: &[&str]) -> Result<Emu> {
        emu(args)
    }

    /// Clock 0's object.
    pub fn clock0(&self) -> Result<ClockProxy<'static>> {
        self.client.clock(&clock_path(0))
    }

    /// Clock 0's object once its device is ready.
    pub fn ready_clock0(&self) -> Result<ClockProxy<'static>> {
        let clock = self.clock0()?;
        self.ready(&clock)?;
        Ok(clock)
    }

    /// Run `chessclockctl ARGS...`, assert it succeeded, return its stdout.
    #[track_caller]
    pub fn ctl_ok(&self, args: &[&str]) -> String {
        let out = self.daemon.ctl(args);
        assert!(
            out.status.success(),
            "chessclockctl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Poll `GetSnapshot` until `pred` holds.
    pub fn wait_snapshot(
        &self,
        clock: &ClockProxy<'_>,
        what: &str,
        pred: impl Fn(&Value) -> bool,
    ) -> Result<Value> {
        poll(what, Duration::from_millis(30), || {
            let snap = self.client.snapshot(clock)?;
            Ok(if pred(&snap) {
                ControlFlow::Break(snap)
            } else {
                ControlFlow::Continue(format!("last snapshot: {snap}"))
            })
        })
    }

    /// Poll `DeviceState` until it is "ready".
    pub fn ready(&self, clock: &ClockProxy<'_>) -> Result<()> {
        poll(
            "the clock to become ready",
            Duration::from_millis(30),
            || {
                let state = self.client.run(clock.device_state())?;
                Ok(if state == "ready" {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(format!("device state: {state}"))
                })
            },
        )
    }
}
