//! The daemon's small JSON state files (`attached.json`, `boards.json`, `round.json`, `round-boards.json`,
//! `broadcast-rounds.json`, `pairings-round-N.json`, all in the state directory): reading
//! them with one damage policy, and rewriting them atomically.
//!
//! The policy, the same for every file: a file that does not exist is no state (the
//! caller's default). A file that cannot be read or parsed is **set aside**: renamed
//! `NAME.damaged-<UTC time>` beside it (e.g. `round.json.damaged-20261128T060102Z`), kept for
//! the operator, never emptied or overwritten. The log says, at warn level, which file, what
//! is wrong with it, where it was set aside and what the daemon does instead (the caller's
//! words: the state rebuilt from another file, or a default, and what the operator should
//! do); `chessclockctl doctor` fails its `state` check while such a file is there, naming it
//! ([`DAMAGED`] is the suffix it looks for). Writing goes through [`atomic::write_atomic`]:
//! a crash leaves the old file or the new one.
//!
//! Owns the policy and the `.damaged-` name. It must not decide what a file holds or how
//! the state is rebuilt: the caller parses (any `Fn(&str) -> Result<T, String>`, or serde's
//! JSON through [`load_json`]) and says what happens instead.

use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::atomic;

/// What a set-aside file's name gets after its own: `attached.json.damaged-20261128T060102Z`.
pub const DAMAGED: &str = ".damaged-";

/// The state in `path`, read by `parse` (`None`: no file, or a damaged one, set aside and
/// said in the log with `instead`, what the daemon does without it).
pub fn load<T>(
    path: &Path,
    parse: impl FnOnce(&str) -> Result<T, String>,
    instead: &str,
) -> Option<T> {
    let why = match std::fs::read_to_string(path) {
        Ok(text) => match parse(&text) {
            Ok(value) => return Some(value),
            Err(e) => e,
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
        Err(e) => e.to_string(),
    };
    let now = jiff::Timestamp::now();
    match set_aside(path, now) {
        Ok(aside) => tracing::warn!(
            "{} cannot be read ({why}); it is set aside as {}; {instead}",
            path.display(),
            aside.display()
        ),
        Err(e) => tracing::warn!(
            "{} cannot be read ({why}) nor set aside ({e}); {instead}; move it away by hand",
            path.display()
        ),
    }
    None
}

/// The JSON state in `path` (as [`load`]).
pub fn load_json<T: DeserializeOwned>(path: &Path, instead: &str) -> Option<T> {
    load(
        path,
        |text| serde_json::from_str(text).map_err(|e| e.to_string()),
        instead,
    )
}

/// Rewrite `path` with `value` as JSON, atomically, creating its directory if need be.
pub fn save_json<T: Serialize>(path: &Path, value: &T) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
    text.push('\n');
    atomic::write_atomic(path, text.as_bytes())
}

/// Remove `path` (no state); a file already gone is not an error.
pub fn remove(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Rename `path` to `PATH.damaged-<now, UTC>` (a second one in the same second gets `-2`,
/// `-3`, ...); the new name.
pub fn set_aside(path: &Path, now: jiff::Timestamp) -> io::Result<PathBuf> {
    let stamp = now.strftime("%Y%m%dT%H%M%SZ").to_string();
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!("{DAMAGED}{stamp}"));
    let first = path.with_file_name(&name);
    let mut aside = first.clone();
    let mut n = 1;
    while aside.exists() {
        n += 1;
        let mut again = name.clone();
        again.push(format!("-{n}"));
        aside = first.with_file_name(again);
    }
    std::fs::rename(path, &aside)?;
    Ok(aside)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("state-file-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_missing_file_is_no_state_and_sets_nothing_aside() {
        let dir = scratch("missing");
        assert_eq!(load_json::<u32>(&dir.join("x.json"), "none"), None);
        assert!(names(&dir).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn what_is_saved_is_read_back_and_leaves_no_temporary_file() {
        let dir = scratch("trip");
        let path = dir.join("sub").join("ids.json");
        let ids: BTreeMap<u32, String> = [(3, "AbCd1234".to_owned())].into();
        save_json(&path, &ids).expect("save");
        assert_eq!(load_json::<BTreeMap<u32, String>>(&path, "none"), Some(ids));
        assert_eq!(names(&dir.join("sub")), ["ids.json"]);
        remove(&path).expect("remove");
        remove(&path).expect("removing it again is no error");
        assert!(names(&dir.join("sub")).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_damaged_file_is_set_aside_with_its_bytes_kept() {
        let dir = scratch("damaged");
        let path = dir.join("round.json");
        std::fs::write(&path, "{ not json").expect("seed");
        assert_eq!(load_json::<u32>(&path, "the round is 1"), None);
        let names = names(&dir);
        assert_eq!(names.len(), 1, "{names:?}");
        assert!(names[0].starts_with("round.json.damaged-"), "{names:?}");
        let kept = std::fs::read_to_string(dir.join(&names[0])).expect("kept");
        assert_eq!(kept, "{ not json");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_the_parser_refuses_is_set_aside_too() {
        let dir = scratch("refused");
        let path = dir.join("round.json");
        std::fs::write(&path, "0").expect("seed");
        let positive = |t: &str| match t.trim().parse::<u32>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!("{t:?} is not a round")),
        };
        assert_eq!(load(&path, positive, "the round is 1"), None);
        assert!(!path.exists());
        assert_eq!(names(&dir).len(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_aside_name_is_the_utc_time_and_never_replaces_an_earlier_one() {
        let dir = scratch("name");
        let path = dir.join("attached.json");
        let at: jiff::Timestamp = "2026-11-28T06:01:02Z".parse().expect("time");
        std::fs::write(&path, "first").expect("seed");
        let one = set_aside(&path, at).expect("aside");
        assert_eq!(one, dir.join("attached.json.damaged-20261128T060102Z"));
        std::fs::write(&path, "second").expect("seed");
        let two = set_aside(&path, at).expect("aside");
        assert_eq!(two, dir.join("attached.json.damaged-20261128T060102Z-2"));
        assert_eq!(std::fs::read_to_string(one).expect("one"), "first");
        assert_eq!(std::fs::read_to_string(two).expect("two"), "second");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
