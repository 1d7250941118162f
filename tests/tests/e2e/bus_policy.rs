//! The real bus policy (`dbus/org.chessclockd.ChessClock1.conf`) enforced by a real
//! `dbus-daemon`: who may own the name, who may read, who may control.
//!
//! A tiny zbus service stands in for the daemon: it serves a dummy
//! `org.chessclockd.ChessClock1.Manager` with one method and one property. Clients are
//! `dbus-send` processes run as different users with `setpriv`. Needs root to create the
//! users; skips with a printed reason otherwise (CI runs as root).

use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use chessclock_tests::e2e::text;
use chessclock_tests::paths::repo_path;
use chessclock_tests::{PrivateBus, TestUser, ensure_test_user, is_root};

const NAME: &str = "org.chessclockd.ChessClock1";
const PATH: &str = "/org/chessclockd/ChessClock1";
const MANAGER: &str = "org.chessclockd.ChessClock1.Manager";

struct DummyManager {
    calls: Arc<AtomicU32>,
}

#[zbus::interface(name = "org.chessclockd.ChessClock1.Manager")]
impl DummyManager {
    fn attach(&self, port: String) -> String {
        self.calls.fetch_add(1, Ordering::SeqCst);
        format!("attached {port}")
    }

    /// Stands for the daemon's read-only bulk read (the answer's content does not matter here).
    fn get_clocks(&self) -> String {
        "clocks".to_owned()
    }

    /// Stands for the daemon's read-only round check.
    fn check_round(&self, _control: String) -> String {
        "checked".to_owned()
    }

    #[zbus(property)]
    fn version(&self) -> String {
        "policy-test".to_owned()
    }
}

struct Users {
    daemon: TestUser,
    reader: TestUser,
    operator: TestUser,
}

fn users() -> Users {
    Users {
        daemon: ensure_test_user("chessclockd", &[]).expect("create user chessclockd"),
        reader: ensure_test_user("cctest-reader", &[]).expect("create user cctest-reader"),
        operator: ensure_test_user("cctest-operator", &["chessclock"])
            .expect("create user cctest-operator"),
    }
}

fn run(bus: &PrivateBus, user: Option<&TestUser>, args: &[&str]) -> Output {
    bus.dbus_send(user)
        .args(args)
        .output()
        .expect("run dbus-send (package dbus-bin)")
}

fn request_name(bus: &PrivateBus, user: Option<&TestUser>) -> Output {
    run(
        bus,
        user,
        &[
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.RequestName",
            &format!("string:{NAME}"),
            "uint32:0",
        ],
    )
}

fn assert_denied(out: &Output, what: &str) {
    let t = text(out);
    assert!(
        !out.status.success(),
        "{what}: expected AccessDenied, got success: {t}"
    );
    assert!(
        t.contains("org.freedesktop.DBus.Error.AccessDenied"),
        "{what}: expected AccessDenied, got: {t}"
    );
}

fn assert_ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: expected success, got: {}",
        text(out)
    );
}

macro_rules! require_root {
    () => {
        if !is_root() {
            eprintln!("SKIP: this test creates users and switches to them; it needs root (CI runs as root)");
            return;
        }
    };
}

#[test]
fn only_the_daemon_user_and_root_may_own_the_name() {
    require_root!();
    let u = users();
    let bus =
        PrivateBus::start_system_like(&repo_path("dbus")).expect("start bus with the real policy");

    assert_denied(
        &request_name(&bus, Some(&u.reader)),
        "reader owning the name",
    );
    assert_denied(
        &request_name(&bus, Some(&u.operator)),
        "operator owning the name",
    );
    // 1 = DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
    for (user, who) in [(Some(&u.daemon), "chessclockd"), (None, "root")] {
        let out = request_name(&bus, user);
        assert_ok(&out, &format!("{who} owning the name"));
        assert!(text(&out).contains("uint32 1"), "{who}: {}", text(&out));
    }
}

