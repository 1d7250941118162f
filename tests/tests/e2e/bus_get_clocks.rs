//! The Manager's `GetClocks` (docs/dbus-api.md) through a real bus and the real daemon: it
//! says of every clock what `GetManagedObjects` says of its Clock interface (but for
//! `Snapshot`, which `LiveSnapshot` supersedes), its cached dictionaries follow every change
//! of the clock, its `LiveSnapshot` is computed at each read, and a detached clock leaves
//! it. Clients read a daemon from before `GetClocks` through `GetManagedObjects` (a stand-in
//! service on the bus plays that daemon: the real one has `GetClocks`).
//!
//! Waits poll with a deadline; no assertion is about how long something took.

use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;
use std::time::Duration;

use anyhow::{Result, anyhow};
use chessclock_api::names::{BUS_NAME, CLOCK_INTERFACE, MANAGER_PATH, clock_path};
use chessclock_api::variant::variant_to_json;
use chessclock_tests::bus_client::{BusRig, Client, poll};
use serde_json::Value;
use zbus::{OwnedObjectPath, OwnedVariant};

/// Properties by name, as JSON.
type Props = BTreeMap<String, Value>;

fn to_json(props: &HashMap<String, OwnedVariant>) -> Props {
    props
        .iter()
        .map(|(k, v)| (k.clone(), variant_to_json(v)))
        .collect()
}

/// `GetClocks`, by path.
fn get_clocks(c: &Client) -> Result<BTreeMap<String, Props>> {
    let mgr = c.manager()?;
    Ok(c.run(mgr.get_clocks())?
        .iter()
        .map(|(p, props)| (p.as_str().to_owned(), to_json(props)))
        .collect())
}

/// The Clock interface of every object of `GetManagedObjects`, by path.
fn managed_clocks(c: &Client) -> Result<BTreeMap<String, Props>> {
    let om = c.run(
        zbus::fdo::ObjectManagerProxy::builder(c.connection())
            .destination(BUS_NAME)
            .path(MANAGER_PATH)
            .build(),
    )?;
    let objects = c.run(om.get_managed_objects())?;
    Ok(objects
        .iter()
        .filter_map(|(p, ifaces)| {
            let props = ifaces
                .iter()
                .find(|(name, _)| name.as_str() == CLOCK_INTERFACE)?
                .1;
            Some((p.as_str().to_owned(), to_json(props)))
        })
        .collect())
}

/// Where the two answers disagree, if they do. They must have the same clocks, the same
/// properties but `Snapshot` (left out of `GetClocks`), the same values except the live
/// snapshot's, which is computed at each read (there, the same keys as the published
/// snapshot's).
fn disagreement(
    bulk: &BTreeMap<String, Props>,
    managed: &BTreeMap<String, Props>,
) -> Option<String> {
    if !bulk.keys().eq(managed.keys()) {
        return Some("not the same clocks".into());
    }
    let keys = |v: &Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
    for (path, props) in bulk {
        let other = &managed[path];
        if !props.keys().eq(other.keys().filter(|k| *k != "Snapshot")) {
            return Some(format!("{path}: not the same properties but Snapshot"));
        }
        if keys(&props["LiveSnapshot"]) != keys(&other["Snapshot"]) {
            return Some(format!(
                "{path}: LiveSnapshot lacks the published snapshot's keys"
            ));
        }
        for (name, value) in props {
            let same = if name == "LiveSnapshot" {
                keys(value) == keys(&other[name])
            } else {
                value == &other[name]
            };
            if !same {
                return Some(format!("{path}: {name} differs"));
            }
        }
    }
    None
}

/// Poll until both answers agree (a state published between the two calls is retried).
fn agree(c: &Client) -> Result<BTreeMap<String, Props>> {
    poll(
        "GetClocks and GetManagedObjects to agree",
        Duration::from_millis(30),
        || {
            let bulk = get_clocks(c)?;
            let managed = managed_clocks(c)?;
            Ok(match disagreement(&bulk, &managed) {
                None => ControlFlow::Break(bulk),
                Some(why) => ControlFlow::Continue(format!(
                    "{why}\nGetClocks {bulk:?}\nGetManagedObjects {managed:?}"
                )),
            })
        },
    )
}

fn live_as_of(props: &Props) -> Result<u64> {
    props["LiveSnapshot"]["as_of_us"]
        .as_u64()
        .ok_or_else(|| anyhow!("LiveSnapshot without as_of_us: {props:?}"))
}

