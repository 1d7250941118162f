//! The objects on the bus: the Manager (with ObjectManager) and one Clock object per clock
//! the supervisor announces.
//!
//! Owns the D-Bus side of a clock's lifetime: a [`Change::Attached`] becomes a registered
//! object, its property/signal forwarder and a `ClockAdded` signal; a [`Change::Detached`]
//! removes them; a clock's new board number is signalled as its `Board` change. Each object is held by a [`ClockObject`] guard that unregisters it when
//! dropped, so no path outlives its clock. It must not start or stop clocks (that is the
//! supervisor's) nor keep game state.

use std::collections::BTreeMap;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use zbus::{Connection, ObjectPath, OwnedObjectPath};

use super::clock::{ClockIface, ClockServed, forward};
use super::manager::ManagerIface;
use super::names::{MANAGER_PATH, clock_path};
use crate::device::DeviceHandle;
use crate::supervisor::{Change, SupervisorHandle};

/// A served Clock object; dropping it unregisters the object and stops its forwarder.
#[derive(Debug)]
struct ClockObject {
    conn: Connection,
    path: String,
    forwarder: JoinHandle<()>,
}

impl ClockObject {
    /// Register `handle`'s object at its path and start forwarding its changes.
    async fn serve(conn: &Connection, index: u32, handle: DeviceHandle) -> zbus::Result<Self> {
        let path = clock_path(index);
        let server = conn.object_server();
        // The state the object is registered with: a change made before the forwarder starts
        // is signalled too.
        let initial = handle.state();
        server
            .at(path.as_str(), ClockServed(ClockIface::new(handle.clone())))
            .await?;
        let iface = server.interface::<_, ClockServed>(path.as_str()).await?;
        let forwarder = tokio::spawn(forward(iface, handle, initial));
        Ok(ClockObject {
            conn: conn.clone(),
            path,
            forwarder,
        })
    }

    /// Unregister now (and wait for it), rather than on drop.
    async fn unregister(mut self) {
        self.forwarder.abort();
        // Taken: the drop below finds nothing left to remove.
        let path = std::mem::take(&mut self.path);
        let _ = self
            .conn
            .object_server()
            .remove::<ClockServed, _>(path.as_str())
            .await;
    }
}

impl Drop for ClockObject {
    fn drop(&mut self) {
        self.forwarder.abort();
        let (conn, path) = (self.conn.clone(), std::mem::take(&mut self.path));
        if path.is_empty() {
            return;
        }
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let _ = conn
                    .object_server()
                    .remove::<ClockServed, _>(path.as_str())
                    .await;
            });
        }
    }
}

/// Serve the Manager object for `sup` on `conn`, and turn `changes` into Clock objects until
/// the supervisor stops.
pub async fn serve(
    conn: Connection,
    sup: SupervisorHandle,
    mut changes: mpsc::Receiver<Change>,
) -> zbus::Result<JoinHandle<()>> {
    let (paths_tx, paths_rx) = watch::channel(Vec::new());
    conn.object_server()
        .at(MANAGER_PATH, ManagerIface::new(sup, paths_rx))
        .await?;
    conn.object_server()
        .at(MANAGER_PATH, zbus::fdo::ObjectManager)
        .await?;
    Ok(tokio::spawn(async move {
        let mut objects: BTreeMap<u32, ClockObject> = BTreeMap::new();
        while let Some(change) = changes.recv().await {
            match change {
                Change::Attached {
                    index,
                    handle,
                    done,
                } => {
                    match ClockObject::serve(&conn, index, handle).await {
                        Ok(object) => {
                            objects.insert(index, object);
                            publish(&conn, &paths_tx, &objects).await;
                            announce(&conn, index, true).await;
                        }
                        Err(e) => tracing::error!(
                            clock = index,
                            "clock {index} cannot be served on the bus: {e}"
                        ),
                    }
                    let _ = done.send(());
                }
                Change::Detached { index, done } => {
                    if let Some(object) = objects.remove(&index) {
                        object.unregister().await;
                        publish(&conn, &paths_tx, &objects).await;
                        announce(&conn, index, false).await;
                    }
                    let _ = done.send(());
                }
            }
        }
    }))
}

/// Update the Manager's `Clocks` property and signal its change.
async fn publish(
    conn: &Connection,
    paths: &watch::Sender<Vec<OwnedObjectPath>>,
    objects: &BTreeMap<u32, ClockObject>,
) {
    let list = objects
        .values()
        .filter_map(|o| ObjectPath::try_from(o.path.as_str()).ok().map(Into::into))
        .collect();
    paths.send_replace(list);
    if let Ok(mgr) = conn
        .object_server()
        .interface::<_, ManagerIface>(MANAGER_PATH)
        .await
    {
        let _ = mgr.get().await.clocks_changed(mgr.signal_emitter()).await;
    }
}

/// `ClockAdded` / `ClockRemoved` for clock `index`.
async fn announce(conn: &Connection, index: u32, added: bool) {
    let path = clock_path(index);
    let (Ok(mgr), Ok(opath)) = (
        conn.object_server()
            .interface::<_, ManagerIface>(MANAGER_PATH)
            .await,
        ObjectPath::try_from(path.as_str()),
    ) else {
        return;
    };
    let emitter = mgr.signal_emitter();
    let sent = if added {
        ManagerIface::clock_added(emitter, opath).await
    } else {
        ManagerIface::clock_removed(emitter, opath).await
    };
    if let Err(e) = sent {
        tracing::debug!("cannot signal {path}: {e}");
    }
    // A clock with a paper board's number makes it an e-board, and its going a paper board
    // again: `PaperGames` changes. Off this loop: its value asks the supervisor, which waits
    // for this loop to serve the change.
    let emitter = emitter.to_owned();
    tokio::spawn(async move {
        if let Err(e) = mgr.get().await.paper_games_changed(&emitter).await {
            tracing::debug!("cannot signal PaperGames: {e}");
        }
    });
}
