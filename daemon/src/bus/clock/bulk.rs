//! Every clock's properties in one answer (the Manager's `GetClocks`), serialised from
//! dictionaries built once per published state instead of a new tree of variants per read.
//!
//! Owns the per-clock cache of the `GetAll` dictionary (all but `LiveSnapshot`, which is
//! computed at each read, and `Snapshot`, which it supersedes: same keys, as of now) and the
//! answer's wire shape `a{oa{sv}}`. The property values are
//! the interface's own getters' (the cache is filled through the generated `get_all`), so
//! this module holds no mapping of its own and no game logic.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::ser::{Serialize, SerializeMap, Serializer};
use tokio::sync::watch;
use zbus::object_server::SignalEmitter;
use zbus::{Connection, ObjectServer, OwnedObjectPath, OwnedVariant};

use super::ClockIface;
use crate::device::ClockState;

/// The property computed at every read, so never cached.
const LIVE: &str = "LiveSnapshot";
/// Left out of the answer: `LiveSnapshot` is the same dictionary as of the read (sending
/// both made the answer a third larger for every reader to decode and drop).
const PUBLISHED: &str = "Snapshot";

/// A clock's `GetAll` dictionary without `LiveSnapshot`, shared by the reads of one state.
type Props = Arc<HashMap<String, OwnedVariant>>;

/// The cached dictionary and the state it was built from (`changed` tells a newer one).
#[derive(Debug)]
pub(crate) struct PropsCache(Mutex<(watch::Receiver<ClockState>, Option<Props>)>);

impl PropsCache {
    pub(crate) fn new(state: watch::Receiver<ClockState>) -> Self {
        PropsCache(Mutex::new((state, None)))
    }

    /// The dictionary when it is still that of the published state; marks the state seen
    /// otherwise, so that a change made while it is rebuilt is noticed at the next read.
    fn current(&self) -> Option<Props> {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let (rx, props) = &mut *slot;
        let changed = rx.has_changed().unwrap_or(true);
        if changed {
            rx.mark_unchanged();
            *props = None;
        }
        props.clone()
    }

    fn store(&self, props: Props) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).1 = Some(props);
    }
}

/// One clock in a `GetClocks` answer: its cached properties plus `LiveSnapshot` computed now.
#[derive(Debug)]
pub(crate) struct Entry {
    props: Props,
    live: OwnedVariant,
}

impl Entry {
    /// The clock's status as a client reads it from this entry (what `GetClocks` gives).
    pub(crate) fn status(
        &self,
        path: &str,
    ) -> Result<chessclock_api::ClockStatus, chessclock_api::StatusError> {
        chessclock_api::ClockStatus::from_lookup(path, |name| match name {
            LIVE => Some(&*self.live),
            _ => self.props.get(name).map(|v| &**v),
        })
    }
}

impl ClockIface {
    /// This clock's entry of a `GetClocks` answer.
    pub(crate) async fn bulk_entry(
        &self,
        server: &ObjectServer,
        conn: &Connection,
        emitter: &SignalEmitter<'_>,
    ) -> zbus::fdo::Result<Entry> {
        let (props, live) = match self.props.current() {
            Some(props) => (props, None),
            None => {
                let mut all =
                    zbus::object_server::Interface::get_all(self, server, conn, None, emitter)
                        .await?;
                all.extend(self.published_properties());
                // Computed just now by `get_all`: used, not computed again (in observe mode
                // that is a second round trip to the actor).
                let live = all.remove(LIVE);
                all.remove(PUBLISHED);
                let props = Arc::new(all);
                self.props.store(props.clone());
                (props, live)
            }
        };
        let live = match live {
            Some(live) => live,
            None => OwnedVariant::from(self.live_dict().await),
        };
        Ok(Entry { props, live })
    }
}

/// The `GetClocks` answer: object path → the Clock interface's properties.
#[derive(Debug, Default)]
pub(crate) struct Clocks(pub(crate) Vec<(OwnedObjectPath, Entry)>);

impl zbus::Type for Clocks {
    const SIGNATURE: &'static zbus::Signature =
        <HashMap<OwnedObjectPath, HashMap<String, OwnedVariant>> as zbus::Type>::SIGNATURE;
}

impl Serialize for Clocks {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (path, entry) in &self.0 {
            map.serialize_entry(path, entry)?;
        }
        map.end()
    }
}

impl Serialize for Entry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.props.len() + 1))?;
        for (name, value) in self.props.iter() {
            map.serialize_entry(name, value)?;
        }
        map.serialize_entry(LIVE, &self.live)?;
        map.end()
    }
}
