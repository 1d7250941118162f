use std::collections::HashMap;

use serde_json::{Value, json};
use zbus::OwnedVariant;

use super::*;
use crate::status::ClockStatus;
use crate::variant::object_to_dict;

fn find(name: &str) -> Option<&'static Property> {
    PublishedClock::PROPERTIES.iter().find(|p| p.name == name)
}

fn clock() -> PublishedClock {
    PublishedClock {
        index: 2,
        name: "table-a".into(),
        port: "/dev/ttyACM0".into(),
        connected: true,
        device_state: DeviceState::Ready,
        white_side: Half::Right,
        moves_san: vec!["e4".into(), "e5".into()],
        last_move: Some(LastMove {
            number: 1,
            side: chessclock_engine::Side::Black,
            san: "e5".into(),
            uci: "e7e5".into(),
        }),
        game_info: [("White".to_owned(), "Carlsen".to_owned())].into(),
        battery_low: true,
        board_orientation: Some(Orientation::Rotated),
        draw_claimable: vec![BoardClaim::Threefold],
        can_mate: Some(WhoCanMate {
            white: Mating::CanMate,
            black: Mating::CannotMate,
        }),
        ..PublishedClock::default()
    }
}

#[test]
fn every_field_is_one_property_whose_value_has_its_declared_type() {
    let c = clock();
    let json = serde_json::to_value(PublishedClock {
        board_problem: "x".into(),
        clock_problem: "y".into(),
        notices: vec!["n".into()],
        ..c.clone()
    })
    .expect("json");
    let keys: Vec<&str> = json
        .as_object()
        .expect("object")
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(keys.len(), PublishedClock::PROPERTIES.len(), "{keys:?}");
    for p in PublishedClock::PROPERTIES {
        assert!(
            keys.contains(&p.key),
            "{} has no JSON key {}",
            p.name,
            p.key
        );
        let v = c.property(p.name).expect("served");
        assert_eq!(v.value_signature().to_string(), p.signature, "{}", p.name);
    }
    assert_eq!(c.property("Snapshot"), None, "not a published field");
    assert!(find("Index").expect("Index").constant);
    assert!(!find("Name").expect("Name").constant);
    assert!(!find("LastMove").expect("LastMove").required);
    assert_eq!(
        json["can_mate"],
        json!({"white": "can_mate", "black": "cannot_mate"}),
        "each side's verdict as its word"
    );
}

#[test]
fn changed_names_exactly_the_properties_that_differ() {
    let a = clock();
    assert!(a.changed(&a).is_empty());
    let mut b = a.clone();
    b.battery_low = false;
    b.last_move = None;
    let names: Vec<&str> = b.changed(&a).iter().map(|p| p.name).collect();
    assert_eq!(names, ["LastMove", "BatteryLow"]);
}

/// What the daemon serves reads back as the same published clock on the client.
#[test]
fn the_served_properties_read_back_as_the_same_clock() {
    let c = clock();
    let mut props: HashMap<String, OwnedVariant> = PublishedClock::PROPERTIES
        .iter()
        .map(|p| (p.name.to_owned(), c.property(p.name).expect("served")))
        .collect();
    let snapshot = json!({"t_ms": 0, "white_ms": 1, "black_ms": 2, "status": "ready",
        "text": {"white": "0:01", "black": "0:01"}, "phase": {"white": "main", "black": "main"},
        "moves": {"white": 0, "black": 0}, "detail": {"white": {}, "black": {}}, "as_of_us": 7});
    let Value::Object(obj) = snapshot else {
        unreachable!()
    };
    props.insert("Snapshot".into(), OwnedVariant::from(object_to_dict(&obj)));
    let st = ClockStatus::from_properties("/c/2", &props).expect("status");
    assert_eq!(st.published, c);

    // Before the first move: an empty dictionary, read as none (and the client does not
    // make one up from moves it does not have).
    let none = PublishedClock {
        last_move: None,
        moves_san: Vec::new(),
        ..c
    };
    props.insert(
        "LastMove".into(),
        none.property("LastMove").expect("served"),
    );
    props.insert("Moves".into(), none.property("Moves").expect("served"));
    let st = ClockStatus::from_properties("/c/2", &props).expect("status");
    assert_eq!(st.last_move, None);
}
