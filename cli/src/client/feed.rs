//! The daemon as a stream of happenings for the live verbs (`watch`, `monitor`): its signals,
//! its going away and coming back on the bus (`NameOwnerChanged`), and a change of the
//! bridge's Lichess push problems (its `PropertiesChanged`). No rendering: callers decide
//! what a happening means to them.

use chessclock_api::names::{BRIDGE_BUS_NAME, BUS_NAME, MANAGER_PATH};
use zbus::fdo::{DBusProxy, NameOwnerChangedStream};
use zbus::{Connection, MatchRule, Message, MessageStream};

/// One thing that happened on the bus.
#[derive(Debug)]
pub(crate) enum Happening {
    /// A signal of the daemon (of the manager or of a clock).
    Signal(Message),
    /// The bridge's push problems changed.
    Push,
    /// The daemon left the bus (stopped, crashed, restarting).
    Gone,
    /// The daemon is on the bus again.
    Back,
    /// The connection to the bus itself is lost.
    Lost(String),
}

/// The daemon's signals and its presence, on one connection.
#[derive(Debug)]
pub(crate) struct Feed {
    signals: MessageStream,
    owners: NameOwnerChangedStream,
    bridge: MessageStream,
}

impl Feed {
    /// Subscribe on `conn`; also whether the daemon is on the bus now. Subscribing first
    /// means nothing is missed between the answer and the first happening.
    pub(crate) async fn open(conn: &Connection) -> zbus::Result<(Feed, bool)> {
        // A rule on the well-known name: the bus delivers the signals of whichever process
        // owns it, so the subscription outlives a daemon restart.
        let rule = MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .sender(BUS_NAME)
            .path_namespace(MANAGER_PATH)
            .build()?;
        let signals = MessageStream::for_match_rule(rule, conn, None).await?;
        let rule = MatchRule::builder()
            .msg_type(zbus::message::Type::Signal)
            .sender(BRIDGE_BUS_NAME)
            .path(chessclock_api::push::BRIDGE_PATH)
            .build()?;
        let bridge = MessageStream::for_match_rule(rule, conn, None).await?;
        let dbus = DBusProxy::new(conn).await?;
        let owners = dbus
            .receive_name_owner_changed_with_args(&[(0, BUS_NAME)])
            .await?;
        let name = BUS_NAME.try_into()?;
        let present = dbus.name_has_owner(name).await?;
        Ok((
            Feed {
                signals,
                owners,
                bridge,
            },
            present,
        ))
    }

    /// The next happening.
    pub(crate) async fn next(&mut self) -> Happening {
        loop {
            tokio::select! {
                msg = next_item(&mut self.signals) => match msg {
                    Some(Ok(m)) => return Happening::Signal(m),
                    Some(Err(e)) => return Happening::Lost(e.to_string()),
                    None => return Happening::Lost("the bus connection closed".into()),
                },
                msg = next_item(&mut self.bridge) => match msg {
                    Some(Ok(_)) => return Happening::Push,
                    Some(Err(e)) => return Happening::Lost(e.to_string()),
                    None => return Happening::Lost("the bus connection closed".into()),
                },
                change = next_item(&mut self.owners) => {
                    let Some(change) = change else {
                        return Happening::Lost("the bus connection closed".into());
                    };
                    let Ok(args) = change.args() else { continue };
                    // A restart may be seen as gone-then-back or as one change of owner.
                    return match (args.old_owner().is_some(), args.new_owner().is_some()) {
                        (_, true) => Happening::Back,
                        (true, false) => Happening::Gone,
                        (false, false) => continue,
                    };
                }
            }
        }
    }
}

/// `StreamExt::next` without a futures dependency.
pub(crate) async fn next_item<S>(stream: &mut S) -> Option<S::Item>
where
    S: zbus::export::futures_core::Stream + Unpin,
{
    std::future::poll_fn(|cx| std::pin::Pin::new(&mut *stream).poll_next(cx)).await
}
