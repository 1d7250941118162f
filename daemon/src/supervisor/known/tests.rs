use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::{FILE, Identity, Known};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cc-known-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("dir");
    d
}

fn tty(port: &str) -> Identity {
    Identity::Tty {
        port: PathBuf::from(port),
        serial: None,
    }
}

fn serial(port: &str, serial: &str) -> Identity {
    Identity::Tty {
        port: PathBuf::from(port),
        serial: Some(serial.to_owned()),
    }
}

fn none() -> BTreeSet<u32> {
    BTreeSet::new()
}

#[test]
fn a_board_gets_the_lowest_free_number_once_and_keeps_it_across_a_restart() {
    let d = dir("once");
    let mut k = Known::load(Some(&d));
    // Board 2 is a configured table's: the first free numbers are 1, then 3.
    let reserved: BTreeSet<u32> = [2].into();
    assert_eq!(k.number(&tty("/dev/a"), &reserved), 1);
    assert_eq!(k.number(&Identity::Virtual("T1".into()), &reserved), 3);
    assert_eq!(k.number(&tty("/dev/b"), &reserved), 4);
    // Asked again, in another order, after a restart: the same numbers.
    let mut k = Known::load(Some(&d));
    assert_eq!(k.number(&tty("/dev/b"), &none()), 4);
    assert_eq!(k.number(&Identity::Virtual("T1".into()), &none()), 3);
    assert_eq!(k.number(&tty("/dev/a"), &none()), 1);
    let text = std::fs::read_to_string(d.join(FILE)).expect("file");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(v.as_array().map(Vec::len), Some(3), "{text}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_board_seen_on_another_port_keeps_its_number_and_name_by_its_serial() {
    let mut k = Known::load(None);
    assert_eq!(k.number(&tty("/dev/a"), &none()), 1);
    let seen = k.serial_seen(Path::new("/dev/a"), "11111", 1, &none());
    assert_eq!((seen.board, seen.was_on), (1, None));
    k.set_name(&serial("/dev/a", "11111"), "Table 1");
    assert_eq!(k.number(&tty("/dev/b"), &none()), 2);
    // The board of /dev/a was replugged on /dev/c: a port record first, then its serial.
    assert_eq!(k.number(&tty("/dev/c"), &none()), 3);
    let seen = k.serial_seen(Path::new("/dev/c"), "11111", 3, &none());
    assert_eq!(seen.board, 1);
    assert_eq!(seen.name.as_deref(), Some("Table 1"));
    assert_eq!(seen.was_on, Some(PathBuf::from("/dev/a")));
    // The tentative number 3 is free again, and /dev/a is no longer known.
    assert_eq!(k.lowest_free(&none()), 3);
    assert_eq!(k.get(&tty("/dev/a")), None);
    assert_eq!(k.get(&tty("/dev/c")).map(|b| b.board), Some(1));
}

#[test]
fn another_board_on_a_known_port_is_numbered_anew_and_the_first_keeps_its_number() {
    let mut k = Known::load(None);
    assert_eq!(k.number(&tty("/dev/a"), &none()), 1);
    k.serial_seen(Path::new("/dev/a"), "11111", 1, &none());
    let seen = k.serial_seen(Path::new("/dev/a"), "22222", 1, &none());
    assert_eq!(seen.board, 2);
    // The first board comes back elsewhere: its number is waiting for it.
    let seen = k.serial_seen(Path::new("/dev/b"), "11111", 9, &none());
    assert_eq!((seen.board, seen.was_on), (1, None));
}

#[test]
fn a_number_held_elsewhere_is_given_up_for_a_free_one() {
    let mut k = Known::load(None);
    assert_eq!(k.number(&Identity::Virtual("x".into()), &none()), 1);
    // A configured table now has board 1.
    assert_eq!(k.number(&Identity::Virtual("x".into()), &[1].into()), 2);
    assert_eq!(k.number(&Identity::Virtual("x".into()), &none()), 2);
}

#[test]
fn a_number_set_by_hand_is_kept_and_the_board_that_had_it_is_numbered_anew() {
    let mut k = Known::load(None);
    let (a, b) = (Identity::Virtual("a".into()), Identity::Virtual("b".into()));
    assert_eq!(k.number(&a, &none()), 1);
    assert_eq!(k.number(&b, &none()), 2);
    k.set_number(&b, 1);
    assert_eq!(k.number(&b, &none()), 1);
    assert_eq!(k.number(&a, &none()), 2);
    k.forget(&a);
    assert_eq!(k.get(&a), None);
    assert_eq!(k.lowest_free(&none()), 2);
}

#[test]
fn a_damaged_file_is_set_aside_and_numbers_are_given_anew() {
    let d = dir("damaged");
    std::fs::write(d.join(FILE), "[{ not json").expect("write");
    let mut k = Known::load(Some(&d));
    assert_eq!(k.number(&tty("/dev/a"), &none()), 1);
    let names: Vec<String> = std::fs::read_dir(&d)
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().any(|n| n.starts_with("boards.json.damaged-")),
        "{names:?}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
