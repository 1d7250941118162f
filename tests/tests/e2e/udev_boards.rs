//! The shipped udev rules evaluated on devices as udev sees them: DGT boards get stable
//! names and the attach unit, everything else is left alone (the rules' syntax is checked in
//! `system_files`).

use std::collections::BTreeMap;

use chessclock_tests::paths::repo_path;
use chessclock_tests::udev::check_rules;
use chessclock_tests::udev_eval::{Device, Outcome, Parent, apply};

fn read(relative: &str) -> String {
    std::fs::read_to_string(repo_path(relative)).unwrap_or_else(|e| panic!("read {relative}: {e}"))
}

/// A DGT USB board as udev sees it: tty `kernel` under a CDC-ACM interface of a 045b:8111
/// device without a serial number, on the USB socket `path`.
fn dgt_board(kernel: &str, path: &str) -> Device {
    let usb_device = Parent {
        kernel: "1-1.2".to_owned(),
        subsystem: "usb".to_owned(),
        driver: "usb".to_owned(),
        attrs: [
            ("idVendor", "045b"),
            ("idProduct", "8111"),
            ("manufacturer", "DGT"),
            ("product", "DGT Chessboard"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect(),
    };
    let interface = Parent {
        kernel: "1-1.2:1.0".to_owned(),
        subsystem: "usb".to_owned(),
        driver: "cdc_acm".to_owned(),
        attrs: BTreeMap::new(),
    };
    Device {
        action: "add".to_owned(),
        kernel: kernel.to_owned(),
        subsystem: "tty".to_owned(),
        env: BTreeMap::new(),
        path_id: Some(path.to_owned()),
        parents: vec![interface, usb_device],
    }
}

fn shipped_rules() -> Vec<Vec<chessclock_tests::udev::Item>> {
    check_rules(&read("udev/70-chessclockd.rules"))
        .unwrap_or_else(|p| panic!("udev/70-chessclockd.rules:\n{}", p.join("\n")))
}

#[test]
fn two_identical_boards_get_distinct_stable_names_and_are_attached() {
    let rules = shipped_rules();
    let left = "platform-fd500000.pcie-pci-0000:01:00.0-usb-0:1.2:1.0";
    let right = "platform-fd500000.pcie-pci-0000:01:00.0-usb-0:1.3:1.0";
    let a = apply(&rules, &dgt_board("ttyACM0", left)).expect("rules apply");
    // The second board has ID_PATH from 60-serial.rules already: the rule uses it as is.
    let mut second = dgt_board("ttyACM1", "never-used");
    second.env.insert("ID_PATH".to_owned(), right.to_owned());
    let b = apply(&rules, &second).expect("rules apply");
    assert_eq!(
        a.symlinks,
        vec!["dgt/board-0".to_owned(), format!("dgt/by-path/{left}")]
    );
    assert_eq!(
        b.symlinks,
        vec!["dgt/board-1".to_owned(), format!("dgt/by-path/{right}")]
    );
    for out in [&a, &b] {
        assert_eq!(out.env["ID_MM_DEVICE_IGNORE"], "1", "{out:?}");
        assert!(out.tags.iter().any(|t| t == "systemd"), "{out:?}");
        assert_eq!(out.group.as_deref(), Some("dialout"));
    }
    assert_eq!(a.env["SYSTEMD_WANTS"], "chessclock-attach@ttyACM0.service");
    assert_eq!(b.env["SYSTEMD_WANTS"], "chessclock-attach@ttyACM1.service");
    // The same board in the same socket after a reboot where it came up second: the
    // kernel-numbered symlink moves, the by-path symlink does not.
    let again = apply(&rules, &dgt_board("ttyACM1", left)).expect("rules apply");
    assert_eq!(again.symlinks[1], a.symlinks[1]);
    assert_ne!(again.symlinks[0], a.symlinks[0]);
}

#[test]
fn a_board_without_a_path_gets_only_the_numbered_link() {
    let mut dev = dgt_board("ttyACM0", "");
    dev.path_id = None;
    let out = apply(&shipped_rules(), &dev).expect("rules apply");
    assert_eq!(out.symlinks, vec!["dgt/board-0".to_owned()]);
    assert_eq!(out.env["ID_MM_DEVICE_IGNORE"], "1");
}

#[test]
fn other_devices_and_removals_are_left_alone() {
    let rules = shipped_rules();
    // A generic FTDI adapter (the FTDI line is opt-in, commented out).
    let mut ftdi = dgt_board("ttyUSB0", "pci-0000:00:14.0-usb-0:2:1.0");
    let attrs = &mut ftdi.parents[1].attrs;
    attrs.insert("idVendor".to_owned(), "0403".to_owned());
    attrs.insert("idProduct".to_owned(), "6001".to_owned());
    attrs.insert("manufacturer".to_owned(), "FTDI".to_owned());
    // The Renesas default id without DGT's manufacturer string is some other gadget.
    let mut renesas = dgt_board("ttyACM2", "pci-0000:00:14.0-usb-0:3:1.0");
    renesas.parents[1]
        .attrs
        .insert("manufacturer".to_owned(), "Renesas".to_owned());
    let mut removed = dgt_board("ttyACM0", "pci-0000:00:14.0-usb-0:1:1.0");
    removed.action = "remove".to_owned();
    for dev in [ftdi, renesas, removed] {
        let out = apply(&rules, &dev).expect("rules apply");
        assert_eq!(
            out,
            Outcome {
                env: dev.env.clone(),
                ..Outcome::default()
            },
            "{} {}",
            dev.action,
            dev.kernel
        );
    }
}
