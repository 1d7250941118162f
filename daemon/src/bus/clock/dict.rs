//! A clock's snapshot as its `a{sv}` dictionary: built straight from the typed snapshot
//! (no JSON in between), and for reads of the published state once per state, shared by
//! every read until the state changes (its `PropertiesChanged` builds its own and moves it
//! into the signal).
//!
//! Owns the cache and the dictionary's D-Bus type; the mapping itself is
//! `chessclock_api::to_variant`'s. No game logic.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use chessclock_engine::Snapshot;
use zbus::OwnedVariant;

use crate::device::ClockState;

/// `snapshot` as `a{sv}`, with the instant `as_of_us` it holds for.
pub(crate) fn dict_of(snapshot: &Snapshot, as_of_us: u64) -> BTreeMap<String, OwnedVariant> {
    // The one place the engine's typed snapshot becomes D-Bus values.
    let mut dict = chessclock_api::to_variant::to_dict(snapshot).unwrap_or_default();
    dict.insert("as_of_us".into(), OwnedVariant::from(as_of_us));
    dict
}

/// A built dictionary, shared: a read copies a pointer, not the dictionary.
#[derive(Debug, Clone)]
pub(crate) struct SnapshotDict(Arc<BTreeMap<String, OwnedVariant>>);

impl zbus::Type for SnapshotDict {
    const SIGNATURE: &'static zbus::Signature =
        <BTreeMap<String, OwnedVariant> as zbus::Type>::SIGNATURE;
}

impl serde::Serialize for SnapshotDict {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// The dictionary of the last snapshot asked for, with what it was built from.
#[derive(Debug, Default)]
pub(crate) struct SnapshotCache(Mutex<Option<(Snapshot, u64, SnapshotDict)>>);

impl SnapshotCache {
    /// The dictionary of `state`'s snapshot: the one built before when the snapshot and its
    /// instant are the same, else built now and kept.
    pub(crate) fn get(&self, state: &ClockState) -> SnapshotDict {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((snapshot, as_of_us, dict)) = slot.as_ref()
            && *as_of_us == state.as_of_us
            && *snapshot == state.snapshot
        {
            return dict.clone();
        }
        let dict = SnapshotDict(Arc::new(dict_of(&state.snapshot, state.as_of_us)));
        *slot = Some((state.snapshot.clone(), state.as_of_us, dict.clone()));
        dict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::device::{DeviceState, EngineAt, PublishedClock};

    /// A running Fischer game `t_ms` in.
    fn state_at(t_ms: u64) -> ClockState {
        use chessclock_engine::{Engine, Input, Side, Time};
        let parsed = chessclock_engine::notation::parse("G/5 inc/3").expect("control");
        let mut engine = Engine::new(parsed.control).expect("engine");
        engine
            .handle_input(Time::from_ms(0), Input::Start { side: Side::White })
            .expect("start");
        let snapshot = engine.snapshot(Time::from_ms(t_ms));
        ClockState {
            clock: PublishedClock {
                index: 1,
                name: "b1".into(),
                port: "virtual:b1".into(),
                model: "DGT 3000".into(),
                connected: true,
                device_state: DeviceState::Ready,
                game_state: snapshot.status,
                time_control: parsed.canonical,
                ..PublishedClock::default()
            },
            snapshot,
            as_of_us: t_ms * 1000,
            engine: EngineAt(None),
        }
    }

    #[test]
    fn a_published_state_is_built_once_and_a_new_one_again() {
        let cache = SnapshotCache::default();
        let first = state_at(0);
        let a = cache.get(&first);
        let b = cache.get(&first);
        assert!(
            Arc::ptr_eq(&a.0, &b.0),
            "the same state reuses its dictionary"
        );
        assert_eq!(*a.0, dict_of(&first.snapshot, first.as_of_us));
        let later = state_at(2000);
        let c = cache.get(&later);
        assert!(!Arc::ptr_eq(&a.0, &c.0), "a new state builds a new one");
        assert_eq!(c.0.get("as_of_us"), Some(&OwnedVariant::from(2_000_000u64)));
        assert_eq!(*c.0, dict_of(&later.snapshot, later.as_of_us));
    }

    #[test]
    fn the_dictionary_is_the_snapshot_s_json_shape() {
        let st = state_at(1500);
        let serde_json::Value::Object(obj) = serde_json::to_value(&st.snapshot).expect("json")
        else {
            panic!("the snapshot is an object")
        };
        let mut want = chessclock_api::variant::object_to_dict(&obj);
        want.insert("as_of_us".into(), OwnedVariant::from(st.as_of_us));
        assert_eq!(dict_of(&st.snapshot, st.as_of_us), want);
    }
}
