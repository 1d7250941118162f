//! The D-Bus API's manager object (docs/dbus-api.md), through a real bus: `Attach` and
//! `Detach`, the `Clocks` property, the `ClockAdded`/`ClockRemoved` signals and the
//! `org.freedesktop.DBus.ObjectManager` interface, with their errors, and the CLI's
//! `attach`/`detach` verbs built on them.
//!
//! The real `chessclockd` runs on a private dbus-daemon with emulated boards from the real
//! `chessclock-emu` on ptys; a zbus client records every signal. Waits poll with a deadline;
//! no assertion is about how long something took.

use chessclock_tests::ClockFields;
use std::collections::HashMap;

use anyhow::{Result, anyhow};
use chessclock_api::names::{CLOCK_INTERFACE, MANAGER_PATH, clock_path};
use chessclock_api::proxy::ManagerProxy;
use chessclock_api::variant::variant_to_json;
use chessclock_tests::bus_client::{BusRig, Client, error_name, is, props_changed, typed};
use serde_json::Value;
use zbus::{Message, OwnedObjectPath, OwnedVariant};

type Added = (
    OwnedObjectPath,
    HashMap<String, HashMap<String, OwnedVariant>>,
);
type Removed = (OwnedObjectPath, Vec<String>);

/// The manager's `Clocks` property.
fn clocks(c: &Client, mgr: &ManagerProxy<'_>) -> Result<Vec<String>> {
    Ok(c.run(mgr.clocks())?
        .iter()
        .map(|p| p.as_str().to_owned())
        .collect())
}

/// The manager's `Clocks` property and the ObjectManager's clock objects both list exactly
/// `expected`.
#[track_caller]
fn assert_clocks(c: &Client, mgr: &ManagerProxy<'_>, expected: &[&str]) -> Result<()> {
    assert_eq!(clocks(c, mgr)?, expected);
    assert_eq!(c.managed_objects()?, expected);
    Ok(())
}

/// Is `m` the manager's signal `member` whose first argument is the object `path`?
fn manager_signal_about(m: &Message, member: &str, path: &str) -> bool {
    let about = |p: &OwnedObjectPath| p.as_str() == path;
    is(m, MANAGER_PATH, member)
        && match member {
            "InterfacesAdded" => m
                .body()
                .deserialize::<Added>()
                .is_ok_and(|(p, _)| about(&p)),
            "InterfacesRemoved" => m
                .body()
                .deserialize::<Removed>()
                .is_ok_and(|(p, _)| about(&p)),
            _ => m
                .body()
                .deserialize::<OwnedObjectPath>()
                .is_ok_and(|p| about(&p)),
        }
}

/// Wait for the manager's `member` signal about `path`, and for `Clocks` to change to
/// `clocks`.
fn wait_announced(
    c: &Client,
    mark: usize,
    member: &str,
    path: &str,
    clocks: &[&str],
) -> Result<()> {
    c.wait_signal(mark, member, |m| manager_signal_about(m, member, path))?;
    c.wait_signal(mark, "Clocks changed", |m| {
        is(m, MANAGER_PATH, "PropertiesChanged")
            && props_changed(m)
                .is_some_and(|(_, v)| v.get("Clocks") == Some(&serde_json::json!(clocks)))
    })?;
    Ok(())
}

#[test]
fn attach_detach_clocks_and_the_object_manager() -> Result<()> {
    let r = BusRig::start("G/5 d/0")?;
    let c = &r.client;
    let mgr = c.manager()?;
    let c0 = clock_path(0);
    assert_clocks(c, &mgr, &[&c0])?;

    // Attach a second emulated board: a new object, announced three ways.
    let emu2 = r.another_emu()?;
    let mark = c.mark();
    let p1 = c.run(mgr.attach(&emu2.path))?;
    let c1 = clock_path(1);
    assert_eq!(p1.as_str(), c1);
    let (_, added) = c.wait_signal(mark, "InterfacesAdded", |m| {
        is(m, MANAGER_PATH, "InterfacesAdded")
    })?;
    let (obj, ifaces): Added = added.body().deserialize()?;
    assert_eq!(obj.as_str(), c1);
    let props = ifaces
        .get(CLOCK_INTERFACE)
        .ok_or_else(|| anyhow!("InterfacesAdded without the Clock interface: {ifaces:?}"))?;
    assert_eq!(
        props.get("Port").map(|v| variant_to_json(v)),
        Some(Value::from(emu2.path.as_str())),
        "the added object's properties come along"
    );
    wait_announced(c, mark, "ClockAdded", &c1, &[&c0, &c1])?;
    assert_clocks(c, &mgr, &[&c0, &c1])?;
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
    // Not a terminal: refused before anything opens it read-write, and unchanged.
    let file = std::env::temp_dir().join(format!("chessclock-not-a-tty-{}", std::process::id()));
    std::fs::write(&file, "a plain file\n")?;
    let file_name = file.display().to_string();
    let err = c.run(mgr.attach(&file_name));
    assert_eq!(error_name(err), typed("PortFailed"));
    let Err(zbus::Error::MethodError(_, Some(msg), _)) = c.run(mgr.attach(&file_name)) else {
        panic!("refused with a message");
    };
    assert!(msg.contains("is not a serial device"), "{msg}");
    assert_eq!(std::fs::read_to_string(&file)?, "a plain file\n");
    std::fs::remove_file(&file)?;
    // Virtual clocks: a name is needed, of at most 64 characters.
    assert_eq!(
        error_name(c.run(mgr.add_virtual("  "))),
        typed("InvalidArgument")
    );
    assert_eq!(
        error_name(c.run(mgr.add_virtual(&"x".repeat(65)))),
        typed("InvalidArgument")
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
    let (obj, ifaces): Removed = removed.body().deserialize()?;
    assert_eq!(obj.as_str(), c1);
    assert!(ifaces.iter().any(|i| i == CLOCK_INTERFACE), "{ifaces:?}");
    wait_announced(c, mark, "ClockRemoved", &c1, &[&c0])?;
    assert_clocks(c, &mgr, &[&c0])?;
    assert_eq!(
        error_name(c.run(clock1.game_state())),
        "org.freedesktop.DBus.Error.UnknownObject",
        "the detached object is gone"
    );
    assert_eq!(
        error_name(c.run(mgr.detach(&zbus::ObjectPath::try_from(c1.as_str())?))),
        typed("NoSuchClock")
    );

    // The same through the CLI: attach says what it attached as which clock, with its path
    // (indices are not reused); with --json the path alone, as before; detach takes any
    // clock name (here the tty path).
    let mark = c.mark();
    let out = r.ctl_ok(&["attach", &emu2.path]);
    let c2 = clock_path(2);
    assert!(
        out.trim()
            .starts_with(&format!("attached {} as clock 2 (", emu2.path))
            && out.trim().ends_with(&format!("({c2})")),
        "{out}"
    );
    c.wait_signal(mark, "InterfacesAdded for the CLI's attach", |m| {
        manager_signal_about(m, "InterfacesAdded", &c2)
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
        manager_signal_about(m, "InterfacesRemoved", &c2)
    })?;
    assert_eq!(clocks(c, &mgr)?, [c0]);
    let out = r.daemon.ctl(&["detach", "2"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "detaching a detached clock fails"
    );
    Ok(())
}
