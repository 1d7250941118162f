//! How a published field's value is served as a D-Bus property: its type's signature and
//! its variant ([`BusValue`]), for each type [`super::PublishedClock`] uses.
//!
//! Owns this mapping only: the natural D-Bus types (`s`, `b`, `u`, `as`, `a{ss}`), words
//! for the enums (their `as_str`), and `a{sv}` for a nested object (an empty dictionary for
//! `None`). Clients read the values back through their JSON form ([`crate::variant`]).

use std::collections::{BTreeMap, HashMap};

use zbus::{OwnedVariant, Str, Variant};

use super::{BoardClaim, DeviceState, Half, Mode, Orientation, Status, WhoCanMate};
use crate::last_move::LastMove;

/// A value served as a D-Bus property.
pub trait BusValue {
    /// Its D-Bus type.
    const SIGNATURE: &'static str;
    /// Its variant.
    fn to_bus(&self) -> OwnedVariant;
}

fn word(s: &str) -> OwnedVariant {
    OwnedVariant::from(Str::from(s.to_owned()))
}

fn owned(v: Variant<'_>) -> OwnedVariant {
    // Only containers of strings are built here, which never hold a file descriptor: the
    // conversion cannot fail.
    OwnedVariant::try_from(v).unwrap_or_else(|_| OwnedVariant::from(false))
}

impl BusValue for String {
    const SIGNATURE: &'static str = "s";
    fn to_bus(&self) -> OwnedVariant {
        word(self)
    }
}

impl BusValue for bool {
    const SIGNATURE: &'static str = "b";
    fn to_bus(&self) -> OwnedVariant {
        OwnedVariant::from(*self)
    }
}

impl BusValue for u32 {
    const SIGNATURE: &'static str = "u";
    fn to_bus(&self) -> OwnedVariant {
        OwnedVariant::from(*self)
    }
}

impl BusValue for Vec<String> {
    const SIGNATURE: &'static str = "as";
    fn to_bus(&self) -> OwnedVariant {
        owned(Variant::from(self.clone()))
    }
}

impl BusValue for BTreeMap<String, String> {
    const SIGNATURE: &'static str = "a{ss}";
    fn to_bus(&self) -> OwnedVariant {
        let map: HashMap<String, String> =
            self.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        owned(Variant::from(map))
    }
}

/// An enum served as its word.
macro_rules! words {
    ($($ty:ty),*) => {$(
        impl BusValue for $ty {
            const SIGNATURE: &'static str = "s";
            fn to_bus(&self) -> OwnedVariant {
                word(self.as_str())
            }
        }
    )*};
}

words!(DeviceState, Mode, Half, Status);

/// A word not known yet: the empty string.
impl BusValue for Option<Orientation> {
    const SIGNATURE: &'static str = "s";
    fn to_bus(&self) -> OwnedVariant {
        word(self.map_or("", Orientation::as_str))
    }
}

impl BusValue for Vec<BoardClaim> {
    const SIGNATURE: &'static str = "as";
    fn to_bus(&self) -> OwnedVariant {
        let words: Vec<String> = self.iter().map(|c| c.as_str().to_owned()).collect();
        words.to_bus()
    }
}

impl BusValue for Option<WhoCanMate> {
    const SIGNATURE: &'static str = "a{sv}";
    fn to_bus(&self) -> OwnedVariant {
        let dict = self
            .as_ref()
            .and_then(crate::to_variant::to_dict)
            .unwrap_or_default();
        OwnedVariant::from(dict)
    }
}

impl BusValue for Option<LastMove> {
    const SIGNATURE: &'static str = "a{sv}";
    fn to_bus(&self) -> OwnedVariant {
        let dict = self
            .as_ref()
            .and_then(crate::to_variant::to_dict)
            .unwrap_or_default();
        OwnedVariant::from(dict)
    }
}
