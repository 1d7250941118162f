//! Opening ports against real ptys: a port another program holds is reported busy, never
//! missing, and our failed open (or probe) leaves its exclusivity to its owner.

use std::io;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use rustix::fs::{Mode, OFlags};
use serialport::{SerialPort as _, TTYPort};

use super::open_tty;

/// A pty pair and the slave's path; keep both ends alive for the test.
fn pty() -> (TTYPort, TTYPort, PathBuf) {
    let (master, slave) = TTYPort::pair().expect("pty pair");
    let path = PathBuf::from(slave.name().expect("pty name"));
    (master, slave, path)
}

/// A serialport program holding `path` the way serialport does: `TIOCEXCL` and an exclusive
/// `flock`.
fn other_owner(path: &Path) -> Box<dyn serialport::SerialPort> {
    serialport::new(path.to_string_lossy(), 9600)
        .open()
        .expect("the other program opens the port")
}

/// Whether an unprivileged process can open `path` now (`TIOCEXCL` refuses it with `EBUSY`).
/// Root opens a tty whatever `TIOCEXCL` says, so as root the open is made by a shell running
/// as nobody.
fn unprivileged_open(path: &Path) -> Result<(), String> {
    if rustix::process::geteuid().is_root() {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666)).expect("chmod");
        let out = Command::new("sh")
            .arg("-c")
            .arg("exec 3<>\"$0\"")
            .arg(path)
            .uid(65534)
            .gid(65534)
            .output()
            .expect("run sh as nobody");
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    } else {
        rustix::fs::open(
            path,
            OFlags::RDWR | OFlags::NOCTTY | OFlags::NONBLOCK,
            Mode::empty(),
        )
        .map(drop)
        .map_err(|e| e.to_string())
    }
}

fn assert_held(path: &Path, when: &str) {
    let refused = unprivileged_open(path).expect_err(when);
    assert!(refused.to_lowercase().contains("busy"), "{when}: {refused}");
}

#[tokio::test]
async fn a_port_held_by_another_program_is_busy_and_stays_theirs() {
    let (_master, _slave, path) = pty();
    let other = other_owner(&path);
    assert_held(&path, "the other program holds the port exclusively");

    let err = open_tty(&path).expect_err("a held port does not open");
    assert_eq!(err.kind(), io::ErrorKind::ResourceBusy, "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("busy") && msg.contains(&*path.to_string_lossy()),
        "{msg}"
    );
    assert!(!msg.contains("does not exist"), "{msg}");

    assert_held(
        &path,
        "our failed open left the other program's TIOCEXCL alone",
    );
    drop(other);
    unprivileged_open(&path).expect("free again once the other program closed it");
}

#[tokio::test]
async fn a_probe_of_a_held_port_fails_busy_and_leaves_it_held() {
    let (_master, _slave, path) = pty();
    let _other = other_owner(&path);
    let err = crate::device::io::scan::probe(&path, std::time::Duration::from_millis(100))
        .await
        .expect_err("a held port is not probed");
    assert_eq!(err.kind(), io::ErrorKind::ResourceBusy, "{err}");
    assert_held(&path, "the probe left the other program's TIOCEXCL alone");
}

#[tokio::test]
async fn a_free_port_opens_exclusively_and_is_free_after_close() {
    let (_master, _slave, path) = pty();
    let ours = open_tty(&path).expect("a free pty opens");
    assert_held(&path, "our open holds the port");
    let again = open_tty(&path).expect_err("a second open of ours is refused");
    assert_eq!(again.kind(), io::ErrorKind::ResourceBusy, "{again}");
    assert_held(&path, "the refused second open left our hold alone");
    drop(ours);
    unprivileged_open(&path).expect("free once we closed it");
}

#[test]
fn a_missing_port_does_not_exist() {
    let err = open_tty(Path::new("/dev/chessclockd-no-such-tty")).expect_err("missing");
    assert_eq!(err.kind(), io::ErrorKind::NotFound);
    assert!(err.to_string().contains("does not exist"), "{err}");
}

