//! The boards attached at run time (D-Bus `Attach`, the udev hook, `chessclockctl attach`),
//! remembered in `state_dir/attached.json` so that a restart attaches them again and their
//! journaled games resume, as the configured ones do.
//!
//! Owns the file: its format, reading it (a damaged file is kept aside and reported, never
//! silently emptied) and rewriting it atomically. The supervisor decides what is in it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file, in the state directory.
pub const FILE: &str = "attached.json";

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Attached {
    /// The ports, as they were given (a /dev/dgt/by-path link stays a link).
    ports: Vec<PathBuf>,
}

/// The remembered ports in `dir` (none when the file does not exist). A file that does not
/// parse is renamed `attached.json.unused-<unix seconds>` and reported in the log.
pub fn load(dir: &Path) -> BTreeSet<PathBuf> {
    let path = dir.join(FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return BTreeSet::new(),
        Err(e) => {
            tracing::warn!(
                "cannot read {}: {e}; boards attached at run time are not re-attached",
                path.display()
            );
            return BTreeSet::new();
        }
    };
    match serde_json::from_str::<Attached>(&text) {
        Ok(a) => a.ports.into_iter().collect(),
        Err(e) => {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            let aside = dir.join(format!("{FILE}.unused-{secs}"));
            let _ = std::fs::rename(&path, &aside);
            tracing::warn!(
                "{} is damaged ({e}); kept as {}; boards attached at run time must be attached again",
                path.display(),
                aside.display()
            );
            BTreeSet::new()
        }
    }
}

/// Rewrite the file in `dir` with `ports` (atomically: a crash leaves the old or the new).
pub fn save(dir: &Path, ports: &BTreeSet<PathBuf>) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let text = serde_json::to_string_pretty(&Attached {
        ports: ports.iter().cloned().collect(),
    })
    .map_err(std::io::Error::other)?;
    crate::store::atomic::write_atomic(&dir.join(FILE), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cc-remembered-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn ports_round_trip_and_a_missing_file_is_none() {
        let d = dir("trip");
        assert!(load(&d).is_empty());
        let ports: BTreeSet<PathBuf> = ["/dev/dgt/by-path/usb-1", "/dev/rfcomm0"]
            .into_iter()
            .map(PathBuf::from)
            .collect();
        save(&d, &ports).expect("saved");
        assert_eq!(load(&d), ports);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_damaged_file_is_kept_aside_not_emptied() {
        let d = dir("damaged");
        std::fs::create_dir_all(&d).expect("dir");
        std::fs::write(d.join(FILE), "{ not json").expect("write");
        assert!(load(&d).is_empty());
        let kept: Vec<String> = std::fs::read_dir(&d)
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            kept.iter().any(|n| n.starts_with("attached.json.unused-")),
            "{kept:?}"
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}
