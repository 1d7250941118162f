//! Conversions between JSON values and D-Bus variants, for `a{sv}` properties.
//!
//! The Snapshot property is the engine's snapshot (spec §1.1) as `a{sv}`: objects become
//! `a{sv}`, arrays `av`, integers `t` (or `x` when negative), floats `d`, strings `s`,
//! booleans `b`; JSON `null` has no D-Bus form, so null members are left out and a client
//! reads a missing key as null. Owns only this mapping.

use std::collections::BTreeMap;

use serde_json::{Map, Number, Value};
use zbus::{OwnedVariant, Variant};

/// A JSON object as a D-Bus dictionary (`a{sv}`); null members are left out.
pub fn object_to_dict(obj: &Map<String, Value>) -> BTreeMap<String, OwnedVariant> {
    obj.iter()
        .filter_map(|(k, v)| json_to_variant(v).map(|v| (k.clone(), v)))
        .collect()
}

/// A JSON value as a D-Bus variant; `None` for null.
pub fn json_to_variant(v: &Value) -> Option<OwnedVariant> {
    let owned = match v {
        Value::Null => return None,
        Value::Bool(b) => OwnedVariant::from(*b),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                OwnedVariant::from(u)
            } else if let Some(i) = n.as_i64() {
                OwnedVariant::from(i)
            } else {
                OwnedVariant::from(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => OwnedVariant::from(zbus::Str::from(s.clone())),
        Value::Array(items) => {
            let vs: Vec<OwnedVariant> = items.iter().filter_map(json_to_variant).collect();
            OwnedVariant::try_from(Variant::from(vs)).ok()?
        }
        Value::Object(obj) => OwnedVariant::from(object_to_dict(obj)),
    };
    Some(owned)
}

/// A D-Bus variant as JSON (the inverse of [`json_to_variant`] for the types it produces;
/// other types map to their nearest JSON form).
pub fn variant_to_json(v: &Variant<'_>) -> Value {
    match v {
        Variant::U8(x) => Value::from(*x),
        Variant::Bool(x) => Value::from(*x),
        Variant::I16(x) => Value::from(*x),
        Variant::U16(x) => Value::from(*x),
        Variant::I32(x) => Value::from(*x),
        Variant::U32(x) => Value::from(*x),
        Variant::I64(x) => Value::from(*x),
        Variant::U64(x) => Value::from(*x),
        Variant::F64(x) => Number::from_f64(*x).map_or(Value::Null, Value::Number),
        Variant::Str(s) => Value::from(s.as_str()),
        Variant::Signature(s) => Value::from(s.to_string()),
        Variant::ObjectPath(p) => Value::from(p.as_str()),
        Variant::Variant(inner) => variant_to_json(inner),
        Variant::Array(a) => Value::Array(a.iter().map(variant_to_json).collect()),
        Variant::Dict(d) => {
            let mut m = Map::new();
            for (k, val) in d.iter() {
                let key = match k {
                    Variant::Str(s) => s.as_str().to_owned(),
                    other => variant_to_json(other).to_string(),
                };
                m.insert(key, variant_to_json(val));
            }
            Value::Object(m)
        }
        other => Value::from(format!("{other:?}")),
    }
}

/// A D-Bus dictionary as a JSON object.
pub fn dict_to_object(d: &BTreeMap<String, OwnedVariant>) -> Map<String, Value> {
    d.iter()
        .map(|(k, v)| (k.clone(), variant_to_json(v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_like_object_round_trips_except_nulls() {
        let json = serde_json::json!({
            "t_ms": 10_000u64, "white_ms": 290_000u64, "running": "black", "result": null,
            "moves": {"white": 1, "black": 0},
            "detail": {"white": {"main_ms": 290_000u64, "can_win": false}},
            "flags": [{"side": "black", "t_ms": 80_000u64, "reason": "time"}],
            "neg": -5, "half": 0.5
        });
        let Value::Object(obj) = &json else {
            panic!("not an object")
        };
        let dict = object_to_dict(obj);
        assert!(!dict.contains_key("result"), "null members are left out");
        let back = Value::Object(dict_to_object(&dict));
        let mut expected = json.clone();
        expected.as_object_mut().expect("object").remove("result");
        assert_eq!(back, expected);
    }
}