mod denied_words {
    //! The wording of a refused open, from the facts (no files, no credentials).

    use super::super::denied::{Caller, FileFacts, Names, explain};

    fn names() -> Names {
        Names {
            users: [(0, "root"), (998, "chessclockd"), (65534, "nobody")]
                .map(|(id, n)| (id, n.to_owned()))
                .into(),
            groups: [
                (0, "root"),
                (5, "tty"),
                (20, "dialout"),
                (997, "chessclock"),
                (65534, "nogroup"),
            ]
            .map(|(id, n)| (id, n.to_owned()))
            .into(),
        }
    }

    /// chessclockd as the shipped unit runs it: group chessclock, in dialout.
    fn daemon() -> Caller {
        Caller {
            uid: 998,
            gid: 997,
            groups: vec![20],
        }
    }

    fn file(uid: u32, gid: u32, mode: u32) -> FileFacts {
        FileFacts { uid, gid, mode }
    }

    #[test]
    fn a_root_only_pty_names_owner_mode_and_the_daemons_groups_not_dialout_advice() {
        let m = explain(
            "/dev/pts/3",
            false,
            Some(&file(0, 0, 0o600)),
            &daemon(),
            &names(),
        );
        for part in [
            "permission denied opening /dev/pts/3",
            "owned by root:root with mode 0600 (rw-------)",
            "runs as chessclockd (groups dialout, chessclock)",
            "that user is neither its owner nor in group root",
            "add-virtual",
        ] {
            assert!(m.contains(part), "{part:?} in {m}");
        }
        assert!(!m.contains("needs group dialout"), "{m}");
        assert!(!m.contains("add the daemon's user to group"), "{m}");
    }

    #[test]
    fn a_group_with_access_is_offered_and_a_group_without_it_is_named() {
        let m = explain(
            "/dev/ttyX",
            false,
            Some(&file(0, 5, 0o660)),
            &daemon(),
            &names(),
        );
        assert!(m.contains("add the daemon's user to group tty"), "{m}");
        let m = explain(
            "/dev/ttyACM0",
            false,
            Some(&file(0, 20, 0o640)),
            &daemon(),
            &names(),
        );
        assert!(
            m.contains(
                "that user is in group dialout, but the mode gives the group no read and write"
            ),
            "{m}"
        );
        assert!(m.contains("chmod g+rw /dev/ttyACM0"), "{m}");
        let m = explain(
            "/dev/ttyACM0",
            false,
            Some(&file(998, 20, 0o400)),
            &daemon(),
            &names(),
        );
        assert!(m.contains("the daemon's user owns it"), "{m}");
    }

    #[test]
    fn a_mode_that_allows_the_open_blames_the_device_policy() {
        let m = explain(
            "/dev/pts/3",
            true,
            Some(&file(998, 5, 0o620)),
            &daemon(),
            &names(),
        );
        assert!(m.contains("(EPERM)"), "{m}");
        assert!(
            m.contains("lets the daemon's user read and write it"),
            "{m}"
        );
        assert!(m.contains("DevicePolicy=closed"), "{m}");
        assert!(!m.contains("chmod"), "{m}");
    }

    #[test]
    fn an_owner_outside_the_user_namespace_is_explained_and_unknown_ids_are_numbers() {
        let m = explain(
            "/dev/pts/3",
            false,
            Some(&file(65534, 65534, 0o600)),
            &daemon(),
            &names(),
        );
        assert!(m.contains("owned by nobody:nogroup"), "{m}");
        assert!(m.contains("PrivateUsers=yes"), "{m}");
        let m = explain(
            "/dev/pts/3",
            false,
            Some(&file(1234, 4321, 0o600)),
            &daemon(),
            &Names::default(),
        );
        assert!(m.contains("owned by 1234:4321"), "{m}");
        assert!(m.contains("runs as 998 (groups 20, 997)"), "{m}");
        let m = explain("/x/ttyS0", false, None, &daemon(), &names());
        assert!(m.contains("namei -l /x/ttyS0"), "{m}");
    }
}
