//! Self-tests of the harness pieces that other e2e tests rely on.

use std::os::unix::net::UnixDatagram;
use std::process::Command;
use std::time::Duration;

use chessclock_tests::{NotifySocket, TempDir, ensure_test_user, is_root};

#[test]
fn notify_socket_receives_what_a_service_sends() {
    let notify = NotifySocket::bind().expect("bind");
    let client = UnixDatagram::unbound().expect("socket");
    client
        .send_to(b"STATUS=probing boards\n", notify.path())
        .expect("send status");
    client
        .send_to(b"STATUS=serving 2 clocks\nREADY=1\n", notify.path())
        .expect("send ready");
    let seen = notify
        .wait_for_line("READY=1", Duration::from_secs(5))
        .expect("READY=1 arrives");
    assert_eq!(
        seen,
        vec![
            "STATUS=probing boards\n".to_owned(),
            "STATUS=serving 2 clocks\nREADY=1\n".to_owned()
        ]
    );
    assert_eq!(
        notify.recv(Duration::from_millis(50)),
        None,
        "nothing more was sent"
    );
}

#[test]
fn notify_socket_times_out_when_nothing_is_sent() {
    let notify = NotifySocket::bind().expect("bind");
    assert_eq!(
        notify.wait_for_line("READY=1", Duration::from_millis(100)),
        None
    );
}

#[test]
fn test_users_run_commands_with_their_groups() {
    if !is_root() {
        eprintln!("SKIP: creating users needs root (CI runs as root)");
        return;
    }
    let op = ensure_test_user("cctest-operator", &["chessclock"]).expect("operator");
    let out = op.command("id").output().expect("run id as the operator");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("(cctest-operator)") && text.contains("(chessclock)"),
        "{text}"
    );
    assert!(!text.contains("uid=0"), "{text}");

    let dir = TempDir::new("chown").expect("temp dir");
    std::fs::write(dir.path().join("f"), b"x").expect("write");
    op.chown(dir.path()).expect("chown");
    let owner = Command::new("stat")
        .args(["-c", "%U"])
        .arg(dir.path().join("f"))
        .output()
        .expect("stat");
    assert_eq!(
        String::from_utf8_lossy(&owner.stdout).trim(),
        "cctest-operator"
    );
}