#[test]
fn everyone_reads_only_operators_and_root_control() {
    require_root!();
    let u = users();
    let bus =
        PrivateBus::start_system_like(&repo_path("dbus")).expect("start bus with the real policy");

    let calls = Arc::new(AtomicU32::new(0));
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    let _service = runtime
        .block_on(async {
            zbus::connection::Builder::address(bus.address())
                .name(NAME)
                .serve_at(
                    PATH,
                    DummyManager {
                        calls: calls.clone(),
                    },
                )
                .serve_at(PATH, zbus::fdo::ObjectManager)
                .build()
                .await
        })
        .expect("test service (running as root) owns the name");

    const DEST: &str = "--dest=org.chessclockd.ChessClock1";
    let iface = format!("string:{MANAGER}");
    let get_args = [
        DEST,
        PATH,
        "org.freedesktop.DBus.Properties.Get",
        &iface,
        "string:Version",
    ];
    let get_all_args = [DEST, PATH, "org.freedesktop.DBus.Properties.GetAll", &iface];
    let set_args = [
        DEST,
        PATH,
        "org.freedesktop.DBus.Properties.Set",
        &iface,
        "string:Version",
        "variant:string:x",
    ];
    let managed = [
        DEST,
        PATH,
        "org.freedesktop.DBus.ObjectManager.GetManagedObjects",
    ];
    let introspect = [DEST, PATH, "org.freedesktop.DBus.Introspectable.Introspect"];
    let get_clocks_member = format!("{MANAGER}.GetClocks");
    let get_clocks = [DEST, PATH, &get_clocks_member];
    let check_round_member = format!("{MANAGER}.CheckRound");
    let check_round = [DEST, PATH, &check_round_member, "string:"];
    let attach_member = format!("{MANAGER}.Attach");
    let attach = [DEST, PATH, &attach_member, "string:/dev/ttyACM0"];

    // Reading is open to everyone.
    for (user, who) in [(&u.reader, "reader"), (&u.operator, "operator")] {
        let out = run(&bus, Some(user), &get_args);
        assert_ok(&out, &format!("{who}: Properties.Get"));
        assert!(text(&out).contains("policy-test"), "{who}: {}", text(&out));
        assert_ok(
            &run(&bus, Some(user), &get_all_args),
            &format!("{who}: Properties.GetAll"),
        );
        assert_ok(
            &run(&bus, Some(user), &managed),
            &format!("{who}: GetManagedObjects"),
        );
        assert_ok(
            &run(&bus, Some(user), &get_clocks),
            &format!("{who}: Manager.GetClocks"),
        );
        assert_ok(
            &run(&bus, Some(user), &check_round),
            &format!("{who}: Manager.CheckRound"),
        );
        assert_ok(
            &run(&bus, Some(user), &introspect),
            &format!("{who}: Introspect"),
        );
    }

    // Control is not: the method never runs for a reader.
    assert_denied(
        &run(&bus, Some(&u.reader), &attach),
        "reader calling Manager.Attach",
    );
    assert_denied(
        &run(&bus, Some(&u.reader), &set_args),
        "reader calling Properties.Set",
    );
    assert_denied(
        &run(&bus, Some(&u.daemon), &attach),
        "daemon user (not an operator) calling Attach",
    );
    assert_eq!(
        calls.load(Ordering::SeqCst),
        0,
        "denied calls must not reach the service"
    );
    assert!(
        bus.log().contains("Rejected send message"),
        "dbus-daemon logs each rejection: {}",
        bus.log()
    );

    // Operators and root may call methods.
    let out = run(&bus, Some(&u.operator), &attach);
    assert_ok(&out, "operator calling Manager.Attach");
    assert!(
        text(&out).contains("attached /dev/ttyACM0"),
        "{}",
        text(&out)
    );
    assert_ok(&run(&bus, None, &attach), "root calling Manager.Attach");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    // Set passes the bus policy for operators (the dummy property is read-only, so the
    // service itself answers with an error that is not AccessDenied).
    let out = run(&bus, Some(&u.operator), &set_args);
    assert!(
        !text(&out).contains("org.freedesktop.DBus.Error.AccessDenied"),
        "operator Properties.Set must pass the bus policy: {}",
        text(&out)
    );
}

#[test]
fn a_malformed_policy_file_is_rejected_by_dbus_daemon() {
    // Guards the test above: if dbus-daemon silently ignored broken policy files, the real
    // policy could be broken without any test noticing.
    let dir = chessclock_tests::TempDir::new("badpolicy").expect("temp dir");
    let real = std::fs::read_to_string(repo_path("dbus/org.chessclockd.ChessClock1.conf"))
        .expect("read policy");
    let broken = real.replacen("</busconfig>", "", 1);
    std::fs::write(dir.path().join("broken.conf"), broken).expect("write broken policy");
    let err = PrivateBus::start_system_like(dir.path()).expect_err("broken policy must not load");
    assert!(
        err.to_string()
            .contains("dbus-daemon rejected a policy file"),
        "{err}"
    );
    assert!(err.to_string().contains("broken.conf"), "{err}");
}

#[test]
fn session_bus_is_permissive() {
    let bus = PrivateBus::start_session().expect("start session bus");
    let out = std::process::Command::new("dbus-send")
        .env("DBUS_SESSION_BUS_ADDRESS", bus.address())
        .args([
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.RequestName",
            &format!("string:{NAME}"),
            "uint32:0",
        ])
        .output()
        .expect("run dbus-send");
    assert_ok(&out, "owning the name on the session bus");
}
