//! MQTT for fleets: each clock's state, retained, on `chessclockd/<host>/clock/<index>/state`;
//! its events on `.../event`; `online` / `offline` (the last will) retained on
//! `chessclockd/<host>/status`. The same JSON as the HTTP API. Each board's PGN, retained, on
//! `chessclockd/<host>/board/<B>/pgn` and each paper board's (a board without an e-board) on
//! `chessclockd/<host>/paper/<B>/pgn` ([`games`]); for a fleet round, the bridge also reads
//! every machine's boards' PGN into the round's [`Union`]. What this bridge's Lichess push
//! says of its boards, retained, on `chessclockd/<host>/push/problems` (JSON `[[board,
//! problem], ...]`), and what the other machines' pushing bridges say, read into
//! [`Problems`], so an operator sees a refusal of a board on the machine that drives it.
//!
//! Every few seconds a heartbeat, not retained, on `chessclockd/<host>/heartbeat`
//! (`{"now_us": N}`, this machine's CLOCK_MONOTONIC). A `fleet = true` bridge also reads every
//! machine's state, status and heartbeat topics into its [`Fleet`](crate::fleet::Fleet).
//!
//! Reads the [`Hub`] only; rumqttc reconnects by itself, and every (re)connection republishes
//! the retained state of every clock. The broker may want TLS (`mqtts://`) and a password:
//! [`settings`] resolves both when the settings load; here a refusal (a bad password, an
//! untrusted certificate) is logged as what to fix, never with the password.

pub(crate) mod games;
pub(crate) mod settings;

use std::sync::Arc;
use std::time::Duration;

use rumqttc::{
    AsyncClient, ConnectReturnCode, ConnectionError, Event, LastWill, MqttOptions, Packet, QoS,
    TlsConfiguration, Transport,
};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{Notify, watch};

use crate::hub::Hub;
use crate::push::problems::Problems;
use crate::push::union::Union;
use chessclock_api::fleet::{
    FLEET_HEARTBEAT, FLEET_PAPER, FLEET_PGN, FLEET_PUSH_PROBLEMS, FLEET_SUBSCRIPTIONS,
    HEARTBEAT_EVERY_S, Topics,
};
use chessclock_api::monotonic::monotonic_us;
use settings::Target;

