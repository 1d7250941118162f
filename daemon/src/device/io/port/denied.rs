//! Why opening a tty was refused (`EACCES`/`EPERM`), named from what was actually found:
//! the file's owner, group and mode against the daemon's user and groups, or, when those
//! allow the open, the service's device policy.
//!
//! Owns the wording of a denied open. [`explain`] is pure (the facts are passed in and tested
//! in `port/tests.rs`); [`facts`] gathers them (`stat`, the process's credentials,
//! `/etc/passwd` and `/etc/group` for names) and changes nothing.

use std::collections::BTreeMap;
use std::path::Path;

/// The uid and gid a file of a user outside the process's user namespace shows as
/// (`/proc/sys/kernel/overflowuid`; the unit's `PrivateUsers=yes` maps only root and the
/// daemon's own user and group).
const OVERFLOW_ID: u32 = 65534;

/// The tty as `stat` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileFacts {
    pub(crate) uid: u32,
    pub(crate) gid: u32,
    /// The permission bits (`0o7777` of `st_mode`).
    pub(crate) mode: u32,
}

/// Who tried to open it: the effective ids and every group of the process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Caller {
    pub(crate) uid: u32,
    pub(crate) gid: u32,
    /// Supplementary groups (the primary one may be among them or not).
    pub(crate) groups: Vec<u32>,
}

/// Names of users and groups by id (`/etc/passwd`, `/etc/group`); an id without a name is
/// shown as its number.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Names {
    pub(crate) users: BTreeMap<u32, String>,
    pub(crate) groups: BTreeMap<u32, String>,
}

impl Names {
    /// Read `/etc/passwd` and `/etc/group` (unreadable files give numbers only).
    fn read() -> Names {
        Names {
            users: parse_ids(&std::fs::read_to_string("/etc/passwd").unwrap_or_default()),
            groups: parse_ids(&std::fs::read_to_string("/etc/group").unwrap_or_default()),
        }
    }

    fn user(&self, id: u32) -> String {
        self.users
            .get(&id)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }

    fn group(&self, id: u32) -> String {
        self.groups
            .get(&id)
            .cloned()
            .unwrap_or_else(|| id.to_string())
    }
}

/// `name:x:id:...` lines (passwd and group alike) as id -> name; the first name of an id wins.
fn parse_ids(text: &str) -> BTreeMap<u32, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let mut fields = line.split(':');
        let (Some(name), Some(_), Some(id)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        if let Ok(id) = id.parse() {
            out.entry(id).or_insert_with(|| name.to_owned());
        }
    }
    out
}

/// The facts of a refused open of `path`: the file (`None` if even `stat` failed) and the
/// calling process.
pub(crate) fn facts(path: &Path) -> (Option<FileFacts>, Caller, Names) {
    let file = rustix::fs::stat(path).ok().map(|st| FileFacts {
        uid: st.st_uid,
        gid: st.st_gid,
        mode: st.st_mode & 0o7777,
    });
    let caller = Caller {
        uid: rustix::process::geteuid().as_raw(),
        gid: rustix::process::getegid().as_raw(),
        groups: rustix::process::getgroups()
            .unwrap_or_default()
            .into_iter()
            .map(rustix::process::Gid::as_raw)
            .collect(),
    };
    (file, caller, Names::read())
}

/// Which of the file's permission classes applies to the caller, as the kernel picks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Owner,
    Group,
    Other,
}

fn class_of(file: &FileFacts, caller: &Caller) -> Class {
    if file.uid == caller.uid {
        Class::Owner
    } else if file.gid == caller.gid || caller.groups.contains(&file.gid) {
        Class::Group
    } else {
        Class::Other
    }
}

/// Whether the mode gives `class` read and write.
fn grants_rw(mode: u32, class: Class) -> bool {
    let shift = match class {
        Class::Owner => 6,
        Class::Group => 3,
        Class::Other => 0,
    };
    (mode >> shift) & 0o6 == 0o6
}

/// `rw-r-----` for the permission bits.
fn symbolic(mode: u32) -> String {
    (0..9)
        .map(|i| {
            let bit = 1 << (8 - i);
            if mode & bit == 0 {
                '-'
            } else {
                ['r', 'w', 'x'][i % 3]
            }
        })
        .collect()
}

/// The message for a refused open of the tty `shown`; `eperm`: the error was `EPERM` (what a
/// device cgroup answers) rather than `EACCES`.
pub(crate) fn explain(
    shown: &str,
    eperm: bool,
    file: Option<&FileFacts>,
    caller: &Caller,
    names: &Names,
) -> String {
    let mut groups: Vec<u32> = std::iter::once(caller.gid)
        .chain(caller.groups.iter().copied())
        .collect();
    groups.sort_unstable();
    groups.dedup();
    let who = format!(
        "the daemon runs as {} (groups {})",
        names.user(caller.uid),
        groups
            .iter()
            .map(|g| names.group(*g))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let errno = if eperm { "EPERM" } else { "EACCES" };
    let Some(file) = file else {
        return format!(
            "permission denied opening {shown} ({errno}); {who}, and the file cannot even be \
             looked at: a folder on its path is closed to the daemon's user (`namei -l {shown}` \
             shows which)"
        );
    };
    let owner = names.user(file.uid);
    let group = names.group(file.gid);
    let stated = format!(
        "it is owned by {owner}:{group} with mode {:04o} ({})",
        file.mode,
        symbolic(file.mode)
    );
    let outside = if file.uid == OVERFLOW_ID || file.gid == OVERFLOW_ID {
        " (an owner shown as nobody is a user outside the service's user namespace: the \
         shipped unit's PrivateUsers=yes maps only root and the daemon's user, so another \
         user's file looks like nobody's there)"
    } else {
        ""
    };
    let class = class_of(file, caller);
    if caller.uid == 0 || grants_rw(file.mode, class) {
        return format!(
            "permission denied opening {shown} ({errno}), though {stated}, which lets the \
             daemon's user read and write it ({who}): the refusal comes from outside the file, \
             most likely the service's device policy (the shipped unit allows only ttyACM, \
             ttyUSB and rfcomm devices: DevicePolicy=closed with DeviceAllow=; add a \
             DeviceAllow= line in a drop-in, `systemctl edit chessclockd`, for another kind of \
             device), or a security module (AppArmor, SELinux: see the kernel log). To try the \
             daemon without a board, `chessclockctl add-virtual NAME` needs no device"
        );
    }
    let cause = match class {
        Class::Owner => format!(
            "{stated}: the daemon's user owns it but the mode gives the owner no read and write \
             (`chmod u+rw {shown}`)"
        ),
        Class::Group => format!(
            "{stated}, and {who}: that user is in group {group}, but the mode gives the group no read \
             and write (`chmod g+rw {shown}`)"
        ),
        Class::Other => {
            let join = if grants_rw(file.mode, Class::Group) && file.gid != 0 {
                format!("add the daemon's user to group {group}, or ")
            } else {
                String::new()
            };
            format!(
                "{stated}{outside}, and {who}: that user is neither its owner nor in group {group}, \
                 and the mode gives others no read and write ({join}give the device to the \
                 daemon's user or one of its groups: a board's tty is group dialout, mode 0660, \
                 by the package's udev rule; a chessclock-emu pty belongs to whoever started \
                 the emulator, so start it as the daemon's user, or try without hardware with \
                 `chessclockctl add-virtual NAME`)"
            )
        }
    };
    format!("permission denied opening {shown}: {cause}")
}