#[test]
fn get_clocks_says_what_the_object_manager_says_and_follows_changes() -> Result<()> {
    let r = BusRig::start("G/5 inc/3")?;
    let c = &r.client;
    let clock0 = r.ready_clock0()?;
    let emu2 = r.another_emu()?;
    let mgr = c.manager()?;
    let p1: OwnedObjectPath = c.run(mgr.attach(&emu2.path))?;
    r.ready(&c.clock(p1.as_str())?)?;
    let (c0, c1) = (clock_path(0), clock_path(1));

    let first = agree(c)?;
    assert_eq!(first.keys().collect::<Vec<_>>(), [&c0, &c1]);
    assert_eq!(first[&c1]["Port"], Value::from(emu2.path.as_str()));
    assert_eq!(first[&c0]["TimeControl"], Value::from("G/5 inc/3"));

    // A change of the clock is in the next answer: the cached dictionary follows the state.
    c.run(clock0.set_time_control("G/3 d/2"))?;
    let changed = agree(c)?;
    assert_eq!(changed[&c0]["TimeControl"], Value::from("G/3 d/2"));
    assert_eq!(changed[&c1]["TimeControl"], first[&c1]["TimeControl"]);

    // Running, the live snapshot is computed at each read while the published state (and so
    // the cached dictionary) stays the same.
    c.run(clock0.start("white"))?;
    let running = agree(c)?;
    assert_eq!(
        running[&c0]["LiveSnapshot"]["running"],
        Value::from("white")
    );
    let later = poll("a later live snapshot", Duration::from_millis(20), || {
        let now = get_clocks(c)?;
        Ok(if live_as_of(&now[&c0])? > live_as_of(&running[&c0])? {
            ControlFlow::Break(now)
        } else {
            ControlFlow::Continue(format!("{now:?}"))
        })
    })?;
    assert!(
        later[&c0]["LiveSnapshot"]["white_ms"].as_u64()
            <= running[&c0]["LiveSnapshot"]["white_ms"].as_u64(),
        "White's time runs down between two reads: {later:?} after {running:?}"
    );

    // A detached clock leaves the answer.
    c.run(mgr.detach(&p1.as_ref()))?;
    let after = poll(
        "clock 1 to leave GetClocks",
        Duration::from_millis(30),
        || {
            let now = get_clocks(c)?;
            Ok(if now.contains_key(&c1) {
                ControlFlow::Continue(format!("{now:?}"))
            } else {
                ControlFlow::Break(now)
            })
        },
    )?;
    assert_eq!(after.keys().collect::<Vec<_>>(), [&c0]);
    agree(c)?;
    Ok(())
}

/// A daemon from before `GetClocks`: a Manager without it, the ObjectManager, one clock
/// object and one object at a path that is no clock's.
struct OldManager;

#[zbus::interface(name = "org.chessclockd.ChessClock1.Manager")]
impl OldManager {
    #[zbus(property)]
    fn version(&self) -> String {
        "0.0.1".into()
    }
}

struct OldClock(&'static str);

#[zbus::interface(name = "org.chessclockd.ChessClock1.Clock")]
impl OldClock {
    #[zbus(property)]
    fn name(&self) -> String {
        self.0.into()
    }
}

#[test]
fn clients_read_an_older_daemon_through_the_object_manager() -> Result<()> {
    let bus = chessclock_tests::PrivateBus::start_session()?;
    let rt = tokio::runtime::Runtime::new()?;
    rt.block_on(async {
        let _service = zbus::connection::Builder::address(bus.address())
            .name(BUS_NAME)
            .serve_at(MANAGER_PATH, OldManager)
            .serve_at(MANAGER_PATH, zbus::fdo::ObjectManager)
            .serve_at(clock_path(0).as_str(), OldClock("board one"))
            .serve_at(
                format!("{MANAGER_PATH}/Elsewhere").as_str(),
                OldClock("not a clock"),
            )
            .build()
            .await?;
        let client = zbus::connection::Builder::address(bus.address())
            .build()
            .await?;
        let reply = chessclock_api::read::clocks_reply(&client).await?;
        let clocks: Vec<(String, Value)> = reply
            .clocks()?
            .iter()
            .map(|(p, props)| (p.to_string(), variant_to_json(&props["Name"])))
            .collect();
        assert_eq!(
            clocks,
            [(clock_path(0), Value::from("board one"))],
            "the clock objects' Clock interface, and nothing else"
        );
        anyhow::Ok(())
    })
}
