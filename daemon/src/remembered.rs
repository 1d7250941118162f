//! The boards attached at run time (D-Bus `Attach`, the udev hook, `chessclockctl attach`)
//! and the virtual clocks (`AddVirtual`), remembered in `state_dir/attached.json` so that a
//! restart attaches them again and their journaled games resume, as the configured ones do.
//!
//! Owns the file's format; reading it (a damaged file is set aside and said, never silently
//! emptied) and rewriting it atomically are the store's (`store::state_file`). The
//! supervisor decides what is in it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::store::state_file;

/// The file, in the state directory.
pub const FILE: &str = "attached.json";

/// What is remembered: the file's contents.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Remembered {
    /// The ports, as they were given (a /dev/dgt/by-path symlink stays a symlink).
    pub ports: BTreeSet<PathBuf>,
    /// The virtual clocks, by name (a file from before they were remembered has none).
    #[serde(default, rename = "virtual")]
    pub virtual_clocks: BTreeSet<String>,
}

/// What is remembered in `dir` (nothing when the file does not exist). A damaged file is
/// set aside and said, as every state file ([`state_file`]); the boards must then be attached
/// again.
pub fn load(dir: &Path) -> Remembered {
    state_file::load_json(
        &dir.join(FILE),
        "boards and virtual clocks attached at run time are not attached again: attach them \
         again (`chessclockctl attach PORT`, `chessclockctl add-virtual NAME`)",
    )
    .unwrap_or_default()
}

/// Rewrite the file in `dir` (atomically: a crash leaves the old or the new).
pub fn save(dir: &Path, remembered: &Remembered) -> std::io::Result<()> {
    state_file::save_json(&dir.join(FILE), remembered)
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
    fn ports_and_virtual_clocks_round_trip_and_a_missing_file_is_none() {
        let d = dir("trip");
        assert_eq!(load(&d), Remembered::default());
        let r = Remembered {
            ports: ["/dev/dgt/by-path/usb-1", "/dev/rfcomm0"]
                .into_iter()
                .map(PathBuf::from)
                .collect(),
            virtual_clocks: ["Board 1".to_owned()].into_iter().collect(),
        };
        save(&d, &r).expect("saved");
        assert_eq!(load(&d), r);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_file_from_before_virtual_clocks_were_remembered_still_loads() {
        let d = dir("old");
        std::fs::create_dir_all(&d).expect("dir");
        std::fs::write(d.join(FILE), r#"{ "ports": ["/dev/ttyACM0"] }"#).expect("write");
        let r = load(&d);
        assert_eq!(r.ports.len(), 1);
        assert!(r.virtual_clocks.is_empty());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_damaged_file_is_kept_aside_not_emptied() {
        let d = dir("damaged");
        std::fs::create_dir_all(&d).expect("dir");
        std::fs::write(d.join(FILE), "{ not json").expect("write");
        assert_eq!(load(&d), Remembered::default());
        let kept: Vec<String> = std::fs::read_dir(&d)
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            kept.iter().any(|n| n.starts_with("attached.json.damaged-")),
            "{kept:?}"
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}
