//! Following chessclockd on D-Bus: waits for its name, reads every clock in one `GetClocks`
//! (`GetManagedObjects` from an older daemon), then applies `InterfacesAdded`,
//! `InterfacesRemoved`, `PropertiesChanged` (the clocks', and the Manager's `PaperGames`: the
//! round's paper boards) and the clock signals (decoded by
//! `chessclock_api::event`), and starts over when the daemon restarts.
//!
//! Every [`PING`] it pings the daemon (`org.freedesktop.DBus.Peer.Ping`) and tells the hub
//! when it answered: the pages judge how old a board's data is by it (a daemon that hangs
//! sends no news, yet owns its name).
//!
//! A client like any other (the `chessclock-api` crate, no back door); feeds the [`Hub`]
//! and nothing else. It never calls a method that changes anything.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chessclock_api::names::{
    BUS_NAME, CLOCK_INTERFACE, MANAGER_INTERFACE, MANAGER_PATH, clock_index,
};
use chessclock_api::{ClockStatus, read};
use futures_util::StreamExt;
use serde_json::{Value, json};
use zbus::{Connection, MatchRule, Message, MessageStream, OwnedObjectPath, OwnedVariant};

use crate::hub::Hub;

type Props = HashMap<String, OwnedVariant>;

/// How often the daemon is pinged, and how long an answer is waited for.
const PING: Duration = Duration::from_secs(5);

/// Follow the daemon for as long as the bus connection lasts.
pub(crate) async fn run(conn: Connection, hub: Arc<Hub>) -> anyhow::Result<()> {
    let dbus = zbus::fdo::DBusProxy::new(&conn).await?;
    let rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .path_namespace(MANAGER_PATH)
        .build()?;
    let mut signals =
        MessageStream::for_match_rule(rule, &conn, std::num::NonZeroUsize::new(4096)).await?;
    let owner_rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender("org.freedesktop.DBus")
        .member("NameOwnerChanged")
        .arg(0, BUS_NAME)
        .build()?;
    let mut owners =
        MessageStream::for_match_rule(owner_rule, &conn, std::num::NonZeroUsize::new(64)).await?;
    loop {
        let owner = match dbus.get_name_owner(BUS_NAME.try_into()?).await {
            Ok(o) => o.to_string(),
            Err(_) => {
                hub.daemon_down(format!(
                    "chessclockd is not running (nobody owns {BUS_NAME})"
                ));
                tracing::info!("waiting for chessclockd to appear on the bus");
                wait_for_owner(&mut owners).await?;
                continue;
            }
        };
        let mut clocks = match read_all(&conn, &hub).await {
            Ok(c) => c,
            Err(e) => {
                hub.daemon_down(format!("chessclockd does not answer: {e}"));
                tracing::warn!("chessclockd does not answer ({e}); trying again");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        tracing::info!(
            "following chessclockd ({owner}), {} clock(s)",
            clocks.props.len()
        );
        let mut ping = tokio::time::interval(PING);
        ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = ping.tick() => {
                    let answer = conn.call_method(
                        Some(owner.as_str()),
                        MANAGER_PATH,
                        Some("org.freedesktop.DBus.Peer"),
                        "Ping",
                        &(),
                    );
                    match tokio::time::timeout(PING, answer).await {
                        Ok(Ok(_)) => hub.answered(),
                        Ok(Err(e)) => tracing::debug!("chessclockd did not answer a ping: {e}"),
                        Err(_) => tracing::debug!("chessclockd did not answer a ping in {PING:?}"),
                    }
                }
                m = signals.next() => {
                    let Some(m) = m else { anyhow::bail!("the bus connection closed") };
                    let Ok(m) = m else { continue };
                    if sender_is(&m, &owner) && m.primary_header().serial_num() > clocks.after {
                        apply(&m, &mut clocks, &hub);
                    }
                }
                m = owners.next() => {
                    let Some(m) = m else { anyhow::bail!("the bus connection closed") };
                    let Ok(m) = m else { continue };
                    let Ok((_, _, new)) = m.body().deserialize::<(String, String, String)>() else {
                        continue;
                    };
                    if new != owner {
                        if new.is_empty() {
                            tracing::warn!("chessclockd left the bus; waiting for it to come back");
                            hub.daemon_down("chessclockd stopped; waiting for it".into());
                        } else {
                            tracing::info!("chessclockd restarted ({new}); reading its clocks again");
                        }
                        break;
                    }
                }
            }
        }
    }
}

async fn wait_for_owner(owners: &mut MessageStream) -> anyhow::Result<()> {
    // Poll as a fallback: a NameOwnerChanged missed before the match was added.
    let mut tick = tokio::time::interval(Duration::from_secs(2));
    tick.tick().await;
    loop {
        tokio::select! {
            m = owners.next() => {
                let Some(m) = m else { anyhow::bail!("the bus connection closed") };
                let Ok(m) = m else { continue };
                if let Ok((_, _, new)) = m.body().deserialize::<(String, String, String)>()
                    && !new.is_empty()
                {
                    return Ok(());
                }
            }
            _ = tick.tick() => return Ok(()),
        }
    }
}

