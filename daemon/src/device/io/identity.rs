//! Which journal a tty's game lives in: the board's physical port, not the name it was
//! attached by.
//!
//! A board attached as `/dev/ttyACM0` by the udev hook, as `/dev/dgt/board-0` in the
//! configuration or as its `/dev/dgt/by-path/…` symlink is one port. Its journal is named after
//! the stable by-path symlink that points at the same device (one per USB socket, kept across
//! replugs and reboots), else after the path given. A journal of an older version, named after
//! the path given, is renamed to the stable name so its game resumes.
//!
//! Owns the choice of the store name only; opening the journal is `persist`'s, and telling a
//! different board on the same port from the same board is the session's (by the board's
//! serial number, recorded in the journal).

use std::path::{Path, PathBuf};

use super::persist::store_name;

/// Where udev keeps stable per-socket symlinks: the project's rules, then the kernel's.
pub(crate) const BY_PATH_DIRS: [&str; 2] = ["/dev/dgt/by-path", "/dev/serial/by-path"];

/// Journal files of a store name (`persist` writes these).
const SUFFIXES: [&str; 2] = ["journal", "snapshot"];

/// The stable symlink in `dirs` that names the same device as `port` (first by name), if any.
pub(crate) fn stable_symlink(port: &Path, dirs: &[&Path]) -> Option<PathBuf> {
    let device = std::fs::canonicalize(port).ok()?;
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut symlinks: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        symlinks.sort();
        if let Some(symlink) = symlinks
            .into_iter()
            .find(|l| std::fs::canonicalize(l).is_ok_and(|d| d == device))
        {
            return Some(symlink);
        }
    }
    None
}

/// The name that stands for `port` across replugs and reboots: its stable by-path symlink
/// where udev made one, else the path given. A board's identity in the supervisor's known
/// boards (`supervisor/known.rs`) is this name until its serial number is known.
pub(crate) fn stable_port(port: &Path) -> PathBuf {
    let dirs = BY_PATH_DIRS.map(Path::new);
    stable_symlink(port, &dirs).unwrap_or_else(|| port.to_path_buf())
}

/// The store name of `port`'s game in `state_dir`, looking for stable symlinks in `dirs`. A
/// journal kept under the path given (older versions) while none exists under the stable
/// name is renamed to it.
pub(crate) fn store_for(state_dir: &Path, port: &Path, dirs: &[&Path]) -> String {
    let given = store_name(port);
    let Some(symlink) = stable_symlink(port, dirs) else {
        return given;
    };
    let stable = store_name(&symlink);
    if stable == given {
        return stable;
    }
    let file = |name: &str, suffix: &str| state_dir.join(format!("{name}.{suffix}"));
    let stable_exists = SUFFIXES.iter().any(|s| file(&stable, s).exists());
    let given_exists = SUFFIXES.iter().any(|s| file(&given, s).exists());
    if given_exists && !stable_exists {
        for suffix in SUFFIXES {
            let (from, to) = (file(&given, suffix), file(&stable, suffix));
            if from.exists()
                && let Err(e) = std::fs::rename(&from, &to)
            {
                tracing::warn!(
                    "cannot rename {} to {}: {e}; the game is kept under {}",
                    from.display(),
                    to.display(),
                    port.display()
                );
                return given;
            }
        }
        tracing::info!(
            "the journal of {} now follows the port's stable name {}",
            port.display(),
            symlink.display()
        );
    }
    stable
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Dev {
        root: PathBuf,
    }

    impl Dev {
        /// A fake /dev: a device file `ttyACM3`, a by-path dir with a symlink to it and one to
        /// another device, and a state dir.
        fn new(name: &str) -> Dev {
            let root =
                std::env::temp_dir().join(format!("cc-identity-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            for d in ["by-path", "state"] {
                std::fs::create_dir_all(root.join(d)).expect("dirs");
            }
            for tty in ["ttyACM3", "ttyACM4"] {
                std::fs::write(root.join(tty), b"").expect("device");
            }
            let symlink = |to: &str, name: &str| {
                std::os::unix::fs::symlink(root.join(to), root.join("by-path").join(name))
                    .expect("symlink");
            };
            symlink("ttyACM3", "usb-0:1.2:1.0");
            symlink("ttyACM4", "usb-0:1.3:1.0");
            std::os::unix::fs::symlink(root.join("ttyACM3"), root.join("board-0"))
                .expect("symlink");
            Dev { root }
        }

        fn p(&self, rel: &str) -> PathBuf {
            self.root.join(rel)
        }

        fn store(&self, port: &str) -> String {
            let dirs = [self.p("by-path")];
            let dirs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
            store_for(&self.p("state"), &self.p(port), &dirs)
        }
    }

    impl Drop for Dev {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }

    #[test]
    fn every_name_of_one_port_has_one_journal() {
        let dev = Dev::new("names");
        let stable = store_name(&dev.p("by-path/usb-0:1.2:1.0"));
        assert_eq!(dev.store("ttyACM3"), stable);
        assert_eq!(dev.store("board-0"), stable);
        assert_eq!(dev.store("by-path/usb-0:1.2:1.0"), stable);
        // Another socket is another journal.
        assert_eq!(
            dev.store("ttyACM4"),
            store_name(&dev.p("by-path/usb-0:1.3:1.0"))
        );
        // A port without a stable symlink keeps the name it was given.
        std::fs::write(dev.p("rfcomm0"), b"").expect("device");
        assert_eq!(dev.store("rfcomm0"), store_name(&dev.p("rfcomm0")));
        // A port that is not there (yet) too.
        assert_eq!(dev.store("ttyACM9"), store_name(&dev.p("ttyACM9")));
    }

    #[test]
    fn an_older_journal_under_the_given_name_is_renamed_not_lost() {
        let dev = Dev::new("rename");
        let old = store_name(&dev.p("ttyACM3"));
        let state = dev.p("state");
        std::fs::write(state.join(format!("{old}.journal")), b"records").expect("journal");
        std::fs::write(state.join(format!("{old}.snapshot")), b"start").expect("snapshot");
        let stable = dev.store("ttyACM3");
        assert_ne!(stable, old);
        assert_eq!(
            std::fs::read(state.join(format!("{stable}.journal"))).expect("moved"),
            b"records"
        );
        assert!(state.join(format!("{stable}.snapshot")).exists());
        assert!(!state.join(format!("{old}.journal")).exists());

        // Where the stable journal exists already, an old one is left alone.
        std::fs::write(state.join(format!("{old}.journal")), b"older").expect("journal");
        assert_eq!(dev.store("ttyACM3"), stable);
        assert_eq!(
            std::fs::read(state.join(format!("{old}.journal"))).expect("kept"),
            b"older"
        );
    }
}
