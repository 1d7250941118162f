//! The shipped system files: systemd units and sysusers (checked with systemd's own tools
//! when present, and statically always), the udev rules (offline syntax checker) and the
//! D-Bus activation file.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use chessclock_tests::TempDir;
use chessclock_tests::paths::repo_path;
use chessclock_tests::udev::check_rules;

fn read(relative: &str) -> String {
    std::fs::read_to_string(repo_path(relative)).unwrap_or_else(|e| panic!("read {relative}: {e}"))
}

/// `[Section]` -> key -> values (a key may repeat), ignoring comments.
fn ini(text: &str) -> BTreeMap<String, BTreeMap<String, Vec<String>>> {
    let mut out: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    let mut section = String::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.to_owned();
            continue;
        }
        let (k, v) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("not key=value: {line}"));
        out.entry(section.clone())
            .or_default()
            .entry(k.trim().to_owned())
            .or_default()
            .push(v.trim().to_owned());
    }
    out
}

fn has_tool(name: &str) -> bool {
    Command::new(name)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn daemon_unit_has_the_required_settings() {
    let unit = ini(&read("systemd/chessclockd.service"));
    let service = &unit["Service"];
    let want = [
        ("Type", "notify"),
        ("NotifyAccess", "main"),
        ("BusName", "org.chessclockd.ChessClock1"),
        ("ExecStart", "/usr/bin/chessclockd"),
        ("Restart", "on-failure"),
        ("User", "chessclockd"),
        ("SupplementaryGroups", "dialout"),
        ("StateDirectory", "chessclockd"),
        ("ConfigurationDirectory", "chessclockd"),
        ("DevicePolicy", "closed"),
        ("NoNewPrivileges", "yes"),
        ("ProtectSystem", "strict"),
    ];
    for (key, value) in want {
        let got = service
            .get(key)
            .unwrap_or_else(|| panic!("[Service] lacks {key}="));
        assert!(
            got.iter().any(|v| v == value),
            "{key}: want {value}, got {got:?}"
        );
    }
    assert!(service.contains_key("WatchdogSec"), "watchdog configured");
    // A reload checks the configuration first: a bad file fails `systemctl reload` with the
    // file, line and key instead of being signalled to the daemon.
    assert_eq!(
        service["ExecReload"],
        [
            "/usr/bin/chessclockd --check-config",
            "/bin/kill -HUP $MAINPID"
        ],
        "--check-config, then the signal"
    );
    assert!(
        !service.contains_key("DynamicUser"),
        "DynamicUser breaks the bus policy's user rule"
    );
    let devices = &service["DeviceAllow"];
    for dev in ["char-ttyACM rw", "char-ttyUSB rw", "char-rfcomm rw"] {
        assert!(
            devices.iter().any(|d| d == dev),
            "DeviceAllow={dev} missing: {devices:?}"
        );
    }
    assert_eq!(
        unit["Install"]["WantedBy"],
        vec!["multi-user.target".to_owned()]
    );
    // Each tty driver whose DeviceAllow= entry the unit names is loaded before it starts.
    for module in ["cdc_acm", "ftdi_sio", "rfcomm"] {
        let want = format!("modprobe@{module}.service");
        for key in ["Wants", "After"] {
            let got = unit["Unit"][key].join(" ");
            assert!(
                got.split(' ').any(|u| u == want),
                "{key}= lacks {want}: {got}"
            );
        }
    }
}

#[test]
fn rfcomm_template_binds_a_configured_board_before_the_daemon() {
    let unit = ini(&read("systemd/chessclock-rfcomm@.service"));
    let one = |section: &str, key: &str| unit[section][key].join(" ");
    assert_eq!(
        one("Service", "ExecStart"),
        "/usr/lib/chessclockd/rfcomm-bind %i"
    );
    assert_eq!(
        one("Service", "EnvironmentFile"),
        "/etc/chessclockd/rfcomm/%i.conf"
    );
    assert_eq!(
        one("Unit", "ConditionPathExists"),
        "/etc/chessclockd/rfcomm/%i.conf"
    );
    assert_eq!(
        one("Service", "Restart"),
        "always",
        "bound again after a loss"
    );
    assert!(one("Unit", "Before").contains("chessclockd.service"));
    assert!(one("Unit", "After").contains("bluetooth.service"));
    assert_eq!(one("Service", "CapabilityBoundingSet"), "CAP_NET_ADMIN");
    assert!(
        !unit["Service"].contains_key("PrivateNetwork"),
        "Bluetooth sockets exist only in the host's network namespace"
    );
}

/// rfcomm-bind with a stand-in `rfcomm` that logs its arguments: what it refuses before
/// calling the tool, the binding it makes, and that it exits (for systemd to bind again)
/// once the device node goes away.
#[test]
fn rfcomm_bind_checks_its_settings_binds_and_leaves_when_the_node_goes() {
    let dir = TempDir::new("rfcomm").expect("temp dir");
    let log = dir.path().join("calls");
    let fake = dir.path().join("rfcomm");
    std::fs::write(
        &fake,
        format!("#!/bin/sh\necho \"$*\" >>{}\n", log.display()),
    )
    .expect("fake rfcomm");
    Command::new("chmod")
        .arg("+x")
        .arg(&fake)
        .status()
        .expect("chmod");
    let node = dir.path().join("rfcomm3");
    let script = repo_path("packaging/rfcomm-bind");
    let run = |args: &[&str], address: &str| {
        Command::new("sh")
            .arg(&script)
            .args(args)
            .env("RFCOMM", &fake)
            .env("RFCOMM_DEV", &node)
            .env("ADDRESS", address)
            .output()
            .expect("run rfcomm-bind")
    };
    let calls = || std::fs::read_to_string(&log).unwrap_or_default();
    for (args, address, says) in [
        (&["x1"][..], "00:11:22:33:44:55", "rfcomm number"),
        (&["3"][..], "00:11:22:33:44", "not a Bluetooth address"),
        (&["3"][..], "", "not a Bluetooth address"),
    ] {
        let out = run(args, address);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?} {address}: {stderr}");
        assert!(stderr.contains(says), "{args:?} {address}: {stderr}");
    }
    assert_eq!(calls(), "", "nothing bound with bad settings");
    // The node never appears (the stand-in makes none): bound, then gone, exit 1.
    let out = run(&["3"], "00:11:22:33:44:55");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(calls(), "release 3\nbind 3 00:11:22:33:44:55 1\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("binding it again"));
    let out = run(&["--release", "3"], "");
    assert!(out.status.success(), "{out:?}");
    assert!(calls().ends_with("release 3\n"), "{}", calls());
}

#[test]
fn attach_template_runs_chessclockctl_attach_and_follows_the_device() {
    let unit = ini(&read("systemd/chessclock-attach@.service"));
    assert_eq!(
        unit["Service"]["ExecStart"],
        vec!["/usr/bin/chessclockctl attach --if-absent /dev/%I".to_owned()]
    );
    assert_eq!(unit["Unit"]["BindsTo"], vec!["dev-%i.device".to_owned()]);
    assert!(unit["Unit"]["After"][0].contains("chessclockd.service"));
}

#[test]
fn bridge_unit_follows_the_daemon_with_no_devices_and_its_own_user() {
    let unit = ini(&read("systemd/chessclock-bridge.service"));
    let after = unit["Unit"]["After"].join(" ");
    let wants = unit["Unit"]["Wants"].join(" ");
    assert!(after.contains("chessclockd.service"), "After={after}");
    assert!(wants.contains("chessclockd.service"), "Wants={wants}");
    let service = &unit["Service"];
    let one = |key: &str| service.get(key).map(|v| v.join(" ")).unwrap_or_default();
    assert_eq!(one("ExecStart"), "/usr/bin/chessclock-bridge");
    // Its name serves LogControl1 (systemctl service-log-level); its policy lets it own it.
    assert_eq!(one("BusName"), "org.chessclockd.Bridge1");
    let policy = read("dbus/org.chessclockd.Bridge1.conf");
    assert!(
        policy.contains(
            "<policy user=\"chessclock-bridge\">\n    <allow own=\"org.chessclockd.Bridge1\"/>"
        ),
        "{policy}"
    );
    assert_eq!(one("User"), "chessclock-bridge");
    assert_eq!(one("DevicePolicy"), "closed");
    assert_eq!(one("PrivateDevices"), "yes");
    assert!(service.get("DynamicUser").is_none(), "a static user");
    assert!(service.get("DeviceAllow").is_none(), "no devices");
    assert!(
        service.get("PrivateNetwork").is_none(),
        "it serves the network"
    );
    let families = one("RestrictAddressFamilies");
    assert!(
        families.contains("AF_INET") && families.contains("AF_UNIX"),
        "{families}"
    );
    let users = read("systemd/chessclock-bridge.sysusers");
    assert!(
        users
            .lines()
            .any(|l| l.starts_with("u ") && l.contains("chessclock-bridge")),
        "{users}"
    );
}

/// Copy the units to `dir` with the binaries replaced by /bin/true (verify checks that
/// ExecStart exists, and the project's binaries are not installed here), each with the
/// highest exposure `systemd-analyze security` may give it, in tenths: the daemon and its
/// attach template 1.5; the bridge, which needs the network, and the Bluetooth binder, which
/// needs root's CAP_NET_ADMIN in the host's network namespace, 2.0.
fn staged_units(dir: &Path) -> Vec<(std::path::PathBuf, u32)> {
    let mut out = Vec::new();
    for (src, dest, threshold) in [
        ("systemd/chessclockd.service", "chessclockd.service", 15),
        (
            "systemd/chessclock-attach@.service",
            "chessclock-attach@ttyACM0.service",
            15,
        ),
        (
            "systemd/chessclock-bridge.service",
            "chessclock-bridge.service",
            20,
        ),
        (
            "systemd/chessclock-rfcomm@.service",
            "chessclock-rfcomm@0.service",
            20,
        ),
    ] {
        let text = read(src)
            .replace("/usr/lib/chessclockd/rfcomm-bind", "/bin/true")
            .replace("/usr/bin/chessclockd", "/bin/true")
            .replace("/usr/bin/chessclockctl", "/bin/true")
            .replace("/usr/bin/chessclock-bridge", "/bin/true");
        let path = dir.join(dest);
        std::fs::write(&path, text).expect("stage unit");
        out.push((path, threshold));
    }
    out
}

#[test]
fn units_pass_systemd_analyze_verify_and_security() {
    if !has_tool("systemd-analyze") {
        eprintln!("SKIP: systemd-analyze not installed (scripts/test.sh installs package systemd)");
        return;
    }
    let dir = TempDir::new("units").expect("temp dir");
    for (unit, threshold) in staged_units(dir.path()) {
        // The man: entries are checked against the installed pages by the package check.
        let out = Command::new("systemd-analyze")
            .args(["verify", "--man=no"])
            .arg(&unit)
            .output()
            .expect("run verify");
        let stderr = String::from_utf8_lossy(&out.stderr);
        // verify exits 0 on unknown keys and bad values and only warns, so stderr must be empty.
        assert!(
            out.status.success() && stderr.trim().is_empty(),
            "{}: {stderr}",
            unit.display()
        );
        // Exposure at most threshold / 10 of 10 (the --threshold unit is tenths).
        let out = Command::new("systemd-analyze")
            .args(["security", "--offline=yes", "--no-pager"])
            .arg(format!("--threshold={threshold}"))
            .arg(&unit)
            .output()
            .expect("run security");
        let text = String::from_utf8_lossy(&out.stdout);
        let summary = text.lines().last().unwrap_or_default();
        assert!(
            out.status.success(),
            "{}: exposure too high: {summary}",
            unit.display()
        );
    }
}

#[test]
fn sysusers_creates_the_daemon_user_and_the_operators_group() {
    if !has_tool("systemd-sysusers") {
        eprintln!(
            "SKIP: systemd-sysusers not installed (scripts/test.sh installs package systemd)"
        );
        return;
    }
    let root = TempDir::new("sysusers").expect("temp dir");
    std::fs::create_dir_all(root.path().join("etc")).expect("etc");
    let out = Command::new("systemd-sysusers")
        .arg(format!("--root={}", root.path().display()))
        .arg(repo_path("systemd/chessclockd.sysusers"))
        .output()
        .expect("run systemd-sysusers");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let passwd = std::fs::read_to_string(root.path().join("etc/passwd")).expect("passwd");
    let group = std::fs::read_to_string(root.path().join("etc/group")).expect("group");
    assert!(
        passwd
            .lines()
            .any(|l| l.starts_with("chessclockd:x:") && l.ends_with(":/usr/sbin/nologin")),
        "{passwd}"
    );
    assert!(
        group.lines().any(|l| l.starts_with("chessclock:x:")),
        "{group}"
    );
    let dialout = group
        .lines()
        .find(|l| l.starts_with("dialout:"))
        .expect("dialout group");
    assert!(dialout.ends_with(":chessclockd"), "{dialout}");
}

#[test]
fn udev_rules_parse_and_claim_only_dgt_boards() {
    let text = read("udev/70-chessclockd.rules");
    let rules = check_rules(&text)
        .unwrap_or_else(|p| panic!("udev/70-chessclockd.rules:\n{}", p.join("\n")));
    let items: Vec<_> = rules.iter().flatten().collect();
    let has = |key: &str, attr: Option<&str>, op: &str, value: &str| {
        items
            .iter()
            .any(|i| i.key == key && i.attr.as_deref() == attr && i.op == op && i.value == value)
    };
    assert!(
        has("ATTRS", Some("idVendor"), "==", "045b")
            && has("ATTRS", Some("idProduct"), "==", "8111")
    );
    assert!(
        has("ENV", Some("ID_MM_DEVICE_IGNORE"), "=", "1"),
        "ModemManager must be told to stay away"
    );
    assert!(has("TAG", None, "+=", "systemd"));
    assert!(has(
        "ENV",
        Some("SYSTEMD_WANTS"),
        "+=",
        "chessclock-attach@%k.service"
    ));
    assert!(
        items
            .iter()
            .any(|i| i.key == "SYMLINK" && i.op == "+=" && i.value.starts_with("dgt/"))
    );
    // The generic FTDI id must never be claimed by an active rule.
    assert!(
        !has("ATTRS", Some("idVendor"), "==", "0403"),
        "FTDI is opt-in (commented) only"
    );
    assert!(
        text.contains("#SUBSYSTEMS==\"usb\", ATTRS{idVendor}==\"0403\""),
        "opt-in example present"
    );
    assert!(
        repo_path("systemd/chessclock-attach@.service").exists(),
        "the wanted template exists"
    );
}

#[test]
fn dbus_activation_file_starts_the_systemd_unit() {
    let file = ini(&read("dbus/org.chessclockd.ChessClock1.service"));
    let s = &file["D-BUS Service"];
    assert_eq!(s["Name"], vec!["org.chessclockd.ChessClock1".to_owned()]);
    assert_eq!(s["SystemdService"], vec!["chessclockd.service".to_owned()]);
    assert_eq!(s["User"], vec!["chessclockd".to_owned()]);
    assert!(repo_path("systemd/chessclockd.service").exists());
}

#[test]
fn policy_file_loads_into_a_real_dbus_daemon() {
    // No users needed: this only checks that dbus-daemon parses the policy without error.
    let bus =
        chessclock_tests::PrivateBus::start_system_like(&repo_path("dbus")).expect("policy loads");
    assert!(bus.address().starts_with("unix:path="), "{}", bus.address());
}