fn sender_is(m: &Message, owner: &str) -> bool {
    m.header().sender().is_some_and(|s| s.as_str() == owner)
}

/// The properties of every clock, and the serial of the reply they came in: signals sent
/// before it are already part of them.
struct Clocks {
    props: HashMap<String, Props>,
    after: std::num::NonZeroU32,
}

async fn read_all(conn: &Connection, hub: &Hub) -> anyhow::Result<Clocks> {
    let manager = chessclock_api::proxy::ManagerProxy::new(conn).await?;
    let version: String = manager.version().await?;
    // A daemon without paper boards (an older one) has none to show.
    let paper = manager.paper_games().await.unwrap_or_else(|e| {
        tracing::debug!("no paper boards from chessclockd: {e}");
        Default::default()
    });
    let reply = read::clocks_reply(conn).await?;
    let mut props = HashMap::new();
    for (path, p) in reply.clocks()? {
        let owned = p
            .into_iter()
            .map(|(k, v)| Ok((k.to_owned(), v.try_into_owned()?)))
            .collect::<zbus::Result<Props>>()?;
        props.insert(path.to_string(), live_as_current(owned));
    }
    let mut statuses = Vec::new();
    for (path, p) in &props {
        statuses.push(ClockStatus::from_properties(path, p)?);
    }
    statuses.sort_by_key(|c| c.index);
    // The paper boards first: the snapshot `daemon_up` makes holds them with the clocks.
    hub.paper(paper);
    hub.daemon_up(version, statuses);
    Ok(Clocks {
        props,
        after: reply.message.primary_header().serial_num(),
    })
}

/// A clock's properties with the live snapshot read as the current one (later changes come
/// as `Snapshot`).
fn live_as_current(mut p: Props) -> Props {
    if let Some(live) = p.remove("LiveSnapshot") {
        p.insert("Snapshot".into(), live);
    }
    p
}

fn publish(hub: &Hub, path: &str, props: &Props) {
    match ClockStatus::from_properties(path, props) {
        Ok(st) => hub.clock(st),
        Err(e) => tracing::warn!("cannot read clock {path}: {e}"),
    }
}

fn apply(m: &Message, clocks: &mut Clocks, hub: &Hub) {
    let header = m.header();
    let (Some(path), Some(member)) = (header.path(), header.member()) else {
        return;
    };
    let path = path.as_str().to_owned();
    let body = m.body();
    match member.as_str() {
        "InterfacesAdded" => {
            type Added = (OwnedObjectPath, HashMap<String, Props>);
            let Ok((obj, mut ifaces)) = body.deserialize::<Added>() else {
                return;
            };
            if let Some(p) = ifaces.remove(CLOCK_INTERFACE).map(live_as_current) {
                publish(hub, obj.as_str(), &p);
                clocks.props.insert(obj.to_string(), p);
            }
        }
        "InterfacesRemoved" => {
            let Ok((obj, ifaces)) = body.deserialize::<(OwnedObjectPath, Vec<String>)>() else {
                return;
            };
            if ifaces.iter().any(|i| i == CLOCK_INTERFACE) {
                clocks.props.remove(obj.as_str());
                if let Some(i) = clock_index(obj.as_str()) {
                    hub.removed(i, obj.as_str());
                }
            }
        }
        "PropertiesChanged" => {
            type Changed = (String, Props, Vec<String>);
            let Ok((iface, changed, _)) = body.deserialize::<Changed>() else {
                return;
            };
            if iface == MANAGER_INTERFACE {
                if let Some(games) = changed.get("PaperGames")
                    && let Ok(games) = std::collections::BTreeMap::<u32, String>::try_from(
                        games
                            .try_clone()
                            .unwrap_or_else(|_| OwnedVariant::from(0u8)),
                    )
                {
                    hub.paper(games);
                }
                return;
            }
            if iface != CLOCK_INTERFACE {
                return;
            }
            if let Some(p) = clocks.props.get_mut(&path) {
                p.extend(changed);
                publish(hub, &path, p);
            }
        }
        _ => {
            // The daemon's events, decoded as every client decodes them (a clock's coming
            // and going is followed above, from the object manager).
            let Some(signal) = chessclock_api::event::decode(m).filter(|s| s.event.is_game())
            else {
                return;
            };
            let Some(index) = clock_index(&signal.clock) else {
                return;
            };
            let mut data = signal.event.fields();
            data.insert("clock".into(), json!(signal.clock));
            hub.game_event(signal.event.kind(), index, Value::Object(data));
        }
    }
}

/// Every clock now, read live (one round trip), for `/api/v1/clocks`.
pub(crate) async fn read_live(conn: &Connection) -> Result<Vec<ClockStatus>, read::ReadError> {
    read::all_clocks(conn).await
}
