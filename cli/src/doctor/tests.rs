//! The checks that read files and sockets, against temporary ones.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;

use super::*;

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("doctor-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

/// A one-shot HTTP server answering `code`; its address.
fn http_server(code: u16) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    std::thread::spawn(move || {
        if let Ok((mut s, _)) = listener.accept() {
            // The whole request, up to its blank line, before the answer.
            let mut reader = BufReader::new(&s);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                line.clear();
            }
            let _ = write!(s, "HTTP/1.1 {code} X\r\ncontent-length: 0\r\n\r\n");
        }
    });
    addr
}

#[test]
fn udev_rules_are_found_by_name_in_any_of_the_dirs() {
    let empty = tempdir("udev-empty");
    let full = tempdir("udev-full");
    assert!(!udev(std::slice::from_ref(&empty)).ok);
    std::fs::write(full.join("60-chessclockd.rules"), "").expect("write");
    let c = udev(&[empty, full]);
    assert!(c.ok, "{c:?}");
    assert!(c.detail.contains("60-chessclockd.rules"), "{c:?}");
}

#[test]
fn a_missing_state_directory_fails_and_an_existing_one_reports_its_free_space() {
    let dir = tempdir("state");
    let c = state(&dir.join("nope"));
    assert!(!c.ok && c.detail.contains("does not exist"), "{c:?}");
    let c = state(&dir);
    assert!(c.detail.contains("MiB free"), "{c:?}");
}

#[test]
fn a_state_file_the_daemon_set_aside_fails_the_state_check_naming_it() {
    let dir = tempdir("state-damaged");
    std::fs::write(dir.join("round.json"), "{\"round\": 2}").expect("write");
    assert!(state(&dir).ok, "{:?}", state(&dir));
    std::fs::write(dir.join("round.json.damaged-20261128T060102Z"), "{ no").expect("write");
    let c = state(&dir);
    assert!(!c.ok, "{c:?}");
    assert!(
        c.detail.contains("round.json.damaged-20261128T060102Z") && c.detail.contains("remove"),
        "{c:?}"
    );
}

const SYSTEMD: Host = Host { systemd: true };
const NO_SYSTEMD: Host = Host { systemd: false };

#[test]
fn the_bridge_and_its_broker_are_skipped_without_its_file_and_asked_with_it() {
    let dir = tempdir("bridge");
    let none = bridge(&dir.join("bridge.toml"), SYSTEMD);
    let names: Vec<&str> = none.iter().map(|c| c.check).collect();
    assert_eq!(names, ["bridge", "mqtt"], "{none:?}");
    for c in &none {
        assert!(c.ok && c.skipped && c.detail.contains("skipped"), "{c:?}");
    }

    let file = dir.join("bridge.toml");
    let up = http_server(200);
    std::fs::write(&file, format!("listen = \"{up}\"\n")).expect("write");
    let c = bridge(&file, SYSTEMD);
    assert!(c[0].ok && !c[0].skipped, "{c:?}");
    // No broker set: the broker check says it is skipped, and why.
    assert_eq!(c[1].check, "mqtt");
    assert!(c[1].ok && c[1].skipped, "{c:?}");
    assert!(c[1].detail.contains("no `mqtt` broker"), "{c:?}");

    let failing = http_server(503);
    let broker = TcpListener::bind("127.0.0.1:0").expect("bind");
    let mqtt = broker.local_addr().expect("addr");
    std::fs::write(
        &file,
        format!("listen = \"{failing}\"\nmqtt = \"mqtt://user@{mqtt}\"\n"),
    )
    .expect("write");
    let c = bridge(&file, SYSTEMD);
    assert!(!c[0].ok && c[0].detail.contains("503"), "{c:?}");
    assert_eq!(c[1].check, "mqtt");
    assert!(c[1].ok && !c[1].skipped, "{c:?}");
    drop(broker);
    let c = broker_check(&format!("mqtt://{mqtt}"));
    assert!(!c.ok && c.detail.contains("not reachable"), "{c:?}");

    std::fs::write(&file, "listen = [").expect("write");
    let c = bridge(&file, SYSTEMD);
    assert!(!c[0].ok && c[0].detail.contains("--check-config"), "{c:?}");
}

#[test]
fn the_bridge_is_asked_where_its_drop_ins_make_it_listen() {
    let dir = tempdir("bridge-drop-in");
    let file = dir.join("bridge.toml");
    let free = TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr");
    std::fs::write(
        &file,
        format!("listen = \"{free}\"\n[mqtt]\nurl = \"mqtt://x\"\n"),
    )
    .expect("write");
    let d = dir.join("bridge.toml.d");
    std::fs::create_dir_all(&d).expect("drop-in dir");
    let up = http_server(200);
    std::fs::write(d.join("50-lan.toml"), format!("listen = \"{up}\"\n")).expect("write");
    // Not drop-ins: a backup and a hidden file.
    std::fs::write(d.join("60-old.toml~"), "listen = \"x\"\n").expect("write");
    std::fs::write(d.join(".70-hidden.toml"), "listen = \"x\"\n").expect("write");
    let broker = TcpListener::bind("127.0.0.1:0").expect("bind");
    let mqtt = broker.local_addr().expect("addr");
    // A table's keys merge: the drop-in sets the broker's url, the file's table had one.
    std::fs::write(
        d.join("80-broker.toml"),
        format!("[mqtt]\nurl = \"mqtt://{mqtt}\"\n"),
    )
    .expect("write");
    let c = bridge(&file, SYSTEMD);
    assert!(c[0].ok && c[0].detail.contains(&up), "{c:?}");
    assert!(
        c[1].ok && !c[1].skipped && c[1].detail.contains(&mqtt.to_string()),
        "{c:?}"
    );

    std::fs::write(d.join("90-bad.toml"), "listen = [\n").expect("write");
    let c = bridge(&file, SYSTEMD);
    assert!(!c[0].ok && c[0].detail.contains("90-bad.toml"), "{c:?}");
}

#[test]
fn a_bridge_that_does_not_answer_is_started_as_this_host_starts_services() {
    let dir = tempdir("bridge-down");
    let file = dir.join("bridge.toml");
    // A port nothing listens on: bind one, note it, close it.
    let free = TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr");
    std::fs::write(&file, format!("listen = \"{free}\"\n")).expect("write");
    let c = bridge(&file, SYSTEMD);
    assert!(
        !c[0].ok
            && c[0]
                .detail
                .contains("systemctl enable --now chessclock-bridge"),
        "{c:?}"
    );
    let c = bridge(&file, NO_SYSTEMD);
    assert!(!c[0].ok && c[0].detail.contains("Without systemd"), "{c:?}");
    assert!(!c[0].detail.contains("systemctl"), "{c:?}");
}

#[test]
fn without_systemd_the_time_check_is_skipped_not_failed() {
    let c = time(NO_SYSTEMD);
    assert!(c.ok && c.skipped, "{c:?}");
    assert!(c.detail.contains("systemd is not running here"), "{c:?}");
}

fn broker_check(url: &str) -> Check {
    super::broker(url)
}

#[test]
fn bluetooth_is_checked_only_for_rfcomm_ports() {
    assert!(bluetooth(None).ok && bluetooth(None).skipped);
    assert!(bluetooth(Some(&[])).detail.contains("skipped"));
}