/// Publish the hub and its boards' PGN (read from the daemon on `conn`) to the broker of
/// `target` until the process ends; with `fleet`, read every machine's boards' PGN into it;
/// publish this bridge's push `problems` and read the other machines' into them; with
/// `view` (`fleet = true`), read every machine's clocks into it.
pub(crate) async fn run(
    target: Target,
    host: String,
    hub: Arc<Hub>,
    conn: zbus::Connection,
    fleet: Option<watch::Sender<Union>>,
    problems: Arc<Problems>,
    view: Option<crate::fleet::Shared>,
) {
    let Target { broker, tls } = target;
    let topics = Topics::new(&host);
    let mut opts = MqttOptions::new(
        format!("chessclock-bridge-{host}-{}", std::process::id()),
        broker.host.clone(),
        broker.port,
    );
    opts.set_keep_alive(Duration::from_secs(15));
    if let Some(tls) = tls {
        opts.set_transport(Transport::tls_with_config(TlsConfiguration::Rustls(tls)));
    }
    if let Some(user) = &broker.user {
        opts.set_credentials(user, broker.password.as_deref().unwrap_or_default());
    }
    let name = broker.redacted();
    opts.set_last_will(LastWill::new(
        topics.status(),
        "offline",
        QoS::AtLeastOnce,
        true,
    ));
    let (client, mut eventloop) = AsyncClient::new(opts, 1024);
    let reconnected = Arc::new(Notify::new());
    let boards = games::run(
        conn,
        client.clone(),
        topics.clone(),
        hub.clone(),
        reconnected.clone(),
    );
    let mut events = hub.attach(None).live;
    let publisher = {
        let (client, topics, hub) = (client.clone(), topics.clone(), hub.clone());
        async move {
            loop {
                match events.recv().await {
                    Ok(e) => publish(&client, &topics, &hub, &e).await,
                    Err(RecvError::Lagged(n)) => {
                        tracing::warn!("MQTT fell {n} events behind; republishing every state");
                        republish(&client, &topics, &hub).await;
                    }
                    Err(RecvError::Closed) => return,
                }
            }
        }
    };
    let push_problems = {
        let (client, topic, problems) = (client.clone(), topics.push_problems(), problems.clone());
        let mut changed = problems.changed();
        let mut last: Option<String> = None;
        async move {
            loop {
                let now = serde_json::to_string(&problems.local()).unwrap_or_default();
                if last.as_deref() != Some(now.as_str()) && (last.is_some() || now != "[]") {
                    send(&client, topic.clone(), true, now.clone().into_bytes()).await;
                    last = Some(now);
                }
                if changed.changed().await.is_err() {
                    return;
                }
            }
        }
    };
    // Beats while connected only: a beat queued while the broker is away would arrive late,
    // saying a time long past.
    let up = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let heartbeat = {
        let (client, topic, up) = (client.clone(), topics.heartbeat(), up.clone());
        async move {
            let every = Duration::from_secs(HEARTBEAT_EVERY_S);
            let mut beat = tokio::time::interval(every);
            beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                beat.tick().await;
                if !up.load(std::sync::atomic::Ordering::Relaxed) {
                    continue;
                }
                let now = serde_json::json!({ "now_us": monotonic_us() }).to_string();
                if let Err(e) = client.try_publish(&topic, QoS::AtMostOnce, false, now) {
                    tracing::debug!("MQTT heartbeat not sent: {e}");
                }
            }
        }
    };
    let own = Topics::new(&host).push_problems();
    let connection = async {
        loop {
            match eventloop.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) => {
                    tracing::info!("connected to MQTT broker {name}");
                    up.store(true, std::sync::atomic::Ordering::Relaxed);
                    republish(&client, &topics, &hub).await;
                    reconnected.notify_one();
                    if let Err(e) = client
                        .subscribe(FLEET_PUSH_PROBLEMS, QoS::AtLeastOnce)
                        .await
                    {
                        tracing::warn!("cannot subscribe to {FLEET_PUSH_PROBLEMS}: {e}");
                    }
                    for sub in [FLEET_PGN, FLEET_PAPER] {
                        if fleet.is_some()
                            && let Err(e) = client.subscribe(sub, QoS::AtLeastOnce).await
                        {
                            tracing::warn!("cannot subscribe to {sub}: {e}");
                        }
                    }
                    let follow = FLEET_SUBSCRIPTIONS.into_iter().chain([FLEET_HEARTBEAT]);
                    for sub in follow.filter(|_| view.is_some()) {
                        if let Err(e) = client.subscribe(sub, QoS::AtLeastOnce).await {
                            tracing::warn!("cannot subscribe to {sub}: {e}");
                        }
                    }
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    if let Some(view) = &view {
                        let mut f = view.lock().unwrap_or_else(|p| p.into_inner());
                        if let Err(e) = f.apply(&p.topic, &p.payload, monotonic_us()) {
                            tracing::debug!("fleet: ignoring {e}");
                        }
                    }
                    let pgn = String::from_utf8_lossy(&p.payload);
                    if let Some(other) = Topics::parse_push_problems(&p.topic) {
                        if p.topic != own {
                            let said: Vec<(u32, chessclock_api::Problem)> =
                                serde_json::from_slice(&p.payload).unwrap_or_default();
                            problems.set_remote(other, said);
                        }
                    } else if let (Some(fleet), Some((host, board))) =
                        (&fleet, Topics::parse_pgn(&p.topic))
                    {
                        fleet.send_if_modified(|u| u.set(host, board, &pgn));
                    } else if let (Some(fleet), Some((host, board))) =
                        (&fleet, Topics::parse_paper(&p.topic))
                    {
                        fleet.send_if_modified(|u| u.set_paper(host, board, &pgn));
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    up.store(false, std::sync::atomic::Ordering::Relaxed);
                    match refusal(&e) {
                        Some(why) => tracing::error!("MQTT broker {name}: {why}; retrying in 2 s"),
                        None => tracing::warn!("MQTT broker {name}: {e}; retrying in 2 s"),
                    }
                    tokio::time::sleep(Duration::from_secs(2)).await;
                }
            }
        }
    };
    tokio::join!(publisher, connection, boards, push_problems, heartbeat);
}

/// What to fix when the broker refused us, if it did (rather than being away).
fn refusal(e: &ConnectionError) -> Option<String> {
    match e {
        ConnectionError::ConnectionRefused(
            ConnectReturnCode::BadUserNamePassword | ConnectReturnCode::NotAuthorized,
        ) => Some(
            "the broker refused the user name or password: check the user in mqtt.url and the \
             password in mqtt.password_file (or the credential mqtt-password) against the \
             broker's password_file"
                .to_owned(),
        ),
        ConnectionError::ConnectionRefused(code) => {
            Some(format!("the broker refused the connection ({code:?})"))
        }
        e => {
            crate::tls::explain(e, "mqtt.ca_file").map(|why| format!("TLS handshake failed: {why}"))
        }
    }
}

async fn send(client: &AsyncClient, topic: String, retain: bool, payload: Vec<u8>) {
    if let Err(e) = client
        .publish(topic, QoS::AtLeastOnce, retain, payload)
        .await
    {
        tracing::warn!("MQTT publish failed: {e}");
    }
}

async fn republish(client: &AsyncClient, topics: &Topics, hub: &Hub) {
    send(client, topics.status(), true, b"online".to_vec()).await;
    for c in hub.clocks() {
        match serde_json::to_vec(&*c) {
            Ok(json) => send(client, topics.state(c.index), true, json).await,
            Err(e) => tracing::warn!("cannot serialize clock {}: {e}", c.index),
        }
    }
}

async fn publish(client: &AsyncClient, topics: &Topics, hub: &Hub, e: &crate::hub::Event) {
    match (e.kind, e.index) {
        ("clock", Some(i)) => {
            if let Some(st) = &e.status
                && let Ok(json) = serde_json::to_vec(&**st)
            {
                send(client, topics.state(i), true, json).await;
            }
        }
        // An empty retained message deletes the retained state.
        ("removed", Some(i)) => send(client, topics.state(i), true, Vec::new()).await,
        ("snapshot", _) => republish(client, topics, hub).await,
        ("daemon", _) => {}
        (_, Some(i)) => send(client, topics.event(i), false, e.data.clone().into_bytes()).await,
        _ => {}
    }
}
