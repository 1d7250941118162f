//! The direct conversion gives the same dictionary as the JSON path, for every serde shape.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::to_dict;
use crate::variant::object_to_dict;

fn via_json<T: Serialize>(v: &T) -> BTreeMap<String, zbus::OwnedVariant> {
    match serde_json::to_value(v).expect("json") {
        Value::Object(obj) => object_to_dict(&obj),
        other => panic!("not an object: {other}"),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Plain,
    Wrapped(u32),
    Pair(i8, String),
    Shaped { a: Option<u8>, b: f32 },
}

#[derive(Serialize)]
struct Unit;

#[derive(Serialize)]
struct Newtype(i64);

#[derive(Serialize)]
struct Every {
    t: u64,
    small: u8,
    neg: i32,
    zero_i: i64,
    big_i: i128,
    half: f64,
    nan: f64,
    yes: bool,
    ch: char,
    s: &'static str,
    none: Option<u32>,
    some: Option<String>,
    unit: (),
    unit_struct: Unit,
    newtype: Newtype,
    kinds: Vec<Kind>,
    with_nulls: Vec<Option<u8>>,
    empty: Vec<u8>,
    tuple: (u8, &'static str, bool),
    map: BTreeMap<u32, Vec<Kind>>,
    nested: BTreeMap<&'static str, BTreeMap<&'static str, Option<i16>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<u8>,
}

#[test]
fn every_shape_is_the_same_as_through_json() {
    let value = Every {
        t: u64::MAX,
        small: 7,
        neg: -5,
        zero_i: 0,
        big_i: -3,
        half: 0.5,
        nan: f64::NAN,
        yes: true,
        ch: 'é',
        s: "text",
        none: None,
        some: Some("x".into()),
        unit: (),
        unit_struct: Unit,
        newtype: Newtype(-1),
        kinds: vec![
            Kind::Plain,
            Kind::Wrapped(3),
            Kind::Pair(-2, "p".into()),
            Kind::Shaped { a: None, b: 1.5 },
        ],
        with_nulls: vec![Some(1), None, Some(2)],
        empty: vec![],
        tuple: (1, "two", false),
        map: BTreeMap::from([(10, vec![Kind::Plain]), (2, vec![])]),
        nested: BTreeMap::from([("white", BTreeMap::from([("a", Some(-1)), ("b", None)]))]),
        skipped: None,
    };
    let direct = to_dict(&value).expect("a dictionary");
    assert_eq!(direct, via_json(&value));
    assert!(!direct.contains_key("none") && !direct.contains_key("nan"));
    assert_eq!(direct.get("neg"), Some(&zbus::OwnedVariant::from(-5i64)));
    assert_eq!(direct.get("small"), Some(&zbus::OwnedVariant::from(7u64)));
}

#[test]
fn only_objects_make_a_dictionary() {
    assert!(to_dict(&5u8).is_none());
    assert!(to_dict(&vec![1u8]).is_none());
    assert!(
        to_dict(&BTreeMap::from([(true, 1u8)])).is_none(),
        "a key must be text"
    );
    assert_eq!(
        to_dict(&BTreeMap::<String, u8>::new()),
        Some(BTreeMap::new())
    );
}
